//! The arena's worker: claims builds and checks from the store's queue, and matches (ladder
//! games, challenges, the playground, SPRT series) from its queue of matches, runs each on a
//! blocking thread (a build, a check or a match runs for seconds to minutes, in the sandbox),
//! renews their leases while they run, and hands in their outcomes. `arbiter arena serve` runs
//! it unless `--no-work`; `arbiter worker` runs it on other machines, on the same store.
//!
//! A match is played as the check plays its own ([`arbiter_builds::play_match`]): each
//! version's program installed from the store by its hash, robots as built-in seats. A seat's
//! fault (a program that cannot start, a crash, a late or wrong answer) is its loss, kept in
//! words with the result.
//!
//! A version's own failure (a compile error, a crash in its check) is its outcome. A failure of
//! Arbiter, the machine or the store hands the job back (`fail_job`): it is queued again, and
//! after its last attempt its version fails, so that a version which kills its worker every
//! time cannot hold the queue for ever. A job whose worker died is queued again once its lease
//! runs out: every worker expires the leases it finds out of date.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use arbiter_builds::{
    BuildError, BuildLimits, Built, Languages, MATCH_REPLAY_PREFIX, MatchSeat, SandboxPolicy,
    Source, build_until, cached_program, check, install_program, play_match, programs_cache,
    remove_built, showing,
};
use arbiter_store::{
    ArenaJob, ArenaStore, ClaimedMatch, ClaimedSeat, Handed, JobKind, MatchOutcome, SeatPlayer,
    StoreError, StoredProgram,
};
use tokio::sync::Notify;
use tokio::task::JoinSet;

/// How a worker works.
#[derive(Clone, Debug)]
pub struct WorkOptions {
    /// Its name in the store's leases (unique per process: host and process id).
    pub worker: String,
    /// Builds and checks run at once.
    pub jobs: usize,
    /// Matches played at once, besides the builds and checks (each seats its bots' processes:
    /// a machine of 2 cores plays one at a time).
    pub match_jobs: usize,
    /// How long a claim holds without being renewed; renewed every third of it.
    pub lease: Duration,
    /// The longest wait between two looks at an empty queue (waits start at a tenth of it).
    pub idle: Duration,
    /// The table of languages.
    pub languages: Languages,
    /// The limits of every build.
    pub limits: BuildLimits,
    /// The sandbox builds and checks run in.
    pub sandbox: SandboxPolicy,
    /// Where builds are made (a folder per build, removed after it).
    pub work: PathBuf,
    /// The machine's folder of programs by hash, where a check finds the version it plays.
    pub programs: PathBuf,
    /// The settings of each game the arena offers (as JSON); a game not named plays with its
    /// defaults.
    pub games: BTreeMap<String, serde_json::Value>,
    /// Wakes the worker to look at the queue at once: the arena's service, in the same
    /// process, notifies it when a version is handed in. A worker elsewhere looks at the queue
    /// every [`WorkOptions::idle`] at most.
    pub wake: Arc<Notify>,
}

impl WorkOptions {
    /// The options of a worker named `worker` running one job at a time, with the default
    /// languages and limits, the default sandbox (preferred), builds in the system's temporary
    /// folder and programs in the machine's cache.
    pub fn new(worker: impl Into<String>) -> WorkOptions {
        WorkOptions {
            worker: worker.into(),
            jobs: 1,
            match_jobs: 1,
            lease: Duration::from_secs(60),
            idle: Duration::from_secs(1),
            languages: Languages::defaults(),
            limits: BuildLimits::default(),
            sandbox: SandboxPolicy::default(),
            work: std::env::temp_dir().join(format!("{BUILDS_PREFIX}{}", std::process::id())),
            programs: programs_cache(),
            games: BTreeMap::new(),
            wake: Arc::new(Notify::new()),
        }
    }
}

/// The start of the name of a worker's folder of builds in the system's temporary folder; its
/// process id follows.
const BUILDS_PREFIX: &str = "arbiter-builds-";

/// Removes what workers that are gone (killed before they could clean up) left in the folder
/// that holds `work`: their folders of builds and their matches' replays, named after a
/// process id no running process has.
fn sweep_folders_of_gone_workers(work: &Path) {
    let Some(parent) = work.parent() else { return };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(left_by) else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let path = entry.path();
            let _ = match path.is_dir() {
                true => arbiter_folder::remove_tree(&path),
                false => std::fs::remove_file(&path),
            };
        }
    }
}

/// The process that left `name` in the temporary folder: `arbiter-builds-PID` (its folder of
/// builds) or `arbiter-match-PID-N.jsonl.gz` (a match's replay).
fn left_by(name: &str) -> Option<u32> {
    let pid = match name.strip_prefix(BUILDS_PREFIX) {
        Some(pid) => pid,
        None => name.strip_prefix(MATCH_REPLAY_PREFIX)?.split('-').next()?,
    };
    pid.parse().ok()
}

/// How long a stopping worker waits for its jobs: a build is killed at once, a check ends
/// with its match.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// Works on the arena's jobs until `stop` completes. Then the jobs still running are stopped
/// (a build's processes killed; a check's match played out, for up to 10 s) and handed back
/// to the queue without counting an attempt. Store errors are said on stderr and waited out:
/// a worker outlives a database restart.
pub async fn work(store: ArenaStore, options: WorkOptions, stop: impl Future<Output = ()>) {
    sweep_folders_of_gone_workers(&options.work);
    let options = Arc::new(hide_the_arenas_folders(options, &store));
    let stopping = Arc::new(AtomicBool::new(false));
    let mut stop = std::pin::pin!(stop);
    let mut running: JoinSet<()> = JoinSet::new();
    let mut playing: JoinSet<()> = JoinSet::new();
    let mut renew = tokio::time::interval((options.lease / 3).max(Duration::from_millis(10)));
    let mut expire = tokio::time::interval(options.lease.max(Duration::from_millis(10)));
    let shortest = (options.idle / 10).max(Duration::from_millis(10));
    let mut idle = shortest;
    loop {
        if claim_jobs(&store, &options, &stopping, &mut running).await
            | claim_matches(&store, &options, &mut playing).await
        {
            idle = shortest;
        }
        let room = running.len() < options.jobs.max(1) || playing.len() < options.match_jobs;
        tokio::select! {
            () = &mut stop => break,
            Some(_) = running.join_next(), if !running.is_empty() => {}
            Some(_) = playing.join_next(), if !playing.is_empty() => {}
            _ = renew.tick() => renew_leases(&store, &options, &running, &playing).await,
            _ = expire.tick() => expire_leases(&store).await,
            () = tokio::time::sleep(idle), if room => idle = (idle * 2).min(options.idle),
            () = options.wake.notified(), if room => idle = shortest,
        }
    }
    stopping.store(true, Ordering::Relaxed);
    let finish = async {
        while running.join_next().await.is_some() {}
        while playing.join_next().await.is_some() {}
    };
    if tokio::time::timeout(STOP_GRACE, finish).await.is_err() {
        warn("a check or a match still running is left to end with Arbiter");
    }
    if let Err(error) = store.release_jobs(&options.worker).await {
        warn(&format!("handing its jobs back: {error}"));
    }
    if let Err(error) = store.release_matches(&options.worker).await {
        warn(&format!("handing its matches back: {error}"));
    }
    // Each build removed its own folder; the folder of builds goes too when nothing is left
    // in it (a build still running holds it).
    let _ = std::fs::remove_dir(&options.work);
}

/// Claims builds and checks while there is room; returns whether it claimed any.
async fn claim_jobs(
    store: &ArenaStore,
    options: &Arc<WorkOptions>,
    stopping: &Arc<AtomicBool>,
    running: &mut JoinSet<()>,
) -> bool {
    let mut claimed = false;
    while running.len() < options.jobs.max(1) {
        match store
            .claim_job(&options.worker, millis(options.lease))
            .await
        {
            Ok(Some(job)) => {
                running.spawn(run_job(store.clone(), Arc::clone(options), job, stopping));
                claimed = true;
            }
            Ok(None) => break,
            Err(error) => {
                warn(&format!("claiming a job: {error}"));
                break;
            }
        }
    }
    claimed
}

/// Claims matches while there is room; returns whether it claimed any.
async fn claim_matches(
    store: &ArenaStore,
    options: &Arc<WorkOptions>,
    playing: &mut JoinSet<()>,
) -> bool {
    let mut claimed = false;
    while playing.len() < options.match_jobs {
        match store
            .claim_match(&options.worker, millis(options.lease))
            .await
        {
            Ok(Some(m)) => {
                playing.spawn(run_match(store.clone(), Arc::clone(options), m));
                claimed = true;
            }
            Ok(None) => break,
            Err(error) => {
                warn(&format!("claiming a match: {error}"));
                break;
            }
        }
    }
    claimed
}

async fn renew_leases(
    store: &ArenaStore,
    options: &WorkOptions,
    running: &JoinSet<()>,
    playing: &JoinSet<()>,
) {
    let lease_ms = millis(options.lease);
    if !running.is_empty()
        && let Err(error) = store.renew_jobs(&options.worker, lease_ms).await
    {
        warn(&format!("renewing the leases of its jobs: {error}"));
    }
    if !playing.is_empty()
        && let Err(error) = store.renew_matches(&options.worker, lease_ms).await
    {
        warn(&format!("renewing the leases of its matches: {error}"));
    }
}

/// The options with the arena's own folders hidden from every build and bot: the store's
/// (SQLite), the builds', the programs'.
fn hide_the_arenas_folders(mut options: WorkOptions, store: &ArenaStore) -> WorkOptions {
    let mut hidden = vec![options.work.clone(), options.programs.clone()];
    hidden.extend(store.file().and_then(|f| f.parent()).map(PathBuf::from));
    hidden.retain(|folder| !folder.as_os_str().is_empty());
    options.sandbox = options.sandbox.clone().hiding(hidden);
    options
}

async fn expire_leases(store: &ArenaStore) {
    match store.expire_job_leases().await {
        Ok(expired) => {
            for job in expired {
                let what = match job.failed {
                    true => "its version failed after its last attempt",
                    false => "queued again",
                };
                warn(&format!(
                    "job {} (version {}): its worker stopped renewing its lease; {what}",
                    job.id, job.version
                ));
            }
        }
        Err(error) => warn(&format!("expiring the leases of jobs: {error}")),
    }
    match store.expire_match_leases().await {
        Ok(expired) => {
            for m in expired {
                let what = match m.failed {
                    true => "it failed after its last attempt",
                    false => "queued again",
                };
                warn(&format!(
                    "match {}: its worker stopped renewing its lease; {what}",
                    m.id
                ));
            }
        }
        Err(error) => warn(&format!("expiring the leases of matches: {error}")),
    }
}

/// Why a job could not be done by this worker.
#[derive(Debug, thiserror::Error)]
enum JobError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error("{0}")]
    Missing(String),
    #[error("its thread failed: {0}")]
    Thread(#[from] tokio::task::JoinError),
}

/// Runs one job and hands in its outcome; hands it back when this worker could not do it.
fn run_job(
    store: ArenaStore,
    options: Arc<WorkOptions>,
    job: ArenaJob,
    stopping: &Arc<AtomicBool>,
) -> impl Future<Output = ()> + Send + 'static {
    let stopping = Arc::clone(stopping);
    async move {
        let done = match job.kind {
            JobKind::Build => run_build(&store, &options, &job, &stopping).await,
            JobKind::Check => run_check(&store, &options, &job).await,
        };
        let handed = match done {
            Ok(handed) => handed,
            // Handed back by the worker as it stops (`release_jobs`).
            Err(JobError::Build(BuildError::Stopped)) => return,
            Err(error) => {
                warn(&format!(
                    "job {} ({} of version {}): {error}; handed back to the queue",
                    job.id,
                    job.kind.as_str(),
                    job.version
                ));
                match store.fail_job(&job, &error.to_string()).await {
                    Ok(handed) => handed,
                    Err(error) => {
                        warn(&format!("handing job {} back: {error}", job.id));
                        return;
                    }
                }
            }
        };
        if handed == Handed::Refused {
            warn(&format!(
                "job {}: another worker holds it now (this worker's lease ran out); its \
                 outcome here is dropped",
                job.id
            ));
        }
    }
}

/// Builds the version of `job` and hands in the program, or the failure.
async fn run_build(
    store: &ArenaStore,
    options: &Arc<WorkOptions>,
    job: &ArenaJob,
    stopping: &Arc<AtomicBool>,
) -> Result<Handed, JobError> {
    let version = store
        .version_by_id(job.version)
        .await?
        .ok_or_else(|| JobError::Missing(format!("there is no version {}", job.version)))?;
    let source = store.source(version.id).await?;
    let (options2, stopping) = (Arc::clone(options), Arc::clone(stopping));
    let name = version.file_name.clone();
    let built = tokio::task::spawn_blocking(move || {
        let o = &options2;
        let source = Source::of_upload(&name, &source);
        build_until(
            source,
            &o.languages,
            &o.limits,
            &o.sandbox,
            &o.work,
            &stopping,
        )
    })
    .await??;
    match built {
        Built::Ok {
            folder,
            program,
            log,
            language,
            ..
        } => {
            let stored = StoredProgram {
                hash: program.hash,
                size: program.size,
                entries: program.entries,
                archive: program.archive,
            };
            tokio::task::spawn_blocking(move || remove_built(&folder));
            store.save_program(&stored).await?;
            let outcome = Ok((stored.hash.as_str(), language.as_str(), log.as_str()));
            Ok(store.finish_build(job, outcome).await?)
        }
        Built::Failed { log, reason } => Ok(store.finish_build(job, Err((&log, &reason))).await?),
    }
}

/// Plays the check of the version of `job`, built already, and hands in its outcome.
async fn run_check(
    store: &ArenaStore,
    options: &Arc<WorkOptions>,
    job: &ArenaJob,
) -> Result<Handed, JobError> {
    let missing = |what: String| JobError::Missing(what);
    let version = store
        .version_by_id(job.version)
        .await?
        .ok_or_else(|| missing(format!("there is no version {}", job.version)))?;
    let hash = version
        .program
        .clone()
        .ok_or_else(|| missing(format!("version {} has no program to check", version.id)))?;
    let bot = store
        .bot_by_id(version.bot)
        .await?
        .ok_or_else(|| missing(format!("there is no bot {}", version.bot)))?;
    let folder = program_folder(store, options, &hash).await?;
    let settings = options
        .games
        .get(&bot.game)
        .cloned()
        .unwrap_or_else(|| serde_json::json!({}));
    let language = version.language.clone().unwrap_or_default();
    let options2 = Arc::clone(options);
    let outcome = tokio::task::spawn_blocking(move || {
        let sandbox = showing(
            &options2.sandbox,
            &options2.languages.toolchains_for(&language),
        );
        check(&bot.game, &settings, &folder, &sandbox)
    })
    .await??;
    let replays: Vec<(String, Vec<u8>)> = outcome
        .replays
        .into_iter()
        .map(|r| (r.label, r.jsonl_gz))
        .collect();
    let reason = outcome.reason.as_deref();
    Ok(store
        .finish_check(job, outcome.passed, reason, &replays)
        .await?)
}

/// Plays match `m` and hands in its result; hands it back when this worker could not play it.
async fn run_match(store: ArenaStore, options: Arc<WorkOptions>, m: ClaimedMatch) {
    let handed = match play_claimed(&store, &options, &m).await {
        Ok(handed) => handed,
        Err(error) => {
            warn(&format!(
                "match {} ({}): {error}; handed back to the queue",
                m.id,
                m.kind.as_str()
            ));
            match store.fail_match(&m, &error.to_string()).await {
                Ok(handed) => handed,
                Err(error) => {
                    warn(&format!("handing match {} back: {error}", m.id));
                    return;
                }
            }
        }
    };
    if handed == Handed::Refused {
        warn(&format!(
            "match {}: another worker holds it now (this worker's lease ran out); its \
             result here is dropped",
            m.id
        ));
    }
}

/// Installs the programs of match `m`, plays it in the sandbox (each program's toolchains
/// shown to it) and hands in its result.
async fn play_claimed(
    store: &ArenaStore,
    options: &Arc<WorkOptions>,
    m: &ClaimedMatch,
) -> Result<Handed, JobError> {
    let mut seats = Vec::with_capacity(m.seats.len());
    let mut toolchains = Vec::new();
    for (index, seat) in m.seats.iter().enumerate() {
        let name = seat_name(&m.seats, index);
        seats.push(match &seat.player {
            SeatPlayer::Robot { name: robot } => MatchSeat::Robot {
                name,
                robot: robot.clone(),
            },
            SeatPlayer::Program { hash, language } => {
                toolchains.extend(options.languages.toolchains_for(language));
                MatchSeat::Folder {
                    name,
                    folder: program_folder(store, options, hash).await?,
                }
            }
        });
    }
    let (game, settings, seed) = (m.game.clone(), m.settings.clone(), m.seed);
    let options2 = Arc::clone(options);
    let played = tokio::task::spawn_blocking(move || {
        let sandbox = showing(&options2.sandbox, &toolchains);
        play_match(&game, &settings, &seats, seed, &sandbox)
    })
    .await??;
    let outcome = MatchOutcome {
        places: played.places,
        faults: played.faults,
        reason: played.reason,
        replay: played.replay,
    };
    Ok(store.finish_match(m, &outcome).await?)
}

/// The name seat `index` plays under, as the other seats and the replay know it: the bot's
/// name and version (`walker_v3`), or the robot's; characters a name may not have become
/// `_`, and a name met already gets its seat's number.
fn seat_name(seats: &[ClaimedSeat], index: usize) -> String {
    let name_of = |seat: &ClaimedSeat| {
        let raw = match &seat.player {
            SeatPlayer::Robot { name } => name.clone(),
            SeatPlayer::Program { .. } => format!("{}_v{}", seat.bot_name, seat.number),
        };
        raw.chars()
            .map(
                |c| match c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                    true => c,
                    false => '_',
                },
            )
            .collect::<String>()
    };
    let name = name_of(&seats[index]);
    match seats[..index].iter().any(|s| name_of(s) == name) {
        true => format!("{name}_{index}"),
        false => name,
    }
}

/// The folder of program `hash` in the machine's cache, fetched from the store if missing.
async fn program_folder(
    store: &ArenaStore,
    options: &Arc<WorkOptions>,
    hash: &str,
) -> Result<PathBuf, JobError> {
    let cache = options.programs.clone();
    let (cache2, hash2) = (cache.clone(), hash.to_owned());
    let found = tokio::task::spawn_blocking(move || cached_program(&cache2, &hash2)).await??;
    if let Some(folder) = found {
        return Ok(folder);
    }
    let stored = store
        .program(hash)
        .await?
        .ok_or_else(|| JobError::Missing(format!("the store has no program {hash}")))?;
    let folder = tokio::task::spawn_blocking(move || {
        install_program(&cache, &stored.hash, &stored.archive, stored.size)
    })
    .await??;
    Ok(folder)
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

fn warn(message: &str) {
    use std::io::Write;
    // A closed stderr is no reason to stop: the warning is then lost.
    let _ = writeln!(std::io::stderr(), "arena worker: {message}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_builds::{SandboxConfig, SandboxPolicy};
    use arbiter_store::{Presence, VersionState};

    const CPP_STARTER: &[u8] = include_bytes!("../../../examples/quoridor/starter.cpp");
    const PYTHON_STARTER: &[u8] = include_bytes!("../../../examples/quoridor/starter.py");

    /// A folder of its own for one test, in the system's temporary folder.
    fn scratch(name: &str) -> PathBuf {
        arbiter_testdir::fresh(name)
    }

    #[test]
    fn what_a_killed_worker_left_is_swept_at_the_next_start() {
        let dir = scratch("sweep");
        // No process has an id above the kernel's largest (at most 2^22).
        let gone = dir.join(format!("{BUILDS_PREFIX}4000000000"));
        let alive = dir.join(format!("{BUILDS_PREFIX}1"));
        let own = dir.join(format!("{BUILDS_PREFIX}{}", std::process::id()));
        let other = dir.join("arbiter-builds-of-someone");
        for folder in [&gone, &alive, &own, &other] {
            std::fs::create_dir_all(folder.join("build-1")).unwrap();
        }
        let replay = |pid: &str| dir.join(format!("{MATCH_REPLAY_PREFIX}{pid}-3.jsonl.gz"));
        let (gone_replay, alive_replay) = (replay("4000000000"), replay("1"));
        for file in [&gone_replay, &alive_replay] {
            std::fs::write(file, b"").unwrap();
        }
        sweep_folders_of_gone_workers(&own);
        assert!(!gone.exists(), "the folder of a gone worker is removed");
        assert!(
            !gone_replay.exists(),
            "the replay of a gone worker is removed"
        );
        for kept in [&alive, &own, &other, &alive_replay] {
            assert!(kept.exists(), "{} is kept", kept.display());
        }
    }

    fn options(dir: &std::path::Path) -> WorkOptions {
        WorkOptions {
            idle: Duration::from_millis(100),
            sandbox: SandboxPolicy::Required(SandboxConfig::default()),
            work: dir.join("builds"),
            programs: dir.join("programs"),
            ..WorkOptions::new("test-worker")
        }
    }

    /// Waits until every version of `versions` is in a final state, and gives them.
    async fn settled(store: &ArenaStore, bot: i64) -> Vec<arbiter_store::Version> {
        loop {
            let versions = store.versions(bot).await.unwrap();
            if versions.iter().all(|v| v.state.is_final()) {
                return versions;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn versions_are_built_checked_and_handed_in_or_failed_with_the_reason() {
        let dir = scratch("path");
        let db = dir.join("arena.db");
        let store = ArenaStore::open(&db.to_string_lossy(), Presence::MayCreate)
            .await
            .unwrap();
        let user = store.add_user("ada", "$argon2id$x", false).await.unwrap();
        let team = store.teams_of(user.id).await.unwrap().remove(0);
        let bot = store.add_bot(team.id, "quoridor", "walker").await.unwrap();
        let uploads: [(&str, &[u8]); 4] = [
            ("walker.cpp", CPP_STARTER),
            ("broken.cpp", b"int main() { return nope; }\n"),
            ("walker.py", PYTHON_STARTER),
            ("crash.py", b"import sys\nsys.exit(3)\n"),
        ];
        for (name, bytes) in uploads {
            store
                .add_version(bot.id, user.id, name, bytes)
                .await
                .unwrap();
        }
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let options = WorkOptions {
            jobs: 2,
            ..options(&dir)
        };
        let worker = tokio::spawn(work(store.clone(), options, async {
            let _ = stop_rx.await;
        }));
        let versions = tokio::time::timeout(Duration::from_secs(600), settled(&store, bot.id))
            .await
            .expect("every version settles");
        let _ = stop_tx.send(());
        worker.await.unwrap();

        let mut versions = versions;
        versions.sort_by_key(|v| v.number);
        let [cpp, broken, python, crash] = &versions[..] else {
            panic!("{versions:?}");
        };
        assert_eq!(cpp.state, VersionState::Passed, "{cpp:?}");
        assert_eq!(cpp.language.as_deref(), Some("c++"));
        let hash = cpp.program.as_deref().unwrap();
        assert!(store.program(hash).await.unwrap().is_some());
        assert_eq!(store.check_replays(cpp.id).await.unwrap().len(), 3);
        assert_eq!(broken.state, VersionState::BuildFailed);
        assert_eq!(broken.reason.as_deref(), Some("g++ exited with status 1"));
        assert!(broken.build_log.as_deref().unwrap().contains("nope"));
        assert_eq!(python.state, VersionState::Passed, "{python:?}");
        assert_eq!(crash.state, VersionState::CheckFailed);
        assert!(
            crash.reason.as_deref().unwrap().starts_with("crashed"),
            "{crash:?}"
        );
        assert_eq!(store.check_replays(crash.id).await.unwrap().len(), 1);
        // The newest version that passed plays.
        let bot = store.bot_by_id(bot.id).await.unwrap().unwrap();
        assert_eq!(bot.active, Some(python.number));
        assert!(store.queue().await.unwrap().is_empty());
        assert!(
            !dir.join("builds").exists(),
            "the builds leave nothing behind"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_stopping_worker_kills_its_build_and_hands_the_job_back() {
        let dir = scratch("stop");
        let db = dir.join("arena.db");
        let store = ArenaStore::open(&db.to_string_lossy(), Presence::MayCreate)
            .await
            .unwrap();
        let user = store.add_user("bob", "$argon2id$x", false).await.unwrap();
        let team = store.teams_of(user.id).await.unwrap().remove(0);
        let bot = store.add_bot(team.id, "quoridor", "slow").await.unwrap();
        let toml = dir.join("languages.toml");
        let language = "[language.forever]\nextensions = [\"loop\"]\n\
                        build = \"while :; do :; done\"\nrun = \"./bot\"\n";
        std::fs::write(&toml, language).unwrap();
        let version = store
            .add_version(bot.id, user.id, "bot.loop", b"")
            .await
            .unwrap();
        let options = WorkOptions {
            languages: Languages::with_file(&toml).unwrap(),
            ..options(&dir)
        };
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let worker = tokio::spawn(work(store.clone(), options, async {
            let _ = stop_rx.await;
        }));
        loop {
            let v = store
                .version(bot.id, version.number)
                .await
                .unwrap()
                .unwrap();
            if v.state == VersionState::Building {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let _ = stop_tx.send(());
        tokio::time::timeout(STOP_GRACE, worker)
            .await
            .expect("the build is stopped at once")
            .unwrap();
        let queue = store.queue().await.unwrap();
        assert_eq!(queue.len(), 1, "{queue:?}");
        assert!(!queue[0].running, "{queue:?}");
        assert_eq!(queue[0].attempts, 0, "stopping is no attempt: {queue:?}");
        let v = store
            .version(bot.id, version.number)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(v.state, VersionState::Queued);
        assert!(
            !dir.join("builds").exists(),
            "the builds leave nothing behind"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_job_the_machine_cannot_do_is_tried_again_then_fails_its_version() {
        let dir = scratch("machine");
        let db = dir.join("arena.db");
        let store = ArenaStore::open(&db.to_string_lossy(), Presence::MayCreate)
            .await
            .unwrap();
        let user = store.add_user("cy", "$argon2id$x", false).await.unwrap();
        let team = store.teams_of(user.id).await.unwrap().remove(0);
        let bot = store.add_bot(team.id, "quoridor", "fine").await.unwrap();
        store
            .add_version(bot.id, user.id, "bot.py", PYTHON_STARTER)
            .await
            .unwrap();
        // Builds go under a plain file: no folder can be made there.
        std::fs::write(dir.join("file"), "").unwrap();
        let options = WorkOptions {
            work: dir.join("file").join("builds"),
            ..options(&dir)
        };
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let worker = tokio::spawn(work(store.clone(), options, async {
            let _ = stop_rx.await;
        }));
        let versions = tokio::time::timeout(Duration::from_secs(600), settled(&store, bot.id))
            .await
            .expect("the version settles");
        let _ = stop_tx.send(());
        worker.await.unwrap();
        assert_eq!(versions[0].state, VersionState::BuildFailed);
        let reason = versions[0].reason.as_deref().unwrap();
        assert!(reason.contains("tried 3 times"), "{reason}");
        assert!(reason.contains("making"), "{reason}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_worker_woken_by_an_upload_does_not_wait_for_its_next_look() {
        let dir = scratch("wake");
        let db = dir.join("arena.db");
        let store = ArenaStore::open(&db.to_string_lossy(), Presence::MayCreate)
            .await
            .unwrap();
        let user = store.add_user("dee", "$argon2id$x", false).await.unwrap();
        let team = store.teams_of(user.id).await.unwrap().remove(0);
        let bot = store.add_bot(team.id, "quoridor", "prompt").await.unwrap();
        // Without a wake-up this worker would look at the queue again in a minute at best.
        let options = WorkOptions {
            idle: Duration::from_secs(600),
            ..options(&dir)
        };
        let wake = Arc::clone(&options.wake);
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let worker = tokio::spawn(work(store.clone(), options, async {
            let _ = stop_rx.await;
        }));
        tokio::time::sleep(Duration::from_millis(200)).await;
        store
            .add_version(bot.id, user.id, "bot.py", PYTHON_STARTER)
            .await
            .unwrap();
        wake.notify_one();
        let versions = tokio::time::timeout(Duration::from_secs(50), settled(&store, bot.id))
            .await
            .expect("the woken worker builds and checks at once");
        assert_eq!(versions[0].state, VersionState::Passed, "{versions:?}");
        let _ = stop_tx.send(());
        worker.await.unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
