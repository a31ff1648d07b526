use std::time::{Duration, Instant};

use anyhow::Result;
use arbiter_games::Game;
use arbiter_games::playout::random_playout;
use clap::Args;
use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::games::{CliGame, GameFlags, GameName, dispatch};

#[derive(Args)]
pub struct BenchArgs {
    game: GameName,
    /// How long to run the playout loop.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object: {"games_per_sec":…,"plies_per_sec":…}.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    flags: GameFlags,
}

pub struct Speed {
    pub games: u64,
    pub plies: u64,
    pub seconds: f64,
}

/// Plays uniformly random games from `start` for about `budget`: every ply enumerates all legal
/// actions and picks one, the loop OpenSpiel's `evaluate_bots` runs with uniform random bots.
pub fn playouts<G: Game>(start: &G, budget: Duration, seed: u64) -> Speed {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut actions = Vec::new();
    let (mut games, mut plies) = (0u64, 0u64);
    let started = Instant::now();
    while started.elapsed() < budget {
        for _ in 0..16 {
            let mut game = start.clone();
            plies += u64::from(random_playout(&mut game, &mut rng, &mut actions));
            games += 1;
        }
    }
    Speed {
        games,
        plies,
        seconds: started.elapsed().as_secs_f64(),
    }
}

pub fn run(args: BenchArgs) -> Result<()> {
    let budget = Duration::from_secs_f64(args.seconds.max(0.01));
    let speed =
        dispatch!(args.game, G => playouts(&G::bench_start(&args.flags)?, budget, args.seed));
    let games_per_sec = speed.games as f64 / speed.seconds;
    let plies_per_sec = speed.plies as f64 / speed.seconds;
    if args.json {
        println!(
            "{}",
            serde_json::json!({"games_per_sec": games_per_sec, "plies_per_sec": plies_per_sec})
        );
    } else {
        println!(
            "{:?}: {} random games in {:.2} s: {games_per_sec:.0} games/s, {plies_per_sec:.0} plies/s ({:.1} plies a game)",
            args.game,
            speed.games,
            speed.seconds,
            speed.plies as f64 / speed.games.max(1) as f64
        );
    }
    Ok(())
}
