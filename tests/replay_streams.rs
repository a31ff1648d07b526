//! A replay holds everything each bot read and wrote: every seat of a match is a robot run as
//! a process (`arbiter bot GAME NAME`) behind a shell script that copies its stdin and stdout
//! to files with `tee`, and what the replay says each seat received, in order, must be what it
//! read byte for byte, and what it says each seat sent, each text followed by a line end, what
//! it wrote. Labyrinth tells every seat the state before every turn, not only the seat on
//! turn, and its answers are blocks closed by a `.` line: both must be in the replay.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arbiter_replay::{Replay, read_replay};
use common::{arbiter, generous_time, run, temp_dir};

/// The wrapper: `sh wrap.sh PREFIX COMMAND…` runs COMMAND with its stdin copied to
/// `PREFIX.in` and its stdout to `PREFIX.out`. `tee` writes each chunk as it reads it, so the
/// copies are whole once the pipeline has ended, which it does when the referee closes the
/// bot's stdin at the end of the match.
const WRAPPER: &str = r#"prefix=$1
shift
tee "$prefix.in" | "$@" | tee "$prefix.out"
"#;

/// One seat: the robot and the seed of its own choices.
struct Robot {
    name: &'static str,
    seed: u64,
}

fn robot(name: &'static str, seed: u64) -> Robot {
    Robot { name, seed }
}

/// Plays `game` with `settings` between `robots`, each wrapped, writing the replay to a
/// `.jsonl.gz` file; checks that the replay holds each seat's streams byte for byte.
fn check_streams(case: &str, game: &str, settings: &[&str], robots: &[Robot]) {
    let dir = temp_dir(case);
    let wrapper = dir.join("wrap.sh");
    std::fs::write(&wrapper, WRAPPER).unwrap();
    let replay_path = dir.join("replay.jsonl.gz");
    let mut command = arbiter();
    command
        .args(["play", game])
        .args(settings)
        .args(["--no-sandbox", "--seed", "5"])
        .args(generous_time(game));
    let mut prefixes = Vec::new();
    for (seat, robot) in robots.iter().enumerate() {
        let prefix = dir.join(format!("seat{seat}"));
        let bot = format!(
            "sh {} {} {} bot {game} {} --seed {}",
            wrapper.display(),
            prefix.display(),
            env!("CARGO_BIN_EXE_arbiter"),
            robot.name,
            robot.seed
        );
        command.args(["--bot", &bot]);
        prefixes.push(prefix);
    }
    run(command.arg("--replay").arg(&replay_path));
    let replay = read_replay(&replay_path).expect("the replay reads");
    assert!(replay.result.is_some(), "{case}: the match has no result");
    for (seat, prefix) in prefixes.iter().enumerate() {
        let (received, sent) = streams(&replay, seat);
        let read = settled(&with_extension(prefix, "in"), &received);
        assert_same(case, seat, "read on stdin", &read, &received);
        let written = settled(&with_extension(prefix, "out"), &sent);
        assert_same(case, seat, "wrote on stdout", &written, &sent);
    }
    let _ = std::fs::remove_dir_all(&dir); // kept when a check fails
}

/// What the replay says seat `seat` received and sent over the whole match, as the bot saw
/// the streams: the received texts in order, and the sent texts each followed by a line end.
fn streams(replay: &Replay, seat: usize) -> (String, String) {
    let (mut received, mut sent) = (String::new(), String::new());
    for tick in &replay.ticks {
        let bot = &tick.bots[seat];
        for message in &bot.received {
            received.push_str(&message.text);
        }
        for message in &bot.sent {
            sent.push_str(&message.text);
            sent.push('\n');
        }
    }
    (received, sent)
}

fn with_extension(prefix: &Path, extension: &str) -> PathBuf {
    prefix.with_extension(extension)
}

/// The copy at `path` once it is whole: the wrapper's `tee` may still be writing its last
/// chunk when `arbiter play` returns, so a copy shorter than `expected` is read again for a
/// while.
fn settled(path: &Path, expected: &str) -> String {
    let give_up = Instant::now() + Duration::from_secs(5);
    loop {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        if text.len() >= expected.len() || Instant::now() > give_up {
            return text;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn assert_same(case: &str, seat: usize, what: &str, actual: &str, recorded: &str) {
    if actual == recorded {
        return;
    }
    let at = actual
        .bytes()
        .zip(recorded.bytes())
        .position(|(a, r)| a != r)
        .unwrap_or(actual.len().min(recorded.len()));
    let around = |text: &str| {
        let start = text.floor_char_boundary(at.saturating_sub(80));
        let end = text.ceil_char_boundary((at + 80).min(text.len()));
        text[start..end].to_owned()
    };
    panic!(
        "{case}, seat {seat}: what it {what} ({} bytes) is not what the replay holds ({} \
         bytes); first difference at byte {at}\n  bot:    {:?}\n  replay: {:?}",
        actual.len(),
        recorded.len(),
        around(actual),
        around(recorded)
    );
}

#[test]
fn quoridor_replay_holds_every_byte_read_and_written() {
    let robots = [robot("random", 1), robot("runner", 0)];
    check_streams("quoridor", "quoridor", &["--max-ticks", "60"], &robots);
}

#[test]
fn puoribor_replay_holds_every_byte_read_and_written() {
    let robots = [robot("random", 2), robot("random", 3)];
    check_streams("puoribor", "puoribor", &["--max-ticks", "60"], &robots);
}

#[test]
fn domino_replay_holds_every_byte_read_and_written() {
    let robots = [robot("random", 4), robot("random", 5)];
    check_streams("domino", "domino", &["--board", "9"], &robots);
}

#[test]
fn labyrinth_2p_replay_holds_every_byte_read_and_written() {
    let robots = [robot("random", 6), robot("greedy", 0)];
    check_streams("labyrinth-2p", "labyrinth", &[], &robots);
}

#[test]
fn labyrinth_4p_replay_holds_every_byte_read_and_written() {
    let robots = [
        robot("random", 7),
        robot("greedy", 0),
        robot("lookahead", 0),
        robot("random", 8),
    ];
    check_streams("labyrinth-4p", "labyrinth", &["--players", "4"], &robots);
}
