#![warn(missing_docs)]

//! The referee: runs one match between seats (bot programs, robots in process, later network
//! clients), keeping time banks, handling faults as the game's rules say, and recording a replay.
//!
//! - [`Seat`] is one player's connection: [`ProcessSeat`] runs a bot program, [`BuiltinSeat`] a
//!   robot in process. [`SeatSpec`] turns a command-line argument into either.
//! - [`run_match`] plays one match and returns a [`MatchReport`].
//!
//! A bot's faults (bad answers, timeouts, crashes) are data recorded in the replay and the
//! report, never errors: [`RefereeError`] is for the referee's own failures.

mod builtin;
mod folders;
mod judge;
mod process;
mod runner;
mod seat;
mod sorter;
mod spec;

use std::io;
use std::path::PathBuf;

use arbiter_text::quote;

pub use arbiter_games::Fault;
pub use builtin::BuiltinSeat;
pub use folders::{FolderPlayer, INFO_TXT, folder_player, read_player_folder, read_players_folder};
pub use judge::Commands;
pub use process::{ProcessSeat, split_command};
pub use runner::{BotReport, MatchConfig, MatchReport, RefereeError, TIMEOUT_ERROR, run_match};
pub use seat::{
    Ask, DiscardReason, Discarded, Down, ExitInfo, LOG_CAP, LOG_TRIMMED, Line, MAX_LINE, Reply,
    Seat, SeatKind,
};
pub use sorter::AnswerSorter;
pub use spec::SeatSpec;

/// Why a seat could not be opened.
#[derive(Debug, thiserror::Error)]
#[allow(missing_docs)] // Each variant's message, below it, says what it is.
pub enum SeatError {
    #[error("empty bot command")]
    EmptyCommand,
    // Commands, names and programs come from untrusted files: messages quote their beginning.
    #[error(
        "cannot split the command line `{}`: unbalanced quotes or a trailing backslash",
        quote(line)
    )]
    BadQuoting { line: String },
    #[error("`builtin:` needs a robot name, as in `builtin:NAME`")]
    EmptyRobotName,
    #[error("unknown robot `{}`", quote(name))]
    UnknownRobot { name: String },
    #[error("`builtin:{}` is a robot, not a program to start", quote(name))]
    NotAProcess { name: String },
    // The OS error is part of the message, not a `source`: a chain would print it twice.
    #[error("cannot read {path}: {error}")]
    InfoTxt { path: PathBuf, error: io::Error },
    #[error("{path}: expected three lines (alias, full name, command), found {found}")]
    ShortInfoTxt { path: PathBuf, found: usize },
    #[error("{path}: the {what} line is empty")]
    EmptyInfoLine { path: PathBuf, what: &'static str },
    #[error("cannot list the players folder {dir}: {error}")]
    PlayersFolder { dir: PathBuf, error: io::Error },
    #[error("no info.txt in {dir}")]
    NoInfoTxt { dir: PathBuf },
    // Says which file and why, never a byte read through a refused link.
    #[error("player folder {dir}: {refused}")]
    Refused {
        dir: PathBuf,
        refused: arbiter_folder::Refused,
    },
    #[error(
        "{path} is a link; a player folder must be a folder of the players folder (links \
         are not followed, they may lead to anyone's files)"
    )]
    LinkedFolder { path: PathBuf },
    #[error("cannot start `{}`: program not found", quote(program))]
    NotFound { program: String },
    #[error("cannot start `{}`: {error}", quote(program))]
    CannotStart { program: String, error: io::Error },
    #[error("cannot start the bot: {0}")]
    Sandbox(arbiter_sandbox::SandboxError),
    #[error(
        "{path}: the command `{}`, run as the course's judge ran it, cannot run here: {problem}",
        quote(command)
    )]
    JudgeCommand {
        path: PathBuf,
        command: String,
        problem: String,
    },
}
