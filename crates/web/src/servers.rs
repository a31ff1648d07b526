//! The game servers of the store (`arbiter server`): what each shows of itself — teams,
//! scoreboard, running games, next start — and the games it finished, with their replays.
//!
//! The status comes from the server's own process when the viewer runs in it
//! (`arbiter server --web`), else from the store, where the server publishes it as it changes.
//! `/api/servers/{game}/events` sends it as server-sent events (`status`, each time it
//! changes; `failure` if it cannot be read, then nothing more).

use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use arbiter_store::{GameRecord, GameServers, ReplayKey, ReplayStore, ServerReplay, ServerStatus};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use serde_json::{Value, json};
use tokio::sync::watch;

use crate::error::{AppError, AppResult};
use crate::stored::ReplayAt;

/// The status of the game server in this process, as it publishes it: `None` until its first.
pub type StatusWatch = watch::Receiver<Option<Arc<ServerStatus>>>;

/// A status read from the store is read again this often by a follower.
const POLL_STORE: Duration = Duration::from_secs(1);

/// Where the pages read the game servers from.
#[derive(Clone)]
pub struct ServerView {
    servers: GameServers,
    here: Option<StatusWatch>,
}

impl ServerView {
    /// The game servers of a store; `here` is the status of the one running in this process.
    pub fn new(servers: GameServers, here: Option<StatusWatch>) -> ServerView {
        ServerView { servers, here }
    }

    /// The games whose server has a status.
    pub async fn games(&self) -> AppResult<Vec<String>> {
        let mut games = self.servers.games().await?;
        if let Some(status) = self.here.as_ref().and_then(|w| w.borrow().clone())
            && !games.contains(&status.game)
        {
            games.push(status.game.clone());
        }
        Ok(games)
    }

    /// The status of `game`'s server.
    pub async fn status(&self, game: &str) -> AppResult<ServerStatus> {
        if let Some(status) = self.here.as_ref().and_then(|w| w.borrow().clone())
            && status.game == game
        {
            return Ok((*status).clone());
        }
        self.servers.status(game).await?.ok_or_else(|| {
            AppError::NotFound(format!("there is no game server of {game:?} in this store"))
        })
    }

    /// The finished games of `game`'s server, newest first.
    async fn finished(&self, game: &str) -> AppResult<Vec<GameRecord>> {
        self.status(game).await?;
        let mut games = self.servers.server(game).games().await?;
        games.reverse();
        Ok(games)
    }

    /// Waits until the status may have changed.
    async fn wait(here: &mut Option<StatusWatch>) {
        match here {
            Some(watch) => {
                let _ = tokio::time::timeout(POLL_STORE, watch.changed()).await;
            }
            None => tokio::time::sleep(POLL_STORE).await,
        }
    }
}

/// Every game server: its game, mode, whether its session is over, and its games.
pub async fn list(view: &ServerView) -> AppResult<Value> {
    let mut out = Vec::new();
    for game in view.games().await? {
        let s = view.status(&game).await?;
        out.push(json!({
            "game": s.game, "mode": s.mode, "over": s.over, "played": s.played,
            "running": s.running.len(), "teams": s.teams.len(),
        }));
    }
    Ok(Value::Array(out))
}

fn finished_json(game: &GameRecord) -> Value {
    let seats: Vec<Value> = game
        .seats
        .iter()
        .zip(&game.teams)
        .zip(&game.points)
        .map(|((name, team), points)| json!({"name": name, "team": team, "points": points}))
        .collect();
    json!({
        "id": game.id, "state": "finished", "round": game.round, "mode": game.mode,
        "level": game.level, "seats": seats, "reason": game.reason,
        "replay": game.replay.is_some(),
    })
}

/// The finished games of `game`'s server, newest first.
pub async fn finished(view: &ServerView, game: &str) -> AppResult<Value> {
    let games = view.finished(game).await?;
    Ok(games.iter().map(finished_json).collect())
}

/// One game of `game`'s server, running or finished, and where its replay is.
async fn find(view: &ServerView, game: &str, id: i64) -> AppResult<(Value, Option<String>)> {
    let status = view.status(game).await?;
    if let Some(running) = status.running.iter().find(|g| g.id == id) {
        let mut value = json!(running);
        value["state"] = json!("running");
        value["replay"] = json!(running.replay.is_some());
        return Ok((value, running.replay.clone()));
    }
    let games = view.finished(game).await?;
    match games.iter().find(|g| g.id == id) {
        Some(record) => Ok((finished_json(record), record.replay.clone())),
        None => Err(AppError::NotFound(format!(
            "the {game} server has no game {id} (neither running nor finished)"
        ))),
    }
}

/// One game of `game`'s server.
pub async fn one(view: &ServerView, game: &str, id: i64) -> AppResult<Value> {
    Ok(find(view, game, id).await?.0)
}

/// Where the replay of one game of `game`'s server is read: its file, where it is on this
/// machine, else the copy the server keeps in the store (`stored`; a PostgreSQL store).
pub async fn replay(
    view: &ServerView,
    stored: Option<&ReplayStore>,
    game: &str,
    id: i64,
) -> AppResult<ReplayAt> {
    let Some(path) = find(view, game, id).await?.1 else {
        return Err(AppError::NotFound(format!(
            "game {id} of the {game} server has no replay: the server wrote none"
        )));
    };
    let path = PathBuf::from(path);
    if path.is_file() {
        return Ok(ReplayAt::File(path));
    }
    let key = ReplayKey::from(ServerReplay {
        game: game.to_owned(),
        id,
    });
    if let Some(store) = stored
        && store.replay(&key).await?.is_some()
    {
        return Ok(ReplayAt::Stored(key));
    }
    Err(AppError::NotFound(format!(
        "the replay of game {id} of the {game} server is neither on this machine nor in the \
         store (only a server on PostgreSQL keeps its replays there)"
    )))
}

/// The status of `game`'s server now and each time it changes, as server-sent events.
pub fn events(
    view: ServerView,
    game: String,
) -> Sse<impl Stream<Item = Result<Event, Infallible>> + Send + 'static> {
    let here = view.here.clone();
    let start = (view, game, here, None::<ServerStatus>, false);
    let stream =
        futures_util::stream::unfold(start, |(view, game, mut here, last, ended)| async move {
            if ended {
                return None;
            }
            let mut first = last.is_none();
            loop {
                if !first {
                    ServerView::wait(&mut here).await;
                }
                first = false;
                match view.status(&game).await {
                    Ok(status) if last.as_ref() == Some(&status) => continue,
                    Ok(status) => {
                        // Fields in the order of the type, as `/api/servers/{game}` has them.
                        let text = serde_json::to_string(&status).unwrap_or_default();
                        let event = Event::default().event("status").data(text);
                        return Some((Ok(event), (view, game, here, Some(status), false)));
                    }
                    Err(e) => {
                        let event = Event::default().event("failure").data(e.public_message());
                        return Some((Ok(event), (view, game, here, last, true)));
                    }
                }
            }
        });
    Sse::new(stream).keep_alive(KeepAlive::default())
}
