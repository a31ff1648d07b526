//! The worker pool: `jobs` matches at once, each on its own thread (the referee is
//! synchronous), with one coordinator that claims matches from the store and commits every
//! result before the worker that played it gets its next match.

use std::collections::{BTreeMap, HashMap};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use arbiter_referee::{MatchReport, SeatSpec};

use crate::plan::{next_swiss_round, playing, swiss_round_size};
use crate::players::{self, Contestant};
use crate::schedule::Format;
use crate::standings::{compute, rating_rows};
use crate::{TournamentError, replays};
use arbiter_store::blocking::Store;
use arbiter_store::{MatchRow, MatchState, RatingRow, SeatFaults, StoredResult, Tournament};

/// What plays the matches of a tournament: the command line implements it for each game.
pub trait Arena: Sync {
    /// Players a match of the game has.
    fn players_per_match(&self) -> usize;

    /// Plays one match between `seats` (in seat order) seeded `seed`, writing its replay.
    fn play(
        &self,
        seats: &[SeatSpec],
        seed: u64,
        replay: &Path,
    ) -> Result<MatchReport, PlayFailure>;

    /// Plays a match between `seat` and the game's simplest robots in the other seats, with
    /// `seat` first, for the compliance check.
    fn check(&self, seat: &SeatSpec, replay: &Path) -> Result<MatchReport, PlayFailure>;
}

/// Why a match was not played.
#[derive(Debug, Clone, PartialEq)]
pub enum PlayFailure {
    /// A seat's program could not be started: the player's fault, scored as a forfeit.
    CannotStart {
        /// The seat, from 0.
        seat: usize,
        /// Why it could not be started.
        reason: String,
    },
    /// Arbiter or the machine failed (a referee error, a replay that could not be written): the
    /// match is tried again and never scored against a bot.
    Arbiter(String),
}

/// How the pool plays the matches.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Matches played at once, each on its own thread.
    pub jobs: usize,
    /// Where the replays go; the file of match `id` is `m{id}.jsonl.gz` there.
    pub replays: PathBuf,
    /// How many times a match that fails because of Arbiter or the machine is tried.
    pub max_attempts: u32,
}

/// What the coordinator reports as it goes.
#[derive(Debug)]
pub enum PoolEvent<'a> {
    /// Matches over (done or failed) and in all, at the start and after every match.
    Progress {
        /// Matches over so far.
        done: usize,
        /// Matches in the tournament.
        total: usize,
    },
    /// A match was played and its result committed.
    Played(&'a MatchRow),
    /// A failure of Arbiter or the machine; the match is queued again unless it `failed`.
    Trouble {
        /// The match's id.
        id: i64,
        /// What went wrong.
        error: &'a str,
        /// Whether the match has used up its attempts and is marked failed.
        failed: bool,
    },
    /// A Swiss round was paired.
    Paired {
        /// The Swiss round, from 1.
        round: u32,
    },
}

/// What a run of the pool did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunSummary {
    /// Matches played and committed in this run.
    pub played: usize,
    /// Matches marked failed after their last attempt.
    pub failed: usize,
    /// Matches left running by an earlier run that were put back in the queue at the start.
    pub requeued: u64,
}

struct Played {
    report: MatchReport,
    turns: Vec<u32>,
}

struct Job {
    id: i64,
    seats: Vec<SeatSpec>,
    seed: u64,
    replay: PathBuf,
}

/// Plays every match of the tournament that is not over, until none is left.
pub fn run(
    store: &Store,
    t: &Tournament,
    arena: &dyn Arena,
    options: &RunOptions,
    on_event: &mut dyn FnMut(PoolEvent<'_>),
) -> Result<RunSummary, TournamentError> {
    let players = store.players(t.id)?;
    let specs: HashMap<String, SeatSpec> = playing(&players)
        .into_iter()
        .map(|p| Ok((p.id.clone(), players::seat_spec(p)?)))
        .collect::<Result<_, TournamentError>>()?;
    std::fs::create_dir_all(&options.replays).map_err(|source| TournamentError::Io {
        what: format!("creating the replays folder {}", options.replays.display()),
        source,
    })?;
    let mut summary = RunSummary {
        requeued: store.requeue_running(t.id)?,
        ..RunSummary::default()
    };
    let mut coordinator = Coordinator {
        store,
        t,
        players: &players,
        specs,
        options,
        rows: store
            .matches(t.id)?
            .into_iter()
            .map(|m| (m.id, m))
            .collect(),
        byes: store.byes(t.id)?,
    };
    let jobs = options.jobs.max(1);
    std::thread::scope(|scope| {
        let (result_tx, result_rx) = mpsc::channel::<(usize, i64, Result<Played, PlayFailure>)>();
        let mut workers = Vec::with_capacity(jobs);
        for w in 0..jobs {
            let (job_tx, job_rx) = mpsc::channel::<Job>();
            let result_tx = result_tx.clone();
            workers.push(job_tx);
            // Out of threads (ulimit -u, memory) is an error of the run, not a panic.
            let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                for job in job_rx {
                    // A panic in a match is Arbiter's bug, not the bots' fault: retried.
                    let outcome = catch_unwind(AssertUnwindSafe(|| {
                        let report = arena.play(&job.seats, job.seed, &job.replay)?;
                        // A replay that cannot be read back was not written: Arbiter's trouble.
                        let turns = replays::turns(&job.replay, job.seats.len())
                            .map_err(PlayFailure::Arbiter)?;
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
                    });
                    if result_tx.send((w, job.id, outcome)).is_err() {
                        break;
                    }
                }
            });
            spawned.map_err(|source| TournamentError::Io {
                what: format!("starting match thread {} of {jobs} (--jobs)", w + 1),
                source,
            })?;
        }
        drop(result_tx);
        let mut idle: Vec<usize> = (0..jobs).rev().collect();
        let mut busy = 0;
        on_event(coordinator.progress());
        loop {
            while let Some(&w) = idle.last() {
                let Some(job) = coordinator.claim()? else {
                    break;
                };
                idle.pop();
                workers[w]
                    .send(job)
                    .expect("workers live while the coordinator does");
                busy += 1;
            }
            if busy == 0 {
                let matches: Vec<MatchRow> = coordinator.rows.values().cloned().collect();
                match next_swiss_round(store, t, &players, &matches)? {
                    Some(round) => {
                        coordinator.rows = store
                            .matches(t.id)?
                            .into_iter()
                            .map(|m| (m.id, m))
                            .collect();
                        coordinator.byes = store.byes(t.id)?;
                        on_event(PoolEvent::Paired { round });
                        on_event(coordinator.progress());
                        continue;
                    }
                    None => break,
                }
            }
            // Every result that is in goes into one commit; each worker then gets its next
            // match only after its result is committed.
            let mut batch = vec![result_rx.recv().expect("a busy worker answers")];
            batch.extend(result_rx.try_iter());
            busy -= batch.len();
            let workers_done: Vec<usize> = batch.iter().map(|(w, _, _)| *w).collect();
            let outcomes = batch
                .into_iter()
                .map(|(_, id, outcome)| (id, outcome))
                .collect();
            coordinator.commit(outcomes, &mut summary, on_event)?;
            on_event(coordinator.progress());
            idle.extend(workers_done);
        }
        Ok::<(), TournamentError>(())
    })?;
    if coordinator
        .rows
        .values()
        .all(|m| matches!(m.state, MatchState::Done | MatchState::Failed))
    {
        store.mark_finished(t.id)?;
    }
    Ok(summary)
}

struct Coordinator<'a> {
    store: &'a Store,
    t: &'a Tournament,
    players: &'a [Contestant],
    specs: HashMap<String, SeatSpec>,
    options: &'a RunOptions,
    rows: BTreeMap<i64, MatchRow>,
    byes: Vec<(u32, String)>,
}

impl Coordinator<'_> {
    fn progress(&self) -> PoolEvent<'static> {
        let over = |m: &&MatchRow| matches!(m.state, MatchState::Done | MatchState::Failed);
        let done = self.rows.values().filter(over).count();
        let mut total = self.rows.len();
        if self.t.format == Format::Swiss {
            let paired = self
                .rows
                .values()
                .map(|m| m.round)
                .chain(self.byes.iter().map(|b| b.0))
                .max()
                .unwrap_or(0);
            let players = playing(self.players).len();
            total += self.t.rounds.saturating_sub(paired) as usize * swiss_round_size(players);
        }
        PoolEvent::Progress { done, total }
    }

    fn claim(&mut self) -> Result<Option<Job>, TournamentError> {
        let Some(row) = self.store.claim_next(self.t.id)? else {
            return Ok(None);
        };
        let seats = row
            .seats
            .iter()
            .map(|id| {
                self.specs
                    .get(id)
                    .cloned()
                    .ok_or_else(|| TournamentError::Player {
                        id: id.clone(),
                        message: "is scheduled but does not play (its status changed?)".into(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let job = Job {
            id: row.id,
            seats,
            seed: row.seed,
            replay: self
                .options
                .replays
                .join(format!("m{:05}.jsonl.gz", row.id)),
        };
        self.rows.insert(row.id, row);
        Ok(Some(job))
    }

    fn commit(
        &mut self,
        outcomes: Vec<(i64, Result<Played, PlayFailure>)>,
        summary: &mut RunSummary,
        on_event: &mut dyn FnMut(PoolEvent<'_>),
    ) -> Result<(), TournamentError> {
        let complete_before = self.complete_rounds();
        let mut results = Vec::new();
        for (id, outcome) in outcomes {
            let row = self.rows.get(&id).expect("a claimed match is known");
            let result = match outcome {
                Ok(played) => {
                    let replay = self.options.replays.join(format!("m{id:05}.jsonl.gz"));
                    result_of(row, &played, &replay)
                }
                Err(PlayFailure::CannotStart { seat, reason }) => forfeit(row, seat, reason),
                Err(PlayFailure::Arbiter(error)) => {
                    self.trouble(id, error, summary, on_event)?;
                    continue;
                }
            };
            let row = self.rows.get_mut(&id).expect("known");
            row.state = MatchState::Done;
            row.result = Some(result.clone());
            results.push((id, result));
        }
        let snapshots = self.snapshots(complete_before);
        self.store.finish_many(self.t.id, &results, &snapshots)?;
        summary.played += results.len();
        for (id, _) in &results {
            on_event(PoolEvent::Played(&self.rows[id]));
        }
        Ok(())
    }

    /// A failure of Arbiter or the machine: the match is queued again, or failed for good.
    fn trouble(
        &mut self,
        id: i64,
        error: String,
        summary: &mut RunSummary,
        on_event: &mut dyn FnMut(PoolEvent<'_>),
    ) -> Result<(), TournamentError> {
        let failed = self
            .store
            .record_failure(self.t.id, id, &error, self.options.max_attempts)?;
        let row = self.rows.get_mut(&id).expect("known");
        row.attempts += 1;
        row.error = Some(error.clone());
        row.state = if failed {
            summary.failed += 1;
            MatchState::Failed
        } else {
            MatchState::Queued
        };
        on_event(PoolEvent::Trouble {
            id,
            error: &error,
            failed,
        });
        Ok(())
    }

    /// The rounds over so far: every match of every round up to it is done or failed.
    fn complete_rounds(&self) -> u32 {
        let first_open = self
            .rows
            .values()
            .filter(|m| !matches!(m.state, MatchState::Done | MatchState::Failed))
            .map(|m| m.round)
            .min();
        let last = self.rows.values().map(|m| m.round).max().unwrap_or(0);
        match first_open {
            Some(open) => open - 1,
            None => last,
        }
    }

    /// The ratings of the rounds that the last result completed.
    fn snapshots(&self, complete_before: u32) -> Vec<(u32, Vec<RatingRow>)> {
        let complete = self.complete_rounds();
        (complete_before + 1..=complete)
            .map(|round| {
                let matches: Vec<MatchRow> = self
                    .rows
                    .values()
                    .filter(|m| m.round <= round)
                    .cloned()
                    .collect();
                let byes: Vec<(u32, String)> =
                    self.byes.iter().filter(|b| b.0 <= round).cloned().collect();
                let table = compute(self.players, &matches, &byes, self.t.players_per_match);
                (round, rating_rows(&table))
            })
            .collect()
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
        reason: "cannot_start".into(),
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
        let dir = std::env::temp_dir().join(format!("arbiter-pool-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
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
        store.create(&t, &players, &matches, None).unwrap();
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
            replays: dir.join("replays"),
            max_attempts: 3,
        };
        let mut troubles = 0;
        let summary = run(&store, &t, &arena, &options, &mut |e| {
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
