use std::time::Instant;

use anyhow::Result;
use arbiter_games::perft::perft;
use clap::Args;

use crate::games::{CliGame, GameFlags, GameName, dispatch};

#[derive(Args)]
pub struct PerftArgs {
    game: GameName,
    /// Length of the action sequences to count.
    depth: u32,
    #[command(flatten)]
    flags: GameFlags,
}

pub fn run(args: PerftArgs) -> Result<()> {
    let started = Instant::now();
    let count = dispatch!(args.game, G => perft(&G::from_flags(&args.flags, &Default::default())?, args.depth));
    let seconds = started.elapsed().as_secs_f64();
    println!("{count}");
    eprintln!(
        "perft {} = {count} in {seconds:.3} s ({:.1} M leaves/s)",
        args.depth,
        count as f64 / seconds / 1e6
    );
    Ok(())
}
