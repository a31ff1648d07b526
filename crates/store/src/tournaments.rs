//! The tournament store: tournaments, contestants, matches, byes and ratings.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use sqlx::any::AnyRow;
use sqlx::{AnyPool, Executor, Row};

use crate::database::{Presence, connect};
use crate::rows::{
    Contestant, Format, MatchRow, MatchState, NewMatch, RatingRow, Status, StoredResult, Tournament,
};
use crate::{StoreError, now_ms};

/// Tournaments in the database, async. Synchronous callers use [`crate::blocking::Store`].
pub struct TournamentStore {
    pub(crate) pool: AnyPool,
    /// The database file, for SQLite; replays go next to it.
    file: Option<PathBuf>,
    /// Which database speaks: the few statements that differ are chosen by it.
    pub(crate) backend: Backend,
    /// Whether the connection's commits are synced to disk (SQLite), as set last.
    durable: AtomicBool,
}

/// The database behind a store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// One SQLite file: one machine.
    Sqlite,
    /// A PostgreSQL server: any number of machines.
    Postgres,
}

impl Backend {
    /// The database a store's target names: a `postgres://` or `postgresql://` URL, or SQLite.
    pub fn of(target: &str) -> Backend {
        if target.starts_with("postgres://") || target.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            Backend::Sqlite
        }
    }
}

impl TournamentStore {
    /// Opens (creating it if `presence` allows, and migrating it if needed) the store at
    /// `target`: a PostgreSQL URL, a `sqlite:` URL, or the path of a SQLite file.
    pub async fn open(target: &str, presence: Presence) -> Result<TournamentStore, StoreError> {
        let db = connect(target, presence).await?;
        let backend = if target.starts_with("postgres://") || target.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            Backend::Sqlite
        };
        Ok(TournamentStore {
            pool: db.pool,
            file: db.file,
            backend,
            durable: AtomicBool::new(true),
        })
    }

    /// The SQLite file behind the store, if it is one.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Which database speaks.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Whether SQLite commits wait for the disk (`synchronous = FULL`) or only for the WAL
    /// (`NORMAL`); PostgreSQL keeps its own setting.
    pub(crate) async fn set_durable(&self, durable: bool) -> Result<(), StoreError> {
        if self.file.is_none() || self.durable.load(Ordering::Relaxed) == durable {
            return Ok(());
        }
        let pragma = if durable {
            "PRAGMA synchronous = FULL"
        } else {
            "PRAGMA synchronous = NORMAL"
        };
        self.pool.execute(pragma).await?;
        self.durable.store(durable, Ordering::Relaxed);
        Ok(())
    }

    /// Records a new tournament, its contestants and its first matches, all or nothing, and
    /// returns its number. The number is the store's: the next one, taken under a lock, so
    /// tournaments created at the same moment by several processes each get their own.
    /// `settings_of` gives the settings to store once the number is known (they name the
    /// tournament's replay folder); `t.id` and `t.settings` are not used.
    pub async fn create(
        &self,
        t: &Tournament,
        settings_of: &(dyn Fn(i64) -> serde_json::Value + Sync),
        players: &[Contestant],
        matches: &[NewMatch],
        bye: Option<(u32, &str)>,
    ) -> Result<i64, StoreError> {
        let mut tx = self.pool.begin().await?;
        self.lock_tournaments(&mut tx).await?;
        let id: i64 = sqlx::query("SELECT COALESCE(MAX(id), 0) + 1 FROM tournaments")
            .fetch_one(&mut *tx)
            .await?
            .try_get(0)?;
        sqlx::query(
            "INSERT INTO tournaments (id, game, format, seed, rounds, players_per_match, \
             settings, created, max_attempts, name) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, \
             $10)",
        )
        .bind(id)
        .bind(&t.game)
        .bind(t.format.as_str())
        .bind(t.seed as i64)
        .bind(i64::from(t.rounds))
        .bind(t.players_per_match as i64)
        .bind(settings_of(id).to_string())
        .bind(t.created)
        .bind(i64::from(t.max_attempts.max(1)))
        .bind(t.name.as_deref())
        .execute(&mut *tx)
        .await?;
        for p in players {
            sqlx::query(
                "INSERT INTO players (tournament_id, id, alias, full_name, command, folder, \
                 status, reason, program) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            )
            .bind(id)
            .bind(&p.id)
            .bind(&p.alias)
            .bind(&p.full_name)
            .bind(p.command.clone())
            .bind(p.folder.as_ref().map(|f| f.to_string_lossy().into_owned()))
            .bind(p.status.as_str())
            .bind(p.reason.clone())
            .bind(p.program.clone())
            .execute(&mut *tx)
            .await?;
        }
        insert_round(&mut tx, id, matches, bye).await?;
        self.notify_work(&mut tx).await?;
        tx.commit().await?;
        Ok(id)
    }

    /// Takes the lock that numbers tournaments, for the rest of the transaction. SQLite has
    /// one writer at a time: a write as the transaction's first statement takes its lock
    /// (waiting for it), so the read that follows sees every tournament created before.
    async fn lock_tournaments(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    ) -> Result<(), sqlx::Error> {
        let lock = match self.backend {
            Backend::Postgres => "SELECT pg_advisory_xact_lock(7001)",
            Backend::Sqlite => "DELETE FROM tournaments WHERE id < 0",
        };
        sqlx::query(lock).execute(&mut **tx).await.map(|_| ())
    }

    /// The newest tournament's id, if there is one.
    pub async fn latest(&self) -> Result<Option<i64>, StoreError> {
        Ok(sqlx::query("SELECT MAX(id) FROM tournaments")
            .fetch_one(&self.pool)
            .await?
            .try_get::<Option<i64>, _>(0)?)
    }

    /// Tournament `id`'s settings.
    pub async fn tournament(&self, id: i64) -> Result<Tournament, StoreError> {
        let row = sqlx::query(
            "SELECT id, game, format, seed, rounds, players_per_match, settings, created, \
             finished, max_attempts, name FROM tournaments WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        let row = row.ok_or(StoreError::NoTournament(id))?;
        let format: String = row.try_get("format")?;
        let settings: String = row.try_get("settings")?;
        Ok(Tournament {
            id: row.try_get("id")?,
            game: row.try_get("game")?,
            format: Format::parse(&format)
                .ok_or_else(|| StoreError::Corrupt(format!("format {format:?}")))?,
            seed: row.try_get::<i64, _>("seed")? as u64,
            rounds: row.try_get::<i64, _>("rounds")? as u32,
            players_per_match: row.try_get::<i64, _>("players_per_match")? as usize,
            settings: serde_json::from_str(&settings)
                .map_err(|e| StoreError::Corrupt(format!("settings: {e}")))?,
            created: row.try_get("created")?,
            finished: row.try_get("finished")?,
            max_attempts: row.try_get::<i64, _>("max_attempts")? as u32,
            name: row.try_get("name")?,
        })
    }

    /// Gives tournament `id` the name `name` (none: takes its name away).
    pub async fn rename(&self, id: i64, name: Option<&str>) -> Result<(), StoreError> {
        let done = sqlx::query("UPDATE tournaments SET name = $1 WHERE id = $2")
            .bind(name)
            .bind(id)
            .execute(&self.pool)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NoTournament(id));
        }
        Ok(())
    }

    /// A tournament's contestants, by id.
    pub async fn players(&self, tournament: i64) -> Result<Vec<Contestant>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, alias, full_name, command, folder, status, reason, program FROM players \
             WHERE tournament_id = $1 ORDER BY id",
        )
        .bind(tournament)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(contestant).collect()
    }

    /// Writes the ratings snapshot of round `round` (replacing one there).
    pub async fn save_ratings(
        &self,
        tournament: i64,
        round: u32,
        rows: &[RatingRow],
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        save_ratings(&mut tx, tournament, round, rows).await?;
        Ok(tx.commit().await?)
    }

    /// Every match of a tournament, by id.
    pub async fn matches(&self, tournament: i64) -> Result<Vec<MatchRow>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {MATCH_COLUMNS} FROM matches WHERE tournament_id = $1 ORDER BY id"
        ))
        .bind(tournament)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(match_row).collect()
    }

    /// Byes so far, as (round, player).
    pub async fn byes(&self, tournament: i64) -> Result<Vec<(u32, String)>, StoreError> {
        let rows =
            sqlx::query("SELECT round, player FROM byes WHERE tournament_id = $1 ORDER BY round")
                .bind(tournament)
                .fetch_all(&self.pool)
                .await?;
        rows.iter()
            .map(|r| Ok((r.try_get::<i64, _>(0)? as u32, r.try_get(1)?)))
            .collect()
    }

    /// The ratings history: per completed round, every rated player.
    pub async fn ratings(&self, tournament: i64) -> Result<Vec<(u32, RatingRow)>, StoreError> {
        let rows = sqlx::query(
            "SELECT round, player, rating, deviation, games FROM ratings \
             WHERE tournament_id = $1 ORDER BY round, rating DESC",
        )
        .bind(tournament)
        .fetch_all(&self.pool)
        .await?;
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

    /// Marks a tournament finished, once.
    pub async fn mark_finished(&self, tournament: i64) -> Result<(), StoreError> {
        sqlx::query("UPDATE tournaments SET finished = $1 WHERE id = $2 AND finished IS NULL")
            .bind(now_ms())
            .bind(tournament)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Closes the connection, waiting for it to finish.
    pub async fn close(self) {
        self.pool.close().await;
    }
}

pub(crate) const MATCH_COLUMNS: &str = "id, round, seats, state, seed, attempts, scores, \
     placement, reason, faults, replay, ticks, time_ms, turns, error, claim, worker, started, \
     finished";

/// Inserts matches, queued, and the bye of their round.
pub(crate) async fn insert_round(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    tournament: i64,
    matches: &[NewMatch],
    bye: Option<(u32, &str)>,
) -> Result<(), sqlx::Error> {
    insert_matches(tx, tournament, matches).await?;
    if let Some((round, player)) = bye {
        insert_bye(tx, tournament, round, player).await?;
    }
    Ok(())
}

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

pub(crate) async fn save_ratings(
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

pub(crate) fn json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("plain values serialize")
}

fn parse<T: for<'de> Deserialize<'de>>(
    text: Option<String>,
    what: &str,
) -> Result<Option<T>, StoreError> {
    text.map(|t| serde_json::from_str(&t).map_err(|e| StoreError::Corrupt(format!("{what}: {e}"))))
        .transpose()
}

fn contestant(row: &AnyRow) -> Result<Contestant, StoreError> {
    let status: String = row.try_get("status")?;
    Ok(Contestant {
        id: row.try_get("id")?,
        alias: row.try_get("alias")?,
        full_name: row.try_get("full_name")?,
        command: row.try_get("command")?,
        folder: row
            .try_get::<Option<String>, _>("folder")?
            .map(PathBuf::from),
        status: Status::parse(&status)
            .ok_or_else(|| StoreError::Corrupt(format!("status {status:?}")))?,
        reason: row.try_get("reason")?,
        program: row.try_get("program")?,
    })
}

pub(crate) fn match_row(row: &AnyRow) -> Result<MatchRow, StoreError> {
    let state: String = row.try_get("state")?;
    let seats: String = row.try_get("seats")?;
    let scores: Option<Vec<f64>> = parse(row.try_get("scores")?, "scores")?;
    let result = match scores {
        Some(scores) => Some(StoredResult {
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
            .map_err(|e| StoreError::Corrupt(format!("seats: {e}")))?,
        state: MatchState::parse(&state)?,
        seed: row.try_get::<i64, _>("seed")? as u64,
        attempts: row.try_get::<i64, _>("attempts")? as u32,
        result,
        error: row.try_get("error")?,
        claim: row.try_get("claim")?,
        worker: row.try_get("worker")?,
        started: row.try_get("started")?,
        finished: row.try_get("finished")?,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A fresh SQLite file in a folder of its own (created by the store), removed when the
    /// test process exits.
    pub(crate) fn scratch(name: &str) -> String {
        let dir = arbiter_testdir::root().join("store").join(name);
        let _ = std::fs::remove_dir_all(&dir);
        dir.join("t.db").to_str().unwrap().to_owned()
    }

    pub(crate) fn tournament() -> Tournament {
        Tournament {
            id: 0,
            game: "quoridor".into(),
            format: Format::Swiss,
            seed: 7,
            rounds: 2,
            players_per_match: 2,
            settings: serde_json::json!({"flags": {"level": 1}}),
            created: 1_700_000_000_000,
            finished: None,
            max_attempts: 3,
            name: Some("Spring final".into()),
        }
    }

    pub(crate) fn new_matches() -> Vec<NewMatch> {
        (1..=2)
            .map(|id| NewMatch {
                id,
                round: 1,
                seats: vec!["builtin:a".into(), "builtin:b".into()],
                seed: id as u64 * 10,
            })
            .collect()
    }

    /// The settings a test tournament is stored with, whatever its number.
    pub(crate) fn settings(_: i64) -> serde_json::Value {
        tournament().settings
    }

    #[tokio::test]
    async fn an_unreachable_store_is_named() {
        let error = TournamentStore::open(
            "sqlite:///nonexistent-dir-for-arbiter/x.db",
            Presence::MayCreate,
        )
        .await
        .err()
        .unwrap();
        assert!(
            error
                .to_string()
                .starts_with("cannot open the store sqlite:///nonexistent-dir-for-arbiter/x.db"),
            "{error}"
        );
    }

    #[tokio::test]
    async fn a_store_that_must_exist_is_not_created() {
        let path = scratch("must-exist");
        let error = TournamentStore::open(&path, Presence::MustExist)
            .await
            .err()
            .unwrap();
        assert!(matches!(error, StoreError::NoStore { .. }), "{error}");
        assert!(
            error.to_string().starts_with("there is no store "),
            "{error}"
        );
        assert!(!std::path::Path::new(&path).exists(), "nothing is created");
        drop(
            TournamentStore::open(&path, Presence::MayCreate)
                .await
                .unwrap(),
        );
        TournamentStore::open(&path, Presence::MustExist)
            .await
            .unwrap();
    }
}
