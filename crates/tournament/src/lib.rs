//! Tournaments: a folder of player folders in, a ranking that can be defended out, surviving a
//! reboot halfway.
//!
//! - [`players`]: who takes part (player folders with `info.txt`, built-in robots).
//! - [`schedule`], [`swiss`], [`matching`], [`plan`]: who plays whom, in which seat, with which
//!   seed — round-robin, gauntlet, groups, Swiss.
//! - [`store`]: tournaments, players, matches and ratings in SQLite or PostgreSQL.
//! - [`pool`]: plays the queued matches `jobs` at a time and commits each result.
//! - [`ratings`], [`standings`]: Elo or Weng-Lin, the table and its exports.
//! - [`replays`]: what is read back from a match's replay (turns, the compliance verdict).
//!
//! - [`setup`]: a new tournament (players, format, compliance check, stored settings).
//! - [`arena`]: [`arena::GameArena`], which plays the matches of any game of the catalog.

pub mod arena;
pub mod compliance;
pub mod lobby;
pub mod matching;
pub mod plan;
pub mod players;
pub mod pool;
pub mod ratings;
pub mod replays;
pub mod schedule;
pub mod setup;
pub mod standings;
pub mod store;
pub mod swiss;

use std::io;
use std::path::PathBuf;

pub use players::{Player, Status};
pub use pool::{Arena, Event, PlayFailure, RunOptions, RunSummary};
pub use schedule::Format;
pub use store::{MatchRow, MatchState, Store, Tournament};

#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    #[error("cannot read the players folder {dir}: {source}")]
    PlayersDir { dir: PathBuf, source: io::Error },
    #[error("player {id}: {message}")]
    Player { id: String, message: String },
    #[error("{0}")]
    Schedule(String),
    #[error("{0}")]
    Setup(String),
    #[error("cannot open the store {target}: {source}")]
    Open { target: String, source: sqlx::Error },
    #[error("cannot bring the store {target} up to date: {source}")]
    Migrate {
        target: String,
        source: sqlx::migrate::MigrateError,
    },
    #[error("store: {0}")]
    Store(#[from] sqlx::Error),
    #[error("the store holds something unexpected ({0}): was it written by a newer Arbiter?")]
    Corrupt(String),
    #[error("there is no tournament {0} in the store")]
    NoTournament(i64),
    #[error("{what}: {source}")]
    Io { what: String, source: io::Error },
}
