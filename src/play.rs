//! `arbiter play`: one match, through the catalog's [`play_to_replay`], the same function
//! tournaments and the game server play their matches with.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use arbiter_catalog::{
    Catalog, CatalogGame, MatchPlan, RobotSeeds, SandboxFlags, SeatPlan, Start, TimeLimits, Visit,
    play_to_replay,
};
use arbiter_games::quoridor::Quoridor;
use arbiter_games::{TimeControl, Wire};
use arbiter_referee::{Commands, MatchConfig, MatchReport, SeatSpec};
use clap::{Args, FromArgMatches};

use crate::cli::{GameArgs, GameChoice};
use crate::out::outln;
use arbiter_formats::ai_arena;
use arbiter_text::for_terminal as shown;

#[derive(Args)]
#[command(arg_required_else_help = true)]
pub struct PlayArgs {
    /// A match config of AI Arena's judge ({"map", "bots"}): plays it and writes score.json.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Where --config writes the scores.
    #[arg(long, default_value = "score.json", requires = "config")]
    score: PathBuf,
    #[command(flatten)]
    common: PlayCommon,
    #[command(flatten)]
    game: GameArgs<PlayCommon>,
}

/// What every match takes, whichever the game.
#[derive(Args, Clone)]
pub struct PlayCommon {
    /// A player, once per seat in player id order: a command line, a player folder holding
    /// info.txt, or builtin:NAME.
    #[arg(long = "bot", value_name = "BOT")]
    bots: Vec<String>,
    /// How a player folder's command runs: `auto` (the course judge's way for folders named
    /// by six digits, as written otherwise), `as-written` (split as a shell would, run inside
    /// the folder) or `judge` (as the Domino course's Windows judge rewrote it: `\` paths
    /// from the players folder's parent, `.jar` with java -jar, `.py` with python3).
    #[arg(long, value_name = "HOW", default_value = "auto")]
    commands: Commands,
    /// Seed of the match (actions played for faulty bots, the robots' choices); random if not given.
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    time: TimeLimits,
    /// Write the replay here (gzip-compressed if the name ends in .gz).
    #[arg(long)]
    replay: Option<PathBuf>,
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    sandbox: SandboxFlags,
}

pub fn run<C: Catalog>(args: PlayArgs) -> Result<()> {
    match (args.game.0, &args.config) {
        (Some(choice), None) => crate::visit::<C, _>(&choice.game.clone(), PlayGame(choice))?,
        (None, Some(path)) => play_judge_config(path, &args.score, &args.common),
        (Some(choice), Some(_)) => {
            bail!(
                "--config plays the match it describes: leave out the game ({})",
                choice.game
            )
        }
        (None, None) => bail!("name the game to play (or give --config)"),
    }
}

/// `arbiter play GAME`, for the game named.
struct PlayGame(GameChoice<PlayCommon>);

impl Visit for PlayGame {
    type Output = Result<()>;

    fn visit<G: CatalogGame>(self) -> Result<()> {
        let GameChoice { args, matches, .. } = self.0;
        let mut settings = G::Settings::from_arg_matches(&matches)?;
        let config = args.match_config(G::PROTOCOL.time)?;
        // A drawn board follows the match seed, so that --seed alone plays a match again exactly.
        if let Some(seed) = G::board_seed(&mut settings) {
            seed.get_or_insert(config.seed);
        }
        let seats = parse_bots(&args.bots, args.commands)?;
        let policy = args.sandbox.policy().hiding(replay_folder(&args));
        check_folders(&seats, &policy)?;
        let sandbox = policy.open()?;
        let report = play_to_replay::<G>(MatchPlan {
            start: Start::Settings(&settings),
            seats: seats.into_iter().map(SeatPlan::Spec).collect(),
            session: None,
            config,
            robot_seeds: RobotSeeds::Spread,
            replay: args.replay.as_deref(),
            sandbox: sandbox.as_ref(),
        })?;
        print_report(G::NAME, &report, &args)
    }
}

impl PlayCommon {
    /// The match's configuration, for a game whose own time control is `own`.
    fn match_config(&self, own: TimeControl) -> Result<MatchConfig> {
        Ok(MatchConfig {
            seed: self.seed.unwrap_or_else(fresh_seed),
            time: self.time.time_control(own)?,
            ..MatchConfig::default()
        })
    }
}

/// A seed for a match the user did not seed: printed with the result, so the match can be
/// played again exactly.
pub fn fresh_seed() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (now.as_nanos() as u64 ^ u64::from(std::process::id())) % 1_000_000_007
}

/// The folder the replay is written to, which no bot may see (the current folder for a bare
/// file name).
fn replay_folder(args: &PlayCommon) -> Option<std::path::PathBuf> {
    let replay = args.replay.as_deref()?;
    Some(match replay.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => ".".into(),
    })
}

fn parse_bots(args: &[String], commands: Commands) -> Result<Vec<SeatSpec>> {
    args.iter()
        .map(|arg| SeatSpec::parse_with(arg, commands).with_context(|| format!("--bot {arg:?}")))
        .collect()
}

/// Refuses, before the match, a player folder over the sandbox's folder limits.
fn check_folders(seats: &[SeatSpec], policy: &arbiter_sandbox::SandboxPolicy) -> Result<()> {
    for seat in seats {
        if let SeatSpec::Folder { dir, .. } = seat {
            policy.check_folder(dir)?;
        }
    }
    Ok(())
}

/// Whether the match was won by knockout, as the Domino judge's leaderboard counts them: the
/// loser timed out.
fn knockout(report: &MatchReport) -> bool {
    report.forfeit.is_some()
        && report.outcome.reason == arbiter_referee::Fault::<()>::Timeout.as_str()
}

/// The player placed first alone, if one is.
fn sole_winner(report: &MatchReport) -> Option<usize> {
    let placement = &report.outcome.placement;
    let mut first = (0..placement.len()).filter(|&p| placement[p] == 1);
    match (first.next(), first.next()) {
        (Some(p), None) => Some(p),
        _ => None,
    }
}

fn print_report(game: &str, report: &MatchReport, args: &PlayCommon) -> Result<()> {
    if args.json {
        let bots: Vec<_> = report
            .bots
            .iter()
            .map(|b| {
                serde_json::json!({
                    "name": b.name,
                    "errors": b.errors,
                    "timeouts": b.timeouts,
                    "crashed": b.crashed,
                    "killed_for": b.killed_for,
                    "cpu_ms": b.cpu_ms,
                    "cpu_between_turns_ms": b.cpu_between_turns_ms,
                })
            })
            .collect();
        let json = serde_json::json!({
            "game": game,
            "seed": report.seed,
            "ticks": report.ticks,
            "reason": report.outcome.reason,
            "scores": report.outcome.scores,
            "placement": report.outcome.placement,
            "knockout": knockout(report),
            "bots": bots,
        });
        outln!("{json}")?;
        return Ok(());
    }
    outln!(
        "{}, seed {}: {} after {} ticks",
        game,
        report.seed,
        report.outcome.reason.replace('_', " "),
        report.ticks
    )?;
    if let Some(winner) = sole_winner(report) {
        let how = if knockout(report) {
            ", by knockout (the opponent timed out)"
        } else {
            ""
        };
        outln!(
            "  winner: {} (player {winner}){how}",
            shown(&report.bots[winner].name)
        )?;
    }
    let mut order: Vec<usize> = (0..report.bots.len()).collect();
    order.sort_by_key(|&p| (report.outcome.placement[p], p));
    let names: Vec<_> = report.bots.iter().map(|b| shown(&b.name)).collect();
    let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
    for p in order {
        let bot = &report.bots[p];
        let faults = if bot.errors + bot.timeouts == 0 && !bot.crashed {
            String::new()
        } else {
            format!(
                "  errors {}, timeouts {}{}",
                bot.errors,
                bot.timeouts,
                match (bot.crashed, bot.killed_for) {
                    (_, Some(limit)) => format!(", killed for going over {}", limit.describe()),
                    (true, None) => ", crashed".into(),
                    (false, None) => String::new(),
                }
            )
        };
        outln!(
            "  {}. player {p} {:width$}  score {:<5}  {:>7.1} ms thinking{faults}{}",
            report.outcome.placement[p],
            names[p],
            report.outcome.scores[p],
            bot.time_ms,
            between_turns(bot),
        )?;
    }
    if let Some(path) = &args.replay {
        outln!("replay: {}", path.display())?;
    }
    Ok(())
}

/// The CPU a bot used outside its turns, when it is worth a word: a sandboxed bot frozen
/// between turns uses next to none (tens of microseconds a turn, while it stops); one that is
/// not may take it from the bot that thinks. `--json` always has it.
fn between_turns(bot: &arbiter_referee::BotReport) -> String {
    match bot.cpu_between_turns_ms {
        Some(ms) if ms >= 1.0 && ms >= bot.time_ms / 10.0 => {
            format!("  ({ms:.1} ms CPU outside its turns)")
        }
        _ => String::new(),
    }
}

fn play_judge_config(path: &Path, score_path: &Path, args: &PlayCommon) -> Result<()> {
    let (judge, rules) = ai_arena::read_config(path)?;
    let seats = judge
        .bots
        .iter()
        .map(|bot| {
            let argv = arbiter_referee::split_command(&bot.run_command)
                .with_context(|| format!("runCommand of bot {:?}", bot.id))?;
            Ok(SeatPlan::Spec(SeatSpec::Command {
                line: bot.run_command.clone(),
                argv,
            }))
        })
        .collect::<Result<Vec<_>>>()?;
    let sandbox = args.sandbox.policy().hiding(replay_folder(args)).open()?;
    let mut report = play_to_replay(MatchPlan {
        start: Start::Position(Quoridor::new(rules)?),
        seats,
        session: None,
        config: args.match_config(Quoridor::PROTOCOL.time)?,
        robot_seeds: RobotSeeds::Spread,
        replay: args.replay.as_deref(),
        sandbox: sandbox.as_ref(),
    })?;
    for (bot, judge_bot) in report.bots.iter_mut().zip(&judge.bots) {
        bot.name = judge_bot.name.clone();
    }
    let scores: serde_json::Map<String, serde_json::Value> = judge
        .bots
        .iter()
        .zip(&report.outcome.scores)
        .map(|(bot, &score)| (bot.id.clone(), serde_json::json!(score)))
        .collect();
    std::fs::write(score_path, serde_json::Value::Object(scores).to_string())
        .with_context(|| format!("writing {}", score_path.display()))?;
    print_report(<Quoridor as arbiter_games::Game>::NAME, &report, args)
}
