//! The arena: bot authors sign up, make teams and bots, hand in versions (a source file or an
//! archive of a player folder) from the browser or the command line, and follow them as they
//! are built and checked by workers.
//!
//! [`app`] is the arena's HTTP service as an axum `Router` (tests call it without a socket);
//! [`serve`] runs it on a listener with the web server's connection limits. Its pages are the
//! viewer's (`viewer/arena*.html`), embedded in the binary; everything they show comes from the
//! JSON API under `/api/arena/`, described route by route in [`routes`].
//!
//! Who may see and do what is decided in one place, [`access`]; replays served to a stranger
//! are redacted in one place, [`redact`].

#![warn(missing_docs)]

pub mod access;
mod accounts;
mod admin;
mod assets;
mod bots;
pub mod error;
mod events;
mod extract;
mod guard;
pub mod ladder;
mod logins;
pub mod redact;
pub mod routes;
mod sessions;
mod upload;
pub mod work;

use std::future::Future;
use std::sync::Arc;

use arbiter_builds::Languages;
use arbiter_programs::upload::UploadLimits;
use arbiter_store::{ArenaStore, User};
use axum::Router;
use axum::middleware::from_fn_with_state;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::{Notify, Semaphore};

use crate::access::Viewer;
use crate::error::{AppError, AppResult};
pub use crate::sessions::Sessions;

/// A game the arena offers, with the settings its checks and games are played with.
#[derive(Clone, Debug)]
pub struct OfferedGame {
    /// The catalog's name of the game (`quoridor`).
    pub name: String,
    /// Its settings, as the game's JSON (`{}`: the defaults).
    pub settings: Value,
}

impl OfferedGame {
    /// Every game of the catalog, with its default settings.
    pub fn every() -> Vec<OfferedGame> {
        use arbiter_catalog::Catalog;
        arbiter_catalog::Games::games()
            .iter()
            .map(|g| OfferedGame {
                name: g.name.to_owned(),
                settings: Value::Object(Default::default()),
            })
            .collect()
    }
}

/// The operator's choices.
#[derive(Clone)]
pub struct ArenaConfig {
    /// The games bots may be made for.
    pub games: Vec<OfferedGame>,
    /// Whether anyone may sign up; else only with an invite code (`arbiter arena invite`).
    pub open_signup: bool,
    /// Whether every replay's logs (stderr, `#draw` lines) are shown to everyone, not only to
    /// the bot's team and the admins.
    pub public_logs: bool,
    /// Limits on an uploaded archive's unpacked contents.
    pub limits: UploadLimits,
    /// The most bytes of one upload request (default 8 MiB).
    pub max_upload_bytes: usize,
    /// Versions one user may upload in 24 hours (default 50).
    pub uploads_per_day: u32,
    /// Whether the session cookie is sent over TLS only (set behind an HTTPS reverse proxy).
    pub secure_cookies: bool,
    /// Event streams (`…/events`) open at once; one more is answered 503 (default 256).
    pub max_streams: usize,
    /// The languages a source file may be in (by its extension), as the builds know them.
    pub languages: Arc<Languages>,
    /// Connections open at once and how long one may idle, as the web server's.
    pub connections: arbiter_web::Limits,
    /// Told when a version is handed in: the worker of this process (its
    /// [`work::WorkOptions::wake`]) starts its build at once instead of at its next look.
    pub wake: Option<Arc<Notify>>,
}

impl Default for ArenaConfig {
    fn default() -> ArenaConfig {
        ArenaConfig {
            games: OfferedGame::every(),
            open_signup: true,
            public_logs: false,
            limits: UploadLimits::default(),
            max_upload_bytes: 8 << 20,
            uploads_per_day: 50,
            secure_cookies: false,
            max_streams: 256,
            languages: Arc::new(Languages::defaults()),
            connections: arbiter_web::Limits::default(),
            wake: None,
        }
    }
}

/// Why the arena's service could not start.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The sessions' table in the store's database could not be reached or made.
    #[error("cannot open the sessions' table: {0}")]
    Sessions(sqlx::Error),
    /// The threads checking passwords could not be started.
    #[error("cannot start the threads that check passwords: {0}")]
    Threads(std::io::Error),
}

/// What the handlers share: the store, the sessions, the password checks and the limits.
#[derive(Clone)]
pub struct ArenaState(Arc<Inner>);

struct Inner {
    store: ArenaStore,
    sessions: Sessions,
    config: ArenaConfig,
    logins: logins::Logins,
    streams: Arc<Semaphore>,
}

impl ArenaState {
    /// The arena on `store`, its sessions kept in the same database (`target`, as the store
    /// was opened on it): opens the sessions' pool and makes their table if missing. Call it
    /// on the runtime that serves.
    pub async fn open(
        store: ArenaStore,
        target: &str,
        config: ArenaConfig,
    ) -> Result<ArenaState, OpenError> {
        let sessions = Sessions::open(target).await.map_err(OpenError::Sessions)?;
        let streams = Arc::new(Semaphore::new(config.max_streams.max(1)));
        Ok(ArenaState(Arc::new(Inner {
            store,
            sessions,
            config,
            logins: logins::Logins::start().map_err(OpenError::Threads)?,
            streams,
        })))
    }

    /// The store.
    pub fn store(&self) -> &ArenaStore {
        &self.0.store
    }

    /// The operator's choices.
    pub fn config(&self) -> &ArenaConfig {
        &self.0.config
    }

    fn logins(&self) -> &logins::Logins {
        &self.0.logins
    }

    /// The offered game named `name`, or the error naming the offered ones.
    fn game(&self, name: &str) -> AppResult<&OfferedGame> {
        let games = &self.0.config.games;
        games.iter().find(|g| g.name == name).ok_or_else(|| {
            let names: Vec<&str> = games.iter().map(|g| g.name.as_str()).collect();
            AppError::NotFound(format!(
                "this arena offers no game {name:?} (it offers: {})",
                names.join(", ")
            ))
        })
    }

    /// The viewer a signed-in user is, with their teams.
    async fn viewer_of(&self, user: User) -> AppResult<Viewer> {
        let teams = self.store().teams_of(user.id).await?;
        Ok(Viewer::User {
            user,
            teams: teams.iter().map(|t| t.id).collect(),
        })
    }
}

/// The whole arena: pages and API. Requests pass the guard (who is asking; refusing other
/// sites' requests) inside the sessions' layer.
pub fn app(state: ArenaState) -> Router {
    let secure = state.config().secure_cookies;
    let layer = state.0.sessions.layer(secure);
    Router::new()
        .nest("/api/arena", routes::api(&state))
        .fallback(assets::serve)
        .layer(from_fn_with_state(state.clone(), guard::guard))
        .layer(layer)
        .with_state(state)
}

/// Serves [`app`] on `listener` with the web server's limits on connections, until
/// `shutdown` completes; ended sessions are removed from the store now and then meanwhile.
pub async fn serve(
    listener: TcpListener,
    state: ArenaState,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let sessions = state.0.sessions.clone();
    let sweeper = tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(3600));
        loop {
            every.tick().await;
            if let Err(e) = sessions.delete_expired().await {
                eprintln!("arbiter arena: removing ended sessions: {e}");
            }
        }
    });
    let limits = state.config().connections;
    let result = tokio::select! {
        served = arbiter_web::serve_router(listener, app(state), limits) => served,
        () = shutdown => Ok(()),
    };
    sweeper.abort();
    result
}
