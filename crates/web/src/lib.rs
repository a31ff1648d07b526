//! Arbiter's HTTP server: the replay viewer, the tournament pages, live matches, and the JSON
//! API they are built on.
//!
//! [`app`] is the whole server as an axum `Router`, so tests call it without a socket; a
//! [`Server`] runs it on an address. The pages are static files from `viewer/`, embedded in the binary;
//! everything they show comes from `/api/`, whose routes and answers are described in
//! docs/http-api.md, the repository's HTTP API reference.

#![warn(missing_docs)]

mod assets;
mod body;
mod connections;
mod error;
pub mod export;
mod extract;
mod live;
mod record;
pub mod replays;
mod servers;
mod stored;
mod tail;
mod tournaments;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use arbiter_store::{GameServers, Presence, ReplayStore, StoreError, TournamentStore};
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};
use tower_http::compression::CompressionLayer;

pub use connections::serve as serve_router;
pub use error::AppError;
use error::AppResult;
use extract::{ApiPath, ApiQuery};
use replays::ReplayFiles;
pub use replays::{Loaded, ReplaySource, load};
pub use servers::{ServerView, StatusWatch};
use stored::ReplayAt;
use tournaments::MatchFilter;

/// The limits that keep the server's memory, threads and descriptors bounded whatever its
/// clients and its replay files do (docs/organisers.md says more).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections open at once; one more is answered 503 and closed at once.
    pub max_connections: usize,
    /// How long a connection may take to send a request head, new or kept alive between
    /// requests, before it is closed.
    pub idle_timeout: Duration,
    /// The most text read from one replay file, after decompression: a larger file is refused
    /// (a gzip bomb among them) with a message naming it and this limit.
    pub max_replay_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: 4096,
            idle_timeout: Duration::from_secs(30),
            max_replay_bytes: 1 << 30,
        }
    }
}

/// Descriptors kept for the store, replay files and the runtime besides connections.
const SPARE_DESCRIPTORS: usize = 128;

/// What the server shows: replay files, and the tournaments of a store.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

struct Inner {
    replays: ReplayFiles,
    store: Option<TournamentStore>,
    /// The tournaments' replays kept in the store, read where a match has one.
    stored: Option<ReplayStore>,
    /// The game servers of the store.
    servers: Option<ServerView>,
}

impl AppState {
    /// The state of a server showing `replays` and, if given, the tournaments of `store` (opened
    /// on the runtime that serves, as its connection belongs to that runtime), with the default
    /// cap on a replay's text.
    pub fn new(replays: ReplaySource, store: Option<TournamentStore>) -> AppState {
        AppState::with_replay_cap(replays, store, Limits::default().max_replay_bytes)
    }

    /// As [`AppState::new`], reading at most `cap` bytes of text (after decompression) from
    /// one replay file.
    pub fn with_replay_cap(
        replays: ReplaySource,
        store: Option<TournamentStore>,
        cap: u64,
    ) -> AppState {
        AppState::with_stored_replays(replays, store, None, cap)
    }

    /// As [`AppState::with_replay_cap`], reading a tournament match's replay from `stored`
    /// (the same database as `store`) where one is kept there: the matches workers play on
    /// other machines, with PostgreSQL.
    pub fn with_stored_replays(
        replays: ReplaySource,
        store: Option<TournamentStore>,
        stored: Option<ReplayStore>,
        cap: u64,
    ) -> AppState {
        AppState::with_game_servers(replays, store, stored, None, cap)
    }

    /// As [`AppState::with_stored_replays`], showing the game servers of `servers` too (the
    /// same database as `store`).
    pub fn with_game_servers(
        replays: ReplaySource,
        store: Option<TournamentStore>,
        stored: Option<ReplayStore>,
        servers: Option<ServerView>,
        cap: u64,
    ) -> AppState {
        AppState(Arc::new(Inner {
            replays: ReplayFiles::new(replays, cap),
            store,
            stored,
            servers,
        }))
    }

    /// The game servers, or why there are none.
    fn servers(&self) -> AppResult<&ServerView> {
        self.0.servers.as_ref().ok_or_else(|| {
            AppError::NotFound("this server shows no game server (start it with --db)".to_owned())
        })
    }

    /// The most text read from one replay file.
    fn cap(&self) -> u64 {
        self.0.replays.cap()
    }

    /// The replays kept in the store, or why there are none.
    fn stored(&self) -> AppResult<&ReplayStore> {
        self.0
            .stored
            .as_ref()
            .ok_or_else(|| AppError::Internal("a stored replay without a replay store".to_owned()))
    }

    /// The tournament store, or why there is none.
    fn store(&self) -> AppResult<&TournamentStore> {
        self.0.store.as_ref().ok_or_else(|| {
            AppError::NotFound(
                "this server has no tournament store (start it with --db)".to_owned(),
            )
        })
    }
}

/// The whole server: pages and API.
pub fn app(state: AppState) -> Router {
    let api = Router::new()
        .route("/info", get(info))
        .route("/replays", get(replay_list))
        .route("/replay", get(replay))
        .route("/replay/stream", get(replay_stream))
        .route("/live", get(live))
        .route("/tournaments", get(tournament_list))
        .route("/tournaments/{t}", get(tournament))
        .route("/tournaments/{t}/standings", get(standings))
        .route("/tournaments/{t}/players", get(players))
        .route("/tournaments/{t}/players/{p}", get(player))
        .route("/tournaments/{t}/players/{p}/check", get(check_replay))
        .route("/tournaments/{t}/matches", get(matches))
        .route("/tournaments/{t}/matches/{m}", get(one_match))
        .route("/tournaments/{t}/matches/{m}/replay", get(match_replay))
        .route(
            "/tournaments/{t}/matches/{m}/replay/stream",
            get(match_replay_stream),
        )
        .route("/tournaments/{t}/ratings", get(ratings))
        .route("/servers", get(server_list))
        .route("/servers/{game}", get(server_status))
        .route("/servers/{game}/events", get(server_events))
        .route("/servers/{game}/games", get(server_games))
        .route("/servers/{game}/games/{id}", get(server_game))
        .route("/servers/{game}/games/{id}/replay", get(server_replay))
        .route(
            "/servers/{game}/games/{id}/replay/stream",
            get(server_replay_stream),
        )
        .fallback(|| async { AppError::NotFound("no such API route".to_owned()) });
    Router::new()
        .nest("/api", api)
        .fallback(assets::serve)
        .with_state(state)
        // A replay's JSON shrinks about twentyfold; live streams (event streams) are left as
        // they are, so that each record reaches the page as soon as it is sent.
        .layer(CompressionLayer::new())
}

/// The runtime the server lives on: the store is opened on it first (see [`AppState::new`]),
/// then [`app`] served.
pub struct Server {
    runtime: tokio::runtime::Runtime,
}

impl Server {
    /// Starts the runtime.
    pub fn new() -> std::io::Result<Server> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        Ok(Server { runtime })
    }

    /// Opens the tournament store at `target` (as [`TournamentStore::open`]) on this runtime,
    /// to read: it must be there, and need not be writable.
    pub fn open_store(&self, target: &str) -> Result<TournamentStore, StoreError> {
        self.runtime
            .block_on(TournamentStore::open(target, Presence::ReadOnly))
    }

    /// Opens the game servers of the store at `target` on this runtime: to read (it must be
    /// there), or, for the viewer of a server starting in this process, creating it.
    pub fn open_game_servers(
        &self,
        target: &str,
        presence: Presence,
    ) -> Result<GameServers, StoreError> {
        self.runtime.block_on(GameServers::open(target, presence))
    }

    /// Opens the replays kept in the store at `target` (as [`ReplayStore::open`]) on this
    /// runtime, on a connection of their own, to read them: it need not be writable.
    pub fn open_replays(&self, target: &str) -> Result<ReplayStore, StoreError> {
        self.runtime
            .block_on(ReplayStore::open(target, Presence::ReadOnly))
    }

    /// Serves [`app`] on `addr` within `limits` until the process ends; `ready` is told the
    /// address bound (the port chosen, for port 0). The open-files limit is raised to the
    /// most the system allows, and the connections are capped below it.
    pub fn serve(
        self,
        addr: SocketAddr,
        state: AppState,
        mut limits: Limits,
        ready: impl FnOnce(SocketAddr),
    ) -> std::io::Result<()> {
        let descriptors = usize::try_from(arbiter_fdlimit::raise_fd_limit()).unwrap_or(usize::MAX);
        let room = descriptors.saturating_sub(SPARE_DESCRIPTORS).max(1);
        if descriptors > 0 && limits.max_connections > room {
            eprintln!(
                "arbiter serve: {} connections at most, not {}: the open-files limit is {descriptors}",
                room, limits.max_connections
            );
            limits.max_connections = room;
        }
        let result = self.runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            ready(listener.local_addr()?);
            connections::serve(listener, app(state), limits).await
        });
        // Followers of live replays may still be reading a step on blocking threads: do not
        // wait for them.
        self.runtime.shutdown_background();
        result
    }
}

async fn info(State(state): State<AppState>) -> AppResult<Json<Value>> {
    let replays = match state.0.replays.source() {
        ReplaySource::Dir(_) => "dir",
        ReplaySource::File(_) => "file",
        ReplaySource::None => "none",
    };
    let servers = match &state.0.servers {
        Some(view) => view.games().await?,
        None => Vec::new(),
    };
    Ok(Json(json!({
        "store": state.0.store.is_some(),
        "replays": replays,
        "servers": servers,
        "version": env!("CARGO_PKG_VERSION"),
        "games": games(),
    })))
}

/// The games of the catalog, with the viewer renderer of each.
fn games() -> Value {
    use arbiter_catalog::Catalog;
    arbiter_catalog::Games::games()
        .iter()
        .map(|g| json!({"name": g.name, "renderer": g.renderer, "robots": g.robots}))
        .collect()
}

async fn replay_list(State(state): State<AppState>) -> AppResult<Json<Value>> {
    let list = tokio::task::spawn_blocking(move || state.0.replays.list()).await?;
    Ok(Json(json!(list)))
}

#[derive(Deserialize)]
struct ReplayQuery {
    id: Option<String>,
    from: Option<usize>,
}

impl ReplayQuery {
    fn id(&self) -> AppResult<&str> {
        self.id
            .as_deref()
            .ok_or_else(|| AppError::BadRequest("say which replay: ?id=…".to_owned()))
    }
}

/// Answers a replay as JSON, sent as it is read: the replay is checked whole first (a file
/// once while it stays unchanged), so that damage or a limit is an HTTP error, not an answer
/// cut short.
async fn replay_response(state: AppState, at: ReplayAt) -> AppResult<Response> {
    match &at {
        ReplayAt::File(path) => {
            let checked = path.clone();
            let files = state.clone();
            tokio::task::spawn_blocking(move || files.0.replays.check(&checked)).await??;
        }
        ReplayAt::Stored(key) => {
            let stored = state.stored()?;
            replays::check_stored(key, stored, state.cap()).await?;
        }
    }
    let body = body::replay_body(at, state.0.stored.as_ref(), state.cap()).await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

async fn replay(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<ReplayQuery>,
) -> AppResult<Response> {
    let path = state.0.replays.resolve(query.id()?)?;
    replay_response(state, ReplayAt::File(path)).await
}

/// Where a follower starts: after the last event it saw (a reconnection) or after `from`.
fn resume_from(headers: &HeaderMap, from: Option<usize>) -> usize {
    headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .or(from)
        .unwrap_or(0)
}

async fn replay_stream(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<ReplayQuery>,
    headers: HeaderMap,
) -> AppResult<Response> {
    let path = state.0.replays.resolve(query.id()?)?;
    let from = resume_from(&headers, query.from);
    Ok(live::follow(ReplayAt::File(path), None, from, state.cap()).into_response())
}

async fn live(State(state): State<AppState>) -> AppResult<Json<Value>> {
    let mut out = Vec::new();
    if let Some(store) = &state.0.store {
        for m in tournaments::running(store).await? {
            out.push(json!({"kind": "match", "match": m}));
        }
    }
    let files = {
        let state = state.clone();
        tokio::task::spawn_blocking(move || state.0.replays.list()).await?
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    for file in files {
        // One that has not grown for longer is stalled, as its followers are told.
        let recent = now - file.modified < live::stalled_after().as_millis() as i64;
        // Tournament replays are listed above, by match.
        if !file.complete && file.problem.is_none() && recent && !is_tournament_match(&file.id) {
            out.push(json!({"kind": "file", "replay": file}));
        }
    }
    Ok(Json(Value::Array(out)))
}

/// Whether a file id is one the tournament worker pool writes (`t1/m00007.jsonl.gz`).
fn is_tournament_match(id: &str) -> bool {
    let name = id.rsplit('/').next().unwrap_or(id);
    name.strip_prefix('m')
        .and_then(|rest| rest.strip_suffix(".jsonl.gz"))
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

async fn tournament_list(State(state): State<AppState>) -> AppResult<Json<Value>> {
    match &state.0.store {
        Some(store) => Ok(Json(tournaments::list(store).await?)),
        None => Ok(Json(json!([]))),
    }
}

async fn tournament(
    State(state): State<AppState>,
    ApiPath(t): ApiPath<i64>,
) -> AppResult<Json<Value>> {
    Ok(Json(tournaments::overview(state.store()?, t).await?))
}

async fn standings(
    State(state): State<AppState>,
    ApiPath(t): ApiPath<i64>,
) -> AppResult<Json<Value>> {
    Ok(Json(tournaments::standings(state.store()?, t).await?))
}

async fn players(
    State(state): State<AppState>,
    ApiPath(t): ApiPath<i64>,
) -> AppResult<Json<Value>> {
    Ok(Json(tournaments::players(state.store()?, t).await?))
}

async fn player(
    State(state): State<AppState>,
    ApiPath((t, p)): ApiPath<(i64, String)>,
) -> AppResult<Json<Value>> {
    Ok(Json(tournaments::player(state.store()?, t, p).await?))
}

async fn check_replay(
    State(state): State<AppState>,
    ApiPath((t, p)): ApiPath<(i64, String)>,
) -> AppResult<Response> {
    let at = tournaments::check_replay(state.store()?, t, &p).await?;
    replay_response(state, at).await
}

async fn matches(
    State(state): State<AppState>,
    ApiPath(t): ApiPath<i64>,
    ApiQuery(filter): ApiQuery<MatchFilter>,
) -> AppResult<Json<Value>> {
    Ok(Json(
        tournaments::matches(state.store()?, t, &filter).await?,
    ))
}

async fn one_match(
    State(state): State<AppState>,
    ApiPath((t, m)): ApiPath<(i64, i64)>,
) -> AppResult<Json<Value>> {
    Ok(Json(tournaments::one_match(state.store()?, t, m).await?))
}

async fn match_replay(
    State(state): State<AppState>,
    ApiPath((t, m)): ApiPath<(i64, i64)>,
) -> AppResult<Response> {
    let at = tournaments::match_replay(state.store()?, state.0.stored.as_ref(), t, m).await?;
    replay_response(state, at).await
}

async fn match_replay_stream(
    State(state): State<AppState>,
    ApiPath((t, m)): ApiPath<(i64, i64)>,
    ApiQuery(query): ApiQuery<ReplayQuery>,
    headers: HeaderMap,
) -> AppResult<Response> {
    let at = tournaments::match_replay(state.store()?, state.0.stored.as_ref(), t, m).await?;
    let from = resume_from(&headers, query.from);
    let stored = state.0.stored.clone();
    Ok(live::follow(at, stored, from, state.cap()).into_response())
}

async fn ratings(
    State(state): State<AppState>,
    ApiPath(t): ApiPath<i64>,
) -> AppResult<Json<Value>> {
    Ok(Json(tournaments::ratings(state.store()?, t).await?))
}

async fn server_list(State(state): State<AppState>) -> AppResult<Json<Value>> {
    match &state.0.servers {
        Some(view) => Ok(Json(servers::list(view).await?)),
        None => Ok(Json(json!([]))),
    }
}

async fn server_status(
    State(state): State<AppState>,
    ApiPath(game): ApiPath<String>,
) -> AppResult<Json<arbiter_store::ServerStatus>> {
    Ok(Json(state.servers()?.status(&game).await?))
}

async fn server_events(
    State(state): State<AppState>,
    ApiPath(game): ApiPath<String>,
) -> AppResult<Response> {
    let view = state.servers()?.clone();
    // An unknown game is a 404 here, not an event stream that fails.
    view.status(&game).await?;
    Ok(servers::events(view, game).into_response())
}

async fn server_games(
    State(state): State<AppState>,
    ApiPath(game): ApiPath<String>,
) -> AppResult<Json<Value>> {
    Ok(Json(servers::finished(state.servers()?, &game).await?))
}

async fn server_game(
    State(state): State<AppState>,
    ApiPath((game, id)): ApiPath<(String, i64)>,
) -> AppResult<Json<Value>> {
    Ok(Json(servers::one(state.servers()?, &game, id).await?))
}

async fn server_replay(
    State(state): State<AppState>,
    ApiPath((game, id)): ApiPath<(String, i64)>,
) -> AppResult<Response> {
    let at = servers::replay(state.servers()?, state.0.stored.as_ref(), &game, id).await?;
    replay_response(state, at).await
}

async fn server_replay_stream(
    State(state): State<AppState>,
    ApiPath((game, id)): ApiPath<(String, i64)>,
    ApiQuery(query): ApiQuery<ReplayQuery>,
    headers: HeaderMap,
) -> AppResult<Response> {
    let at = servers::replay(state.servers()?, state.0.stored.as_ref(), &game, id).await?;
    let from = resume_from(&headers, query.from);
    let stored = state.0.stored.clone();
    Ok(live::follow(at, stored, from, state.cap()).into_response())
}
