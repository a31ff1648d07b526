//! The store's own cost per ladder game, on SQLite and on PostgreSQL (a throw-away cluster of
//! `arbiter-pgtest`): the schedule decision (members read, matchmaking, the match queued, in
//! one transaction), the claim, and the result with its rating update, for a ladder of 50
//! robots. No game is played: this is what the store adds to each game.
//!
//! `cargo run --release -p arbiter-store --example ladder_cost -- [GAMES]` (default 400).

use std::time::Instant;

use arbiter_ladder::pick_match;
use arbiter_store::{ArenaStore, MatchKind, MatchOutcome, NewArenaMatch, Presence, StoreError};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const GAME: &str = "quoridor";
const MEMBERS: usize = 50;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let games: usize = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => 400,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let dir = std::env::temp_dir().join(format!("arbiter-ladder-cost-{}", std::process::id()));
    let sqlite = dir.join("arena.db").to_string_lossy().into_owned();
    let figures = runtime.block_on(measure(&sqlite, games));
    let _ = std::fs::remove_dir_all(&dir);
    report("SQLite", &figures?, games);
    let cluster = arbiter_pgtest::Cluster::start()?;
    let figures = runtime.block_on(measure(&cluster.database("ladder_cost"), games))?;
    report("PostgreSQL", &figures, games);
    Ok(())
}

/// Microseconds of each game's schedule, claim and finish.
struct Figures {
    schedule: Vec<u128>,
    claim: Vec<u128>,
    finish: Vec<u128>,
    total: Vec<u128>,
}

async fn measure(target: &str, games: usize) -> Result<Figures, StoreError> {
    let store = ArenaStore::open(target, Presence::MayCreate).await?;
    for i in 0..MEMBERS {
        store.add_robot(GAME, &format!("robot{i}")).await?;
    }
    let mut rng = StdRng::seed_from_u64(29);
    let mut figures = Figures {
        schedule: Vec::new(),
        claim: Vec::new(),
        finish: Vec::new(),
        total: Vec::new(),
    };
    for _ in 0..games {
        let start = Instant::now();
        let rng2 = &mut rng;
        store
            .schedule_ladder(GAME, |view| {
                let seats = pick_match(&view.candidates, 2, rng2)?;
                Some(NewArenaMatch {
                    kind: MatchKind::Ladder,
                    game: GAME.into(),
                    settings: serde_json::json!({}),
                    seed: rng2.random(),
                    seats,
                })
            })
            .await?;
        let scheduled = Instant::now();
        let Some(claimed) = store.claim_match("cost", 60_000).await? else {
            return Err(StoreError::NotFound("the match just queued".into()));
        };
        let claimed_at = Instant::now();
        let places = if rng.random::<bool>() {
            vec![1, 2]
        } else {
            vec![2, 1]
        };
        let outcome = MatchOutcome {
            places,
            faults: vec![None, None],
            reason: "goal".into(),
            replay: vec![0; 4096],
        };
        store.finish_match(&claimed, &outcome).await?;
        let finished = Instant::now();
        figures.schedule.push((scheduled - start).as_micros());
        figures.claim.push((claimed_at - scheduled).as_micros());
        figures.finish.push((finished - claimed_at).as_micros());
        figures.total.push((finished - start).as_micros());
    }
    let live = store.ratings(GAME).await?;
    let replayed = store.recompute_ratings(GAME).await?;
    if live != replayed {
        return Err(StoreError::Corrupt("the recomputed ratings differ".into()));
    }
    Ok(figures)
}

fn median(values: &[u128]) -> u128 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted.get(sorted.len() / 2).copied().unwrap_or(0)
}

fn report(backend: &str, f: &Figures, games: usize) {
    println!(
        "{backend}: median per game {} µs (schedule {} µs, claim {} µs, finish with rating {} µs) \
         over {games} games, {MEMBERS} members",
        median(&f.total),
        median(&f.schedule),
        median(&f.claim),
        median(&f.finish)
    );
}
