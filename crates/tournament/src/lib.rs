//! Tournaments: a folder of player folders in, a ranking that can be defended out, surviving a
//! reboot halfway.
//!
//! The modules read top-down: each uses only modules listed after it (a test reading this
//! crate's source keeps it so).
//!
//! - [`setup`]: a new tournament (players, format, compliance check, stored settings).
//! - [`pool`]: plays the queued matches `jobs` at a time and commits each result.
//! - [`plan`]: which matches a tournament has — the schedule written when it is created, Swiss's
//!   next round — and what it needs as results come in.
//! - [`settings`]: what a tournament is stored with, so that it resumes as it started.
//! - [`sprt`]: SPRT tournaments — two players in pairs of games until a sequential test
//!   decides.
//! - [`standings`], [`ratings`]: the table and its exports; Elo or Weng-Lin.
//! - [`compliance`]: the check each player program passes before the first match.
//! - [`arena`]: [`arena::GameArena`], which plays the matches of any game of the catalog.
//! - [`programs`]: player folders stored in the store by hash, run from a local cache.
//! - [`schedule`], [`swiss`], [`matching`]: who plays whom, in which seat, with which seed —
//!   round-robin, gauntlet, groups, Swiss.
//! - [`replays`]: what is read back from a match's replay (turns, the compliance verdict).
//! - [`play`]: the [`Arena`] a game plays matches through, and why a match was not played.
//! - [`players`]: who takes part (player folders with `info.txt`, built-in robots).
//! - [`worker_name`]: how a worker is named in the store, and whether it is gone.
//!
//! Beside them, the store (crate `arbiter-store`) keeps tournaments, players, matches and
//! ratings in SQLite or PostgreSQL; a match's replay is sent to it as it is written
//! (PostgreSQL stores), by `arbiter_store::upload`.

#![warn(missing_docs)]

pub mod arena;
pub mod compliance;
pub mod matching;
#[cfg(test)]
mod module_graph;
pub mod plan;
pub mod play;
pub mod players;
pub mod pool;
pub mod programs;
pub mod ratings;
pub mod replays;
pub mod schedule;
pub mod settings;
pub mod setup;
pub mod sprt;
pub mod standings;
pub mod swiss;
pub mod worker_name;

use std::io;
use std::path::PathBuf;

pub use play::{Arena, PlayFailure};
pub use players::{Contestant, Status};
pub use pool::{Arenas, PoolEvent, RunOptions, RunSummary, Until};
pub use schedule::Format;
pub use setup::replays_cache;
pub use worker_name::WorkerName;

pub use arbiter_programs::cache::arbiter_dir as cache_dir;

/// A fresh, empty scratch folder for a unit test, removed when the test process exits.
#[cfg(test)]
pub(crate) fn scratch_dir(name: &str) -> PathBuf {
    arbiter_testdir::fresh(&format!("tournament-{name}"))
}

/// What can go wrong setting up or running a tournament.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    /// The players folder could not be listed.
    #[error("cannot read the players folder {dir}: {source}")]
    PlayersDir {
        /// The players folder.
        dir: PathBuf,
        /// The underlying I/O error.
        source: io::Error,
    },
    /// A player cannot be seated: e.g. its command cannot be split into arguments, or it is
    /// scheduled but no longer plays.
    #[error("player {id}: {message}")]
    Player {
        /// The player's id (or the players folder's path).
        id: String,
        /// What is wrong with it.
        message: String,
    },
    /// The tournament cannot be scheduled as asked (e.g. too few players, a missing challenger).
    #[error("{0}")]
    Schedule(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] arbiter_store::StoreError),
    /// The game's settings or time control are invalid.
    #[error("{0}")]
    TableSetup(String),
    /// A file could not be read or written.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The underlying I/O error.
        source: io::Error,
    },
}
