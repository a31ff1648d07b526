//! Whether an opponent can slow a bot down by computing while it is not on turn.
//!
//! A fixed-work bot (this same program run as `between_turns bot work N`: N rounds of a
//! xorshift a turn, then a step sideways) plays sandboxed matches against
//! - an idle bot, which answers at once (`bot idle`), and
//! - a burner, which starts busy loops at its first turn and then answers at once
//!   (`bot burner threads|sessions LOOPS`): threads of its own process, or processes each in a
//!   session of its own (which the kernel's autogroup scheduler treats as the thinking bot's
//!   equals),
//!
//! with both bots frozen between their turns (the default) and running (`--no-freeze`, as before
//! freezing). The settings are played in turn, round after round (in a rotating order, so that a
//! change in the machine's load falls on all of them), and the fixed-work bot's thinking time per
//! turn (the referee's wall clock, as its time bank counts it) is pooled over the rounds: its
//! median per setting, and how much longer it thinks against each burner than against the idle
//! bot. The burner's CPU time between its turns says how much of the machine it took.
//!
//! `cargo run --release -p arbiter-referee --example between_turns -- [--rounds 5]
//! [--turns 100] [--work 3000000] [--loops 4] [--burner threads|sessions|both]` (turns of the
//! whole match, both bots'; run as root, or wherever a sandbox can be built). Where the machine
//! has no freezer, the sandbox says so at start, and the frozen settings measure running bots.

use std::hint::black_box;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_games::TimeControl;
use arbiter_games::quoridor::{Quoridor, Settings};
use arbiter_referee::{MatchConfig, ProcessSeat, Seat, run_match};
use arbiter_replay::{Record, ReplayReader, ReplayWriter};
use arbiter_sandbox::{BetweenTurns, Sandbox, SandboxConfig};

mod shuffle;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("bot") {
        return bot(&args[1..]);
    }
    let options = match Options::parse(&args) {
        Ok(options) => options,
        Err(why) => {
            eprintln!("between_turns: {why}");
            std::process::exit(2);
        }
    };
    let exe = std::env::current_exe().unwrap().display().to_string();
    let sandbox = |between_turns| {
        Sandbox::new(SandboxConfig {
            between_turns,
            ..SandboxConfig::default()
        })
    };
    let (frozen, running) = match (
        sandbox(BetweenTurns::Frozen),
        sandbox(BetweenTurns::Running),
    ) {
        (Ok(frozen), Ok(running)) => (frozen, running),
        (Err(why), _) | (_, Err(why)) => return println!("no sandbox, nothing to measure: {why}"),
    };
    let opponents: Vec<Opponent> = std::iter::once(Opponent::Idle)
        .chain(options.burns.iter().map(|&burn| Opponent::Burner(burn)))
        .collect();
    let settings: Vec<Setting> = [&frozen, &running]
        .into_iter()
        .flat_map(|sandbox| opponents.iter().map(|&o| Setting::new(sandbox, o)))
        .collect();
    println!(
        "{} rounds of {} turns, {} iterations a turn, a burner of {} loops, on {} CPU(s)",
        options.rounds,
        options.turns,
        options.work,
        options.loops,
        cpus()
    );
    let mut results: Vec<Measured> = settings.iter().map(|_| Measured::default()).collect();
    for round in 0..options.rounds {
        for i in 0..settings.len() {
            let k = (round as usize + i) % settings.len();
            results[k].add(play(&exe, &settings[k], &options));
        }
    }
    report(&settings, &results);
}

struct Options {
    rounds: u32,
    turns: u32,
    work: u64,
    loops: u32,
    burns: Vec<Burn>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options {
            rounds: 5,
            turns: 100,
            work: 3_000_000,
            loops: 4,
            burns: vec![Burn::Threads, Burn::Sessions],
        };
        let mut args = args.iter();
        while let Some(flag) = args.next() {
            let value = args.next().ok_or(format!("{flag} needs a value"))?;
            let bad = |_| format!("{flag} {value}: not a whole number");
            match flag.as_str() {
                "--rounds" => options.rounds = value.parse().map_err(bad)?,
                "--turns" => options.turns = value.parse().map_err(bad)?,
                "--work" => options.work = value.parse().map_err(bad)?,
                "--loops" => options.loops = value.parse().map_err(bad)?,
                "--burner" => {
                    options.burns = match (value.as_str(), Burn::named(value)) {
                        (_, Some(burn)) => vec![burn],
                        ("both", None) => vec![Burn::Threads, Burn::Sessions],
                        _ => return Err(format!("--burner {value}: threads, sessions or both")),
                    }
                }
                _ => {
                    return Err(format!(
                        "unknown flag {flag} (--rounds, --turns, --work, --loops, --burner)"
                    ));
                }
            }
        }
        match options.rounds > 0 && options.turns >= 2 {
            true => Ok(options),
            false => Err("--rounds must be at least 1 and --turns at least 2".into()),
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Opponent {
    Idle,
    Burner(Burn),
}

/// How a burner runs its busy loops.
#[derive(Clone, Copy, PartialEq)]
enum Burn {
    /// As threads of its own process, all in the session the sandbox starts it in: the kernel's
    /// autogroup scheduler (on by default) then gives them, together, the share of one session.
    Threads,
    /// As processes that each start a session of their own (`setsid`), and so each get a
    /// session's share of the cores, as much as the bot that is thinking.
    Sessions,
}

impl Burn {
    fn name(self) -> &'static str {
        match self {
            Burn::Threads => "threads",
            Burn::Sessions => "sessions",
        }
    }

    fn named(name: &str) -> Option<Burn> {
        [Burn::Threads, Burn::Sessions]
            .into_iter()
            .find(|burn| burn.name() == name)
    }
}

struct Setting<'a> {
    sandbox: &'a Sandbox,
    opponent: Opponent,
}

impl<'a> Setting<'a> {
    fn new(sandbox: &'a Sandbox, opponent: Opponent) -> Setting<'a> {
        Setting { sandbox, opponent }
    }

    fn frozen(&self) -> bool {
        self.sandbox.config().between_turns == BetweenTurns::Frozen
    }

    fn name(&self) -> String {
        let opponent = match self.opponent {
            Opponent::Idle => "the idle bot".to_owned(),
            Opponent::Burner(burn) => format!("a burner ({})", burn.name()),
        };
        let between = match self.frozen() {
            true => "frozen",
            false => "running",
        };
        format!("against {opponent}, {between} between turns")
    }
}

/// What one setting measured, pooled over its rounds.
#[derive(Default)]
struct Measured {
    /// The fixed-work bot's thinking time, one per turn, in milliseconds.
    thinking: Vec<f64>,
    /// The fixed-work bot's CPU time, one per turn, in milliseconds.
    cpu: Vec<f64>,
    /// The opponent's thinking time, one per turn, in milliseconds.
    opponent_thinking: Vec<f64>,
    /// The opponent's CPU time outside its turns, one per match, in milliseconds.
    opponent_between_turns: Vec<f64>,
    /// The length of each match, in milliseconds.
    matches: Vec<f64>,
    /// The time from the last answer to the end of each match (closing the bots), in
    /// milliseconds.
    closing: Vec<f64>,
}

impl Measured {
    fn add(&mut self, other: Measured) {
        self.thinking.extend(other.thinking);
        self.cpu.extend(other.cpu);
        self.opponent_thinking.extend(other.opponent_thinking);
        self.opponent_between_turns
            .extend(other.opponent_between_turns);
        self.matches.extend(other.matches);
        self.closing.extend(other.closing);
    }
}

/// A replay kept in memory, read back once the writer is done with it.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Plays one match of the fixed-work bot (seat 0) against the setting's opponent (seat 1).
fn play(exe: &str, setting: &Setting, options: &Options) -> Measured {
    let opponent = match setting.opponent {
        Opponent::Idle => vec!["idle".to_owned()],
        Opponent::Burner(burn) => ["burner", burn.name(), &options.loops.to_string()]
            .map(str::to_owned)
            .to_vec(),
    };
    let commands = [vec!["work".to_owned(), options.work.to_string()], opponent];
    let seats: Vec<Box<dyn Seat<Quoridor>>> = commands
        .iter()
        .map(|role| {
            let argv: Vec<String> = [exe.to_owned(), "bot".to_owned()]
                .into_iter()
                .chain(role.iter().cloned())
                .collect();
            let seat = ProcessSeat::spawn_in(role[0].clone(), &argv, None, Some(setting.sandbox));
            Box::new(seat.expect("a sandboxed bot starts")) as Box<dyn Seat<Quoridor>>
        })
        .collect();
    let config = MatchConfig {
        time: Some(TimeControl::Bank {
            initial: Duration::from_secs(600),
            increment: Duration::ZERO,
        }),
        ..MatchConfig::default()
    };
    let mut settings = Settings::standard(2, 9).unwrap();
    settings.max_ticks = options.turns;
    let replay = Buffer::default();
    let mut writer = ReplayWriter::new(Box::new(replay.clone()) as Box<dyn Write + Send>);
    let started = Instant::now();
    let report = run_match(
        Quoridor::new(settings).unwrap(),
        seats,
        &config,
        Some(&mut writer),
    )
    .expect("the match is played");
    let elapsed = started.elapsed();
    for bot in &report.bots {
        assert_eq!(
            (bot.errors, bot.timeouts, bot.crashed),
            (0, 0, false),
            "{report:?}"
        );
    }
    writer.finish().unwrap();
    let (mut measured, last_answer) = thinking_times(&replay.0.lock().unwrap());
    measured.opponent_between_turns = report.bots[1].cpu_between_turns_ms.into_iter().collect();
    let elapsed = elapsed.as_secs_f64() * 1e3;
    measured.matches.push(elapsed);
    measured.closing.push(elapsed - last_answer);
    measured
}

/// Each bot's thinking time on each of its turns, and the fixed-work bot's CPU time, from the
/// replay; and when the last answer came (milliseconds from the start of the match).
fn thinking_times(replay: &[u8]) -> (Measured, f64) {
    let mut reader = ReplayReader::new(replay).unwrap();
    let mut measured = Measured::default();
    let mut last_answer: f64 = 0.0;
    while let Some(record) = reader.next_record().unwrap() {
        let Record::Tick(tick) = record else { continue };
        let answers = tick.bots.iter().flat_map(|bot| &bot.sent);
        last_answer = answers.map(|m| m.at_ms).fold(last_answer, f64::max);
        match tick.player {
            Some(0) => {
                measured.thinking.extend(tick.bots[0].time_ms);
                measured.cpu.extend(tick.bots[0].cpu_ms);
            }
            Some(_) => measured.opponent_thinking.extend(tick.bots[1].time_ms),
            None => {}
        }
    }
    (measured, last_answer)
}

fn report(settings: &[Setting], results: &[Measured]) {
    for (setting, measured) in settings.iter().zip(results) {
        println!("{}:", setting.name());
        println!(
            "  fixed-work bot thinks {:.2} ms/turn (CPU {:.2}); opponent thinks {:.2} ms/turn, \
             uses {:.1} ms of CPU between turns in a {:.0} ms match ({:.0} ms of it closing \
             the bots)",
            median(&measured.thinking),
            median(&measured.cpu),
            median(&measured.opponent_thinking),
            median(&measured.opponent_between_turns),
            median(&measured.matches),
            median(&measured.closing),
        );
    }
    for (frozen, name) in [(true, "frozen"), (false, "running")] {
        let of = |opponent| {
            let k = settings
                .iter()
                .position(|s| s.frozen() == frozen && s.opponent == opponent)
                .unwrap();
            median(&results[k].thinking)
        };
        for setting in settings.iter().filter(|s| s.frozen() == frozen) {
            if let Opponent::Burner(burn) = setting.opponent {
                println!(
                    "{name:>7} between turns: against a burner ({}) the fixed-work bot thinks {:.2}x as long as against the idle bot",
                    burn.name(),
                    of(setting.opponent) / of(Opponent::Idle)
                );
            }
        }
    }
}

/// The median of `values` (NaN when there is none: a setting that measured nothing).
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// This program as a bot: `work N`, `idle` or `burner threads|sessions LOOPS`.
fn bot(args: &[String]) {
    let word = |i: usize| args.get(i).map_or("", String::as_str);
    let number = |i: usize| -> u64 { word(i).parse().expect("bot: a number") };
    match word(0) {
        "work" => {
            let work = number(1);
            shuffle::play(|| {
                black_box(xorshift(work));
            });
        }
        "idle" => shuffle::play(|| ()),
        "burner" => {
            let burn = Burn::named(word(1)).expect("bot burner: threads or sessions");
            let mut loops = Some(number(2));
            shuffle::play(|| {
                // Started at its first turn, once it surely runs, and never stopped.
                for _ in 0..loops.take().unwrap_or(0) {
                    match burn {
                        Burn::Threads => drop(std::thread::spawn(burn_for_ever)),
                        Burn::Sessions => burn_in_a_session(),
                    }
                }
            });
        }
        other => panic!("no such bot: {other:?} (work N, idle, burner threads|sessions N)"),
    }
    let _ = std::io::stdout().flush();
}

fn burn_for_ever() {
    loop {
        black_box(xorshift(1_000_000));
    }
}

/// Starts a busy process in a session of its own.
fn burn_in_a_session() {
    // SAFETY: the bot has one thread when it forks (its loops are all processes), and the child
    // only calls setsid and computes.
    unsafe {
        if libc::fork() == 0 {
            libc::setsid();
            burn_for_ever();
        }
    }
}

/// A fixed amount of work the compiler cannot skip: `rounds` steps of a xorshift generator.
fn xorshift(rounds: u64) -> u64 {
    let mut x = black_box(0x9E37_79B9_7F4A_7C15u64);
    for _ in 0..rounds {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    x
}
