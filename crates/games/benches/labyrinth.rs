//! Labyrinth engine speed: random playouts on generated level 1 with 2 and 4 players (reported
//! in plies per second; every ply lists each valid push with every cell reachable after it),
//! the same playouts picking from a `LegalSet` (counted, one action made: the loop of
//! `arbiter bench labyrinth`), one flood fill, the legal set of the start position, and the
//! legal actions of the start position and of positions along a random match, listed and
//! counted in a legal set (where pushes on lines clear of the princess's cells reuse one walk),
//! on the level as generated and on the same level with three tiles in four turned into crosses
//! (the princess reaches most of the board: long walks, every line crossing them).

use std::hint::black_box;

use arbiter_games::Game;
use arbiter_games::labyrinth::{Labyrinth, LegalSet, Level, reach};
use arbiter_games::playout::random_playouts;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Playouts per measured iteration.
const PLAYOUTS: u64 = 4;

fn bench_playout(c: &mut Criterion) {
    let mut group = c.benchmark_group("labyrinth");
    for players in [2, 4] {
        let start = Labyrinth::generated(1, players).unwrap();
        let mut actions = Vec::new();
        let plies = random_playouts(&start, PLAYOUTS, 1, &mut actions);
        group.throughput(Throughput::Elements(plies));
        group.bench_function(format!("random_playouts_level1_{players}p"), |b| {
            b.iter(|| black_box(random_playouts(&start, PLAYOUTS, 1, &mut actions)))
        });
    }
    group.finish();
}

fn bench_reach(c: &mut Criterion) {
    // An all-open board: the flood fill visits every cell.
    let tiles = [15u8; 400];
    c.bench_function("labyrinth/reach_20x20_open", |b| {
        b.iter(|| black_box(reach(black_box(&tiles), 20, 20, 0)).len())
    });
    let game = Labyrinth::generated(1, 2).unwrap();
    let (w, h) = (game.width(), game.height());
    c.bench_function("labyrinth/reach_level1_every_cell", |b| {
        b.iter(|| {
            (0..w * h)
                .map(|i| reach(black_box(game.tiles()), w, h, i).len())
                .sum::<usize>()
        })
    });
}

fn bench_legal_actions(c: &mut Criterion) {
    let game = Labyrinth::generated(1, 2).unwrap();
    let mut actions = Vec::new();
    c.bench_function("labyrinth/legal_actions_level1_start", |b| {
        b.iter(|| {
            black_box(&game).legal_actions(&mut actions);
            actions.len()
        })
    });
}

fn bench_legal_set(c: &mut Criterion) {
    let game = Labyrinth::generated(1, 2).unwrap();
    let mut set = LegalSet::new();
    c.bench_function("labyrinth/legal_set_level1_start", |b| {
        b.iter(|| {
            black_box(&game).legal_set(&mut set);
            set.len()
        })
    });
    let mut group = c.benchmark_group("labyrinth");
    for players in [2, 4] {
        let start = Labyrinth::generated(1, players).unwrap();
        let plies = set_playouts(&start, &mut set);
        group.throughput(Throughput::Elements(plies));
        group.bench_function(format!("legal_set_playouts_level1_{players}p"), |b| {
            b.iter(|| black_box(set_playouts(&start, &mut set)))
        });
    }
    group.finish();
}

/// [`PLAYOUTS`] random playouts from `start` as `arbiter bench labyrinth` plays them: each ply
/// counts the legal actions in a [`LegalSet`] and plays one picked uniformly (the same games
/// as [`random_playouts`] for a seed). Returns the plies played.
fn set_playouts(start: &Labyrinth, set: &mut LegalSet) -> u64 {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
    let mut plies = 0;
    for _ in 0..PLAYOUTS {
        let mut game = start.clone();
        while game.to_move().is_some() {
            game.legal_set(set);
            if set.is_empty() {
                game.apply_stuck();
            } else if let Some(action) = set.nth(rng.random_range(0..set.len())) {
                game.apply_unchecked(action);
            }
            plies += 1;
        }
    }
    plies
}

/// Positions along a random 4-player match on `level`.
fn along_a_match(level: Level) -> Vec<Labyrinth> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
    let mut game = Labyrinth::new(level, 4).unwrap();
    let mut actions = Vec::new();
    let mut positions = Vec::new();
    while game.to_move().is_some() && positions.len() < 100 {
        positions.push(game.clone());
        game.legal_actions(&mut actions);
        if actions.is_empty() {
            game.apply_stuck();
        } else {
            game.apply_unchecked(actions[rng.random_range(0..actions.len())]);
        }
    }
    positions
}

/// Level 1 with three tiles in four (every cell whose index is not a multiple of 4) crosses.
fn mostly_crosses() -> Level {
    let mut level = Level::generate(1);
    for (i, t) in level.tiles.iter_mut().enumerate() {
        if i % 4 != 0 {
            *t = 15;
        }
    }
    level
}

fn bench_legal_actions_along(c: &mut Criterion) {
    let mut actions = Vec::new();
    let mut group = c.benchmark_group("labyrinth");
    let levels = [
        ("legal_actions_level1_4p_along_a_match", Level::generate(1)),
        (
            "legal_actions_level1_crosses_4p_along_a_match",
            mostly_crosses(),
        ),
    ];
    let mut set = LegalSet::new();
    for (name, level) in levels {
        let positions = along_a_match(level);
        group.throughput(Throughput::Elements(positions.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                positions
                    .iter()
                    .map(|game| {
                        game.legal_actions(&mut actions);
                        actions.len()
                    })
                    .sum::<usize>()
            })
        });
        // The same positions counted in a legal set: the walks and the listing without writing
        // the actions.
        let name = name.replace("legal_actions", "legal_set");
        group.bench_function(name, |b| {
            b.iter(|| {
                positions
                    .iter()
                    .map(|game| {
                        game.legal_set(&mut set);
                        set.len()
                    })
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    bench_playout,
    bench_reach,
    bench_legal_actions,
    bench_legal_set,
    bench_legal_actions_along
);
criterion_main!(benches);
