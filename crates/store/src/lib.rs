//! Arbiter's database: tournaments (players, matches, byes, ratings) and the TCP game server's
//! teams and games, in one SQLite file (WAL) or one PostgreSQL database, through sqlx's `Any`
//! driver so that the same SQL serves both.
//!
//! The stores are async: [`TournamentStore`] for tournaments, [`GameServerStore`] for the game
//! server. Both open the database the same way (pragmas, migrations). Callers that are not
//! async — the tournament runner and its worker pool — use [`blocking::Store`], which runs
//! [`TournamentStore`] on a small runtime of its own.
//!
//! Player programs are stored too, as archives named by their hash ([`StoredProgram`]), so that
//! workers on other machines run what the tournament plays.
//! [`ArenaStore`] keeps the arena's users, teams, bots, versions and its queue of builds and
//! checks.
//! [`GameServers`] reads what running game servers publish of themselves ([`ServerStatus`]).
//! [`ReplayStore`] keeps the replays of matches and of game-server games in the database
//! (compressed, appended as they are written, by [`upload`]), so that they reach viewers on
//! other machines.
#![warn(missing_docs)]

pub mod arena;
pub mod blocking;
mod database;
mod game_server;
mod programs;
mod queue;
mod replays;
mod rows;
mod server_status;
mod tournaments;
pub mod upload;

use std::io;
use std::time::{SystemTime, UNIX_EPOCH};

pub use arena::{
    ArenaJob, ArenaMatchState, ArenaStore, Bot, ClaimedMatch, ClaimedSeat, ExpiredJob,
    ExpiredMatch, JobKind, LadderEntry, LadderView, MatchKind, MatchOutcome, MatchSummary,
    NewArenaMatch, PlaygroundOpponent, QueuedJob, RatingPoint, SeatPlayer, SeatSummary, Series,
    SeriesKind, Team, TokenInfo, User, Version, VersionState,
};
pub use database::Presence;
pub use game_server::{GameRecord, GameServerStore, ServerMode, Totals};
pub use programs::StoredProgram;
pub use queue::{Advance, Claimed, Counts, Expired, Handed, Round, Scope, Standing, WORK_CHANNEL};
pub use replays::{
    Chunk, MAX_CHUNK, MatchReplay, ReplayKey, ReplayStore, ServerReplay, StoredReplay,
};
pub use rows::{
    Contestant, Format, MatchRow, MatchState, NewMatch, RatingRow, SeatFaults, Status,
    StoredResult, Tournament,
};
pub use server_status::{
    GameServers, NextStart, RunningGame, Score, Seat, ServerStatus, TeamState, TeamStatus,
};
pub use tournaments::{Backend, TournamentStore};

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
    /// A replay chunk for a replay the store does not hold: it was never begun, or (for a
    /// match) a newer claim of its match replaced it.
    #[error("the store holds no replay of {key}{}", .key.replaced_hint())]
    NoReplay {
        /// Which replay.
        key: ReplayKey,
    },
    /// A replay chunk for a replay already marked complete.
    #[error("the replay of {key} is complete")]
    ReplayComplete {
        /// Which replay.
        key: ReplayKey,
    },
    /// A command that only reads or continues a store was given a file that does not exist.
    #[error("there is no store {} (`arbiter tournament run` creates one)", path.display())]
    NoStore {
        /// The file given.
        path: std::path::PathBuf,
    },
    /// The file is not a store at all.
    #[error("{} is not an Arbiter store ({what})", path.display())]
    NotAStore {
        /// The file given.
        path: std::path::PathBuf,
        /// What it is instead.
        what: &'static str,
    },
    /// The file is a SQLite database, but damaged (truncated, overwritten).
    #[error("{target} is damaged: {detail}")]
    Damaged {
        /// The file or URL given.
        target: String,
        /// What SQLite said.
        detail: String,
    },
    /// A command that writes the store was given one it cannot write.
    #[error(
        "{target} cannot be written (a read-only file, folder or disk), and this command \
         changes the store"
    )]
    ReadOnly {
        /// The file or URL given.
        target: String,
    },
    /// A store written by an older Arbiter, which needs bringing up to date, cannot be
    /// written.
    #[error(
        "{target} was written by an older Arbiter and cannot be written to bring it up to \
         date: a command that writes it (`arbiter tournament resume`) does that"
    )]
    Outdated {
        /// The file or URL given.
        target: String,
    },
    /// A name of a user, team or bot that may not be one.
    #[error("{name:?} cannot name a {kind}: {why}")]
    BadName {
        /// User, team or bot.
        kind: &'static str,
        /// The name given.
        name: String,
        /// Why not.
        why: String,
    },
    /// A name that is taken already (names differing only in case are one name).
    #[error("there is a {kind} named {name:?} already")]
    NameTaken {
        /// User, team, bot or invite code.
        kind: &'static str,
        /// The name given.
        name: String,
    },
    /// What a call names is not in the store.
    #[error("there is no {0} in the store")]
    NotFound(String),
    /// Only a version that passed its check may be a bot's active one.
    #[error("version {number} cannot play: it is {} (only a version that passed its check can)", .state.as_str())]
    NotPlayable {
        /// The version's number.
        number: i64,
        /// Its state.
        state: VersionState,
    },
    /// What was asked is against the arena's rules (a robot retired, a challenge of one's own
    /// bot, a rated match seating a version twice): the words say which rule.
    #[error("{0}")]
    NotAllowed(String),
    /// A team asked for more than its quota allows (challenge games per day).
    #[error("{what}: the quota is {limit} per day and {used} are taken in the last 24 hours")]
    OverQuota {
        /// What was asked.
        what: String,
        /// The quota.
        limit: u64,
        /// How much of it was taken already.
        used: u64,
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
    /// Whether trying again later may succeed: the database is out of reach for now (a
    /// dropped connection, a server restarting or refusing connections, SQLite busy), as
    /// opposed to a store that is wrong.
    pub fn is_transient(&self) -> bool {
        let StoreError::Query(error) = self else {
            return false;
        };
        match error {
            sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::Protocol(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::WorkerCrashed => true,
            sqlx::Error::Database(db) => db.code().is_some_and(|code| {
                // PostgreSQL: connection exceptions (08), shutting down or starting (57P),
                // serialization failure and deadlock (40). SQLite: busy and locked (5, 6 and
                // their extended codes).
                code.starts_with("08")
                    || code.starts_with("57P")
                    || code.starts_with("40")
                    || code.parse::<i32>().is_ok_and(|c| matches!(c & 0xff, 5 | 6))
            }),
            _ => false,
        }
    }

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
