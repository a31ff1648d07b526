//! Golden replays: fixed-seed matches of every game with every kind of seat, played by the
//! `arbiter` binary and compared with the replays stored in `tests/data/golden/`, so that a
//! change that alters what is sent, answered, played or scored shows up as a failing case.
//!
//! Seats: robots inside the referee (`arbiter play --bot builtin:NAME`), processes over pipes
//! (the robots as `arbiter bot GAME NAME --seed S`, and the Python starters of `examples/`), and
//! TCP clients of `arbiter server` (`arbiter bot GAME NAME --connect`), the server's robots
//! filling the other seats.
//!
//! Everything that depends on the clock is taken out before comparing (see [`strip`]); the
//! rest — every message sent and answered, every position, the outcome — must be identical.
//! Every match gets time limits no seat comes near (even a robot in process: Domino's `parity`
//! can think longer than the game's 500 ms on a 7×7 board), so that a busy machine cannot turn
//! a slow answer into a timeout.
//!
//! When a change of behaviour is intended, rewrite the stored files and review their diff:
//!
//! ```sh
//! ARBITER_BLESS_GOLDEN=1 cargo test --release --test golden
//! git diff tests/data/golden/
//! ```

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{arbiter, generous_time, root, run, temp_dir};
use serde_json::Value;

/// The folder of the stored replays.
fn golden_dir() -> PathBuf {
    root().join("tests/data/golden")
}

/// A small four-seat level, so that Labyrinth replays stay short.
fn four_seats() -> String {
    golden_dir().join("four-seats.level").display().to_string()
}

/// Takes out of one replay line what differs from run to run, all of it measured on the
/// clock; the rest of the line, byte for byte, is the behaviour this test pins (the text is
/// edited rather than parsed and written again, so that the order of the fields stays pinned).
fn strip(line: &str) -> String {
    // When a message was sent or read, in milliseconds since the match started.
    let line = edit_number(line, "at_ms", None);
    // The time bank left after the tick: what the bot's thinking times left of it.
    let line = edit_number(&line, "bank_ms", None);
    // How long the bot on turn thought. Whether a seat was timed at all (null when it was not
    // on turn) is behaviour, so only the number goes.
    let line = edit_number(&line, "time_ms", Some("\"measured\""));
    // The CPU time of the turn, measured where the bot runs in a sandbox: a replay played in
    // one and a replay played without one are the same match.
    let line = edit_number(&line, "cpu_ms", None);
    // Likewise the CPU the bot used outside its turns (frozen or not between them).
    let line = edit_number(&line, "cpu_between_turns_ms", None);
    // What a process wrote to stderr during the tick. The referee reads stderr on a thread of
    // its own and waits a bounded time (tens of milliseconds) for it at the end of a tick, so
    // on a busy machine a line can land in a later tick. What each seat wrote, in order, is
    // kept apart: `stripped` pins it in a last line of its own.
    blank_string(&line, "log")
}

/// Every `"key":NUMBER` of a JSON line with its number replaced by `with`, or, when `with` is
/// `None`, taken out with the comma that joined it to its neighbour. A quote inside a JSON
/// string is always escaped, so `"key":` can only be a field name.
fn edit_number(line: &str, key: &str, with: Option<&str>) -> String {
    let pattern = format!("\"{key}\":");
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find(&pattern) {
        let value = &rest[at + pattern.len()..];
        let length = value
            .find(|c: char| !(c.is_ascii_digit() || "-+.eE".contains(c)))
            .unwrap_or(value.len());
        if length == 0 {
            // Not a number (null): kept as it is.
            out.push_str(&rest[..at + pattern.len()]);
            rest = value;
            continue;
        }
        let after = &value[length..];
        match with {
            Some(text) => {
                out.push_str(&rest[..at + pattern.len()]);
                out.push_str(text);
                rest = after;
            }
            None => match after.strip_prefix(',') {
                Some(after) => {
                    out.push_str(&rest[..at]);
                    rest = after;
                }
                None => {
                    out.push_str(rest[..at].strip_suffix(',').unwrap_or(&rest[..at]));
                    rest = after;
                }
            },
        }
    }
    out.push_str(rest);
    out
}

/// Every `"key":"TEXT"` of a JSON line with its text emptied.
fn blank_string(line: &str, key: &str) -> String {
    let pattern = format!("\"{key}\":\"");
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find(&pattern) {
        out.push_str(&rest[..at + pattern.len()]);
        let mut chars = rest[at + pattern.len()..].char_indices();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let end = end.expect("a JSON string ends with a quote");
        rest = &rest[at + pattern.len() + end..];
    }
    out.push_str(rest);
    out
}

/// A replay file's text, through gzip for a `.gz` file (the game server writes those).
fn read_text(path: &Path) -> std::io::Result<String> {
    let file = std::fs::File::open(path)?;
    let mut text = String::new();
    if path.extension().is_some_and(|e| e == "gz") {
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(file), &mut text)?;
    } else {
        std::io::Read::read_to_string(&mut std::io::BufReader::new(file), &mut text)?;
    }
    Ok(text)
}

/// A replay file, stripped (see [`strip`]), one record per line, followed by a line
/// `{"type":"golden_logs","logs":[…]}`: for each seat, everything it wrote to stderr during
/// the match, in order.
fn stripped(path: &Path) -> String {
    let text = read_text(path)
        .unwrap_or_else(|e| panic!("cannot read the replay {}: {e}", path.display()));
    let mut out = String::new();
    let mut logs: Vec<String> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let record: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{} line {}: {e}", path.display(), number + 1));
        let bots = record["bots"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        for (seat, bot) in bots.iter().enumerate() {
            if logs.len() <= seat {
                logs.resize(seat + 1, String::new());
            }
            logs[seat].push_str(bot["log"].as_str().unwrap_or(""));
        }
        let line = strip(line);
        if let Err(e) = serde_json::from_str::<Value>(&line) {
            panic!(
                "{} line {}, stripped: {e}\n{line}",
                path.display(),
                number + 1
            );
        }
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&serde_json::json!({"type": "golden_logs", "logs": logs}).to_string());
    out.push('\n');
    out
}

/// Compares the replay of case `name` with its stored file, or stores it when
/// `ARBITER_BLESS_GOLDEN=1`.
fn check(name: &str, replay: &Path) {
    let actual = stripped(replay);
    let golden = golden_dir().join(format!("{name}.jsonl"));
    if std::env::var("ARBITER_BLESS_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(&golden, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}); create it with ARBITER_BLESS_GOLDEN=1",
            golden.display()
        )
    });
    if actual == expected {
        return;
    }
    let kept = replay.with_extension("stripped.jsonl");
    std::fs::write(&kept, &actual).unwrap();
    let line = actual
        .lines()
        .zip(expected.lines())
        .position(|(a, e)| a != e)
        .unwrap_or_else(|| actual.lines().count().min(expected.lines().count()));
    let show = |text: &str| text.lines().nth(line).unwrap_or("(no line)").to_owned();
    panic!(
        "case {name}: the replay differs from {} at line {}\n  expected: {}\n  actual:   {}\n\
         the whole stripped replay is in {}",
        golden.display(),
        line + 1,
        show(&expected),
        show(&actual),
        kept.display()
    );
}

/// `arbiter play GAME SETTINGS --bot BOT… --replay …` run in the repository, with the
/// `arbiter` binary on the PATH: the command lines of process seats, which the replay's header
/// records, are then the same on every machine.
fn play(name: &str, game: &str, settings: &[&str], bots: &[&str]) {
    let dir = temp_dir(name);
    let replay = dir.join("replay.jsonl");
    let mut command = arbiter();
    command
        .current_dir(root())
        .env("PATH", path_with_arbiter())
        .args(["play", game])
        .args(settings)
        .args(generous_time(game));
    for bot in bots {
        command.args(["--bot", bot]);
    }
    run(command.arg("--replay").arg(&replay));
    check(name, &replay);
    let _ = std::fs::remove_dir_all(&dir); // kept when the check fails, for its diff
}

fn path_with_arbiter() -> std::ffi::OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_arbiter")).parent().unwrap();
    let mut dirs = vec![bin.to_owned()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap()
}

/// A TCP client: a robot that logs in as `team`.
struct Client {
    team: &'static str,
    robot: &'static str,
    seed: u64,
}

/// One game of `arbiter server GAME SERVER_ARGS` with `clients` logging in one after the
/// other (each only once the previous one is logged in, so that the seats, given in login
/// order on a fresh database, are always the same), the server's robots in the other seats.
fn serve(name: &str, game: &str, server_args: &[&str], clients: &[Client]) {
    let dir = temp_dir(name);
    let accounts = dir.join("teams.toml");
    for client in clients {
        run(arbiter()
            .args(["accounts", "add", "--file"])
            .arg(&accounts)
            .args([client.team, "--password", "pw"]));
    }
    let log = dir.join("server.log");
    let idle = clients.len().to_string();
    let mut server = Running(
        arbiter()
            .args(["server", game, "--port", "0", "--host", "127.0.0.1"])
            .arg("--accounts")
            .arg(&accounts)
            .arg("--db")
            .arg(dir.join("server.db"))
            .args(["--interval", "3600", "--games", "1"])
            .args(["--start-when-idle", &idle, "--reply-ms", "20000"])
            .args(server_args)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap(),
    );
    let addr = listening_address(&mut server.0);
    let mut bots = Vec::new();
    for client in clients {
        let seed = client.seed.to_string();
        let bot = arbiter()
            .args(["bot", game, client.robot, "--seed", &seed])
            .args([
                "--connect",
                &addr,
                "--team",
                client.team,
                "--password",
                "pw",
            ])
            .spawn()
            .unwrap();
        bots.push(Running(bot));
        wait_for_login(&log, client.team);
    }
    for mut bot in bots {
        let status = bot.0.wait().unwrap();
        assert!(status.success(), "a client failed: {status}");
    }
    let status = server.0.wait().unwrap();
    let server_log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        status.success(),
        "the server failed: {status}\n{server_log}"
    );
    check(name, &dir.join(format!("replays/{game}-1.jsonl.gz")));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A child process killed if the test fails before it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Reads the server's `listening on ADDR` line.
fn listening_address(server: &mut Child) -> String {
    let mut first = String::new();
    BufReader::new(server.stdout.as_mut().unwrap())
        .read_line(&mut first)
        .unwrap();
    first
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("expected `listening on ADDR`, got {first:?}"))
        .to_owned()
}

/// Waits until the server's log says `team` logged in.
fn wait_for_login(log: &Path, team: &str) {
    let line = format!("{team} logged in");
    let start = Instant::now();
    while !std::fs::read_to_string(log).is_ok_and(|text| text.contains(&line)) {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{team} did not log in: {}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

// Robots inside the referee.

#[test]
fn quoridor_2p_builtin() {
    let settings = ["--seed", "11", "--max-ticks", "40"];
    let bots = ["builtin:random", "builtin:blocker"];
    play("quoridor-2p-builtin", "quoridor", &settings, &bots);
}

#[test]
fn quoridor_4p_builtin() {
    let settings = ["--players", "4", "--seed", "12", "--max-ticks", "40"];
    let bots = [
        "builtin:random",
        "builtin:runner",
        "builtin:blocker",
        "builtin:random",
    ];
    play("quoridor-4p-builtin", "quoridor", &settings, &bots);
}

#[test]
fn puoribor_builtin() {
    let settings = ["--seed", "13", "--max-ticks", "40"];
    let bots = ["builtin:random", "builtin:rotator"];
    play("puoribor-builtin", "puoribor", &settings, &bots);
}

#[test]
fn domino_builtin() {
    let settings = ["--seed", "2", "--board", "7"];
    let bots = ["builtin:random", "builtin:parity"];
    play("domino-builtin", "domino", &settings, &bots);
}

#[test]
fn labyrinth_2p_builtin() {
    let level = root().join("examples/labyrinth/small.level");
    let settings = ["--seed", "15", "--level-file", level.to_str().unwrap()];
    let bots = ["builtin:greedy", "builtin:lookahead"];
    play("labyrinth-2p-builtin", "labyrinth", &settings, &bots);
}

#[test]
fn labyrinth_3p_builtin() {
    let level = four_seats();
    let settings = ["--seed", "16", "--level-file", &level];
    let bots = ["builtin:random", "builtin:greedy", "builtin:lookahead"];
    play("labyrinth-3p-builtin", "labyrinth", &settings, &bots);
}

// Processes over pipes: the robots as `arbiter bot`, and the Python starters.

#[test]
fn quoridor_2p_process() {
    let settings = ["--seed", "21", "--max-ticks", "40"];
    let bots = [
        "arbiter bot quoridor random --seed 21",
        "python3 examples/quoridor/starter.py",
    ];
    play("quoridor-2p-process", "quoridor", &settings, &bots);
}

#[test]
fn quoridor_4p_process() {
    let settings = ["--players", "4", "--seed", "22", "--max-ticks", "40"];
    let bots = [
        "arbiter bot quoridor blocker",
        "python3 examples/quoridor/starter.py",
        "arbiter bot quoridor random --seed 22",
        "arbiter bot quoridor runner",
    ];
    play("quoridor-4p-process", "quoridor", &settings, &bots);
}

#[test]
fn puoribor_process() {
    let settings = ["--seed", "23", "--max-ticks", "40"];
    let bots = [
        "python3 examples/puoribor/starter.py",
        "arbiter bot puoribor random --seed 23",
    ];
    play("puoribor-process", "puoribor", &settings, &bots);
}

#[test]
fn domino_process() {
    let settings = ["--seed", "24", "--board", "7"];
    let bots = [
        "arbiter bot domino random --seed 24",
        "python3 examples/domino/starter.py",
    ];
    play("domino-process", "domino", &settings, &bots);
}

#[test]
fn labyrinth_3p_process() {
    let level = four_seats();
    let settings = ["--seed", "25", "--level-file", &level];
    let bots = [
        "python3 examples/labyrinth/starter.py",
        "arbiter bot labyrinth random --seed 25",
        "arbiter bot labyrinth lookahead",
    ];
    play("labyrinth-3p-process", "labyrinth", &settings, &bots);
}

// TCP clients of the game server.

fn client(team: &'static str, robot: &'static str, seed: u64) -> Client {
    Client { team, robot, seed }
}

#[test]
fn quoridor_2p_tcp() {
    let clients = [client("alice", "random", 31)];
    serve(
        "quoridor-2p-tcp",
        "quoridor",
        &["--max-ticks", "40"],
        &clients,
    );
}

#[test]
fn quoridor_4p_tcp() {
    let settings = ["--players", "4", "--max-ticks", "40"];
    let clients = [client("alice", "random", 32), client("bob", "runner", 0)];
    serve("quoridor-4p-tcp", "quoridor", &settings, &clients);
}

#[test]
fn puoribor_tcp() {
    let clients = [client("alice", "random", 33)];
    serve("puoribor-tcp", "puoribor", &["--max-ticks", "40"], &clients);
}

#[test]
fn domino_tcp() {
    let clients = [client("alice", "random", 34)];
    serve("domino-tcp", "domino", &["--board", "7"], &clients);
}

#[test]
fn labyrinth_4p_tcp() {
    let level = four_seats();
    let settings = ["--min-players", "4", "--level-file", &level];
    let clients = [client("alice", "random", 35), client("bob", "greedy", 0)];
    serve("labyrinth-4p-tcp", "labyrinth", &settings, &clients);
}

#[test]
fn stripping_takes_out_the_times_and_the_logs_and_keeps_the_rest() {
    let line = r#"{"bots":[{"received":[{"at_ms":0.07,"text":"\"at_ms\":1"}],"log":"a \"q\" b\\","time_ms":1.5e-3,"cpu_ms":0.25,"bank_ms":29.99},{"log":"","time_ms":null,"bank_ms":1000.0}]}"#;
    assert_eq!(
        strip(line),
        r#"{"bots":[{"received":[{"text":"\"at_ms\":1"}],"log":"","time_ms":"measured"},{"log":"","time_ms":null}]}"#
    );
}
