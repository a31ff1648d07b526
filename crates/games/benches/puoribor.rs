//! Puoribor engine speed: random playouts (reported in plies per second, the figure compared
//! with the original Python environment), legal-action generation on a mid-game position, one
//! rotation, and perft 3.

use std::hint::black_box;

use arbiter_games::Game;
use arbiter_games::perft::perft;
use arbiter_games::playout::random_playouts;
use arbiter_games::puoribor::{Action, Puoribor};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Playouts per measured iteration: enough that the ply count is stable from run to run.
const PLAYOUTS: u64 = 20;

/// A position after six walls and a rotation from each player, with walls left to place.
fn mid_game() -> Puoribor {
    let mut game = Puoribor::new();
    let mut rng = SmallRng::seed_from_u64(7);
    let mut actions = Vec::new();
    while game.walls_remaining(0) + game.walls_remaining(1) > 4 {
        game.legal_actions(&mut actions);
        if game.walls_remaining(game.current()) >= 4 && rng.random_bool(0.2) {
            actions.retain(|a| a.kind == Action::ROTATE);
        }
        let pick = actions[rng.random_range(0..actions.len())];
        game.apply(pick).unwrap();
    }
    game
}

fn bench(c: &mut Criterion) {
    let mut actions = Vec::new();
    let plies = random_playouts(&Puoribor::new(), PLAYOUTS, 1, &mut actions);
    let mut group = c.benchmark_group("puoribor");
    group.throughput(Throughput::Elements(plies));
    group.bench_function("random_playouts_200_ticks", |b| {
        b.iter(|| black_box(random_playouts(&Puoribor::new(), PLAYOUTS, 1, &mut actions)))
    });
    group.throughput(Throughput::Elements(1));
    let start = Puoribor::new();
    group.bench_function("legal_actions_start", |b| {
        b.iter(|| {
            black_box(&start).legal_actions(&mut actions);
            black_box(actions.len())
        })
    });
    let middle = mid_game();
    group.bench_function("legal_actions_mid_game", |b| {
        b.iter(|| {
            black_box(&middle).legal_actions(&mut actions);
            black_box(actions.len())
        })
    });
    group.bench_function("legal_mask_mid_game", |b| {
        b.iter(|| black_box(black_box(&middle).legal_mask()))
    });
    group.bench_function("rotate_and_hash", |b| {
        b.iter(|| {
            let mut game = black_box(&middle).clone();
            game.apply_unchecked(Action::rotate(2, 3));
            black_box(game.hash())
        })
    });
    group.sample_size(10);
    group.bench_function("perft_3", |b| b.iter(|| black_box(perft(&start, 3))));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
