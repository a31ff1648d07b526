//! A worker: `jobs` matches at once, each on its own thread (the referee is synchronous), and
//! one coordinator that claims matches from the store, holds their leases, hands in every
//! result before the thread that played it gets its next match, and moves tournaments on.
//! Any number of workers, on any number of machines, can share one store: each match is
//! scored once (see `arbiter_store`'s queue).

use std::collections::{BTreeMap, HashMap};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use arbiter_referee::{MatchReport, SeatSpec};

use crate::plan::{advance, playing, swiss_round_size};
use crate::play::{Arena, CANNOT_START, PlayFailure};
use crate::players::Contestant;
use crate::programs;
use crate::schedule::Format;
use crate::settings::StoredSettings;
use crate::worker_name::WorkerName;
use crate::{TournamentError, replays};
use arbiter_store::blocking::{ReplayStore, Store};
use arbiter_store::upload::ReplayUpload;
use arbiter_store::{
    Expired, Handed, MatchReplay, MatchRow, MatchState, ReplayKey, Scope, SeatFaults, StoreError,
    StoredResult, Tournament,
};

/// How the pool plays the matches.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Matches played at once, each on its own thread.
    pub jobs: usize,
    /// Which tournaments it claims matches of.
    pub scope: Scope,
    /// When it stops.
    pub until: Until,
    /// How long a claim holds without being renewed; it is renewed every third of that.
    pub lease: Duration,
    /// This worker's name in the store.
    pub worker: WorkerName,
    /// Where replays go when a tournament's own replay folder cannot be made on this machine
    /// (it is another machine's): `t{id}` under it.
    pub local_replays: PathBuf,
    /// Where player programs fetched from the store are kept, one folder per program.
    pub programs: PathBuf,
}

impl RunOptions {
    /// The options of a worker named `worker` that plays `jobs` matches at once, with the
    /// machine's cache folder (see [`crate::cache_dir`]) for programs and replays.
    pub fn new(
        jobs: usize,
        scope: Scope,
        until: Until,
        lease: Duration,
        worker: WorkerName,
    ) -> Self {
        let cache = crate::cache_dir();
        RunOptions {
            jobs,
            scope,
            until,
            lease,
            worker,
            local_replays: cache.join("replays").join("local"),
            programs: cache.join("programs"),
        }
    }
}

/// When the pool stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    /// When the tournament of its scope is finished: its own matches played, and those of
    /// other workers played or, if their workers died, played again here.
    Finished,
    /// When no open tournament has a match queued or running.
    Idle,
    /// Never: it waits for new tournaments.
    Stopped,
}

/// What the coordinator reports as it goes.
#[derive(Debug)]
pub enum PoolEvent<'a> {
    /// Matches over (done or failed) and in all of a tournament, at the start and after every
    /// result.
    Progress {
        /// The tournament.
        tournament: i64,
        /// Matches over so far.
        done: usize,
        /// Matches in the tournament (Swiss: with the rounds still to pair).
        total: usize,
    },
    /// A match was played here and its result taken.
    Played {
        /// The tournament.
        tournament: i64,
        /// The match, with its result.
        row: &'a MatchRow,
    },
    /// A match was played here but its result refused: the lease ran out (the store was out
    /// of reach too long) and another worker claimed it.
    Refused {
        /// The tournament.
        tournament: i64,
        /// The match.
        id: i64,
    },
    /// A failure of Arbiter or the machine; the match is queued again unless it `failed`.
    Trouble {
        /// The match's id.
        id: i64,
        /// What went wrong.
        error: &'a str,
        /// Whether the match has used up its attempts and is marked failed.
        failed: bool,
    },
    /// A match of a worker that is gone (its lease ran out, or it was a process of this
    /// machine that no longer runs) went back to the queue, or failed after its last attempt.
    Requeued(&'a Expired),
    /// A Swiss round was paired.
    Paired {
        /// The tournament.
        tournament: i64,
        /// The Swiss round, from 1.
        round: u32,
    },
    /// The store could not be reached; the call is tried again after `retry_in`.
    StoreTrouble {
        /// What the store said.
        error: &'a StoreError,
        /// When it is tried again.
        retry_in: Duration,
    },
}

/// What a run of the pool did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunSummary {
    /// Matches played here and taken.
    pub played: usize,
    /// Matches marked failed after their last attempt.
    pub failed: usize,
    /// Matches played here whose result was refused (another worker holds them now).
    pub refused: usize,
    /// Matches of gone workers put back in the queue.
    pub requeued: usize,
}

/// Gives the arena that plays the matches of a stored tournament.
pub type Arenas<'a> = dyn Fn(&Tournament) -> Result<Arc<dyn Arena>, TournamentError> + 'a;

struct Played {
    report: MatchReport,
    turns: Vec<u32>,
}

/// A match handed to a match thread.
struct Job {
    key: Key,
    seats: Vec<SeatSpec>,
    seed: u64,
    round: u32,
    replay: PathBuf,
    arena: Arc<dyn Arena>,
}

/// A claimed match: tournament, match, claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Key {
    tournament: i64,
    id: i64,
    claim: i64,
}

type Outcome = (usize, Key, Result<Played, PlayFailure>);

/// Plays matches claimed from the store, `options.jobs` at once, until `options.until`.
pub fn run(
    store: &Store,
    arenas: &Arenas<'_>,
    options: &RunOptions,
    on_event: &mut dyn FnMut(PoolEvent<'_>),
) -> Result<RunSummary, TournamentError> {
    let jobs = options.jobs.max(1);
    // A database server's viewers may be on other machines: replays go to it as they are
    // written. A SQLite store's viewers read the files.
    let uploads = match store.is_postgres() {
        true => Some(Arc::new(store.open_replays()?)),
        false => None,
    };
    let mut coordinator = Coordinator {
        store,
        options,
        arenas,
        known: HashMap::new(),
        running: HashMap::new(),
        summary: RunSummary::default(),
        on_event,
    };
    std::thread::scope(|scope| {
        let (result_tx, result_rx) = mpsc::channel::<Outcome>();
        let mut threads = Vec::with_capacity(jobs);
        for w in 0..jobs {
            threads.push(match_thread(
                scope,
                w,
                jobs,
                result_tx.clone(),
                uploads.clone(),
            )?);
        }
        drop(result_tx);
        coordinator.coordinate(&threads, &result_rx)
    })?;
    Ok(coordinator.summary)
}

/// Starts match thread `w`, which plays the jobs it is sent and answers on `results`.
fn match_thread<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    w: usize,
    jobs: usize,
    results: mpsc::Sender<Outcome>,
    uploads: Option<Arc<ReplayStore>>,
) -> Result<mpsc::Sender<Job>, TournamentError> {
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let (ready_tx, ready_rx) = mpsc::sync_channel::<()>(1);
    // Out of threads (ulimit -u, memory) is an error of the run, not a panic.
    std::thread::Builder::new()
        .spawn_scoped(scope, move || {
            let _ = ready_tx.send(());
            for job in job_rx {
                let outcome = play_and_upload(&job, uploads.as_ref());
                if results.send((w, job.key, outcome)).is_err() {
                    break;
                }
            }
        })
        .map_err(|source| TournamentError::Io {
            what: format!("starting match thread {} of {jobs} (--jobs)", w + 1),
            source,
        })?;
    // The next thread starts only once this one has set itself up (its thread-locals and
    // their destructors, which allocate): when the next cannot start because memory ran out,
    // none is left half started, failing an allocation glibc cannot survive.
    let _ = ready_rx.recv();
    Ok(job_tx)
}

/// Plays a job, sending its replay to `uploads` as it is written when there is one: a match
/// whose replay did not reach the store is Arbiter's trouble, played again.
fn play_and_upload(job: &Job, uploads: Option<&Arc<ReplayStore>>) -> Result<Played, PlayFailure> {
    let Some(uploads) = uploads else {
        return play(job);
    };
    let key = ReplayKey::from(MatchReplay {
        tournament: job.key.tournament,
        match_id: job.key.id,
        claim: job.key.claim,
    });
    let upload = ReplayUpload::start(uploads.clone(), key, &job.replay);
    match play(job) {
        Ok(played) => match upload.finish() {
            Ok(_) => Ok(played),
            Err(e) => Err(PlayFailure::Arbiter(format!(
                "the replay could not be stored: {e}"
            ))),
        },
        Err(failure) => {
            upload.abandon();
            Err(failure)
        }
    }
}

/// Plays a job; a panic in a match is Arbiter's bug, not the bots' fault: it is retried.
fn play(job: &Job) -> Result<Played, PlayFailure> {
    catch_unwind(AssertUnwindSafe(|| {
        let report = job
            .arena
            .play(&job.seats, job.seed, job.round, &job.replay)?;
        // A replay that cannot be read back was not written: Arbiter's trouble.
        let turns = replays::turns(&job.replay, job.seats.len()).map_err(PlayFailure::Arbiter)?;
        Ok(Played { report, turns })
    }))
    .unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(PlayFailure::Arbiter(format!(
            "the match panicked: {message}"
        )))
    })
}

/// A tournament this worker has played a match of: what it needs to play more.
struct Known {
    t: Tournament,
    arena: Arc<dyn Arena>,
    players: Vec<Contestant>,
    specs: HashMap<String, SeatSpec>,
    replays: PathBuf,
}

struct Coordinator<'a> {
    store: &'a Store,
    options: &'a RunOptions,
    arenas: &'a Arenas<'a>,
    known: HashMap<i64, Known>,
    running: HashMap<Key, (MatchRow, PathBuf)>,
    summary: RunSummary,
    on_event: &'a mut dyn FnMut(PoolEvent<'_>),
}

impl Coordinator<'_> {
    /// The coordinator's loop: claims while a thread is idle, hands in results as they come,
    /// renews its leases, moves tournaments on, and waits (backing off) when there is nothing
    /// to claim.
    fn coordinate(
        &mut self,
        threads: &[mpsc::Sender<Job>],
        results: &mpsc::Receiver<Outcome>,
    ) -> Result<(), TournamentError> {
        let renew_every = self.options.lease / 3;
        let mut idle: Vec<usize> = (0..threads.len()).rev().collect();
        let mut pause = Pause::default();
        let mut renewed = Instant::now();
        self.recover()?;
        if let Scope::Tournament(id) = self.options.scope {
            self.progress(id)?;
        }
        loop {
            while let Some(&w) = idle.last() {
                let Some(job) = self.claim()? else { break };
                idle.pop();
                threads[w]
                    .send(job)
                    .expect("match threads live while the coordinator does");
                pause = Pause::default();
            }
            if self.running.is_empty() {
                if self.advance_all()? || self.recover()? {
                    continue;
                }
                if self.done()? {
                    return Ok(());
                }
                self.store.wait_for_work(pause.next());
                continue;
            }
            let wait = renew_every.saturating_sub(renewed.elapsed());
            let wait = if idle.is_empty() {
                wait
            } else {
                wait.min(pause.peek())
            };
            match results.recv_timeout(wait) {
                Ok(first) => {
                    let mut batch = vec![first];
                    batch.extend(results.try_iter());
                    idle.extend(batch.iter().map(|(w, _, _)| *w));
                    self.commit(batch)?;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if !idle.is_empty() {
                        self.recover()?;
                        pause.next();
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    unreachable!("match threads live while the coordinator does")
                }
            }
            if renewed.elapsed() >= renew_every {
                self.call(|s| s.renew(self.options.worker.as_str(), lease_ms(self.options)))?;
                renewed = Instant::now();
            }
        }
    }

    /// A store call, tried again while the store is out of reach (a dropped connection, a
    /// server restarting, SQLite busy), for as long as a lease lasts at most: past that, the
    /// claims this worker holds are another's anyway.
    fn call<T>(
        &mut self,
        mut f: impl FnMut(&Store) -> Result<T, StoreError>,
    ) -> Result<T, TournamentError> {
        let give_up = Instant::now() + self.options.lease.max(Duration::from_secs(60));
        let mut pause = Pause::default();
        loop {
            match f(self.store) {
                Ok(value) => return Ok(value),
                Err(error) if error.is_transient() && Instant::now() < give_up => {
                    let retry_in = pause.next();
                    (self.on_event)(PoolEvent::StoreTrouble {
                        error: &error,
                        retry_in,
                    });
                    std::thread::sleep(retry_in);
                }
                Err(error) => return Err(error.into()),
            }
        }
    }
}

fn lease_ms(options: &RunOptions) -> i64 {
    options.lease.as_millis().min(i64::MAX as u128) as i64
}

/// The wait between looks for work while there is none: from 20 ms, doubling up to a second
/// (on PostgreSQL, new matches cut the wait short).
#[derive(Clone, Copy, Debug)]
struct Pause(Duration);

impl Default for Pause {
    fn default() -> Self {
        Pause(Duration::from_millis(20))
    }
}

impl Pause {
    fn peek(&self) -> Duration {
        self.0
    }

    fn next(&mut self) -> Duration {
        let now = self.0;
        self.0 = (self.0 * 2).min(Duration::from_secs(1));
        now
    }
}

impl Coordinator<'_> {
    /// Claims the next match of the scope and makes it a job, or says there is none now.
    fn claim(&mut self) -> Result<Option<Job>, TournamentError> {
        let (worker, lease, scope) = (
            self.options.worker.as_str(),
            lease_ms(self.options),
            self.options.scope,
        );
        while let Some(claimed) = self.call(|s| s.claim(worker, lease, scope))? {
            let key = Key {
                tournament: claimed.tournament,
                id: claimed.row.id,
                claim: claimed.row.claim,
            };
            match self.job(key, &claimed.row) {
                Ok(job) => {
                    self.running.insert(key, (claimed.row, job.replay.clone()));
                    return Ok(Some(job));
                }
                // A tournament this worker cannot play (its settings, a player's program): the
                // match is Arbiter's trouble, tried by another worker or failed, and the next
                // one is claimed.
                Err(error) => {
                    self.running.insert(key, (claimed.row, PathBuf::new()));
                    self.hand_in_failure(key, error.to_string())?;
                }
            }
        }
        Ok(None)
    }

    fn job(&mut self, key: Key, row: &MatchRow) -> Result<Job, TournamentError> {
        let known = self.known(key.tournament)?;
        let seats = row
            .seats
            .iter()
            .map(|id| {
                known
                    .specs
                    .get(id)
                    .cloned()
                    .ok_or_else(|| TournamentError::Player {
                        id: id.clone(),
                        message: "is scheduled but does not play (its status changed?)".into(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Job {
            key,
            seats,
            seed: row.seed,
            round: row.round,
            replay: known.replays.join(replay_name(key.id, key.claim)),
            arena: known.arena.clone(),
        })
    }

    /// What playing tournament `id` takes, read once.
    fn known(&mut self, id: i64) -> Result<&Known, TournamentError> {
        if !self.known.contains_key(&id) {
            let t = self.call(|s| s.tournament(id))?;
            let players = self.call(|s| s.players(id))?;
            let specs = playing(&players)
                .into_iter()
                .map(|p| {
                    let spec = programs::seat_spec(self.store, p, &self.options.programs)?;
                    Ok((p.id.clone(), spec))
                })
                .collect::<Result<_, TournamentError>>()?;
            let replays = replays_folder(&t, &self.options.local_replays)?;
            let arena = (self.arenas)(&t)?;
            self.known.insert(
                id,
                Known {
                    t,
                    arena,
                    players,
                    specs,
                    replays,
                },
            );
        }
        Ok(&self.known[&id])
    }

    /// Hands in the results that came in, one transaction per tournament, then moves their
    /// tournaments on.
    fn commit(&mut self, batch: Vec<Outcome>) -> Result<(), TournamentError> {
        let mut results: BTreeMap<i64, Vec<(Key, StoredResult)>> = BTreeMap::new();
        for (_, key, outcome) in batch {
            let (row, replay) = &self.running[&key];
            let result = match outcome {
                Ok(played) => result_of(row, &played, replay),
                Err(PlayFailure::CannotStart { seat, reason }) => forfeit(row, seat, reason),
                Err(PlayFailure::Arbiter(error)) => {
                    self.hand_in_failure(key, error)?;
                    continue;
                }
            };
            results
                .entry(key.tournament)
                .or_default()
                .push((key, result));
        }
        for (tournament, results) in results {
            let rows: Vec<(i64, i64, StoredResult)> = results
                .iter()
                .map(|(key, result)| (key.id, key.claim, result.clone()))
                .collect();
            let handed = self.call(|s| s.finish(tournament, &rows))?;
            for ((key, result), handed) in results.into_iter().zip(handed) {
                self.handed_in(key, result, handed);
            }
            self.advance(tournament)?;
            self.progress(tournament)?;
        }
        Ok(())
    }

    fn handed_in(&mut self, key: Key, result: StoredResult, handed: Handed) {
        let (mut row, replay) = self.running.remove(&key).expect("a claimed match is known");
        if handed == Handed::Refused {
            self.summary.refused += 1;
            (self.on_event)(PoolEvent::Refused {
                tournament: key.tournament,
                id: key.id,
            });
            return;
        }
        remove_earlier_replays(&replay, key);
        row.state = MatchState::Done;
        row.result = Some(result);
        self.summary.played += 1;
        (self.on_event)(PoolEvent::Played {
            tournament: key.tournament,
            row: &row,
        });
    }

    /// A failure of Arbiter or the machine: the match is queued again, or failed for good.
    fn hand_in_failure(&mut self, key: Key, error: String) -> Result<(), TournamentError> {
        self.running.remove(&key);
        let (handed, failed) =
            self.call(|s| s.record_failure(key.tournament, key.id, key.claim, &error))?;
        if handed == Handed::Refused {
            self.summary.refused += 1;
            (self.on_event)(PoolEvent::Refused {
                tournament: key.tournament,
                id: key.id,
            });
            return Ok(());
        }
        self.summary.failed += usize::from(failed);
        (self.on_event)(PoolEvent::Trouble {
            id: key.id,
            error: &error,
            failed,
        });
        if failed {
            self.advance(key.tournament)?;
        }
        Ok(())
    }

    /// Puts back the matches of gone workers: those of this machine's processes that no
    /// longer run at once, the others when their leases run out. Returns whether any came
    /// back to the queue.
    fn recover(&mut self) -> Result<bool, TournamentError> {
        let mut expired = self.call(Store::expire_leases)?;
        for worker in self.call(Store::running_workers)? {
            if WorkerName::is_gone(&worker) {
                expired.extend(self.call(|s| s.release(&worker))?);
            }
        }
        for e in &expired {
            self.summary.requeued += 1;
            (self.on_event)(PoolEvent::Requeued(e));
        }
        for tournament in expired.iter().filter(|e| e.failed).map(|e| e.tournament) {
            self.advance(tournament)?;
        }
        Ok(expired.iter().any(|e| !e.failed))
    }

    /// Moves every tournament of the scope on; returns whether a round was paired.
    fn advance_all(&mut self) -> Result<bool, TournamentError> {
        let ids = match self.options.scope {
            Scope::Tournament(id) => vec![id],
            Scope::Open => self.call(Store::open_tournaments)?,
        };
        let mut paired = false;
        for id in ids {
            paired |= self.advance(id)?;
        }
        Ok(paired)
    }

    /// Stores the ratings of rounds just completed, pairs the next Swiss round, marks the
    /// tournament finished — whatever is due. Returns whether a round was paired.
    fn advance(&mut self, tournament: i64) -> Result<bool, TournamentError> {
        let known = self.known(tournament)?;
        let (t, players) = (known.t.clone(), known.players.clone());
        let advanced =
            self.call(|s| s.advance(tournament, |standing| advance(&t, &players, standing)))?;
        let Some(round) = advanced
            .and_then(|a| a.round)
            .and_then(|r| r.matches.first().map(|m| m.round))
        else {
            return Ok(false);
        };
        (self.on_event)(PoolEvent::Paired { tournament, round });
        self.progress(tournament)?;
        Ok(true)
    }

    /// Whether the pool is done, with nothing of its own running.
    fn done(&mut self) -> Result<bool, TournamentError> {
        match (self.options.until, self.options.scope) {
            (Until::Stopped, _) => Ok(false),
            (Until::Finished, Scope::Tournament(id)) => {
                Ok(self.call(|s| s.tournament(id))?.finished.is_some())
            }
            (Until::Finished | Until::Idle, _) => {
                for id in self.call(Store::open_tournaments)? {
                    let counts = self.call(|s| s.counts(id))?;
                    if counts.queued + counts.running > 0 {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
        }
    }

    fn progress(&mut self, tournament: i64) -> Result<(), TournamentError> {
        let counts = self.call(|s| s.counts(tournament))?;
        let known = self.known(tournament)?;
        let mut total = counts.total();
        if known.t.format == Format::Swiss {
            let unpaired = known.t.rounds.saturating_sub(counts.last_round) as usize;
            total += unpaired * swiss_round_size(playing(&known.players).len());
        }
        (self.on_event)(PoolEvent::Progress {
            tournament,
            done: counts.over(),
            total,
        });
        Ok(())
    }
}

/// The replay folder of tournament `t`: the one it was created with, or, when that cannot be
/// made here (another machine's folder), `t{id}` under `local`.
fn replays_folder(t: &Tournament, local: &Path) -> Result<PathBuf, TournamentError> {
    let stored = StoredSettings::<serde::de::IgnoredAny>::of(t)?;
    if std::fs::create_dir_all(&stored.replays).is_ok() {
        return Ok(stored.replays);
    }
    let dir = local.join(format!("t{}", t.id));
    std::fs::create_dir_all(&dir).map_err(|source| TournamentError::Io {
        what: format!("creating the replays folder {}", dir.display()),
        source,
    })?;
    Ok(dir)
}

/// Once a match's result is taken, the replays that earlier claims of it left in the same
/// folder (a worker that died in the middle) are removed: the match has one replay.
fn remove_earlier_replays(replay: &Path, key: Key) {
    let Some(dir) = replay.parent() else { return };
    for claim in 1..key.claim {
        // Absent is the usual case: the earlier worker was on another machine.
        let _ = std::fs::remove_file(dir.join(replay_name(key.id, claim)));
    }
}

/// The replay file of claim `claim` of match `id`. A match claimed again (its first worker
/// died) writes a file of its own: the first worker may still be writing, if it only lost its
/// lease.
fn replay_name(id: i64, claim: i64) -> String {
    match claim {
        ..=1 => format!("m{id:05}.jsonl.gz"),
        claim => format!("m{id:05}-{claim}.jsonl.gz"),
    }
}

fn result_of(row: &MatchRow, played: &Played, replay: &Path) -> StoredResult {
    let report = &played.report;
    let faults = report
        .bots
        .iter()
        .enumerate()
        .filter(|(_, b)| b.errors + b.timeouts > 0 || b.crashed)
        .map(|(seat, b)| SeatFaults {
            seat,
            player: row.seats[seat].clone(),
            errors: b.errors,
            timeouts: b.timeouts,
            crashed: b.crashed,
            killed_for: b.killed_for,
            note: None,
        })
        .collect();
    StoredResult {
        scores: report.outcome.scores.clone(),
        placement: report.outcome.placement.clone(),
        reason: report.outcome.reason.to_owned(),
        faults,
        replay: Some(replay.to_string_lossy().into_owned()),
        ticks: report.ticks,
        time_ms: report.bots.iter().map(|b| b.time_ms).collect(),
        turns: played.turns.clone(),
    }
}

/// A match whose seat `seat` could not be started: that player is last with nothing, the others
/// share first place, as when a bot forfeits.
fn forfeit(row: &MatchRow, seat: usize, reason: String) -> StoredResult {
    let n = row.seats.len();
    let share = 1.0 / (n - 1).max(1) as f64;
    StoredResult {
        scores: (0..n)
            .map(|s| if s == seat { 0.0 } else { share })
            .collect(),
        placement: (0..n)
            .map(|s| if s == seat { n as u32 } else { 1 })
            .collect(),
        reason: CANNOT_START.into(),
        faults: vec![SeatFaults {
            seat,
            player: row.seats[seat].clone(),
            errors: 0,
            timeouts: 0,
            crashed: true,
            killed_for: None,
            note: Some(reason),
        }],
        replay: None,
        ticks: 0,
        time_ms: vec![0.0; n],
        turns: vec![0; n],
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Mutex;

    use arbiter_games::quoridor::{Quoridor, Settings};
    use arbiter_referee::{MatchConfig, Seat, run_match};
    use arbiter_replay::ReplayWriter;
    use arbiter_robots::Robots;

    use super::*;
    use crate::players::Contestant;
    use crate::schedule::match_seed;
    use arbiter_store::{NewMatch, now_ms};

    /// Plays real 5×5 Quoridor between robots, but fails as told: by match seed, the failures
    /// to return before playing.
    struct Flaky {
        failures: Mutex<HashMap<u64, Vec<PlayFailure>>>,
    }

    impl Arena for Flaky {
        fn players_per_match(&self) -> usize {
            2
        }

        fn play(
            &self,
            seats: &[SeatSpec],
            seed: u64,
            _round: u32,
            replay: &Path,
        ) -> Result<MatchReport, PlayFailure> {
            if let Some(failure) = self
                .failures
                .lock()
                .unwrap()
                .get_mut(&seed)
                .and_then(Vec::pop)
            {
                return Err(failure);
            }
            let game = Quoridor::new(Settings::standard(2, 5).unwrap()).unwrap();
            let seats: Vec<Box<dyn Seat<Quoridor>>> = seats
                .iter()
                .map(|s| s.open(None, |name| Quoridor::robot(name, seed)).unwrap())
                .collect();
            let mut writer = ReplayWriter::create(replay).unwrap();
            let config = MatchConfig {
                seed,
                ..MatchConfig::default()
            };
            let report = run_match(game, seats, &config, Some(&mut writer)).unwrap();
            writer.finish().unwrap();
            Ok(report)
        }

        fn check(&self, _: &SeatSpec, _: &Path) -> Result<MatchReport, PlayFailure> {
            unreachable!("robots are not checked")
        }
    }

    #[test]
    fn machine_failures_are_retried_then_failed_and_a_bot_that_cannot_start_loses() {
        let dir = arbiter_testdir::fresh("pool");
        let store = Store::open(
            dir.join("t.db").to_str().unwrap(),
            arbiter_store::Presence::MayCreate,
        )
        .unwrap();
        let players = vec![
            Contestant::builtin("runner"),
            Contestant::builtin("blocker"),
        ];
        let seed = 5;
        let t = Tournament {
            id: 1,
            game: "quoridor".into(),
            format: Format::RoundRobin,
            seed,
            rounds: 2,
            players_per_match: 2,
            settings: serde_json::json!({}),
            created: now_ms(),
            finished: None,
            max_attempts: 3,
            name: None,
        };
        let pairs = [("runner", "blocker"), ("blocker", "runner")];
        let matches: Vec<NewMatch> = (1..=4)
            .map(|id| NewMatch {
                id,
                round: 1 + (id as u32 - 1) / 2,
                seats: [
                    pairs[(id as usize - 1) % 2].0,
                    pairs[(id as usize - 1) % 2].1,
                ]
                .map(|p| format!("builtin:{p}"))
                .to_vec(),
                seed: match_seed(seed, id as u64),
            })
            .collect();
        let settings = serde_json::json!({"flags": {}, "replays": dir.join("replays")});
        store
            .create(&t, &|_| settings.clone(), &players, &matches, None)
            .unwrap();
        let machine = || PlayFailure::Arbiter("disk full".into());
        let failures = HashMap::from([
            (match_seed(seed, 2), vec![machine(), machine(), machine()]),
            (match_seed(seed, 3), vec![machine()]),
            (
                match_seed(seed, 4),
                vec![PlayFailure::CannotStart {
                    seat: 1,
                    reason: "program not found".into(),
                }],
            ),
        ]);
        let arena = Flaky {
            failures: Mutex::new(failures),
        };
        let options = RunOptions {
            jobs: 2,
            scope: Scope::Tournament(1),
            until: Until::Finished,
            lease: Duration::from_secs(30),
            worker: WorkerName::of_this_process(),
            local_replays: dir.join("local"),
            programs: dir.join("programs"),
        };
        let mut troubles = 0;
        let arena: Arc<dyn Arena> = Arc::new(arena);
        let summary = run(&store, &|_| Ok(arena.clone()), &options, &mut |e| {
            if let PoolEvent::Trouble { .. } = e {
                troubles += 1;
            }
        })
        .unwrap();
        assert_eq!(troubles, 4);
        assert_eq!((summary.played, summary.failed), (3, 1));
        let rows = store.matches(1).unwrap();
        assert_eq!(rows[1].state, MatchState::Failed);
        assert_eq!(rows[1].attempts, 3);
        assert!(rows[1].result.is_none(), "never scored");
        assert_eq!(rows[1].error.as_deref(), Some("disk full"));
        assert_eq!((rows[2].state, rows[2].attempts), (MatchState::Done, 1));
        let forfeit = rows[3].result.as_ref().unwrap();
        assert_eq!(forfeit.scores, [1.0, 0.0]);
        assert_eq!(forfeit.reason, "cannot_start");
        assert_eq!(forfeit.faults[0].player, "builtin:runner");
        assert!(forfeit.faults[0].crashed);
        let played = rows[0].result.as_ref().unwrap();
        assert!(Path::new(played.replay.as_ref().unwrap()).is_file());
        assert!(played.turns.iter().all(|&t| t > 0), "{:?}", played.turns);
        // Both rounds are over (one match failed): two rating snapshots.
        let history = store.ratings(1).unwrap();
        assert_eq!(history.iter().filter(|(r, _)| *r == 2).count(), 2);
        assert!(store.tournament(1).unwrap().finished.is_some());
        store.close();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
