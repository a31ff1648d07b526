//! The TCP game server (`arbiter game-server`): teams log in over TCP, the session plays a game
//! every interval with every idle client, robots fill the empty seats, and every team's test
//! and live totals are kept in the store so that a restarted server goes on where it was.
//!
//! - [`accounts`]: the accounts file (argon2 hashes).
//! - [`conn`]: one connection, with bounded buffers both ways and capped lines.
//! - [`seat`]: [`TcpSeat`], a connected client as a seat of the referee.
//! - [`board`]: the server's status for its viewers, published as it changes.
//! - [`server`]: logins, the schedule, the after-game blocks ([`serve`]).
//! - [`order`]: who sits where (test order, the final's live order, parallel tables).
//! - [`latency`]: turn latency samples.
//!
//! Password checks run on the bounded argon2 pool of crate `arbiter-logins`, and failed logins
//! are throttled per address and per team by its throttle.

#![warn(missing_docs)]

pub mod accounts;
pub mod board;
pub mod conn;
pub mod latency;
pub mod order;
pub mod seat;
pub mod server;

pub use accounts::Accounts;
pub use board::StatusFeed;
pub use latency::{Latencies, Samples, percentile};
pub use seat::TcpSeat;
pub use server::{GameSetup, ServerConfig, Summary, serve, standings};

/// What can stop the game server.
#[derive(Debug, thiserror::Error)]
pub enum GameServerError {
    /// The accounts file or a team name or password in it is invalid.
    #[error("accounts: {0}")]
    Accounts(String),
    /// A file could not be read or written.
    #[error("{what}: {source}")]
    Io {
        /// What was being done, e.g. `reading accounts.toml`.
        what: String,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// The store (team totals, games played) failed.
    #[error(transparent)]
    Store(#[from] arbiter_store::StoreError),
    /// A bug or a panicked task inside the server.
    #[error("{0}")]
    Internal(String),
}

/// Runs a server on `listener` on a runtime of its own until its session is over or the
/// process is interrupted (Ctrl-C); the standings then. Replays go to `config.replays`, by
/// default to `replays/` next to a SQLite `db`.
pub fn run<G: arbiter_catalog::CatalogGame>(
    listener: std::net::TcpListener,
    accounts: Accounts,
    db: &str,
    mut config: ServerConfig,
    settings: G::Settings,
    latencies: std::sync::Arc<Latencies>,
) -> Result<Summary, GameServerError> {
    let io = |what: &str| {
        let what = what.to_owned();
        move |source| GameServerError::Io { what, source }
    };
    // With PostgreSQL, viewers on other machines read the replays from the store. Opened
    // before the server's runtime: its calls block, on a runtime of its own.
    let uploads = if arbiter_store::blocking::is_postgres(db) {
        let presence = arbiter_store::Presence::MayCreate;
        let replays = arbiter_store::blocking::ReplayStore::open(db, presence)?;
        Some(std::sync::Arc::new(replays))
    } else {
        None
    };
    // Its runtime may not be dropped on the server's: held here until that one is gone.
    let keep_uploads = uploads.clone();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(io("starting the runtime"))?;
    let summary = runtime.block_on(async {
        listener
            .set_nonblocking(true)
            .map_err(io("setting up the listener"))?;
        let listener =
            tokio::net::TcpListener::from_std(listener).map_err(io("setting up the listener"))?;
        let store = arbiter_store::GameServerStore::open(db, G::NAME).await?;
        if config.replays.is_none()
            && let Some(dir) = store.file().and_then(|f| f.parent())
        {
            config.replays = Some(dir.join("replays"));
        }
        // The store names each game's replay: absolute, so that a viewer started elsewhere
        // finds it.
        config.replays = config
            .replays
            .map(|dir| std::path::absolute(&dir).unwrap_or(dir));
        tokio::select! {
            summary = serve::<G>(listener, accounts, store, uploads, config, settings, latencies) => summary,
            _ = tokio::signal::ctrl_c() => {
                let store = arbiter_store::GameServerStore::open(db, G::NAME).await?;
                Ok(Summary {
                    games: 0,
                    standings: standings(&store.totals().await?),
                    interrupted: true,
                })
            }
        }
    });
    drop(runtime);
    drop(keep_uploads);
    summary
}

/// Waits until the process is interrupted (Ctrl-C): a viewer of a finished session stays up
/// until then.
pub fn wait_for_interrupt() -> Result<(), GameServerError> {
    let io = |source| GameServerError::Io {
        what: "waiting for Ctrl-C".into(),
        source,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(io)?;
    runtime.block_on(tokio::signal::ctrl_c()).map_err(io)
}

/// The standings kept in `db` for the server of `game`.
pub fn stored_standings(db: &str, game: &str) -> Result<Vec<(String, f64, f64)>, GameServerError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| GameServerError::Io {
            what: "starting the runtime".into(),
            source,
        })?;
    runtime.block_on(async {
        let store = arbiter_store::GameServerStore::open(db, game).await?;
        Ok(standings(&store.totals().await?))
    })
}
