//! `arbiter perft GAME DEPTH`: the number of legal action sequences, to check move generators.

use std::time::Instant;

use anyhow::Result;

use crate::out::{errln, outln};
use arbiter_catalog::{Catalog, CatalogGame, TableSetup, Visit};
use arbiter_games::perft::perft;
use clap::{Args, FromArgMatches};

use crate::cli::{GameArgs, GameChoice};

#[derive(Args)]
pub struct PerftArgs {
    #[command(flatten)]
    game: GameArgs<PerftCommon>,
}

/// What `perft` takes for every game.
#[derive(Args)]
pub struct PerftCommon {
    /// Length of the action sequences to count, 0 to 64 (each step multiplies the time).
    #[arg(value_parser = clap::value_parser!(u32).range(0..=64))]
    depth: u32,
}

/// The count of the game named, from the start position of a match with its settings.
struct Perft<'a>(&'a GameChoice<PerftCommon>);

impl Visit for Perft<'_> {
    type Output = Result<u64>;

    fn visit<G: CatalogGame>(self) -> Result<u64> {
        let settings = G::Settings::from_arg_matches(&self.0.matches)?;
        let start = G::build(&settings, &TableSetup::numbered(G::seats(&settings, 0)))?;
        Ok(perft(&start, self.0.args.depth))
    }
}

pub fn run<C: Catalog>(args: PerftArgs) -> Result<()> {
    let choice = args.game.required();
    let started = Instant::now();
    let count = crate::visit::<C, _>(&choice.game, Perft(&choice))??;
    let seconds = started.elapsed().as_secs_f64();
    outln!("{count}")?;
    errln!(
        "perft {} = {count} in {seconds:.3} s ({:.1} M leaves/s)",
        choice.args.depth,
        count as f64 / seconds / 1e6
    );
    Ok(())
}
