//! The arena's ladder on many machines, as whole processes on a real PostgreSQL cluster:
//! `arbiter arena serve --no-work --ladder-pace unlimited` schedules games between enrolled
//! robots, three `arbiter worker` processes play them, and one is killed with SIGKILL in the
//! middle of a game. The survivors finish everything, and the store shows that no game was lost
//! or played twice and that every rated result was applied exactly once.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use arbiter_pgtest::Cluster;
use arbiter_store::ArenaMatchState::{Finished, Queued, Running};
use arbiter_store::{ArenaStore, MatchSummary, Presence};
use common::{arbiter, run, temp_dir};

/// The robots of the ladder. The searching ones with large budgets think for tens of
/// milliseconds a move, so that a game lasts long enough to kill its worker in the middle.
const ROBOTS: &[&str] = &[
    "random",
    "runner",
    "blocker",
    "aiarena-hard",
    "strong/nodes=100000",
    "strong/nodes=150000",
];

/// How long the test waits for anything before it says what it waited for: a guard against a
/// hang, never a measure of speed.
const PATIENCE: Duration = Duration::from_secs(180);

/// A child process killed (SIGKILL) and waited for when dropped, whatever the test's outcome.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
        common::remove_temporary_files_of(self.0.id());
    }
}

/// The store, read by the test beside the processes that write it.
struct Store {
    runtime: tokio::runtime::Runtime,
    store: ArenaStore,
}

impl Store {
    fn open(url: &str) -> Store {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let store = runtime
            .block_on(ArenaStore::open(url, Presence::MustExist))
            .unwrap();
        Store { runtime, store }
    }

    /// Every match of Quoridor, whatever its state.
    fn matches(&self) -> Vec<MatchSummary> {
        self.runtime
            .block_on(self.store.matches_of_game("quoridor", None, 100_000))
            .unwrap()
    }

    /// Waits until `what` holds of the matches; returns them then.
    fn wait_for(&self, what: &str, holds: impl Fn(&[MatchSummary]) -> bool) -> Vec<MatchSummary> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let matches = self.matches();
            if holds(&matches) {
                return matches;
            }
            assert!(
                Instant::now() < deadline,
                "waited {PATIENCE:?} for {what}; the matches: {matches:#?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// `arbiter arena serve --no-work` on a free port, scheduling as fast as the workers play.
fn serve(url: &str) -> Process {
    let mut child = arbiter()
        .args(["arena", "serve", "--listen", "127.0.0.1:0", "--no-work"])
        .args([
            "--game",
            "quoridor",
            "--ladder-pace",
            "unlimited",
            "--db",
            url,
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(
        line.starts_with("arena on http://"),
        "serve printed {line:?}"
    );
    Process(child)
}

/// `arbiter worker` named `name`, one game at a time, with a short lease: a game of a killed
/// worker goes back to the queue two seconds after its last renewal.
fn worker(url: &str, name: &str) -> Process {
    Process(
        arbiter()
            .args([
                "worker", "--db", url, "--name", name, "--jobs", "1", "--lease", "2",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

#[test]
fn a_worker_killed_mid_game_loses_no_ladder_game_and_applies_no_rating_twice() {
    let _dir = temp_dir("arena-workers");
    let cluster = Cluster::start().unwrap();
    let url = cluster.database("arena");
    for robot in ROBOTS {
        run(arbiter()
            .args(["arena", "robot", "add", "quoridor", robot, "--db"])
            .arg(&url));
    }
    let server = serve(&url);
    let store = Store::open(&url);
    let mut workers: Vec<Process> = (1..=3).map(|w| worker(&url, &format!("w{w}"))).collect();

    // A worker holds the arena's matches under its name and `/arena`.
    let killed = Some("w1/arena");
    let held = store.wait_for("a game running on w1", |ms| {
        ms.iter()
            .any(|m| m.state == Running && m.worker.as_deref() == killed)
    });
    let lost = held
        .iter()
        .find(|m| m.state == Running && m.worker.as_deref() == killed)
        .unwrap()
        .id;
    drop(workers.remove(0)); // SIGKILL: it hands nothing back, as a machine that dies.

    // The survivors play on; once the killed worker's game was played again, the ladder is
    // paused and the queue drains.
    store.wait_for("w1's game played again by another worker", |ms| {
        ms.iter()
            .any(|m| m.id == lost && m.state == Finished && m.worker.as_deref() != killed)
    });
    run(arbiter().args(["arena", "ladder", "pause", "--db", &url]));
    let matches = store.wait_for("the queue to drain", |ms| {
        ms.iter().all(|m| !matches!(m.state, Queued | Running))
    });
    drop(workers);
    drop(server);

    assert_nothing_lost_or_doubled(&matches, lost);
    assert_ratings_applied_once(&store, &matches);
}

/// Every match scheduled was played to its end once: none failed, the killed worker's on its
/// second claim.
fn assert_nothing_lost_or_doubled(matches: &[MatchSummary], lost: i64) {
    assert!(matches.len() >= 3, "{matches:#?}");
    for m in matches {
        assert_eq!(m.state, Finished, "{m:#?}");
        assert!(m.seats.iter().all(|s| s.place.is_some()), "{m:#?}");
        let claims = if m.id == lost { 2 } else { 1 };
        assert!(m.claim >= claims, "{m:#?}");
    }
}

/// The rated results were applied one at a time, each once: their sequence numbers run 1..N
/// without a gap or a repeat, every version's games are its seats in rated games, and the
/// store's replay of its results gives the live ratings.
fn assert_ratings_applied_once(store: &Store, matches: &[MatchSummary]) {
    let rated: Vec<&MatchSummary> = matches.iter().filter(|m| m.rated).collect();
    let mut seqs: Vec<i64> = rated.iter().map(|m| m.seq.expect("a rated seq")).collect();
    seqs.sort_unstable();
    let expected: Vec<i64> = (1..=rated.len() as i64).collect();
    assert_eq!(seqs, expected, "rating seqs contiguous, none twice");

    let mut seats: BTreeMap<i64, i64> = BTreeMap::new();
    for m in &rated {
        for seat in &m.seats {
            *seats.entry(seat.version_id).or_default() += 1;
        }
    }
    let board = store
        .runtime
        .block_on(store.store.leaderboard("quoridor"))
        .unwrap();
    assert_eq!(board.len(), ROBOTS.len(), "{board:#?}");
    for entry in &board {
        assert_eq!(
            entry.games,
            seats.get(&entry.version_id).copied().unwrap_or(0),
            "{entry:#?}"
        );
    }
    let recomputed = store
        .runtime
        .block_on(store.store.recompute_ratings("quoridor"))
        .unwrap();
    for entry in &board {
        let again = recomputed[&entry.version_id];
        assert_eq!(
            (again.mu, again.sigma),
            (entry.mu, entry.sigma),
            "{entry:#?}"
        );
    }
}
