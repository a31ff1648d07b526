//! `arbiter sprt`: is A stronger than B? A sequential probability ratio test over pairs of
//! games, played as a tournament of format `sprt` in the store (the tournament crate's
//! [`arbiter_tournament::sprt`]) by the same pool as every tournament, so that it resumes after
//! a kill and `arbiter worker` processes on other machines can help. This module reads flags,
//! finds the test to resume or sets a new one up, and prints the test's progress and result.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use arbiter_catalog::{Catalog, CatalogGame, SandboxFlags, TimeLimits, Visit};
use arbiter_sprt::{Model, Sprt, Status, Verdict};
use arbiter_store::blocking::Store;
use arbiter_store::{Presence, Tournament};
use arbiter_tournament::Format;
use arbiter_tournament::pool::{self, PoolEvent};
use arbiter_tournament::schedule::MAX_MATCHES;
use arbiter_tournament::settings::StoredSettings;
use arbiter_tournament::setup::{self, NewTournament};
use arbiter_tournament::sprt::{SprtPlan, Tally};
use clap::{Args, FromArgMatches, ValueEnum};
use serde_json::json;

use crate::cli::{GameArgs, GameChoice};
use crate::out::{errln, outln};
use crate::tournament::{LeaseArg, default_jobs, options_until_finished};
use arbiter_text::for_terminal as shown;

/// What `arbiter sprt GAME` takes for every game.
#[derive(Args)]
pub struct SprtArgs {
    /// A player: builtin:NAME or a player folder (with info.txt), as tournaments take them.
    /// Twice: A (the new version) first, then B (the reference).
    #[arg(long = "bot", value_name = "BOT")]
    bots: Vec<String>,
    /// H0: A is this much stronger than B (in the Elo of --model).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    elo0: f64,
    /// H1: A is this much stronger than B (in the Elo of --model).
    #[arg(long, default_value_t = 10.0, allow_negative_numbers = true)]
    elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// The Elo --elo0 and --elo1 are stated in: normalized (as fishtest and fastchess) or
    /// logistic.
    #[arg(long, value_enum, default_value_t = ModelArg::Normalized)]
    model: ModelArg,
    /// Stop undecided after this many games (rounded up to whole pairs).
    #[arg(long, value_parser = clap::value_parser!(u64).range(2..=MAX_MATCHES as u64))]
    max_games: Option<u64>,
    /// Games played at once, 1 to 1024 (default: the number of cores).
    #[arg(long, value_parser = crate::cli::jobs())]
    jobs: Option<usize>,
    /// The seed every pair's seed comes from (random if not given).
    #[arg(long)]
    seed: Option<u64>,
    /// Print one JSON object with the result on stdout.
    #[arg(long)]
    json: bool,
    /// The store: a SQLite file, or a postgres:// URL. The same command again with the same
    /// store resumes the test it left unfinished.
    #[arg(long, default_value = "sprt.db")]
    db: String,
    /// Resume this test of the store (its tournament number), whatever the other flags say.
    #[arg(long, value_name = "ID")]
    resume: Option<i64>,
    #[command(flatten)]
    lease: LeaseArg,
    #[command(flatten)]
    time: TimeLimits,
    #[command(flatten)]
    sandbox: SandboxFlags,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ModelArg {
    Normalized,
    Logistic,
}

impl From<ModelArg> for Model {
    fn from(m: ModelArg) -> Model {
        match m {
            ModelArg::Normalized => Model::Normalized,
            ModelArg::Logistic => Model::Logistic,
        }
    }
}

/// `arbiter sprt`: the game as a subcommand, with its settings.
#[derive(Args)]
pub struct SprtCommand {
    #[command(flatten)]
    game: GameArgs<SprtArgs>,
}

pub fn run<C: Catalog>(command: SprtCommand) -> Result<()> {
    let choice = command.game.required();
    crate::visit::<C, _>(&choice.game.clone(), SprtGame(choice))?
}

/// `arbiter sprt GAME`, for the game named.
struct SprtGame(GameChoice<SprtArgs>);

impl Visit for SprtGame {
    type Output = Result<()>;

    fn visit<G: CatalogGame>(self) -> Result<()> {
        let GameChoice { args, matches, .. } = self.0;
        let test = Sprt::new(
            args.elo0,
            args.elo1,
            args.alpha,
            args.beta,
            args.model.into(),
        )?;
        if args.bots.len() != 2 {
            bail!(
                "arbiter sprt needs two --bot: A (the new version), then B; {} given",
                args.bots.len()
            );
        }
        let jobs = args.jobs.unwrap_or_else(default_jobs);
        let store = Store::open(&args.db, Presence::MayCreate)
            .with_context(|| format!("--db {}", args.db))?;
        let plan = SprtPlan {
            test,
            specs: [args.bots[0].clone(), args.bots[1].clone()],
            players: Default::default(),
            // A round is checked once its pairs are in: a few per match thread.
            pairs_a_round: (2 * jobs).clamp(4, 64) as u32,
            max_pairs: args.max_games.unwrap_or(MAX_MATCHES as u64).div_ceil(2),
        };
        let t = match resumable(&store, &args, G::NAME, &plan)? {
            Some(t) => {
                errln!("resuming SPRT {} in {}", t.id, shown(&args.db));
                t
            }
            None => create::<G>(&store, &args, plan, jobs, &matches)?,
        };
        let plan = stored_plan(&t)?;
        let arena = Arc::new(setup::stored_arena::<G>(&t)?);
        play(&store, &t, &plan, arena, jobs, args.lease)?;
        let tally = plan.tally(&store.matches(t.id)?);
        store.close();
        report(&plan, &tally, args.json)
    }
}

/// Sets up a new test as a tournament of format `sprt`.
fn create<G: CatalogGame>(
    store: &Store,
    args: &SprtArgs,
    plan: SprtPlan,
    jobs: usize,
    matches: &clap::ArgMatches,
) -> Result<Tournament> {
    let seed = args.seed.unwrap_or_else(crate::play::fresh_seed);
    let new = NewTournament {
        name: None,
        dir: None,
        add: plan.specs.to_vec(),
        stored: Vec::new(),
        format: Some(Format::Sprt),
        rounds: None,
        challenger: None,
        seed,
        replays: None,
        keep_failing: false,
        attempts: 3,
        jobs,
        settings: G::Settings::from_arg_matches(matches)?,
        time: args.time.clone(),
        sandbox: args.sandbox.policy(),
        max_program_mb: arbiter_tournament::programs::DEFAULT_MAX_MB,
        sprt: Some(plan),
        commands: arbiter_referee::Commands::Auto,
    };
    let created = setup::create::<G>(store, &args.db, new, &mut crate::tournament::print_note)?;
    let t = created.tournament;
    let stored = stored_plan(&t)?;
    errln!(
        "SPRT {} in {}: {} (A) against {} (B), {} elo0 {} elo1 {}, alpha {} beta {}, seed {seed}",
        t.id,
        shown(&args.db),
        shown(&stored.specs[0]),
        shown(&stored.specs[1]),
        stored.test.model.as_str(),
        stored.test.elo0,
        stored.test.elo1,
        stored.test.alpha,
        stored.test.beta,
    );
    Ok(t)
}

/// The test to go on with: `--resume ID`, or the newest unfinished test of the store with the
/// same game, players, hypotheses and (if given) seed.
fn resumable(
    store: &Store,
    args: &SprtArgs,
    game: &str,
    plan: &SprtPlan,
) -> Result<Option<Tournament>> {
    if let Some(id) = args.resume {
        let t = store
            .tournament(id)
            .with_context(|| format!("--resume {id}"))?;
        if t.format != Format::Sprt || t.game != game {
            bail!(
                "--resume {id}: tournament {id} is a {} {} tournament, not an SPRT of {game}",
                t.game,
                t.format.as_str()
            );
        }
        return Ok(Some(t));
    }
    for id in store.open_tournaments()?.into_iter().rev() {
        let t = store.tournament(id)?;
        if t.format != Format::Sprt || t.game != game || args.seed.is_some_and(|s| s != t.seed) {
            continue;
        }
        let Ok(stored) = stored_plan(&t) else {
            continue;
        };
        if stored.specs == plan.specs
            && stored.test == plan.test
            && stored.max_pairs == plan.max_pairs
        {
            return Ok(Some(t));
        }
    }
    Ok(None)
}

fn stored_plan(t: &Tournament) -> Result<SprtPlan> {
    StoredSettings::<serde::de::IgnoredAny>::of(t)?
        .sprt
        .with_context(|| format!("tournament {} has no SPRT settings", t.id))
}

/// Plays the test's pairs as one more worker until it is decided or over, printing its state
/// to stderr at most every second and at the end.
fn play(
    store: &Store,
    t: &Tournament,
    plan: &SprtPlan,
    arena: Arc<dyn arbiter_tournament::Arena>,
    jobs: usize,
    lease: LeaseArg,
) -> Result<()> {
    let options = options_until_finished(t, jobs, lease);
    let arenas = move |_: &Tournament| Ok(arena.clone());
    let mut shown_at: Option<Instant> = None;
    let mut last_rounds = None;
    pool::run(store, &arenas, &options, &mut |event| {
        if let PoolEvent::Progress { .. } = event {
            if shown_at.is_some_and(|at| at.elapsed() < Duration::from_secs(1)) {
                return;
            }
            // The state as the store holds it; a store out of reach only skips a line.
            let Ok(matches) = store.matches(t.id) else {
                return;
            };
            let tally = plan.tally(&matches);
            if tally.rounds > 0 && last_rounds != Some(tally.rounds) {
                errln!("{}", progress_line(&tally.status));
                last_rounds = Some(tally.rounds);
            }
            shown_at = Some(Instant::now());
        } else if let Some(line) = crate::worker::event_line(&event) {
            errln!("{line}");
        }
    })?;
    Ok(())
}

/// One line of progress: games, pentanomial, Elo ± error, LOS, the ratio against its bounds.
fn progress_line(s: &Status) -> String {
    format!(
        "games {} pentanomial {} elo {:.1} ± {:.1} LOS {:.1} % LLR {:.2} ({:.2}, {:.2})",
        s.counts.games(),
        s.counts,
        s.estimate.elo,
        s.estimate.elo_error95,
        s.estimate.los * 100.0,
        s.llr,
        s.lower_bound,
        s.upper_bound
    )
}

/// The result: a line on stderr, and on stdout a summary or (`--json`) one object.
fn report(plan: &SprtPlan, tally: &Tally, as_json: bool) -> Result<()> {
    let s = &tally.status;
    errln!("{}", progress_line(s));
    if as_json {
        outln!("{}", result_json(s))?;
        return Ok(());
    }
    let what = match s.verdict {
        Verdict::H1 => format!(
            "H1 accepted: {} is stronger than {} (elo1 {})",
            plan.specs[0], plan.specs[1], plan.test.elo1
        ),
        Verdict::H0 => format!(
            "H0 accepted: {} is not elo1 {} stronger than {}",
            plan.specs[0], plan.test.elo1, plan.specs[1]
        ),
        Verdict::Continue => "inconclusive: the games ran out first".to_owned(),
    };
    outln!("{}", shown(&what))?;
    outln!("{}", progress_line(s))?;
    Ok(())
}

/// The object `--json` prints (the contract scripts rely on).
fn result_json(s: &Status) -> serde_json::Value {
    json!({
        "result": s.verdict.as_str(),
        "llr": s.llr,
        "lower_bound": s.lower_bound,
        "upper_bound": s.upper_bound,
        "games": s.counts.games(),
        "pentanomial": s.counts.0,
        "elo": s.estimate.elo,
        "elo_error95": s.estimate.elo_error95,
        "los": s.estimate.los,
    })
}
