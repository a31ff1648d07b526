//! Tournaments: a folder of player folders in, a ranking that can be defended out, surviving a
//! reboot halfway.
//!
//! - [`players`]: who takes part (player folders with `info.txt`, built-in robots).
//! - [`schedule`], [`swiss`], [`matching`], [`plan`]: who plays whom, in which seat, with which
//!   seed — round-robin, gauntlet, groups, Swiss.
//! - the store (crate `arbiter-store`): tournaments, players, matches and ratings in SQLite or
//!   PostgreSQL.
//! - [`pool`]: plays the queued matches `jobs` at a time and commits each result.
//! - [`ratings`], [`standings`]: Elo or Weng-Lin, the table and its exports.
//! - [`replays`]: what is read back from a match's replay (turns, the compliance verdict).
//!
//! - [`setup`]: a new tournament (players, format, compliance check, stored settings).
//! - [`arena`]: [`arena::GameArena`], which plays the matches of any game of the catalog.

pub mod arena;
pub mod compliance;
pub mod matching;
pub mod plan;
pub mod players;
pub mod pool;
pub mod ratings;
pub mod replays;
pub mod schedule;
pub mod setup;
pub mod standings;
pub mod swiss;

use std::io;
use std::path::PathBuf;

pub use players::{Contestant, Status};
pub use pool::{Arena, PlayFailure, PoolEvent, RunOptions, RunSummary};
pub use schedule::Format;

#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    #[error("cannot read the players folder {dir}: {source}")]
    PlayersDir { dir: PathBuf, source: io::Error },
    #[error("player {id}: {message}")]
    Player { id: String, message: String },
    #[error("{0}")]
    Schedule(String),
    #[error(transparent)]
    Store(#[from] arbiter_store::StoreError),
    #[error("{0}")]
    TableSetup(String),
    #[error("{what}: {source}")]
    Io { what: String, source: io::Error },
}
