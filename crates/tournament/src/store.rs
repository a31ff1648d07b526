//! The store: tournaments, players, matches and ratings in SQLite (one file, WAL) or
//! PostgreSQL, through sqlx's `Any` driver so that the same SQL serves both.
//!
//! The referee is synchronous, so the store is too: each call blocks on a small runtime of its
//! own. One connection is enough — a single coordinator writes, one result at a time.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyPool, Executor, Row};

use crate::TournamentError;
use crate::players::{Player, Status};
use crate::schedule::Format;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

pub struct Store {
    runtime: tokio::runtime::Runtime,
    pool: AnyPool,
    /// The database file, for SQLite; replays go next to it.
    file: Option<PathBuf>,
    /// Whether the connection's commits are synced to disk (SQLite), as set last.
    durable: std::cell::Cell<bool>,
}

/// A tournament's settings as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Tournament {
    pub id: i64,
    pub game: String,
    pub format: Format,
    pub seed: u64,
    pub rounds: u32,
    pub players_per_match: usize,
    /// What the command line needs to start the games and seats again (flags, time banks).
    pub settings: serde_json::Value,
    pub created: i64,
    pub finished: Option<i64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchState {
    Queued,
    Running,
    Done,
    Failed,
}

impl MatchState {
    pub fn as_str(self) -> &'static str {
        match self {
            MatchState::Queued => "queued",
            MatchState::Running => "running",
            MatchState::Done => "done",
            MatchState::Failed => "failed",
        }
    }

    fn parse(text: &str) -> Result<MatchState, TournamentError> {
        Ok(match text {
            "queued" => MatchState::Queued,
            "running" => MatchState::Running,
            "done" => MatchState::Done,
            "failed" => MatchState::Failed,
            other => return Err(TournamentError::Corrupt(format!("match state {other:?}"))),
        })
    }
}

/// A match to be played: its number in the tournament, round, players in seat order, seed.
#[derive(Clone, Debug, PartialEq)]
pub struct NewMatch {
    pub id: i64,
    pub round: u32,
    pub seats: Vec<String>,
    pub seed: u64,
}

/// One seat's faults in a match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatFaults {
    pub seat: usize,
    pub player: String,
    /// Malformed and illegal answers.
    pub errors: u32,
    pub timeouts: u32,
    pub crashed: bool,
    /// What went wrong beyond the counts (a program that could not be started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What a played match left.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchResult {
    pub scores: Vec<f64>,
    pub placement: Vec<u32>,
    pub reason: String,
    /// Only the seats that had a fault.
    pub faults: Vec<SeatFaults>,
    pub replay: Option<String>,
    pub ticks: u32,
    /// Per seat: time spent thinking, and turns asked.
    pub time_ms: Vec<f64>,
    pub turns: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MatchRow {
    pub id: i64,
    pub round: u32,
    pub seats: Vec<String>,
    pub state: MatchState,
    pub seed: u64,
    pub attempts: u32,
    pub result: Option<MatchResult>,
    /// The last failure of Arbiter or the machine, for a match retried or failed.
    pub error: Option<String>,
    pub started: Option<i64>,
    pub finished: Option<i64>,
}

/// A player's rating once a round is complete.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRow {
    pub player: String,
    pub rating: f64,
    pub deviation: Option<f64>,
    pub games: u32,
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Connects to the store at `target` (a PostgreSQL URL, a `sqlite:` URL, or the path of a
/// SQLite file, created with its folder if missing) and migrates it; the SQLite file's path, if
/// it is one. Tournaments and the game server share the database and this setup.
pub(crate) async fn connect(target: &str) -> Result<(AnyPool, Option<PathBuf>), TournamentError> {
    let (url, file) = if target.starts_with("postgres://")
        || target.starts_with("postgresql://")
        || target.starts_with("sqlite:")
    {
        (target.to_owned(), None)
    } else {
        let path = std::path::absolute(target).unwrap_or_else(|_| PathBuf::from(target));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| TournamentError::Io {
                what: format!("creating {}", dir.display()),
                source,
            })?;
        }
        (sqlite_url(&path), Some(path))
    };
    sqlx::any::install_default_drivers();
    let pool = AnyPoolOptions::new()
        .max_connections(1)
        .after_connect(|conn, _| {
            Box::pin(async move {
                if conn.backend_name() == "SQLite" {
                    // WAL: readers (`standings` during a run) do not block the writer.
                    // FULL: a committed result, or a score the teams were told, survives a
                    // power cut.
                    conn.execute("PRAGMA journal_mode = WAL").await?;
                    conn.execute("PRAGMA synchronous = FULL").await?;
                    conn.execute("PRAGMA busy_timeout = 10000").await?;
                }
                Ok(())
            })
        })
        .connect(&url)
        .await
        .map_err(|source| TournamentError::Open {
            target: target.to_owned(),
            source,
        })?;
    MIGRATOR
        .run(&pool)
        .await
        .map_err(|source| TournamentError::Migrate {
            target: target.to_owned(),
            source,
        })?;
    Ok((pool, file))
}

impl Store {
    /// Opens (creating and migrating if needed) the store at `target`: a PostgreSQL URL, a
    /// `sqlite:` URL, or the path of a SQLite file.
    pub fn open(target: &str) -> Result<Store, TournamentError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|source| TournamentError::Io {
                what: "starting the store's runtime".into(),
                source,
            })?;
        let (pool, file) = runtime.block_on(connect(target))?;
        Ok(Store {
            runtime,
            pool,
            file,
            durable: std::cell::Cell::new(true),
        })
    }

    /// The SQLite file behind the store, if it is one.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Whether SQLite commits wait for the disk (`synchronous = FULL`) or only for the WAL
    /// (`NORMAL`); PostgreSQL keeps its own setting.
    fn set_durable(&self, durable: bool) -> Result<(), TournamentError> {
        if self.file.is_none() || self.durable.get() == durable {
            return Ok(());
        }
        let pragma = if durable {
            "PRAGMA synchronous = FULL"
        } else {
            "PRAGMA synchronous = NORMAL"
        };
        self.block(async { self.pool.execute(pragma).await.map(|_| ()) })?;
        self.durable.set(durable);
        Ok(())
    }

    fn block<T>(
        &self,
        f: impl Future<Output = Result<T, sqlx::Error>>,
    ) -> Result<T, TournamentError> {
        Ok(self.runtime.block_on(f)?)
    }

    /// Records a new tournament, its players and its first matches, all or nothing.
    pub fn create(
        &self,
        t: &Tournament,
        players: &[Player],
        matches: &[NewMatch],
        bye: Option<(u32, &str)>,
    ) -> Result<i64, TournamentError> {
        self.block(async {
            let mut tx = self.pool.begin().await?;
            let id: i64 = sqlx::query("SELECT COALESCE(MAX(id), 0) + 1 FROM tournaments")
                .fetch_one(&mut *tx)
                .await?
                .try_get(0)?;
            sqlx::query(
                "INSERT INTO tournaments (id, game, format, seed, rounds, players_per_match, \
                 settings, created) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(id)
            .bind(&t.game)
            .bind(t.format.as_str())
            .bind(t.seed as i64)
            .bind(i64::from(t.rounds))
            .bind(t.players_per_match as i64)
            .bind(t.settings.to_string())
            .bind(t.created)
            .execute(&mut *tx)
            .await?;
            for p in players {
                sqlx::query(
                    "INSERT INTO players (tournament_id, id, alias, full_name, command, folder, \
                     status, reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(id)
                .bind(&p.id)
                .bind(&p.alias)
                .bind(&p.full_name)
                .bind(p.command.clone())
                .bind(p.folder.as_ref().map(|f| f.to_string_lossy().into_owned()))
                .bind(p.status.as_str())
                .bind(p.reason.clone())
                .execute(&mut *tx)
                .await?;
            }
            insert_matches(&mut tx, id, matches).await?;
            if let Some((round, player)) = bye {
                insert_bye(&mut tx, id, round, player).await?;
            }
            tx.commit().await?;
            Ok(id)
        })
    }

    /// Adds matches (the next Swiss round) and the round's bye, all or nothing.
    pub fn add_round(
        &self,
        tournament: i64,
        matches: &[NewMatch],
        bye: Option<(u32, &str)>,
    ) -> Result<(), TournamentError> {
        self.block(async {
            let mut tx = self.pool.begin().await?;
            insert_matches(&mut tx, tournament, matches).await?;
            if let Some((round, player)) = bye {
                insert_bye(&mut tx, tournament, round, player).await?;
            }
            tx.commit().await
        })
    }

    pub fn latest(&self) -> Result<Option<i64>, TournamentError> {
        self.block(async {
            sqlx::query("SELECT MAX(id) FROM tournaments")
                .fetch_one(&self.pool)
                .await?
                .try_get::<Option<i64>, _>(0)
        })
    }

    pub fn tournament(&self, id: i64) -> Result<Tournament, TournamentError> {
        let row = self.block(async {
            sqlx::query(
                "SELECT id, game, format, seed, rounds, players_per_match, settings, created, \
                 finished FROM tournaments WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(&self.pool)
            .await
        })?;
        let row = row.ok_or(TournamentError::NoTournament(id))?;
        let format: String = row.try_get("format")?;
        let settings: String = row.try_get("settings")?;
        Ok(Tournament {
            id: row.try_get("id")?,
            game: row.try_get("game")?,
            format: Format::parse(&format)
                .ok_or_else(|| TournamentError::Corrupt(format!("format {format:?}")))?,
            seed: row.try_get::<i64, _>("seed")? as u64,
            rounds: row.try_get::<i64, _>("rounds")? as u32,
            players_per_match: row.try_get::<i64, _>("players_per_match")? as usize,
            settings: serde_json::from_str(&settings)
                .map_err(|e| TournamentError::Corrupt(format!("settings: {e}")))?,
            created: row.try_get("created")?,
            finished: row.try_get("finished")?,
        })
    }

    pub fn players(&self, tournament: i64) -> Result<Vec<Player>, TournamentError> {
        let rows = self.block(async {
            sqlx::query(
                "SELECT id, alias, full_name, command, folder, status, reason FROM players \
                 WHERE tournament_id = $1 ORDER BY id",
            )
            .bind(tournament)
            .fetch_all(&self.pool)
            .await
        })?;
        rows.iter()
            .map(|row| {
                let status: String = row.try_get("status")?;
                Ok(Player {
                    id: row.try_get("id")?,
                    alias: row.try_get("alias")?,
                    full_name: row.try_get("full_name")?,
                    command: row.try_get("command")?,
                    folder: row
                        .try_get::<Option<String>, _>("folder")?
                        .map(PathBuf::from),
                    status: Status::parse(&status)
                        .ok_or_else(|| TournamentError::Corrupt(format!("status {status:?}")))?,
                    reason: row.try_get("reason")?,
                })
            })
            .collect()
    }

    /// Puts back in the queue the matches that were running when the last run stopped: their
    /// results were never committed, so playing them again plays each match once in all.
    pub fn requeue_running(&self, tournament: i64) -> Result<u64, TournamentError> {
        self.block(async {
            let done = sqlx::query(
                "UPDATE matches SET state = 'queued', started = NULL \
                 WHERE tournament_id = $1 AND state = 'running'",
            )
            .bind(tournament)
            .execute(&self.pool)
            .await?;
            Ok(done.rows_affected())
        })
    }

    /// Takes the first queued match and marks it running.
    pub fn claim_next(&self, tournament: i64) -> Result<Option<MatchRow>, TournamentError> {
        // Losing this mark to a power cut is harmless: a running match is queued again anyway.
        // Skipping its fsync halves the syncs of a match; the WAL keeps commits in order, so
        // the next durable commit makes this one durable too.
        self.set_durable(false)?;
        let row = self.block(async {
            let mut tx = self.pool.begin().await?;
            let row = sqlx::query(&format!(
                "SELECT {MATCH_COLUMNS} FROM matches WHERE tournament_id = $1 AND state = 'queued' \
                 ORDER BY id LIMIT 1"
            ))
            .bind(tournament)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(row) = &row {
                let id: i64 = row.try_get("id")?;
                sqlx::query(
                    "UPDATE matches SET state = 'running', started = $1 \
                     WHERE tournament_id = $2 AND id = $3",
                )
                .bind(now_ms())
                .bind(tournament)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
            Ok(row)
        })?;
        row.map(|row| {
            let mut m = match_row(&row)?;
            m.state = MatchState::Running;
            Ok(m)
        })
        .transpose()
    }

    /// Commits a played match, and the ratings snapshots of the rounds it completed.
    pub fn finish(
        &self,
        tournament: i64,
        id: i64,
        result: &MatchResult,
        ratings: &[(u32, Vec<RatingRow>)],
    ) -> Result<(), TournamentError> {
        self.finish_many(tournament, &[(id, result.clone())], ratings)
    }

    /// Commits played matches, and the ratings snapshots of the rounds they completed, in one
    /// transaction: matches that ended together share one sync to disk.
    pub fn finish_many(
        &self,
        tournament: i64,
        results: &[(i64, MatchResult)],
        ratings: &[(u32, Vec<RatingRow>)],
    ) -> Result<(), TournamentError> {
        self.set_durable(true)?;
        self.block(async {
            let mut tx = self.pool.begin().await?;
            for (id, result) in results {
                sqlx::query(
                    "UPDATE matches SET state = 'done', scores = $1, placement = $2, \
                     reason = $3, faults = $4, replay = $5, ticks = $6, time_ms = $7, turns = $8, \
                     finished = $9 WHERE tournament_id = $10 AND id = $11",
                )
                .bind(json(&result.scores))
                .bind(json(&result.placement))
                .bind(&result.reason)
                .bind(json(&result.faults))
                .bind(result.replay.clone())
                .bind(i64::from(result.ticks))
                .bind(json(&result.time_ms))
                .bind(json(&result.turns))
                .bind(now_ms())
                .bind(tournament)
                .bind(*id)
                .execute(&mut *tx)
                .await?;
            }
            for (round, rows) in ratings {
                save_ratings(&mut tx, tournament, *round, rows).await?;
            }
            tx.commit().await
        })
    }

    /// Writes the ratings snapshot of a completed round.
    pub fn save_ratings(
        &self,
        tournament: i64,
        round: u32,
        rows: &[RatingRow],
    ) -> Result<(), TournamentError> {
        self.block(async {
            let mut tx = self.pool.begin().await?;
            save_ratings(&mut tx, tournament, round, rows).await?;
            tx.commit().await
        })
    }

    /// Records a failure of Arbiter or the machine: the match goes back to the queue, or is
    /// `failed` once it has been tried `max_attempts` times. Returns whether it failed for good.
    pub fn record_failure(
        &self,
        tournament: i64,
        id: i64,
        error: &str,
        max_attempts: u32,
    ) -> Result<bool, TournamentError> {
        self.block(async {
            let mut tx = self.pool.begin().await?;
            let attempts: i64 =
                sqlx::query("SELECT attempts FROM matches WHERE tournament_id = $1 AND id = $2")
                    .bind(tournament)
                    .bind(id)
                    .fetch_one(&mut *tx)
                    .await?
                    .try_get(0)?;
            let attempts = attempts + 1;
            let failed = attempts >= i64::from(max_attempts);
            // NULLIF rather than an optional time: see `save_ratings` on NULL binds.
            sqlx::query(
                "UPDATE matches SET attempts = $1, error = $2, state = $3, started = NULL, \
                 finished = NULLIF($4, 0) WHERE tournament_id = $5 AND id = $6",
            )
            .bind(attempts)
            .bind(error)
            .bind(if failed { "failed" } else { "queued" })
            .bind(if failed { now_ms() } else { 0 })
            .bind(tournament)
            .bind(id)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(failed)
        })
    }

    pub fn matches(&self, tournament: i64) -> Result<Vec<MatchRow>, TournamentError> {
        let rows = self.block(async {
            sqlx::query(&format!(
                "SELECT {MATCH_COLUMNS} FROM matches WHERE tournament_id = $1 ORDER BY id"
            ))
            .bind(tournament)
            .fetch_all(&self.pool)
            .await
        })?;
        rows.iter().map(match_row).collect()
    }

    /// Byes so far, as (round, player).
    pub fn byes(&self, tournament: i64) -> Result<Vec<(u32, String)>, TournamentError> {
        let rows = self.block(async {
            sqlx::query("SELECT round, player FROM byes WHERE tournament_id = $1 ORDER BY round")
                .bind(tournament)
                .fetch_all(&self.pool)
                .await
        })?;
        rows.iter()
            .map(|r| Ok((r.try_get::<i64, _>(0)? as u32, r.try_get(1)?)))
            .collect()
    }

    /// The ratings history: per completed round, every rated player.
    pub fn ratings(&self, tournament: i64) -> Result<Vec<(u32, RatingRow)>, TournamentError> {
        let rows = self.block(async {
            sqlx::query(
                "SELECT round, player, rating, deviation, games FROM ratings \
                 WHERE tournament_id = $1 ORDER BY round, rating DESC",
            )
            .bind(tournament)
            .fetch_all(&self.pool)
            .await
        })?;
        rows.iter()
            .map(|r| {
                Ok((
                    r.try_get::<i64, _>("round")? as u32,
                    RatingRow {
                        player: r.try_get("player")?,
                        rating: r.try_get("rating")?,
                        deviation: r
                            .try_get::<Option<f64>, _>("deviation")?
                            .filter(|d| !d.is_nan()),
                        games: r.try_get::<i64, _>("games")? as u32,
                    },
                ))
            })
            .collect()
    }

    pub fn mark_finished(&self, tournament: i64) -> Result<(), TournamentError> {
        self.block(async {
            sqlx::query("UPDATE tournaments SET finished = $1 WHERE id = $2 AND finished IS NULL")
                .bind(now_ms())
                .bind(tournament)
                .execute(&self.pool)
                .await
                .map(|_| ())
        })
    }

    pub fn close(self) {
        let Store { runtime, pool, .. } = self;
        runtime.block_on(pool.close());
    }
}

const MATCH_COLUMNS: &str = "id, round, seats, state, seed, attempts, scores, placement, reason, \
     faults, replay, ticks, time_ms, turns, error, started, finished";

async fn insert_matches(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    tournament: i64,
    matches: &[NewMatch],
) -> Result<(), sqlx::Error> {
    for m in matches {
        sqlx::query(
            "INSERT INTO matches (tournament_id, id, round, seats, state, seed, attempts) \
             VALUES ($1, $2, $3, $4, 'queued', $5, 0)",
        )
        .bind(tournament)
        .bind(m.id)
        .bind(i64::from(m.round))
        .bind(json(&m.seats))
        .bind(m.seed as i64)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

async fn insert_bye(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    tournament: i64,
    round: u32,
    player: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO byes (tournament_id, round, player) VALUES ($1, $2, $3)")
        .bind(tournament)
        .bind(i64::from(round))
        .bind(player)
        .execute(&mut **tx)
        .await
        .map(|_| ())
}

async fn save_ratings(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    tournament: i64,
    round: u32,
    rows: &[RatingRow],
) -> Result<(), sqlx::Error> {
    // A round's snapshot is written once; a resumed run that completes it again rewrites it.
    sqlx::query("DELETE FROM ratings WHERE tournament_id = $1 AND round = $2")
        .bind(tournament)
        .bind(i64::from(round))
        .execute(&mut **tx)
        .await?;
    for r in rows {
        sqlx::query(
            "INSERT INTO ratings (tournament_id, round, player, rating, deviation, games) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(tournament)
        .bind(i64::from(round))
        .bind(&r.player)
        .bind(r.rating)
        // Not an Option: PostgreSQL fixes a parameter's type at its first use, and a NULL first
        // makes a later float unreadable through the Any driver. NaN is stored for "none"
        // (SQLite turns it into NULL).
        .bind(r.deviation.unwrap_or(f64::NAN))
        .bind(i64::from(r.games))
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

fn json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("plain values serialize")
}

fn parse<T: for<'de> Deserialize<'de>>(
    text: Option<String>,
    what: &str,
) -> Result<Option<T>, TournamentError> {
    text.map(|t| {
        serde_json::from_str(&t).map_err(|e| TournamentError::Corrupt(format!("{what}: {e}")))
    })
    .transpose()
}

fn match_row(row: &AnyRow) -> Result<MatchRow, TournamentError> {
    let state: String = row.try_get("state")?;
    let seats: String = row.try_get("seats")?;
    let scores: Option<Vec<f64>> = parse(row.try_get("scores")?, "scores")?;
    let result = match scores {
        Some(scores) => Some(MatchResult {
            scores,
            placement: parse(row.try_get("placement")?, "placement")?.unwrap_or_default(),
            reason: row
                .try_get::<Option<String>, _>("reason")?
                .unwrap_or_default(),
            faults: parse(row.try_get("faults")?, "faults")?.unwrap_or_default(),
            replay: row.try_get("replay")?,
            ticks: row.try_get::<Option<i64>, _>("ticks")?.unwrap_or(0) as u32,
            time_ms: parse(row.try_get("time_ms")?, "time_ms")?.unwrap_or_default(),
            turns: parse(row.try_get("turns")?, "turns")?.unwrap_or_default(),
        }),
        None => None,
    };
    Ok(MatchRow {
        id: row.try_get("id")?,
        round: row.try_get::<i64, _>("round")? as u32,
        seats: serde_json::from_str(&seats)
            .map_err(|e| TournamentError::Corrupt(format!("seats: {e}")))?,
        state: MatchState::parse(&state)?,
        seed: row.try_get::<i64, _>("seed")? as u64,
        attempts: row.try_get::<i64, _>("attempts")? as u32,
        result,
        error: row.try_get("error")?,
        started: row.try_get("started")?,
        finished: row.try_get("finished")?,
    })
}

/// A `sqlite:` URL for a file path; `%`, `?` and `#` are escaped, as the URL parser decodes them.
fn sqlite_url(path: &Path) -> String {
    let mut url = String::from("sqlite://");
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => url.push_str("%25"),
            '?' => url.push_str("%3F"),
            '#' => url.push_str("%23"),
            c => url.push(c),
        }
    }
    url.push_str("?mode=rwc");
    url
}
