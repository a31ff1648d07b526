//! The arena's queue of builds and checks, as the store is the queue of matches
//! (`queue.rs`): a worker claims a job with a lease it renews while it works, and hands in
//! the outcome with the number of its claim. A job whose lease ran out is queued again (or
//! failed, after its last attempt); an outcome that comes with an older claim is refused
//! (fencing), so every version is built and checked once however many workers share the store.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{ArenaStore, NEWEST_PASSED, VersionState, next_id};
use crate::tournaments::Backend;
use crate::{Handed, StoreError, now_ms};

/// The PostgreSQL channel new arena jobs are announced on.
pub const ARENA_WORK_CHANNEL: &str = "arbiter_arena_work";

/// How many times a job is claimed before its version fails: a build that kills its worker
/// every time is the version's fault, not the machine's.
pub const MAX_JOB_ATTEMPTS: i64 = 3;

/// What a job does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobKind {
    /// Builds a version from its source, into a program.
    Build,
    /// Plays a built version's check.
    Check,
}

impl JobKind {
    /// The name in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Build => "build",
            JobKind::Check => "check",
        }
    }

    /// The kind named `text`, as [`JobKind::as_str`] writes it.
    pub fn parse(text: &str) -> Option<JobKind> {
        [JobKind::Build, JobKind::Check]
            .into_iter()
            .find(|k| k.as_str() == text)
    }

    /// The state of a version while a job of this kind runs.
    fn running_state(self) -> VersionState {
        match self {
            JobKind::Build => VersionState::Building,
            JobKind::Check => VersionState::Checking,
        }
    }

    /// The state of a version whose job of this kind waits in the queue.
    fn queued_state(self) -> VersionState {
        match self {
            JobKind::Build => VersionState::Queued,
            JobKind::Check => VersionState::Checking,
        }
    }

    /// The state of a version whose job of this kind failed.
    fn failed_state(self) -> VersionState {
        match self {
            JobKind::Build => VersionState::BuildFailed,
            JobKind::Check => VersionState::CheckFailed,
        }
    }
}

/// A job a worker holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArenaJob {
    /// Its number in the store.
    pub id: i64,
    /// Build or check.
    pub kind: JobKind,
    /// The id of the version it is for ([`ArenaStore::version_by_id`]).
    pub version: i64,
    /// The number its outcome must come with to be taken.
    pub claim: i64,
}

/// A job whose worker stopped renewing its lease, put back in the queue or failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpiredJob {
    /// The job.
    pub id: i64,
    /// The version it is for.
    pub version: i64,
    /// Whether it has used up its attempts: its version failed.
    pub failed: bool,
}

/// A job queued or running, as the admin page lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueuedJob {
    /// The job.
    pub id: i64,
    /// Build or check.
    pub kind: JobKind,
    /// Whether a worker holds it.
    pub running: bool,
    /// The worker that holds it.
    pub worker: Option<String>,
    /// Until when its lease holds (Unix milliseconds).
    pub lease_until: Option<i64>,
    /// Its claims that ran out so far.
    pub attempts: i64,
    /// The version's id, its bot, the bot's name and game, and the version's number.
    pub version: i64,
    /// The bot's id.
    pub bot: i64,
    /// The bot's name.
    pub bot_name: String,
    /// The bot's game.
    pub game: String,
    /// The version's number.
    pub number: i64,
    /// When it was queued (Unix milliseconds).
    pub created: i64,
}

/// Queues a job of `kind` for version `version`, in the caller's transaction, and wakes the
/// workers waiting for work (PostgreSQL; SQLite workers poll).
pub(crate) async fn queue_job(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    backend: Backend,
    kind: JobKind,
    version: i64,
) -> Result<i64, StoreError> {
    let id = next_id(tx, "jobs").await?;
    sqlx::query(
        "INSERT INTO arena_jobs (id, kind, version_id, state, claim, attempts, created) \
         VALUES ($1, $2, $3, 'queued', 0, 0, $4)",
    )
    .bind(id)
    .bind(kind.as_str())
    .bind(version)
    .bind(now_ms())
    .execute(&mut **tx)
    .await?;
    if backend == Backend::Postgres {
        sqlx::query(&format!("SELECT pg_notify('{ARENA_WORK_CHANNEL}', '')"))
            .execute(&mut **tx)
            .await?;
    }
    Ok(id)
}

/// Sets version `version`'s state, in the caller's transaction.
async fn set_state(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    version: i64,
    state: VersionState,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE arena_versions SET state = $1, updated = $2 WHERE id = $3")
        .bind(state.as_str())
        .bind(now_ms())
        .bind(version)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

impl ArenaStore {
    /// Claims the oldest queued job for `worker`, leased for `lease_ms`, and marks its
    /// version building or checking.
    pub async fn claim_job(
        &self,
        worker: &str,
        lease_ms: i64,
    ) -> Result<Option<ArenaJob>, StoreError> {
        // PostgreSQL: the row is locked as it is picked and others skip it, so claims by many
        // workers never wait on each other. SQLite: the transaction holds the one write lock
        // from its first statement.
        let skip = match self.backend {
            Backend::Postgres => "FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let now = now_ms();
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(&format!(
            "UPDATE arena_jobs SET state = 'running', claim = claim + 1, worker = $1, \
             lease_until = $2, started = $3 \
             WHERE state = 'queued' AND id = (SELECT id FROM arena_jobs \
             WHERE state = 'queued' ORDER BY id LIMIT 1 {skip}) \
             RETURNING id, kind, version_id, claim"
        ))
        .bind(worker)
        .bind(now + lease_ms)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            tx.commit().await?;
            return Ok(None);
        };
        let job = job_row(&row)?;
        set_state(&mut tx, job.version, job.kind.running_state()).await?;
        tx.commit().await?;
        Ok(Some(job))
    }

    /// Extends the leases of every job `worker` holds; returns how many it still holds.
    pub async fn renew_jobs(&self, worker: &str, lease_ms: i64) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "UPDATE arena_jobs SET lease_until = $1 WHERE worker = $2 AND state = 'running'",
        )
        .bind(now_ms() + lease_ms)
        .bind(worker)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// Puts back in the queue every job whose lease ran out, or fails it (and its version)
    /// after its last attempt.
    pub async fn expire_job_leases(&self) -> Result<Vec<ExpiredJob>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let rows = sqlx::query(
            "SELECT id, kind, version_id, claim FROM arena_jobs \
             WHERE state = 'running' AND (lease_until IS NULL OR lease_until < $1) ORDER BY id",
        )
        .bind(now_ms())
        .fetch_all(&mut *tx)
        .await?;
        let mut expired = Vec::with_capacity(rows.len());
        for row in &rows {
            let job = job_row(row)?;
            let error = "its worker stopped renewing its lease";
            let failed = requeue(&mut tx, &job, error, true).await?;
            expired.push(ExpiredJob {
                id: job.id,
                version: job.version,
                failed: failed == Some(true),
            });
        }
        tx.commit().await?;
        Ok(expired)
    }

    /// Hands back a job its worker could not do for a reason of its own (the machine, the
    /// store, Arbiter — not the version): it is queued again, or fails with its version
    /// after its last attempt. Fenced by its claim.
    pub async fn fail_job(&self, job: &ArenaJob, error: &str) -> Result<Handed, StoreError> {
        let mut tx = self.pool.begin().await?;
        let handed = match requeue(&mut tx, job, error, true).await? {
            Some(_) => Handed::Taken,
            None => Handed::Refused,
        };
        tx.commit().await?;
        Ok(handed)
    }

    /// Puts back in the queue the jobs of `worker`, which is stopping: no attempt is counted.
    pub async fn release_jobs(&self, worker: &str) -> Result<u64, StoreError> {
        let mut tx = self.pool.begin().await?;
        let rows = sqlx::query(
            "SELECT id, kind, version_id, claim FROM arena_jobs \
             WHERE state = 'running' AND worker = $1",
        )
        .bind(worker)
        .fetch_all(&mut *tx)
        .await?;
        for row in &rows {
            requeue(&mut tx, &job_row(row)?, "its worker stopped", false).await?;
        }
        tx.commit().await?;
        Ok(rows.len() as u64)
    }

    /// Hands in a build: `Ok((program_hash, language, log))` (the program saved already with
    /// [`ArenaStore::save_program`]), which queues the version's check, or `Err((log,
    /// reason))`, which fails the version. Taken only with the job's latest claim.
    pub async fn finish_build(
        &self,
        job: &ArenaJob,
        outcome: Result<(&str, &str, &str), (&str, &str)>,
    ) -> Result<Handed, StoreError> {
        let mut tx = self.pool.begin().await?;
        if !close_job(&mut tx, job, JobKind::Build).await? {
            let handed = already_taken(&mut tx, job).await?;
            tx.commit().await?;
            return Ok(handed);
        }
        let (state, program, language, log, reason) = match outcome {
            Ok((program, language, log)) => (
                VersionState::Checking,
                Some(program),
                Some(language),
                log,
                None,
            ),
            Err((log, reason)) => (VersionState::BuildFailed, None, None, log, Some(reason)),
        };
        sqlx::query(
            "UPDATE arena_versions SET state = $1, program = $2, language = $3, build_log = $4, \
             reason = $5, updated = $6 WHERE id = $7",
        )
        .bind(state.as_str())
        .bind(program)
        .bind(language)
        .bind(log)
        .bind(reason)
        .bind(now_ms())
        .bind(job.version)
        .execute(&mut *tx)
        .await?;
        if state == VersionState::Checking {
            queue_job(&mut tx, self.backend, JobKind::Check, job.version).await?;
        }
        tx.commit().await?;
        Ok(Handed::Taken)
    }

    /// Hands in a check: whether it passed, why not, and its games' replays as (label,
    /// `.jsonl.gz` bytes). A version that passed becomes its bot's active one if it is the
    /// newest passed and the team pinned none (and so joins the ladder, with an SPRT series
    /// against the version it replaces). Taken only with the job's latest claim.
    pub async fn finish_check(
        &self,
        job: &ArenaJob,
        passed: bool,
        reason: Option<&str>,
        replays: &[(String, Vec<u8>)],
    ) -> Result<Handed, StoreError> {
        let mut tx = self.pool.begin().await?;
        if !close_job(&mut tx, job, JobKind::Check).await? {
            let handed = already_taken(&mut tx, job).await?;
            tx.commit().await?;
            return Ok(handed);
        }
        for (seq, (label, bytes)) in replays.iter().enumerate() {
            sqlx::query(
                "INSERT INTO arena_check_replays (version_id, seq, label, replay) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(job.version)
            .bind(seq as i64)
            .bind(label)
            .bind(bytes.clone())
            .execute(&mut *tx)
            .await?;
        }
        let state = if passed {
            VersionState::Passed
        } else {
            VersionState::CheckFailed
        };
        let bot: i64 = sqlx::query(
            "UPDATE arena_versions SET state = $1, reason = $2, updated = $3 WHERE id = $4 \
             RETURNING bot_id",
        )
        .bind(state.as_str())
        .bind(reason)
        .bind(now_ms())
        .bind(job.version)
        .fetch_one(&mut *tx)
        .await?
        .try_get(0)?;
        if passed {
            let before = super::lock_bot(&mut tx, bot).await?;
            sqlx::query(&format!(
                "UPDATE arena_bots SET active = {NEWEST_PASSED} WHERE id = $1 AND pinned = 0"
            ))
            .bind(bot)
            .execute(&mut *tx)
            .await?;
            super::ladder::activated(&mut tx, bot, before).await?;
        }
        tx.commit().await?;
        Ok(Handed::Taken)
    }

    /// The replays of version `version`'s check, as (label, `.jsonl.gz` bytes), in order.
    pub async fn check_replays(&self, version: i64) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let rows = sqlx::query(
            "SELECT label, replay FROM arena_check_replays WHERE version_id = $1 ORDER BY seq",
        )
        .bind(version)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect()
    }

    /// The jobs queued and running, oldest first (the admin page).
    pub async fn queue(&self) -> Result<Vec<QueuedJob>, StoreError> {
        let rows = sqlx::query(
            "SELECT j.id, j.kind, j.state, j.worker, j.lease_until, j.attempts, j.version_id, \
             b.id, b.name, b.game, v.number, j.created FROM arena_jobs j \
             JOIN arena_versions v ON v.id = j.version_id JOIN arena_bots b ON b.id = v.bot_id \
             WHERE j.state IN ('queued', 'running') ORDER BY j.id",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(QueuedJob {
                    id: r.try_get(0)?,
                    kind: kind(&r.try_get::<String, _>(1)?)?,
                    running: r.try_get::<String, _>(2)? == "running",
                    worker: r.try_get(3)?,
                    lease_until: r.try_get(4)?,
                    attempts: r.try_get(5)?,
                    version: r.try_get(6)?,
                    bot: r.try_get(7)?,
                    bot_name: r.try_get(8)?,
                    game: r.try_get(9)?,
                    number: r.try_get(10)?,
                    created: r.try_get(11)?,
                })
            })
            .collect()
    }
}

/// Marks `job` done if it is running under this very claim; returns whether it was.
async fn close_job(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    job: &ArenaJob,
    kind: JobKind,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE arena_jobs SET state = 'done', finished = $1, lease_until = NULL \
         WHERE id = $2 AND claim = $3 AND kind = $4 AND state = 'running'",
    )
    .bind(now_ms())
    .bind(job.id)
    .bind(job.claim)
    .bind(kind.as_str())
    .execute(&mut **tx)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// A hand-in that found no running job of its claim: taken already if the job is done with
/// this very claim (the answer to an earlier try was lost with the connection), refused
/// otherwise.
async fn already_taken(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    job: &ArenaJob,
) -> Result<Handed, StoreError> {
    let row = sqlx::query("SELECT state, claim FROM arena_jobs WHERE id = $1")
        .bind(job.id)
        .fetch_optional(&mut **tx)
        .await?;
    let Some(row) = row else {
        return Ok(Handed::Refused);
    };
    let (state, claim): (String, i64) = (row.try_get(0)?, row.try_get(1)?);
    Ok(if state == "done" && claim == job.claim {
        Handed::Taken
    } else {
        Handed::Refused
    })
}

/// Puts `job`, running under its claim, back in the queue — or fails it and its version once
/// `count` attempts reach [`MAX_JOB_ATTEMPTS`]. `None` when the job is not running under
/// that claim; else whether it failed for good.
async fn requeue(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    job: &ArenaJob,
    error: &str,
    count: bool,
) -> Result<Option<bool>, StoreError> {
    let attempt = if count { "attempts + 1" } else { "attempts" };
    let row = sqlx::query(&format!(
        "UPDATE arena_jobs SET attempts = {attempt}, error = $1, lease_until = NULL, \
         started = NULL, worker = NULL, \
         state = CASE WHEN {attempt} >= $2 THEN 'failed' ELSE 'queued' END, \
         finished = CASE WHEN {attempt} >= $2 THEN $3 ELSE NULL END \
         WHERE id = $4 AND claim = $5 AND state = 'running' RETURNING state, attempts"
    ))
    .bind(error)
    .bind(MAX_JOB_ATTEMPTS)
    .bind(now_ms())
    .bind(job.id)
    .bind(job.claim)
    .fetch_optional(&mut **tx)
    .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    let failed = row.try_get::<String, _>(0)? == "failed";
    if failed {
        let attempts: i64 = row.try_get(1)?;
        let reason = format!(
            "the {} was tried {attempts} times and never finished: {error}",
            job.kind.as_str()
        );
        sqlx::query(
            "UPDATE arena_versions SET state = $1, reason = $2, updated = $3 WHERE id = $4",
        )
        .bind(job.kind.failed_state().as_str())
        .bind(reason)
        .bind(now_ms())
        .bind(job.version)
        .execute(&mut **tx)
        .await?;
    } else {
        set_state(tx, job.version, job.kind.queued_state()).await?;
    }
    Ok(Some(failed))
}

fn kind(text: &str) -> Result<JobKind, StoreError> {
    JobKind::parse(text).ok_or_else(|| StoreError::Corrupt(format!("arena job kind {text:?}")))
}

fn job_row(row: &AnyRow) -> Result<ArenaJob, StoreError> {
    Ok(ArenaJob {
        id: row.try_get(0)?,
        kind: kind(&row.try_get::<String, _>(1)?)?,
        version: row.try_get(2)?,
        claim: row.try_get(3)?,
    })
}
