//! Arbiter's database: tournaments (players, matches, byes, ratings) and the TCP game server's
//! teams and games, in one SQLite file (WAL) or one PostgreSQL database, through sqlx's `Any`
//! driver so that the same SQL serves both.
//!
//! The stores are async: [`TournamentStore`] for tournaments, [`GameServerStore`] for the game
//! server. Both open the database the same way (pragmas, migrations). Callers that are not
//! async — the tournament runner and its worker pool — use [`blocking::Store`], which runs
//! [`TournamentStore`] on a small runtime of its own.
//!
//! [`ReplayStore`] keeps match replays in the database (compressed, appended as they are
//! written), so that they reach viewers on other machines.
#![warn(missing_docs)]

pub mod blocking;
mod database;
mod game_server;
mod replays;
mod rows;
mod tournaments;

use std::io;
use std::time::{SystemTime, UNIX_EPOCH};

pub use database::Presence;
pub use game_server::{GameRecord, GameServerStore, ServerMode, Totals};
pub use replays::{Chunk, MAX_CHUNK, ReplayKey, ReplayStore, StoredReplay};
pub use rows::{
    Contestant, Format, MatchRow, MatchState, NewMatch, RatingRow, SeatFaults, Status,
    StoredResult, Tournament,
};
pub use tournaments::TournamentStore;

/// What can go wrong with the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be reached or created.
    #[error("cannot open the store {target}: {source}")]
    Open {
        /// The URL or file given.
        target: String,
        /// What the driver said.
        source: sqlx::Error,
    },
    /// The database's tables could not be brought to this version.
    #[error("cannot bring the store {target} up to date: {source}")]
    Migrate {
        /// The URL or file given.
        target: String,
        /// What the migrator said.
        source: sqlx::migrate::MigrateError,
    },
    /// A query failed.
    #[error("store: {0}")]
    Query(#[from] sqlx::Error),
    /// A value read back is not one this version writes.
    #[error("the store holds something unexpected ({0}): was it written by a newer Arbiter?")]
    Corrupt(String),
    /// No tournament has this id.
    #[error("there is no tournament {0} in the store")]
    NoTournament(i64),
    /// A replay chunk for a replay the store does not hold: it was never begun, or a newer
    /// claim of its match replaced it.
    #[error(
        "the store holds no replay of match {match_id} of tournament {tournament} for claim \
         {claim} (was the match claimed again?)"
    )]
    NoReplay {
        /// The tournament's id.
        tournament: i64,
        /// The match's id.
        match_id: i64,
        /// The claim the replay belongs to.
        claim: i64,
    },
    /// A replay chunk for a replay already marked complete.
    #[error(
        "the replay of match {match_id} of tournament {tournament} (claim {claim}) is complete"
    )]
    ReplayComplete {
        /// The tournament's id.
        tournament: i64,
        /// The match's id.
        match_id: i64,
        /// The claim the replay belongs to.
        claim: i64,
    },
    /// A command that only reads or continues a store was given a file that does not exist.
    #[error("there is no store {} (`arbiter tournament run` creates one)", path.display())]
    NoStore {
        /// The file given.
        path: std::path::PathBuf,
    },
    /// A file or folder next to the store, or the blocking facade's runtime.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// Why it failed.
        source: io::Error,
    },
}

impl StoreError {
    fn io(what: impl Into<String>) -> impl FnOnce(io::Error) -> StoreError {
        let what = what.into();
        move |source| StoreError::Io { what, source }
    }
}

/// The time now in Unix milliseconds, as the store keeps times.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
