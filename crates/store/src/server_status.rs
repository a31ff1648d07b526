//! What a running game server shows of itself: its teams, scoreboard, the games being played
//! and the next start ([`ServerStatus`]), kept as one JSON document per game and replaced as it
//! changes, so that a viewer in another process (or, with PostgreSQL, on another machine) shows
//! the same as one in the server's own process. [`GameServers`] reads them back with the games
//! each server finished.

use serde::{Deserialize, Serialize};
use sqlx::{AnyPool, Row};

use crate::database::{Presence, connect};
use crate::game_server::{GameServerStore, ServerMode};
use crate::{StoreError, now_ms};

/// A game server as its viewers see it at one moment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServerStatus {
    /// The game it hosts.
    pub game: String,
    /// Test games or the final's live games.
    pub mode: ServerMode,
    /// No more games will be played in this session.
    pub over: bool,
    /// When the session began (Unix ms).
    pub started: i64,
    /// Games finished and recorded in the store, in every session.
    pub played: u64,
    /// Every team known: in the accounts file, logged in during this session or holding
    /// totals.
    pub teams: Vec<TeamStatus>,
    /// The teams with totals, ranked as the final ranks them (live score, then test score,
    /// then name): the order `arbiter server --standings` prints.
    pub scoreboard: Vec<Score>,
    /// The games being played now, by id.
    pub running: Vec<RunningGame>,
    /// The next start, unless the session is over.
    pub next: Option<NextStart>,
}

/// Where a team is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TeamState {
    /// Logged in, waiting for the next game.
    Idle,
    /// Logged in and seated at a game.
    Playing,
    /// Not connected.
    Disconnected,
}

/// One team's connection.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TeamStatus {
    /// Its name.
    pub team: String,
    /// Idle, playing or disconnected.
    pub state: TeamState,
    /// Since when (Unix ms): its login, or when it was seen gone; `None` for a team not seen
    /// in this session.
    pub since: Option<i64>,
}

/// One row of the scoreboard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// 1 for the first.
    pub rank: usize,
    /// The team.
    pub team: String,
    /// Its test score `st`: points in test games.
    pub test: f64,
    /// Its final score `sf`: points in live games.
    pub live: f64,
}

/// One seat of a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Seat {
    /// The team or robot.
    pub name: String,
    /// A team (a connected client), not a robot.
    pub team: bool,
}

/// A game being played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunningGame {
    /// The id its clients are told (`ID`), also its seed.
    pub id: i64,
    /// Games started at the same moment (parallel tables) share a round.
    pub round: i64,
    /// Test or live.
    pub mode: ServerMode,
    /// The robots' level, 1 to 5.
    pub level: u32,
    /// The seats in order, robots included.
    pub seats: Vec<Seat>,
    /// The rule that ordered the teams' seats.
    pub rule: String,
    /// The replay being written, if the server writes replays.
    pub replay: Option<String>,
    /// When it started (Unix ms).
    pub started: i64,
}

/// When the next game starts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NextStart {
    /// At the latest then (Unix ms); sooner if the server starts games when enough teams wait.
    pub at: i64,
    /// Its level.
    pub level: u32,
    /// Test or live.
    pub mode: ServerMode,
}

impl GameServerStore {
    /// Replaces the status of this game's server.
    pub async fn publish(&self, status: &ServerStatus) -> Result<(), StoreError> {
        let text = serde_json::to_string(status).expect("a status serializes");
        sqlx::query(
            "INSERT INTO lobby_status (game, status, updated) VALUES ($1, $2, $3) \
             ON CONFLICT (game) DO UPDATE SET status = excluded.status, updated = excluded.updated",
        )
        .bind(self.game())
        .bind(text)
        .bind(now_ms())
        .execute(self.pool())
        .await?;
        Ok(())
    }
}

/// The game servers of a store, to read: their statuses and the games they finished.
#[derive(Clone)]
pub struct GameServers {
    pool: AnyPool,
}

impl GameServers {
    /// Opens the store at `target` (as [`GameServerStore::open`] does) with `presence`.
    pub async fn open(target: &str, presence: Presence) -> Result<GameServers, StoreError> {
        let db = connect(target, presence).await?;
        Ok(GameServers { pool: db.pool })
    }

    /// The games whose server published a status, by name.
    pub async fn games(&self) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query("SELECT game FROM lobby_status ORDER BY game")
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| Ok(row.try_get::<String, _>(0)?))
            .collect()
    }

    /// The status the server of `game` published last, if it ever did.
    pub async fn status(&self, game: &str) -> Result<Option<ServerStatus>, StoreError> {
        let row = sqlx::query("SELECT status FROM lobby_status WHERE game = $1")
            .bind(game)
            .fetch_optional(&self.pool)
            .await?;
        let Some(row) = row else { return Ok(None) };
        let text: String = row.try_get(0)?;
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| StoreError::Corrupt(format!("the status of the {game} server: {e}")))
    }

    /// The store of `game`'s server, on this connection: its finished games.
    pub fn server(&self, game: &str) -> GameServerStore {
        GameServerStore::on(self.pool.clone(), game)
    }
}
