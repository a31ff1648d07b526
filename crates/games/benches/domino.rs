//! Domino engine speed: random playouts on a 15×15 and a 51×51 board (reported in plies per
//! second), listing the placements of a fresh 51×51 board, and perft 3 on a 7×7 board.

use std::hint::black_box;

use arbiter_games::Game;
use arbiter_games::domino::{Domino, Settings};
use arbiter_games::perft::perft;
use arbiter_games::playout::random_playouts;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Playouts per measured iteration: enough that the ply count is stable from run to run.
const PLAYOUTS: u64 = 20;

fn start(size: u8) -> Domino {
    Domino::new(Settings::seeded(size, 1).unwrap()).unwrap()
}

fn bench_playout(c: &mut Criterion) {
    let mut group = c.benchmark_group("domino");
    for size in [15, 51] {
        let start = start(size);
        let mut actions = Vec::new();
        let plies = random_playouts(&start, PLAYOUTS, 1, &mut actions);
        group.throughput(Throughput::Elements(plies));
        group.bench_function(format!("random_playouts_{size}x{size}"), |b| {
            b.iter(|| black_box(random_playouts(&start, PLAYOUTS, 1, &mut actions)))
        });
    }
    group.finish();
}

fn bench_legal_actions(c: &mut Criterion) {
    let game = start(51);
    let mut actions = Vec::new();
    c.bench_function("domino/legal_actions_51x51_start", |b| {
        b.iter(|| {
            black_box(&game).legal_actions(&mut actions);
            actions.len()
        })
    });
    c.bench_function("domino/count_placements_51x51_start", |b| {
        b.iter(|| black_box(&game).count_placements())
    });
}

fn bench_perft(c: &mut Criterion) {
    let game = start(7);
    let mut group = c.benchmark_group("domino");
    group.sample_size(10);
    group.bench_function("perft_3_7x7", |b| b.iter(|| perft(black_box(&game), 3)));
    group.finish();
}

criterion_group!(benches, bench_playout, bench_legal_actions, bench_perft);
criterion_main!(benches);
