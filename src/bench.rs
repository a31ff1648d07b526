//! `arbiter bench GAME`: engine speed in uniformly random playouts.

use std::any::Any;
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::out::outln;
use arbiter_catalog::{Catalog, CatalogGame, Visit};
use arbiter_games::Game;
use arbiter_games::labyrinth::{Labyrinth, LegalSet};
use arbiter_games::playout::random_playout;
use clap::{Args, FromArgMatches};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::cli::{GameArgs, GameChoice};

#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    game: GameArgs<BenchCommon>,
}

/// What `bench` takes for every game.
#[derive(Args)]
pub struct BenchCommon {
    /// How long to run the playout loop, in seconds: up to a day.
    #[arg(long, default_value_t = 3.0, value_parser = seconds)]
    seconds: f64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object: {"games_per_sec":…,"plies_per_sec":…}.
    #[arg(long)]
    json: bool,
}

pub struct Speed {
    pub games: u64,
    pub plies: u64,
    pub seconds: f64,
}

/// Plays uniformly random games from `start` for about `budget`: every ply enumerates all legal
/// actions and picks one, the loop OpenSpiel's `evaluate_bots` runs with uniform random bots.
///
/// Labyrinth enumerates them as a [`LegalSet`] (each valid push with the cells reachable after
/// it: the count of the actions and the one picked, the same actions in the same order as
/// [`Game::legal_actions`] and so the same games for a seed) rather than writing the thousand
/// actions of a ply out one by one.
pub fn playouts<G: Game>(start: &G, budget: Duration, seed: u64) -> Speed {
    let mut rng = SmallRng::seed_from_u64(seed);
    let started = Instant::now();
    let (games, plies) = match (start as &dyn Any).downcast_ref::<Labyrinth>() {
        Some(labyrinth) => playout_loop(started, budget, |games, plies| {
            labyrinth_playouts(labyrinth, &mut rng, games, plies)
        }),
        None => {
            let mut actions = Vec::new();
            playout_loop(started, budget, |games, plies| {
                for _ in 0..16 {
                    let mut game = start.clone();
                    *plies += u64::from(random_playout(&mut game, &mut rng, &mut actions));
                    *games += 1;
                }
            })
        }
    };
    Speed {
        games,
        plies,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// Runs `batch` (which adds the games and plies it played) until `budget` has passed since
/// `started`; the games and plies played.
fn playout_loop(
    started: Instant,
    budget: Duration,
    mut batch: impl FnMut(&mut u64, &mut u64),
) -> (u64, u64) {
    let (mut games, mut plies) = (0u64, 0u64);
    while started.elapsed() < budget {
        batch(&mut games, &mut plies);
    }
    (games, plies)
}

/// Sixteen uniformly random Labyrinth games from `start`, each ply counting the legal actions
/// in a [`LegalSet`] and playing one picked uniformly (as [`random_playout`] picks from the
/// listed actions).
fn labyrinth_playouts(start: &Labyrinth, rng: &mut SmallRng, games: &mut u64, plies: &mut u64) {
    let mut set = LegalSet::new();
    for _ in 0..16 {
        let mut game = start.clone();
        while game.to_move().is_some() {
            game.legal_set(&mut set);
            let picked = (!set.is_empty())
                .then(|| set.nth(rng.random_range(0..set.len())))
                .flatten();
            match picked {
                Some(action) => game.apply_unchecked(action),
                None => game.apply_stuck(),
            }
            *plies += 1;
        }
        *games += 1;
    }
}

/// The playouts of the game named.
struct Bench<'a>(&'a GameChoice<BenchCommon>);

impl Visit for Bench<'_> {
    type Output = Result<Speed>;

    fn visit<G: CatalogGame>(self) -> Result<Speed> {
        let GameChoice { args, matches, .. } = self.0;
        let settings = G::Settings::from_arg_matches(matches)?;
        let budget = Duration::from_secs_f64(args.seconds.max(0.01));
        Ok(playouts(&G::bench_start(&settings)?, budget, args.seed))
    }
}

pub fn run<C: Catalog>(args: BenchArgs) -> Result<()> {
    let choice = args.game.required();
    let speed = crate::visit::<C, _>(&choice.game, Bench(&choice))??;
    let games_per_sec = speed.games as f64 / speed.seconds;
    let plies_per_sec = speed.plies as f64 / speed.seconds;
    if choice.args.json {
        outln!(
            "{}",
            serde_json::json!({"games_per_sec": games_per_sec, "plies_per_sec": plies_per_sec})
        )?;
    } else {
        outln!(
            "{}: {} random games in {:.2} s: {games_per_sec:.0} games/s, {plies_per_sec:.0} plies/s ({:.1} plies a game)",
            game_title(&choice.game),
            speed.games,
            speed.seconds,
            speed.plies as f64 / speed.games.max(1) as f64
        )?;
    }
    Ok(())
}

/// `--seconds`: a number from 0 to a day (anything longer is a mistake, and no duration).
fn seconds(text: &str) -> Result<f64, String> {
    const DAY: f64 = 86_400.0;
    match text.parse::<f64>() {
        Ok(seconds) if (0.0..=DAY).contains(&seconds) => Ok(seconds),
        _ => Err(format!("expected seconds from 0 to {DAY}")),
    }
}

/// `quoridor` as `Quoridor`, as the summary line always named games.
fn game_title(name: &str) -> String {
    let mut chars = name.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
