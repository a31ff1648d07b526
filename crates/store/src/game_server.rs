//! The game server's store: what the TCP game server keeps across a restart — each team's test
//! and live totals, and every game it played (mode, level, seats, points, replay) — in the same
//! database as the tournaments.
//!
//! Async, as the server lives on a tokio runtime.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use sqlx::{AnyPool, Row};

use crate::database::{Presence, connect};
use crate::{StoreError, now_ms};

/// Test mode (games every interval) or live mode (the final's fixed games).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerMode {
    /// Games every interval, for teams to try their programs.
    Test,
    /// The final's fixed games.
    Live,
}

impl ServerMode {
    /// The name in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            ServerMode::Test => "test",
            ServerMode::Live => "live",
        }
    }
}

/// A team's totals over every game it played on this server.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    /// Points in test games.
    pub test: f64,
    /// Points in live games.
    pub live: f64,
}

/// One finished game: seats in order (robots included), each seat's points.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Its number on this game's server, from 1, going on across restarts.
    pub id: i64,
    /// Games scheduled at the same moment (parallel tables) share a round.
    pub round: i64,
    /// Test or live.
    pub mode: ServerMode,
    /// The robots' level.
    pub level: u32,
    /// Team and robot names in seat order.
    pub seats: Vec<String>,
    /// Whether each seat is a team (robots get no totals).
    pub teams: Vec<bool>,
    /// Per seat.
    pub points: Vec<f64>,
    /// Why the game ended.
    pub reason: String,
    /// The replay file.
    pub replay: Option<String>,
}

/// The game server's teams and games, for one game, async.
pub struct GameServerStore {
    pool: AnyPool,
    file: Option<PathBuf>,
    game: String,
}

impl GameServerStore {
    /// Opens (creating and migrating if needed) the store at `target` — a PostgreSQL URL, a
    /// `sqlite:` URL or the path of a SQLite file — for the server of `game`.
    pub async fn open(target: &str, game: &str) -> Result<GameServerStore, StoreError> {
        let db = connect(target, Presence::MayCreate).await?;
        Ok(GameServerStore {
            pool: db.pool,
            file: db.file,
            game: game.to_owned(),
        })
    }

    /// The store of `game`'s server on an open pool, to read its games.
    pub(crate) fn on(pool: AnyPool, game: &str) -> GameServerStore {
        GameServerStore {
            pool,
            file: None,
            game: game.to_owned(),
        }
    }

    pub(crate) fn pool(&self) -> &AnyPool {
        &self.pool
    }

    pub(crate) fn game(&self) -> &str {
        &self.game
    }

    /// How many games were recorded, in every session.
    pub async fn games_recorded(&self) -> Result<u64, StoreError> {
        let row = sqlx::query("SELECT COUNT(*) FROM lobby_games WHERE game = $1")
            .bind(&self.game)
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get::<i64, _>(0)? as u64)
    }

    /// The database file, for SQLite: replays go next to it by default.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Every team's totals, by name.
    pub async fn totals(&self) -> Result<HashMap<String, Totals>, StoreError> {
        let rows = sqlx::query(
            "SELECT team, test_score, live_score FROM lobby_teams WHERE game = $1 ORDER BY team",
        )
        .bind(&self.game)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok((
                    row.try_get::<String, _>(0)?,
                    Totals {
                        test: row.try_get(1)?,
                        live: row.try_get(2)?,
                    },
                ))
            })
            .collect()
    }

    /// The id the next game gets: ids go on across restarts.
    pub async fn next_game_id(&self) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT MAX(id) FROM lobby_games WHERE game = $1")
            .bind(&self.game)
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get::<Option<i64>, _>(0)?.unwrap_or(0) + 1)
    }

    /// The round the next games get.
    pub async fn next_round(&self) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT MAX(round) FROM lobby_games WHERE game = $1")
            .bind(&self.game)
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get::<Option<i64>, _>(0)?.unwrap_or(0) + 1)
    }

    /// How many rounds of `mode` were played: levels cycle on from there, and a restarted
    /// live session goes on with its next game.
    pub async fn rounds_played(&self, mode: ServerMode) -> Result<u32, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(DISTINCT round) FROM lobby_games WHERE game = $1 AND mode = $2",
        )
        .bind(&self.game)
        .bind(mode.as_str())
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get::<i64, _>(0)? as u32)
    }

    /// Records a finished game and adds its points to the teams' totals, in one transaction:
    /// after a crash either both are there or neither is.
    pub async fn record_game(&self, game: &GameRecord) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO lobby_games (game, id, round, mode, level, seats, points, reason, \
             replay, finished) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        )
        .bind(&self.game)
        .bind(game.id)
        .bind(game.round)
        .bind(game.mode.as_str())
        .bind(i64::from(game.level))
        .bind(serde_json::to_string(&game.seats).expect("names serialize"))
        .bind(serde_json::to_string(&game.points).expect("numbers serialize"))
        .bind(&game.reason)
        .bind(game.replay.as_deref())
        .bind(now_ms())
        .execute(&mut *tx)
        .await?;
        let (test, live) = match game.mode {
            ServerMode::Test => (1.0, 0.0),
            ServerMode::Live => (0.0, 1.0),
        };
        for ((team, &is_team), &points) in game.seats.iter().zip(&game.teams).zip(&game.points) {
            if !is_team {
                continue;
            }
            sqlx::query(
                "INSERT INTO lobby_teams (game, team, test_score, live_score) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT (game, team) DO UPDATE SET \
                 test_score = lobby_teams.test_score + excluded.test_score, \
                 live_score = lobby_teams.live_score + excluded.live_score",
            )
            .bind(&self.game)
            .bind(team)
            .bind(points * test)
            .bind(points * live)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Every game played, oldest first.
    pub async fn games(&self) -> Result<Vec<GameRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, mode, level, seats, points, reason, replay, round FROM lobby_games \
             WHERE game = $1 ORDER BY id",
        )
        .bind(&self.game)
        .fetch_all(&self.pool)
        .await?;
        let totals = self.totals().await?;
        rows.iter()
            .map(|row| {
                let mode = match row.try_get::<String, _>(1)?.as_str() {
                    "test" => ServerMode::Test,
                    "live" => ServerMode::Live,
                    other => return Err(StoreError::Corrupt(format!("game mode {other:?}"))),
                };
                let seats: Vec<String> = json(&row.try_get::<String, _>(3)?)?;
                let points: Vec<f64> = json(&row.try_get::<String, _>(4)?)?;
                Ok(GameRecord {
                    id: row.try_get(0)?,
                    round: row.try_get(7)?,
                    mode,
                    level: row.try_get::<i64, _>(2)? as u32,
                    teams: seats.iter().map(|s| totals.contains_key(s)).collect(),
                    seats,
                    points,
                    reason: row.try_get(5)?,
                    replay: row.try_get(6)?,
                })
            })
            .collect()
    }
}

fn json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("{e}: {text}")))
}
