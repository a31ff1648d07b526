//! Quoridor engine speed: random playouts (reported in plies per second), with and without walls;
//! listing and playing actions on positions of the pawn phase (no wall left to place), where the
//! pawn-move generator alone decides, and of the wall phase, where the kept shortest paths and
//! the wall-point union-find do their work; the wall-legality check on a mid-game position; and
//! perft 3.

use std::hint::black_box;

use arbiter_games::Game;
use arbiter_games::perft::perft;
use arbiter_games::playout::random_playouts;
use arbiter_games::quoridor::{Action, Orientation, Quoridor, Settings, Wall};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Playouts per measured iteration: enough that the ply count is stable from run to run.
const PLAYOUTS: u64 = 20;

fn start() -> Quoridor {
    let mut settings = Settings::standard(2, 9).unwrap();
    settings.max_ticks = 324;
    Quoridor::new(settings).unwrap()
}

fn bench_playout(c: &mut Criterion) {
    let start = start();
    let mut actions = Vec::new();
    let plies = random_playouts(&start, PLAYOUTS, 1, &mut actions);
    let mut group = c.benchmark_group("quoridor");
    group.throughput(Throughput::Elements(plies));
    group.bench_function("random_playouts_2p_9x9_324_ticks", |b| {
        b.iter(|| black_box(random_playouts(&start, PLAYOUTS, 1, &mut actions)))
    });
    // Without walls every ply is a pawn move: the path the pawn-move generator alone decides.
    let pawns_only = Quoridor::new(start.settings().clone().with_walls_each(0)).unwrap();
    let plies = random_playouts(&pawns_only, PLAYOUTS, 1, &mut actions);
    group.throughput(Throughput::Elements(plies));
    group.bench_function("random_playouts_2p_9x9_no_walls", |b| {
        b.iter(|| black_box(random_playouts(&pawns_only, PLAYOUTS, 1, &mut actions)))
    });
    group.finish();
}

/// Positions of a few random games, with the action the game went on with: while the player on
/// turn still holds a wall (`walls`), or once nobody does.
fn phase(walls: bool) -> Vec<(Quoridor, Action)> {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut actions = Vec::new();
    let mut positions = Vec::new();
    while positions.len() < 200 {
        let mut game = start();
        while game.to_move().is_some() {
            let holds = game.walls_left(game.current()) > 0;
            if walls && !holds {
                break;
            }
            game.legal_actions(&mut actions);
            let pick = actions[rand::Rng::random_range(&mut rng, 0..actions.len())];
            let none_left = (0..2).all(|p| game.walls_left(p) == 0);
            if walls || none_left {
                positions.push((game.clone(), pick));
            }
            game.apply_unchecked(pick);
        }
    }
    positions
}

/// Copying each position and playing the action the game went on with (copy-make, as searches do).
fn bench_clone_and_apply(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    positions: &[(Quoridor, Action)],
) {
    group.bench_function(name, |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|(game, action)| {
                    let mut after = game.clone();
                    after.apply_unchecked(*action);
                    after.tick()
                })
                .sum::<u32>()
        })
    });
}

/// Listing the pawn moves alone: every ply once the walls are all placed.
fn bench_pawn_phase(c: &mut Criterion) {
    let positions = phase(false);
    let mut group = c.benchmark_group("quoridor");
    group.throughput(Throughput::Elements(positions.len() as u64));
    let mut actions = Vec::new();
    group.bench_function("legal_actions_pawn_phase", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|(game, _)| {
                    black_box(game).legal_actions(&mut actions);
                    actions[actions.len() - 1]
                })
                .fold(0usize, |n, a| n + usize::from(matches!(a, Action::Move(_))))
        })
    });
    bench_clone_and_apply(&mut group, "clone_and_apply_pawn_phase", &positions);
    group.finish();
}

fn bench_wall_phase(c: &mut Criterion) {
    let positions = phase(true);
    let mut group = c.benchmark_group("quoridor");
    group.throughput(Throughput::Elements(positions.len() as u64));
    let mut actions = Vec::new();
    group.bench_function("legal_actions_wall_phase", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|(game, _)| {
                    game.legal_actions(&mut actions);
                    actions.len()
                })
                .sum::<usize>()
        })
    });
    // The legal wall sets alone, without writing the list: the loop floods and the path checks.
    group.bench_function("count_legal_actions_wall_phase", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|(game, _)| black_box(game).count_legal_actions())
                .sum::<usize>()
        })
    });
    bench_clone_and_apply(&mut group, "clone_and_apply_wall_phase", &positions);
    group.finish();
}

/// A position after 16 random walls and a few pawn moves, with walls left to place.
fn mid_game() -> Quoridor {
    let mut game = start().clone();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut actions = Vec::new();
    let mut walls = 0;
    while walls < 16 {
        game.legal_actions(&mut actions);
        let pick = actions[rand::Rng::random_range(&mut rng, 0..actions.len())];
        walls += usize::from(matches!(pick, Action::Wall(_)));
        game.apply_unchecked(pick);
    }
    game
}

fn bench_check_walls(c: &mut Criterion) {
    let game = mid_game();
    let m = game.board_size();
    let walls: Vec<Wall> = (0..m)
        .flat_map(|y| (0..m).map(move |x| (x, y)))
        .flat_map(|(x, y)| {
            [Orientation::Horizontal, Orientation::Vertical].map(|orientation| Wall {
                x,
                y,
                orientation,
            })
        })
        .collect();
    c.bench_function("quoridor/check_every_wall_mid_game", |b| {
        b.iter(|| {
            walls
                .iter()
                .filter(|&&w| game.check_wall(black_box(w)).is_ok())
                .count()
        })
    });
    // The path searches: each ends by taking the first goal cell reached.
    c.bench_function("quoridor/shortest_paths_mid_game", |b| {
        b.iter(|| {
            (0..2)
                .map(|p| black_box(&game).shortest_path(p).len())
                .sum::<usize>()
        })
    });
    let mut actions = Vec::new();
    c.bench_function("quoridor/legal_actions_mid_game", |b| {
        b.iter(|| {
            black_box(&game).legal_actions(&mut actions);
            actions.len()
        })
    });
}

fn bench_perft(c: &mut Criterion) {
    let game = start();
    let mut group = c.benchmark_group("quoridor");
    group.sample_size(10);
    group.bench_function("perft_3", |b| b.iter(|| perft(black_box(&game), 3)));
    group.finish();
}

criterion_group!(
    benches,
    bench_playout,
    bench_pawn_phase,
    bench_wall_phase,
    bench_check_walls,
    bench_perft
);
criterion_main!(benches);
