//! Many workers sharing one store, without playing: each simulated worker has a connection of
//! its own and loops claim → finish (a fixed small result) → the advance check, as a worker
//! does, until nothing is left. Prints claims per second, the latencies of each step, and how
//! many matches were claimed twice, finished twice or lost — which must be none.
//!
//! `cargo bench -p arbiter-store --bench claims` runs: 100 workers on a throw-away PostgreSQL
//! cluster, 4 and 8 on a SQLite file, then one worker on each for the store's own cost per
//! match. `ARBITER_BENCH_MATCHES` (default 20000) and `ARBITER_BENCH_WORKERS` (default 100)
//! change the size of the PostgreSQL run.

use std::collections::BTreeMap;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use arbiter_pgtest::Cluster;
use arbiter_store::blocking::Store;
use arbiter_store::{Advance, Format, Handed, NewMatch, Presence, Scope, StoredResult, Tournament};

/// A lease no simulated worker outlives: no match is expired during a run.
const LEASE_MS: i64 = 10 * 60 * 1000;

/// What the workers of one run did.
#[derive(Default)]
struct Run {
    claim: Vec<Duration>,
    finish: Vec<Duration>,
    advance: Vec<Duration>,
    /// Claims per match id.
    claims: BTreeMap<i64, u32>,
    /// Results taken per match id.
    taken: BTreeMap<i64, u32>,
}

/// One worker's loop; returns its own record.
fn work(target: &str, tournament: i64, name: &str, start: &Barrier) -> Run {
    let store = Store::open(target, Presence::MustExist).expect("opening the store");
    let mut run = Run::default();
    start.wait();
    loop {
        let t = Instant::now();
        let Some(claimed) = store
            .claim(name, LEASE_MS, Scope::Tournament(tournament))
            .unwrap()
        else {
            break;
        };
        run.claim.push(t.elapsed());
        *run.claims.entry(claimed.row.id).or_default() += 1;
        let t = Instant::now();
        let handed = store
            .finish(tournament, &[(claimed.row.id, claimed.row.claim, result())])
            .unwrap();
        run.finish.push(t.elapsed());
        if handed == [Handed::Taken] {
            *run.taken.entry(claimed.row.id).or_default() += 1;
        }
        let t = Instant::now();
        store
            .advance(tournament, |_| Advance {
                finished: true,
                ..Advance::default()
            })
            .unwrap();
        run.advance.push(t.elapsed());
    }
    store.close();
    run
}

fn result() -> StoredResult {
    StoredResult {
        scores: vec![1.0, 0.0],
        placement: vec![1, 2],
        reason: "goal".into(),
        faults: vec![],
        replay: None,
        ticks: 42,
        time_ms: vec![1.5, 2.5],
        turns: vec![21, 21],
    }
}

/// A tournament of `count` matches in one round between robots, in a fresh store at `target`.
fn create(target: &str, count: i64) -> i64 {
    let store = Store::open(target, Presence::MayCreate).expect("creating the store");
    let t = Tournament {
        id: 0,
        game: "quoridor".into(),
        format: Format::RoundRobin,
        seed: 7,
        rounds: 1,
        players_per_match: 2,
        settings: serde_json::json!({}),
        created: 1_700_000_000_000,
        finished: None,
        max_attempts: 3,
        name: None,
    };
    let matches: Vec<NewMatch> = (1..=count)
        .map(|id| NewMatch {
            id,
            round: 1,
            seats: vec!["builtin:runner".into(), "builtin:blocker".into()],
            seed: id as u64,
        })
        .collect();
    let id = store
        .create(
            &t,
            &|id| serde_json::json!({ "replays": format!("t{id}") }),
            &[],
            &matches,
            None,
        )
        .expect("creating the tournament");
    store.close();
    id
}

/// Runs `workers` simulated workers on a tournament of `count` matches at `target`, prints a
/// line and checks that every match was claimed, finished and taken exactly once.
fn simulate(label: &str, target: &str, count: i64, workers: usize) {
    let tournament = create(target, count);
    let start = Barrier::new(workers + 1);
    let (runs, wall) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let start = &start;
                scope.spawn(move || work(target, tournament, &format!("w{w}"), start))
            })
            .collect();
        start.wait();
        let began = Instant::now();
        let runs: Vec<Run> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        (runs, began.elapsed())
    });
    let mut all = Run::default();
    for run in runs {
        all.claim.extend(run.claim);
        all.finish.extend(run.finish);
        all.advance.extend(run.advance);
        for (id, n) in run.claims {
            *all.claims.entry(id).or_default() += n;
        }
        for (id, n) in run.taken {
            *all.taken.entry(id).or_default() += n;
        }
    }
    let store = Store::open(target, Presence::MustExist).unwrap();
    let counts = store.counts(tournament).unwrap();
    store.close();
    let claimed_twice = all.claims.values().filter(|&&n| n > 1).count();
    let finished_twice = all.taken.values().filter(|&&n| n > 1).count();
    let lost = count as usize - counts.done;
    println!(
        "{label:<12} {workers:>3} workers {count:>6} matches {:>7.1} s {:>8.0} claims/s  \
         claim p50 {:>7.2} p99 {:>7.2}  finish p50 {:>7.2} p99 {:>7.2}  advance p50 {:>6.2} \
         p99 {:>6.2} ms  per match {:.2} ms  claimed twice {claimed_twice} finished twice \
         {finished_twice} lost {lost}",
        wall.as_secs_f64(),
        all.claim.len() as f64 / wall.as_secs_f64(),
        ms(percentile(&mut all.claim, 50)),
        ms(percentile(&mut all.claim, 99)),
        ms(percentile(&mut all.finish, 50)),
        ms(percentile(&mut all.finish, 99)),
        ms(percentile(&mut all.advance, 50)),
        ms(percentile(&mut all.advance, 99)),
        ms(wall) * workers as f64 / count as f64,
    );
    assert_eq!(
        (claimed_twice, finished_twice, lost, all.claims.len()),
        (0, 0, 0, count as usize),
        "{label}: every match claimed, finished and taken exactly once"
    );
}

fn percentile(samples: &mut [Duration], p: usize) -> Duration {
    samples.sort_unstable();
    samples
        .get((samples.len() * p / 100).min(samples.len().saturating_sub(1)))
        .copied()
        .unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let matches = env("ARBITER_BENCH_MATCHES", 20_000) as i64;
    let workers = env("ARBITER_BENCH_WORKERS", 100);
    let dir = std::env::temp_dir().join(format!("arbiter-claims-{}", std::process::id()));
    let sqlite = |name: &str| dir.join(name).join("t.db").to_str().unwrap().to_owned();
    let cluster = Cluster::start().expect("starting PostgreSQL");
    simulate("postgresql", &cluster.database("many"), matches, workers);
    simulate("sqlite", &sqlite("four"), matches / 4, 4);
    simulate("sqlite", &sqlite("eight"), matches / 4, 8);
    simulate("postgresql", &cluster.database("one"), 2_000, 1);
    simulate("sqlite", &sqlite("one"), 2_000, 1);
    drop(cluster);
    let _ = std::fs::remove_dir_all(dir);
}
