//! The store as the queue of matches: workers on any machine claim a match, hold it by a lease
//! they renew while they play, and hand in its result with the number of their claim. A match
//! whose lease ran out is queued again; a result that comes with an older claim is refused
//! (fencing), so every match is scored exactly once however many workers share the store.

use sqlx::Row;

use crate::rows::{MatchRow, MatchState, NewMatch, RatingRow, StoredResult};
use crate::tournaments::{Backend, MATCH_COLUMNS, json, match_row, save_ratings};
use crate::{StoreError, TournamentStore, now_ms};

/// Which tournaments a worker claims matches of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Only this one.
    Tournament(i64),
    /// Every tournament that is not finished.
    Open,
}

/// A match a worker holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Claimed {
    /// Its tournament.
    pub tournament: i64,
    /// The match, `running`; its `claim` is the number the result must come with.
    pub row: MatchRow,
}

/// A match whose worker stopped renewing its lease, put back in the queue or failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expired {
    /// Its tournament.
    pub tournament: i64,
    /// The match.
    pub id: i64,
    /// Whether it has used up its attempts and is failed for good.
    pub failed: bool,
}

/// How a result or a failure handed in was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handed {
    /// Taken: the match is over (or queued again, for a failure).
    Taken,
    /// Refused: another worker claimed the match since (this worker's lease ran out).
    Refused,
}

/// How many matches of a tournament are where.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Waiting for a worker.
    pub queued: usize,
    /// Held by a worker.
    pub running: usize,
    /// Played.
    pub done: usize,
    /// Failed for good.
    pub failed: usize,
    /// The last round paired so far, by its matches or its bye (0 before any).
    pub last_round: u32,
}

impl Counts {
    /// Matches that are over, played or failed.
    pub fn over(&self) -> usize {
        self.done + self.failed
    }

    /// Every match.
    pub fn total(&self) -> usize {
        self.queued + self.running + self.done + self.failed
    }
}

/// A tournament as [`TournamentStore::advance`] shows it to its caller, under its lock.
#[derive(Clone, Debug)]
pub struct Standing {
    /// Every match.
    pub matches: Vec<MatchRow>,
    /// Byes so far, as (round, player).
    pub byes: Vec<(u32, String)>,
    /// The last round whose ratings are stored (0 for none).
    pub rated: u32,
}

/// A round paired from the results so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Round {
    /// Its matches.
    pub matches: Vec<NewMatch>,
    /// Who sits out, as (round, player).
    pub bye: Option<(u32, String)>,
}

/// What the caller of [`TournamentStore::advance`] decided, written in the same transaction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Advance {
    /// Ratings snapshots of rounds now complete.
    pub ratings: Vec<(u32, Vec<RatingRow>)>,
    /// The next round (Swiss).
    pub round: Option<Round>,
    /// Whether the tournament is over.
    pub finished: bool,
    /// Whether the matches still queued are removed: the tournament needs them no more (an
    /// SPRT that has decided). Matches running are left to finish.
    pub drop_queued: bool,
}

impl TournamentStore {
    /// Claims the first queued match of `scope` for `worker`, leased for `lease_ms`.
    pub async fn claim(
        &self,
        worker: &str,
        lease_ms: i64,
        scope: Scope,
    ) -> Result<Option<Claimed>, StoreError> {
        // Losing a claim to a power cut is harmless: its lease runs out and it is claimed
        // again. The next durable commit makes it durable anyway (the WAL keeps order).
        self.set_durable(false).await?;
        // One statement for both scopes: tournament 0 (there is none) stands for "any".
        let tournament = match scope {
            Scope::Tournament(id) => id,
            Scope::Open => 0,
        };
        // PostgreSQL: the row is locked as it is picked and others skip it, so claims by many
        // workers never wait on each other. SQLite: the statement is the transaction and holds
        // the one write lock.
        let skip = match self.backend {
            Backend::Postgres => "FOR UPDATE OF m SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let sql = format!(
            "UPDATE matches SET state = 'running', claim = claim + 1, worker = $1, \
             lease_until = $2, started = $3 \
             WHERE (tournament_id, id) = (SELECT m.tournament_id, m.id FROM matches m \
             JOIN tournaments t ON t.id = m.tournament_id \
             WHERE m.state = 'queued' AND t.finished IS NULL \
             AND (m.tournament_id = $4 OR $4 = 0) \
             ORDER BY m.tournament_id, m.id LIMIT 1 {skip}) \
             RETURNING tournament_id, {MATCH_COLUMNS}"
        );
        let now = now_ms();
        let row = sqlx::query(&sql)
            .bind(worker)
            .bind(now + lease_ms)
            .bind(now)
            .bind(tournament)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| {
            Ok(Claimed {
                tournament: row.try_get("tournament_id")?,
                row: match_row(&row)?,
            })
        })
        .transpose()
    }

    /// Extends the leases of every match `worker` holds; returns how many it still holds.
    pub async fn renew(&self, worker: &str, lease_ms: i64) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "UPDATE matches SET lease_until = $1 WHERE worker = $2 AND state = 'running'",
        )
        .bind(now_ms() + lease_ms)
        .bind(worker)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// The running matches of `tournament` whose lease ran out (or that have none): no worker
    /// plays them any more, until a run of the tournament puts them back in the queue. Read
    /// only, so that a viewer can tell a stopped tournament from one being played.
    pub async fn lapsed_leases(&self, tournament: i64) -> Result<Vec<i64>, StoreError> {
        let rows = sqlx::query(
            "SELECT id FROM matches WHERE tournament_id = $1 AND state = 'running' \
             AND (lease_until IS NULL OR lease_until < $2) ORDER BY id",
        )
        .bind(tournament)
        .bind(now_ms())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| row.try_get::<i64, _>(0).map_err(StoreError::from))
            .collect()
    }

    /// Puts back in the queue (or fails, after its last attempt) every match whose lease ran
    /// out. A match running without a lease was left by an Arbiter from before leases.
    pub async fn expire_leases(&self) -> Result<Vec<Expired>, StoreError> {
        self.requeue(Requeue::LeaseBefore(now_ms())).await
    }

    /// Puts back in the queue the matches of `worker`, known to be gone (a process of this
    /// machine that no longer runs): a stopped run, not a failure, so no attempt is counted.
    pub async fn release(&self, worker: &str) -> Result<Vec<Expired>, StoreError> {
        self.requeue(Requeue::Worker(worker)).await
    }

    async fn requeue(&self, which: Requeue<'_>) -> Result<Vec<Expired>, StoreError> {
        let (attempt, error, condition) = match which {
            Requeue::LeaseBefore(_) => (
                "attempts + 1",
                "'its worker ' || COALESCE(worker, '(unknown)') || ' stopped renewing its lease'",
                "(lease_until IS NULL OR lease_until < $2)",
            ),
            Requeue::Worker(_) => ("attempts", "error", "worker = $2"),
        };
        let out_of_attempts = format!(
            "{attempt} >= (SELECT t.max_attempts FROM tournaments t \
             WHERE t.id = matches.tournament_id)"
        );
        let sql = format!(
            "UPDATE matches SET attempts = {attempt}, error = {error}, \
             state = CASE WHEN {out_of_attempts} THEN 'failed' ELSE 'queued' END, \
             finished = CASE WHEN {out_of_attempts} THEN $1 ELSE NULL END, \
             lease_until = NULL, started = NULL \
             WHERE state = 'running' AND {condition} RETURNING tournament_id, id, state"
        );
        let query = sqlx::query(&sql).bind(now_ms());
        let query = match which {
            Requeue::LeaseBefore(time) => query.bind(time),
            Requeue::Worker(worker) => query.bind(worker),
        };
        let rows = query.fetch_all(&self.pool).await?;
        rows.iter()
            .map(|r| {
                Ok(Expired {
                    tournament: r.try_get("tournament_id")?,
                    id: r.try_get("id")?,
                    failed: r.try_get::<String, _>("state")? == MatchState::Failed.as_str(),
                })
            })
            .collect()
    }

    /// The workers holding matches now.
    pub async fn running_workers(&self) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT DISTINCT worker FROM matches WHERE state = 'running' AND worker IS NOT NULL",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
    }

    /// Hands in played matches, as (id, claim, result), in one transaction: matches that
    /// ended together share one sync to disk. Each is taken only from the holder of its
    /// latest claim.
    pub async fn finish(
        &self,
        tournament: i64,
        results: &[(i64, i64, StoredResult)],
    ) -> Result<Vec<Handed>, StoreError> {
        self.set_durable(true).await?;
        let mut tx = self.pool.begin().await?;
        let mut handed = Vec::with_capacity(results.len());
        for (id, claim, result) in results {
            let done = sqlx::query(
                "UPDATE matches SET state = 'done', scores = $1, placement = $2, \
                 reason = $3, faults = $4, replay = $5, ticks = $6, time_ms = $7, turns = $8, \
                 finished = $9, lease_until = NULL \
                 WHERE tournament_id = $10 AND id = $11 AND claim = $12 AND state = 'running'",
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
            .bind(*claim)
            .execute(&mut *tx)
            .await?;
            handed.push(if done.rows_affected() == 1 {
                Handed::Taken
            } else {
                already_taken(&mut tx, tournament, *id, *claim, "done").await?
            });
        }
        tx.commit().await?;
        Ok(handed)
    }

    /// Hands in a failure of Arbiter or the machine for match `id` held by `claim`: it goes
    /// back to the queue, or is `failed` once it has been tried as often as the tournament
    /// allows. Returns whether it was taken and whether the match failed for good.
    pub async fn record_failure(
        &self,
        tournament: i64,
        id: i64,
        claim: i64,
        error: &str,
    ) -> Result<(Handed, bool), StoreError> {
        let row = sqlx::query(
            "UPDATE matches SET attempts = attempts + 1, error = $1, lease_until = NULL, \
             started = NULL, \
             state = CASE WHEN attempts + 1 >= (SELECT t.max_attempts FROM tournaments t \
             WHERE t.id = matches.tournament_id) THEN 'failed' ELSE 'queued' END, \
             finished = CASE WHEN attempts + 1 >= (SELECT t.max_attempts FROM tournaments t \
             WHERE t.id = matches.tournament_id) THEN $2 ELSE NULL END \
             WHERE tournament_id = $3 AND id = $4 AND claim = $5 AND state = 'running' \
             RETURNING state",
        )
        .bind(error)
        .bind(now_ms())
        .bind(tournament)
        .bind(id)
        .bind(claim)
        .fetch_optional(&self.pool)
        .await?;
        Ok(match row {
            Some(row) => (
                Handed::Taken,
                row.try_get::<String, _>(0)? == MatchState::Failed.as_str(),
            ),
            None => (Handed::Refused, false),
        })
    }

    /// How many matches of `tournament` are where.
    pub async fn counts(&self, tournament: i64) -> Result<Counts, StoreError> {
        let rows = sqlx::query(
            "SELECT state, COUNT(*) FROM matches WHERE tournament_id = $1 GROUP BY state",
        )
        .bind(tournament)
        .fetch_all(&self.pool)
        .await?;
        let last: Option<i64> = sqlx::query(
            "SELECT MAX(r) FROM (SELECT MAX(round) AS r FROM matches WHERE tournament_id = $1 \
             UNION ALL SELECT MAX(round) FROM byes WHERE tournament_id = $1) AS rounds",
        )
        .bind(tournament)
        .fetch_one(&self.pool)
        .await?
        .try_get(0)?;
        let mut counts = Counts {
            last_round: last.unwrap_or(0) as u32,
            ..Counts::default()
        };
        for row in rows {
            let state: String = row.try_get(0)?;
            let n = row.try_get::<i64, _>(1)? as usize;
            match MatchState::parse(&state)? {
                MatchState::Queued => counts.queued = n,
                MatchState::Running => counts.running = n,
                MatchState::Done => counts.done = n,
                MatchState::Failed => counts.failed = n,
            }
        }
        Ok(counts)
    }

    /// The tournaments that are not finished, by id.
    pub async fn open_tournaments(&self) -> Result<Vec<i64>, StoreError> {
        let rows = sqlx::query("SELECT id FROM tournaments WHERE finished IS NULL ORDER BY id")
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
    }

    /// Moves `tournament` on when results made it due: `decide` sees the tournament under its
    /// lock and says which ratings to store, which round to pair and whether it is over, all
    /// written in the same transaction — so a round is paired once, whichever worker finished
    /// its last match. Returns what was decided, or `None` when nothing was due.
    pub async fn advance(
        &self,
        tournament: i64,
        decide: impl FnOnce(&Standing) -> Advance,
    ) -> Result<Option<Advance>, StoreError> {
        if !self.due(tournament).await? {
            return Ok(None);
        }
        self.set_durable(true).await?;
        let mut tx = self.pool.begin().await?;
        // The tournament's row, written first, is its lock: PostgreSQL locks the row, SQLite
        // takes its one write lock; the reads that follow see every result handed in before.
        sqlx::query("UPDATE tournaments SET finished = finished WHERE id = $1")
            .bind(tournament)
            .execute(&mut *tx)
            .await?;
        let finished: Option<i64> = sqlx::query("SELECT finished FROM tournaments WHERE id = $1")
            .bind(tournament)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(StoreError::NoTournament(tournament))?
            .try_get(0)?;
        if finished.is_some() {
            return Ok(None);
        }
        let standing = standing(&mut tx, tournament).await?;
        let advance = decide(&standing);
        for (round, rows) in &advance.ratings {
            save_ratings(&mut tx, tournament, *round, rows).await?;
        }
        if let Some(round) = &advance.round {
            let bye = round.bye.as_ref().map(|(r, player)| (*r, player.as_str()));
            crate::tournaments::insert_round(&mut tx, tournament, &round.matches, bye).await?;
            self.notify_work(&mut tx).await?;
        }
        if advance.drop_queued {
            // A queued match claimed before (its worker died) may have left a replay.
            let queued = "SELECT id FROM matches WHERE tournament_id = $1 AND state = 'queued'";
            for table in ["replay_chunks", "replays"] {
                sqlx::query(&format!(
                    "DELETE FROM {table} WHERE tournament_id = $1 AND match_id IN ({queued})"
                ))
                .bind(tournament)
                .execute(&mut *tx)
                .await?;
            }
            sqlx::query("DELETE FROM matches WHERE tournament_id = $1 AND state = 'queued'")
                .bind(tournament)
                .execute(&mut *tx)
                .await?;
        }
        if advance.finished {
            sqlx::query("UPDATE tournaments SET finished = $1 WHERE id = $2")
                .bind(now_ms())
                .bind(tournament)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(Some(advance))
    }

    /// Whether `tournament` may have something to do: a round complete without its ratings,
    /// or nothing left queued or running while it is not marked finished. Two small reads,
    /// so a result handed in does not read the whole tournament.
    async fn due(&self, tournament: i64) -> Result<bool, StoreError> {
        let row = sqlx::query(
            "SELECT (SELECT MIN(round) FROM matches WHERE tournament_id = $1 \
             AND state IN ('queued', 'running')), \
             (SELECT MAX(round) FROM matches WHERE tournament_id = $1), \
             (SELECT MAX(round) FROM ratings WHERE tournament_id = $1), \
             (SELECT finished FROM tournaments WHERE id = $1)",
        )
        .bind(tournament)
        .fetch_one(&self.pool)
        .await?;
        let first_open: Option<i64> = row.try_get(0)?;
        let last: Option<i64> = row.try_get(1)?;
        let rated: Option<i64> = row.try_get(2)?;
        let finished: Option<i64> = row.try_get(3)?;
        if finished.is_some() {
            return Ok(false);
        }
        let complete = match first_open {
            Some(open) => open - 1,
            None => return Ok(true),
        };
        Ok(complete > rated.unwrap_or(0) && last.is_some())
    }

    /// Wakes the workers waiting for work (PostgreSQL; SQLite workers poll).
    pub(crate) async fn notify_work(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    ) -> Result<(), sqlx::Error> {
        if self.backend == Backend::Postgres {
            sqlx::query(&format!("SELECT pg_notify('{WORK_CHANNEL}', '')"))
                .execute(&mut **tx)
                .await?;
        }
        Ok(())
    }
}

/// Which running matches go back to the queue.
#[derive(Clone, Copy)]
enum Requeue<'a> {
    /// Those whose lease ended before this time: an attempt is counted.
    LeaseBefore(i64),
    /// Those of this worker, known to be gone: no attempt is counted.
    Worker(&'a str),
}

/// The PostgreSQL channel new matches are announced on.
pub const WORK_CHANNEL: &str = "arbiter_work";

/// A hand-in whose update found no running match of that claim: taken already if the match
/// is `state` with this very claim (the answer to an earlier try was lost with the
/// connection), refused otherwise.
async fn already_taken(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    tournament: i64,
    id: i64,
    claim: i64,
    state: &str,
) -> Result<Handed, StoreError> {
    let row = sqlx::query("SELECT state, claim FROM matches WHERE tournament_id = $1 AND id = $2")
        .bind(tournament)
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?;
    let Some(row) = row else {
        return Ok(Handed::Refused);
    };
    let (now, latest): (String, i64) = (row.try_get(0)?, row.try_get(1)?);
    Ok(if now == state && latest == claim {
        Handed::Taken
    } else {
        Handed::Refused
    })
}

async fn standing(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    tournament: i64,
) -> Result<Standing, StoreError> {
    let rows = sqlx::query(&format!(
        "SELECT {MATCH_COLUMNS} FROM matches WHERE tournament_id = $1 ORDER BY id"
    ))
    .bind(tournament)
    .fetch_all(&mut **tx)
    .await?;
    let matches = rows.iter().map(match_row).collect::<Result<_, _>>()?;
    let byes =
        sqlx::query("SELECT round, player FROM byes WHERE tournament_id = $1 ORDER BY round")
            .bind(tournament)
            .fetch_all(&mut **tx)
            .await?
            .iter()
            .map(|r| Ok((r.try_get::<i64, _>(0)? as u32, r.try_get(1)?)))
            .collect::<Result<_, sqlx::Error>>()?;
    let rated: Option<i64> = sqlx::query("SELECT MAX(round) FROM ratings WHERE tournament_id = $1")
        .bind(tournament)
        .fetch_one(&mut **tx)
        .await?
        .try_get(0)?;
    Ok(Standing {
        matches,
        byes,
        rated: rated.unwrap_or(0) as u32,
    })
}
