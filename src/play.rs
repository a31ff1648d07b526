use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use arbiter_games::quoridor::Quoridor;
use arbiter_games::{TimeControl, Wire};
use arbiter_referee::{MatchConfig, MatchReport, Seat, SeatSpec, run_match};
use arbiter_replay::ReplayWriter;
use arbiter_robots::Robots;
use clap::Args;

use crate::games::{CliGame, GameFlags, GameName, dispatch};
use crate::judge_config;

#[derive(Args)]
#[command(arg_required_else_help = true)]
pub struct PlayArgs {
    /// The game (not needed with --config).
    #[arg(required_unless_present = "config")]
    game: Option<GameName>,
    /// A player, once per seat in player id order: a command line, a player folder holding
    /// info.txt, or builtin:NAME.
    #[arg(long = "bot", value_name = "BOT")]
    bots: Vec<String>,
    /// A match config of AI Arena's judge ({"map", "bots"}): plays it and writes score.json.
    #[arg(long, conflicts_with_all = ["game", "bots"])]
    config: Option<PathBuf>,
    /// Where --config writes the scores.
    #[arg(long, default_value = "score.json", requires = "config")]
    score: PathBuf,
    /// Seed of the match (actions played for faulty bots, the robots' choices); random if not given.
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    time: TimeFlags,
    /// Write the replay here (gzip-compressed if the name ends in .gz).
    #[arg(long)]
    replay: Option<PathBuf>,
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    flags: GameFlags,
}

pub fn run(args: PlayArgs) -> Result<()> {
    let seed = args.seed.unwrap_or_else(fresh_seed);
    let config = MatchConfig {
        seed,
        time: args.time.time_control()?,
        ..MatchConfig::default()
    };
    if let Some(path) = &args.config {
        return play_judge_config(path, &args.score, &config, &args);
    }
    let name = args.game.expect("clap requires a game without --config");
    // A drawn board follows the match seed, so that --seed alone plays a match again exactly.
    let mut flags = args.flags.clone();
    flags.board_seed.get_or_insert(seed);
    dispatch!(name, G => {
        G::seats_from_bots(&mut flags, args.bots.len());
        let specs = parse_bots(&args.bots)?;
        let names = specs.iter().map(SeatSpec::name).collect();
        let game = G::from_flags(&flags, &arbiter_games::Seating::named(names))?;
        let report = play(game, &specs, &config, args.replay.as_ref())?;
        print_report::<G>(&report, &args);
    });
    Ok(())
}

/// A seed for a match the user did not seed: printed with the result, so the match can be
/// played again exactly.
pub fn fresh_seed() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (now.as_nanos() as u64 ^ u64::from(std::process::id())) % 1_000_000_007
}

/// Time limit flags; without any, a match is played under its game's own time control.
#[derive(Args, Clone, Debug, Default)]
pub struct TimeFlags {
    /// A time bank: each bot's bank at the start, in milliseconds (Quoridor: 1000).
    #[arg(long, conflicts_with_all = ["time_per_reply_ms", "startup_ms"])]
    pub time_bank_ms: Option<u64>,
    /// A time bank: milliseconds added to a bot's bank before each of its turns (Quoridor: 30).
    #[arg(long, conflicts_with_all = ["time_per_reply_ms", "startup_ms"])]
    pub time_per_turn_ms: Option<u64>,
    /// A hard limit on every reply, in milliseconds (Puoribor: 1000, Domino: 500).
    #[arg(long)]
    pub time_per_reply_ms: Option<u64>,
    /// With a per-reply limit: extra milliseconds for a bot's first reply, for its start-up.
    #[arg(long)]
    pub startup_ms: Option<u64>,
}

impl TimeFlags {
    pub fn time_control(&self) -> Result<Option<TimeControl>> {
        let ms = Duration::from_millis;
        Ok(match *self {
            TimeFlags {
                time_bank_ms: None,
                time_per_turn_ms: None,
                time_per_reply_ms: None,
                startup_ms: None,
            } => None,
            TimeFlags {
                time_per_reply_ms: None,
                startup_ms: Some(_),
                ..
            } => {
                bail!("--startup-ms needs --time-per-reply-ms")
            }
            TimeFlags {
                time_per_reply_ms: Some(limit),
                startup_ms,
                ..
            } => Some(TimeControl::PerReply {
                limit: ms(limit),
                first_extra: ms(startup_ms.unwrap_or(0)),
            }),
            TimeFlags {
                time_bank_ms,
                time_per_turn_ms,
                ..
            } => Some(TimeControl::Bank {
                initial: ms(time_bank_ms.unwrap_or(1000)),
                increment: ms(time_per_turn_ms.unwrap_or(30)),
            }),
        })
    }
}

fn parse_bots(args: &[String]) -> Result<Vec<SeatSpec>> {
    args.iter()
        .map(|arg| SeatSpec::parse(arg).with_context(|| format!("--bot {arg:?}")))
        .collect()
}

/// Opens every seat (nothing is started if one of them is wrong), plays, writes the replay.
pub fn play<G: Wire + Robots>(
    game: G,
    specs: &[SeatSpec],
    config: &MatchConfig,
    replay: Option<&PathBuf>,
) -> Result<MatchReport> {
    if specs.len() != game.num_players() {
        bail!(
            "this match has {} players but {} bots were given (one --bot per player)",
            game.num_players(),
            specs.len()
        );
    }
    for spec in specs {
        if let SeatSpec::Builtin { name } = spec
            && !G::ROBOTS.contains(&name.as_str())
        {
            bail!(
                "there is no robot builtin:{name} for {}; there are: {}",
                G::NAME,
                G::ROBOTS
                    .iter()
                    .map(|r| format!("builtin:{r}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    let mut seats: Vec<Box<dyn Seat<G>>> = Vec::with_capacity(specs.len());
    for (index, spec) in specs.iter().enumerate() {
        // Robots get their own seed from the match seed, so a match replays exactly.
        let robot_seed = config
            .seed
            .wrapping_add(index as u64 + 1)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let seat = spec
            .open(|name| G::robot(name, robot_seed))
            .with_context(|| CannotStart {
                index,
                who: describe(spec),
            })?;
        seats.push(seat);
    }
    let mut writer = match replay {
        Some(path) => Some(
            ReplayWriter::create(path)
                .with_context(|| format!("cannot write replay {}", path.display()))?,
        ),
        None => None,
    };
    let report = run_match(game, seats, config, writer.as_mut())?;
    if let Some(writer) = writer {
        writer.finish().context("finishing the replay")?;
    }
    Ok(report)
}

/// Which player of a match could not be started (the context of the error [`play`] returns), so
/// that a tournament can score it against that player.
#[derive(Debug)]
pub struct CannotStart {
    pub index: usize,
    pub who: String,
}

impl std::fmt::Display for CannotStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot start player {} ({})", self.index, self.who)
    }
}

fn describe(spec: &SeatSpec) -> String {
    match spec {
        SeatSpec::Builtin { name } => format!("builtin:{name}"),
        SeatSpec::Folder { dir, command, .. } => format!("{command:?} in {}", dir.display()),
        SeatSpec::Command { line, .. } => format!("{line:?}"),
    }
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

fn print_report<G: Wire>(report: &MatchReport, args: &PlayArgs) {
    if args.json {
        let bots: Vec<_> = report
            .bots
            .iter()
            .map(|b| {
                serde_json::json!({"name": b.name, "errors": b.errors, "timeouts": b.timeouts, "crashed": b.crashed})
            })
            .collect();
        let json = serde_json::json!({
            "game": G::NAME,
            "seed": report.seed,
            "ticks": report.ticks,
            "reason": report.outcome.reason,
            "scores": report.outcome.scores,
            "placement": report.outcome.placement,
            "knockout": knockout(report),
            "bots": bots,
        });
        println!("{json}");
        return;
    }
    println!(
        "{}, seed {}: {} after {} ticks",
        G::NAME,
        report.seed,
        report.outcome.reason.replace('_', " "),
        report.ticks
    );
    if let Some(winner) = sole_winner(report) {
        let how = if knockout(report) {
            ", by knockout (the opponent timed out)"
        } else {
            ""
        };
        println!(
            "  winner: {} (player {winner}){how}",
            report.bots[winner].name
        );
    }
    let mut order: Vec<usize> = (0..report.bots.len()).collect();
    order.sort_by_key(|&p| (report.outcome.placement[p], p));
    let width = report.bots.iter().map(|b| b.name.len()).max().unwrap_or(0);
    for p in order {
        let bot = &report.bots[p];
        let faults = if bot.errors + bot.timeouts == 0 && !bot.crashed {
            String::new()
        } else {
            format!(
                "  errors {}, timeouts {}{}",
                bot.errors,
                bot.timeouts,
                if bot.crashed { ", crashed" } else { "" }
            )
        };
        println!(
            "  {}. player {p} {:width$}  score {:<5}  {:>7.1} ms thinking{faults}",
            report.outcome.placement[p], bot.name, report.outcome.scores[p], bot.time_ms,
        );
    }
    if let Some(path) = &args.replay {
        println!("replay: {}", path.display());
    }
}

fn play_judge_config(
    path: &Path,
    score_path: &Path,
    config: &MatchConfig,
    args: &PlayArgs,
) -> Result<()> {
    let (judge, settings) = judge_config::read_config(path)?;
    let specs = judge
        .bots
        .iter()
        .map(|bot| {
            let argv = arbiter_referee::split_command(&bot.run_command)
                .with_context(|| format!("runCommand of bot {:?}", bot.id))?;
            Ok(SeatSpec::Command {
                line: bot.run_command.clone(),
                argv,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let game = Quoridor::new(settings)?;
    let mut report = play(game, &specs, config, args.replay.as_ref())?;
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
    print_report::<Quoridor>(&report, args);
    Ok(())
}
