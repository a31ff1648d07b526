//! What the referee costs per turn, against the floor of any referee that talks to bots over pipes.
//!
//! Two instant bots (this same program run as `overhead bot`, shuffling their pawns sideways so a
//! match never ends before the tick limit) play:
//! 1. a plain ping-pong: the parent writes each turn message to the bot on turn and reads one
//!    line back, over two pipes, with nothing else going on: the floor;
//! 2. a real match through `run_match`, without a replay and with one written to a sink.
//!
//! 3. the same match with both bots in the sandbox (when this machine can build one), frozen
//!    between their turns (the default) and running (`--no-freeze`): the difference is the cost
//!    of a freeze and a thaw per turn; and the start-up of one bot (start to first answer,
//!    median of 100) with and without the sandbox.
//!
//! Run it pinned to one core, so that every hand-over is a context switch on that core:
//! `taskset -c 0 cargo run --release -p arbiter-referee --example overhead [TURNS]`

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_games::quoridor::{Action, Cell, Quoridor, Settings};
use arbiter_games::{Game, TimeControl, Wire};
use arbiter_referee::{Ask, MatchConfig, ProcessSeat, Reply, Seat, run_match};
use arbiter_replay::ReplayWriter;
use arbiter_sandbox::{BetweenTurns, Sandbox, SandboxConfig};

mod shuffle;

use shuffle::shuffle;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("bot") {
        bot();
        return;
    }
    let turns: u32 = args.get(1).map_or(20_000, |s| s.parse().expect("TURNS"));
    let exe = std::env::current_exe().unwrap().display().to_string();
    println!("{turns} turns, {}", cpus());

    let floor = ping_pong(&exe, turns);
    println!(
        "pipe ping-pong (floor):        {:>7.2} µs/turn",
        micros(floor, turns)
    );
    let bare = referee(&exe, turns, false, None);
    println!(
        "run_match, no replay:          {:>7.2} µs/turn",
        micros(bare, turns)
    );
    let recorded = referee(&exe, turns, true, None);
    println!(
        "run_match, replay to a sink:   {:>7.2} µs/turn",
        micros(recorded, turns)
    );
    println!(
        "referee overhead over the floor: {:.2} µs/turn without replay, {:.2} with",
        micros(bare, turns) - micros(floor, turns),
        micros(recorded, turns) - micros(floor, turns)
    );
    let sandbox = match Sandbox::new(SandboxConfig::default()) {
        Ok(sandbox) => sandbox,
        Err(why) => return println!("no sandbox measures: {why}"),
    };
    let jailed = referee(&exe, turns, false, Some(&sandbox));
    println!(
        "run_match, sandboxed bots:     {:>7.2} µs/turn ({:.2}x the unsandboxed match)",
        micros(jailed, turns),
        jailed.as_secs_f64() / bare.as_secs_f64()
    );
    let running = Sandbox::new(SandboxConfig {
        between_turns: BetweenTurns::Running,
        ..SandboxConfig::default()
    })
    .expect("the same sandbox, not frozen between turns");
    let unfrozen = referee(&exe, turns, false, Some(&running));
    println!(
        "  the same, not frozen between turns (--no-freeze): {:.2} µs/turn: freezing costs {:.2}",
        micros(unfrozen, turns),
        micros(jailed, turns) - micros(unfrozen, turns)
    );
    let plain = median_start(&exe, None);
    let confined = median_start(&exe, Some(&sandbox));
    println!(
        "start to first answer, median of {STARTS}: {:.2} ms plain, {:.2} ms sandboxed ({:.1}x)",
        plain.as_secs_f64() * 1e3,
        confined.as_secs_f64() * 1e3,
        confined.as_secs_f64() / plain.as_secs_f64()
    );
}

const STARTS: usize = 100;

/// The median time from starting one bot to its first answer, closing it after.
fn median_start(exe: &str, sandbox: Option<&Sandbox>) -> Duration {
    let (starts, messages) = transcript(2);
    let argv = [exe.to_owned(), "bot".to_owned()];
    let mut times: Vec<Duration> = (0..STARTS)
        .map(|_| {
            let started = Instant::now();
            let mut seat = ProcessSeat::spawn_in("instant", &argv, None, sandbox).unwrap();
            Seat::<Quoridor>::send(&mut seat, &starts[0]).unwrap();
            let game = game(2);
            let reply = seat.request(
                Ask::Turn(&game, Quoridor::PROTOCOL.time),
                &messages[0].1,
                Instant::now() + Duration::from_secs(10),
                &mut Vec::new(),
            );
            assert!(matches!(reply, Reply::Answer(_)), "{reply:?}");
            let elapsed = started.elapsed();
            Seat::<Quoridor>::close(&mut seat, Instant::now());
            elapsed
        })
        .collect();
    times.sort();
    times[STARTS / 2]
}

fn micros(d: Duration, turns: u32) -> f64 {
    d.as_secs_f64() * 1e6 / turns as f64
}

fn cpus() -> String {
    // SAFETY: sched_getaffinity fills the set it is given.
    let count = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set);
        libc::CPU_COUNT(&set)
    };
    format!("on {count} CPU(s)")
}

fn game(turns: u32) -> Quoridor {
    let mut settings = Settings::standard(2, 9).unwrap();
    settings.max_ticks = turns;
    Quoridor::new(settings).unwrap()
}

/// Every message of a match of `turns` turns between two shuffling bots, in order:
/// (player, text).
fn transcript(turns: u32) -> (Vec<String>, Vec<(usize, String)>) {
    let mut game = game(turns);
    let starts = (0..2)
        .map(|p| {
            let mut text = String::new();
            game.start_message(0, p, &mut text);
            text
        })
        .collect();
    let mut messages = Vec::new();
    while let Some(p) = game.to_move() {
        let mut text = String::new();
        game.turn_message(p, &mut text);
        messages.push((p, text));
        let pawn = game.pawn(p).unwrap();
        let (x, y) = shuffle(pawn.x, pawn.y, 4);
        game.apply(Action::Move(Cell::new(x, y))).unwrap();
    }
    (starts, messages)
}

fn ping_pong(exe: &str, turns: u32) -> Duration {
    let (starts, messages) = transcript(turns);
    let mut bots: Vec<_> = (0..2)
        .map(|_| {
            Command::new(exe)
                .arg("bot")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut pipes: Vec<_> = bots
        .iter_mut()
        .map(|b| {
            (
                b.stdin.take().unwrap(),
                BufReader::new(b.stdout.take().unwrap()),
            )
        })
        .collect();
    for (pipe, start) in pipes.iter_mut().zip(&starts) {
        pipe.0.write_all(start.as_bytes()).unwrap();
    }
    let mut line = String::new();
    let started = Instant::now();
    for (p, text) in &messages {
        let (stdin, stdout) = &mut pipes[*p];
        stdin.write_all(text.as_bytes()).unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
    }
    let elapsed = started.elapsed();
    for (mut stdin, _) in pipes {
        let _ = stdin.write_all(b"-1\n\n");
    }
    for mut bot in bots {
        bot.wait().unwrap();
    }
    elapsed
}

fn referee(exe: &str, turns: u32, replay: bool, sandbox: Option<&Sandbox>) -> Duration {
    let seats: Vec<Box<dyn Seat<Quoridor>>> = (0..2)
        .map(|p| {
            let argv = [exe.to_owned(), "bot".to_owned()];
            Box::new(ProcessSeat::spawn_in(format!("instant{p}"), &argv, None, sandbox).unwrap())
                as Box<dyn Seat<Quoridor>>
        })
        .collect();
    let config = MatchConfig {
        time: Some(TimeControl::Bank {
            initial: Duration::from_secs(10),
            increment: Duration::ZERO,
        }),
        ..MatchConfig::default()
    };
    let mut writer = ReplayWriter::new(Box::new(std::io::sink()) as Box<dyn Write + Send>);
    let started = Instant::now();
    let report = run_match(game(turns), seats, &config, replay.then_some(&mut writer)).unwrap();
    // The match ends with closing the bots; the grace period is not part of a turn.
    let elapsed = started.elapsed();
    assert_eq!(report.ticks, turns);
    for bot in &report.bots {
        assert_eq!(
            (bot.errors, bot.timeouts, bot.crashed),
            (0, 0, false),
            "{report:?}"
        );
    }
    elapsed
}

/// The instant bot: answers each turn with a step sideways, as soon as the turn is read.
fn bot() {
    shuffle::play(|| ());
}
