//! Batched Quoridor speed: `step_random` on 1024 matches of 2-player 9×9 Quoridor with the tick
//! limit at 324 (as `arbiter bench quoridor`), observations and masks written every step,
//! reported in steps (one per match) per second.

use std::hint::black_box;

use arbiter_batch::{Batch, BatchGame, Buffers};
use arbiter_games::quoridor::{Quoridor, Settings};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const MATCHES: usize = 1024;

fn bench_step_random(c: &mut Criterion) {
    let mut settings = Settings::standard(2, 9).unwrap();
    settings.max_ticks = 324;
    let start = Quoridor::new(settings).unwrap();
    let obs: usize = start.observation_shape().iter().product();
    let (mut observations, mut masks) = (
        vec![0; MATCHES * obs],
        vec![0; MATCHES * start.action_count()],
    );
    let (mut rewards, mut dones, mut to_move) = (
        vec![0.0; MATCHES * 2],
        vec![false; MATCHES],
        vec![0; MATCHES],
    );
    let mut out = Buffers {
        observations: &mut observations,
        masks: &mut masks,
        rewards: &mut rewards,
        dones: &mut dones,
        to_move: &mut to_move,
    };
    let mut batch = Batch::new(start, MATCHES, 1);
    batch.reset(None, &mut out);
    let mut group = c.benchmark_group("batch");
    group.throughput(Throughput::Elements(MATCHES as u64));
    group.bench_function("quoridor_step_random_1024_2p_9x9_324_ticks", |b| {
        b.iter(|| {
            batch.step_random(&mut out);
            black_box(&out.masks[0]);
        })
    });
}

criterion_group!(benches, bench_step_random);
criterion_main!(benches);
