use std::time::Instant;

use anyhow::Result;
use arbiter_games::perft::perft;
use clap::Args;

use crate::games::{GameFlags, GameName, new_quoridor};

#[derive(Args)]
pub struct PerftArgs {
    game: GameName,
    /// Length of the action sequences to count.
    depth: u32,
    #[command(flatten)]
    flags: GameFlags,
}

pub fn run(args: PerftArgs) -> Result<()> {
    let game = match args.game {
        GameName::Quoridor => new_quoridor(&args.flags, 2)?,
    };
    let started = Instant::now();
    let count = perft(&game, args.depth);
    let seconds = started.elapsed().as_secs_f64();
    println!("{count}");
    eprintln!(
        "perft {} = {count} in {seconds:.3} s ({:.1} M leaves/s)",
        args.depth,
        count as f64 / seconds / 1e6
    );
    Ok(())
}
