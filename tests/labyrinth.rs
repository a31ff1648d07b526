//! `arbiter` playing Labyrinth with real processes: the Python starter and a robot as a
//! process play whole matches, and a bot that sends garbage or answers late gets the code the
//! spec prescribes while the match goes on.

mod common;

use std::path::Path;

use common::{arbiter, assert_no_faults, root, run, temp_dir};
use serde_json::Value;

fn play_json(args: &[&str]) -> Value {
    common::play_json("labyrinth", args)
}

fn small_level() -> String {
    root()
        .join("examples/labyrinth/small.level")
        .display()
        .to_string()
}

/// A Python bot that writes the MESSAGE of every turn block addressed to it into `transcript`
/// and answers turn number i (from 0) with `answers[i]` after sleeping `sleeps[i]` seconds.
fn scripted(dir: &Path, transcript: &Path, answers: &[&str], sleeps: &[f64]) -> String {
    let script = dir.join("bot.py");
    std::fs::write(
        &script,
        format!(
            r#"import sys, time
answers = {answers:?}
sleeps = {sleeps:?}
me, block, turn = None, [], 0
log = open({transcript:?}, "w")
for raw in sys.stdin:
    line = raw.strip()
    if line != ".":
        block.append(line.split())
        continue
    words = {{w[0]: w[1:] for w in block}}
    block = []
    if "ID" in words:
        me = words["PLAYER"][0]
    elif "MESSAGE" in words and words["PLAYER"][0] == me:
        log.write(words["MESSAGE"][0] + "\n")
        log.flush()
        time.sleep(sleeps[turn] if turn < len(sleeps) else 0)
        sys.stdout.write(answers[turn] if turn < len(answers) else "PUSH 1 1 0 15\n.\n")
        sys.stdout.flush()
        turn += 1
    elif "END" in words:
        break
"#,
            transcript = transcript.display().to_string()
        ),
    )
    .unwrap();
    format!("python3 {}", script.display())
}

#[test]
fn the_python_starter_and_a_robot_process_play_a_full_match_without_a_fault() {
    let exe = env!("CARGO_BIN_EXE_arbiter");
    let greedy = format!("{exe} bot labyrinth greedy");
    let python = common::python_starter("labyrinth");
    let result = play_json(&[
        "--bot",
        &python,
        "--bot",
        &greedy,
        "--bot",
        "builtin:lookahead",
        "--seed",
        "3",
    ]);
    assert_no_faults(&result);
    assert_eq!(result["reason"], "tick_limit", "{result}");
    assert_eq!(result["scores"].as_array().unwrap().len(), 3);
    // Level 1 has MAXTICK 88; three seats each play every round.
    assert_eq!(result["ticks"], 264, "{result}");
}

#[test]
fn the_searcher_robot_as_a_process_plays_a_whole_match_in_time() {
    // Under the default clock of 2 s a turn, which it reads and keeps to itself.
    let exe = env!("CARGO_BIN_EXE_arbiter");
    let searcher = format!("{exe} bot labyrinth searcher");
    let result = play_json(&[
        "--bot",
        &searcher,
        "--bot",
        "builtin:lookahead",
        "--seed",
        "5",
    ]);
    assert_no_faults(&result);
    // The match reaches one of the game's own ends: how soon the displays run out depends on
    // how well the robots play, not on the clock.
    assert_eq!(result["knockout"], false, "{result}");
    let reason = result["reason"].as_str().unwrap_or_default();
    assert!(["tick_limit", "all_displays"].contains(&reason), "{result}");
}

#[test]
fn a_robot_process_plays_exactly_as_the_robot_in_process() {
    let exe = env!("CARGO_BIN_EXE_arbiter");
    let process = format!("{exe} bot labyrinth greedy");
    // The same match but for how the first seat's greedy robot is run.
    let against_random = |greedy: &str| {
        play_json(&[
            "--bot",
            greedy,
            "--bot",
            "builtin:random",
            "--seed",
            "9",
            "--level",
            "4",
        ])
    };
    let a = against_random(&process);
    let b = against_random("builtin:greedy");
    assert_no_faults(&a);
    assert_eq!(a["scores"], b["scores"]);
    assert_eq!(a["ticks"], b["ticks"]);
}

#[test]
fn a_hand_made_level_file_is_played() {
    let level = small_level();
    let result = play_json(&[
        "--level-file",
        &level,
        "--bot",
        "builtin:greedy",
        "--bot",
        "builtin:greedy",
    ]);
    assert_no_faults(&result);
    // Two displays, two rounds: the match ends by one or the other.
    assert!(result["ticks"].as_u64().unwrap() <= 4, "{result}");
}

#[test]
fn garbage_is_no_push_and_the_match_goes_on() {
    let dir = temp_dir("garbage");
    let transcript = dir.join("messages");
    let bot = scripted(
        &dir,
        &transcript,
        &["HELLO\n.\n", "PUSH 0 1 1 15\nGOTO 0 0\n.\n"],
        &[],
    );
    let level = small_level();
    let result = play_json(&[
        "--level-file",
        &level,
        "--bot",
        &bot,
        "--bot",
        "builtin:random",
        "--seed",
        "1",
        // The bot writes its transcript outside its folder, which a sandbox forbids.
        "--no-sandbox",
    ]);
    assert_eq!(result["bots"][0]["errors"], 2, "{result}");
    assert_eq!(result["bots"][0]["crashed"], false, "{result}");
    let messages = std::fs::read_to_string(&transcript).unwrap();
    let lines: Vec<&str> = messages.lines().collect();
    // The second turn hears about the first: NO_PUSH; the blocked row 1 is not played.
    assert_eq!(lines[..2], ["OK", "NO_PUSH"], "{messages}");
}

#[test]
fn a_late_reply_is_timeout_and_the_match_goes_on() {
    let dir = temp_dir("late");
    let transcript = dir.join("messages");
    let bot = scripted(&dir, &transcript, &["PUSH 1 1 0 15\n.\n"], &[1.0]);
    // Level 1 lasts 88 rounds: the bot is still playing when it wakes up.
    let result = play_json(&[
        "--bot",
        &bot,
        "--bot",
        "builtin:greedy",
        "--time-per-reply-ms",
        "300",
        "--seed",
        "1",
        "--no-sandbox",
    ]);
    // Its second turn may be late too, as it wakes after that block was sent; the first one is.
    assert!(
        result["bots"][0]["timeouts"].as_u64().unwrap() >= 1,
        "{result}"
    );
    assert!(
        result["ticks"].as_u64().unwrap() >= 3,
        "the match went on: {result}"
    );
    assert_eq!(result["bots"][0]["crashed"], false, "{result}");
    let messages = std::fs::read_to_string(&transcript).unwrap();
    assert_eq!(
        messages.lines().take(2).collect::<Vec<_>>(),
        ["OK", "TIMEOUT"],
        "{messages}"
    );
}

#[test]
fn perft_and_bench_know_labyrinth() {
    let level = small_level();
    let out = run(arbiter().args(["perft", "labyrinth", "1", "--level-file", &level]));
    // Board A: the valid pushes with extra 15 times the cells reachable after each.
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "60");
    let out = run(arbiter().args(["bench", "labyrinth", "--seconds", "0.2", "--json"]));
    let speed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(speed["plies_per_sec"].as_f64().unwrap() > 0.0);
}
