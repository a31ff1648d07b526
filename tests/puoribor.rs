//! Puoribor through the `arbiter` binary: matches of the starter bots and of built-in robots as
//! processes, each fault ending the match with the right reason and winner, replays, and the
//! msgpack logs of the original environment read by Python's `msgpack`.

#[path = "../crates/games/tests/common/fights_venv.rs"]
mod fights_venv;

mod common;

use std::process::Command;

use common::{arbiter, root, run, temp_dir};

fn cpp_starter() -> String {
    common::cpp_starter("puoribor")
}

fn python_starter() -> String {
    common::python_starter("puoribor")
}
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

fn play(bots: [&str; 2], extra: &[&str]) -> Value {
    let output = run(arbiter()
        .args([
            "play", "puoribor", "--json", "--bot", bots[0], "--bot", bots[1],
        ])
        .args(extra));
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "--json printed something else ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

fn assert_no_faults(result: &Value) {
    for bot in result["bots"].as_array().unwrap() {
        assert_eq!(bot["errors"], 0, "{result}");
        assert_eq!(bot["timeouts"], 0, "{result}");
        assert_eq!(bot["crashed"], false, "{result}");
    }
    assert!(
        ["goal", "tick_limit"].contains(&result["reason"].as_str().unwrap()),
        "{result}"
    );
}

#[test]
fn the_python_and_cpp_starters_play_a_match_without_a_fault() {
    let (py, cpp) = (python_starter(), cpp_starter());
    for bots in [[py.as_str(), cpp.as_str()], [cpp.as_str(), py.as_str()]] {
        let result = play(bots, &["--seed", "1"]);
        assert_no_faults(&result);
        // Both walk a shortest path; the first to move wins the race unless jumped.
        assert_eq!(result["reason"], "goal", "{result}");
    }
}

#[test]
fn the_starters_beat_nobody_but_finish_against_every_robot() {
    let (py, cpp) = (python_starter(), cpp_starter());
    for robot in ["builtin:random", "builtin:runner", "builtin:rotator"] {
        assert_no_faults(&play([py.as_str(), robot], &["--seed", "2"]));
        assert_no_faults(&play([robot, cpp.as_str()], &["--seed", "3"]));
    }
}

#[test]
fn robots_as_processes_speak_the_protocol_without_a_fault() {
    let exe = env!("CARGO_BIN_EXE_arbiter");
    for robot in ["random", "runner", "rotator"] {
        let process = format!("{exe} bot puoribor {robot}");
        assert_no_faults(&play([&process, "builtin:rotator"], &["--seed", "4"]));
        assert_no_faults(&play(["builtin:random", &process], &["--seed", "5"]));
    }
}

/// A bot that reads the protocol and then misbehaves on its first turn, as `mode` says.
const FAULTY: &str = r#"
import sys, time
mode = sys.argv[1]
lines = iter(sys.stdin.readline, "")
next(lines); next(lines)
for line in lines:
    if int(line) == -1:
        break
    next(lines); next(lines)
    for _ in range(int(next(lines))):
        next(lines)
    if mode == "malformed":
        print("move 4 1", flush=True)
    elif mode == "illegal":
        print("1 8 8", flush=True)
    elif mode == "timeout":
        time.sleep(30)
    elif mode == "crash":
        sys.exit(3)
"#;

#[test]
fn every_fault_loses_the_match_at_once() {
    let dir = temp_dir("faults");
    let script = dir.join("faulty.py");
    std::fs::write(&script, FAULTY).unwrap();
    for fault in ["malformed", "illegal", "timeout", "crash"] {
        for seat in 0..2 {
            let faulty = format!("python3 {} {fault}", script.display());
            let mut bots = ["builtin:runner", "builtin:runner"];
            bots[seat] = &faulty;
            // Short limits make the timeout quick; the others get room for Python's start-up
            // on a busy machine, so that their fault is the one seen.
            let startup = if fault == "timeout" { "200" } else { "5000" };
            let result = play(
                bots,
                &["--time-per-reply-ms", "300", "--startup-ms", startup],
            );
            assert_eq!(result["reason"], fault, "{result}");
            let mut scores = [1.0, 1.0];
            scores[seat] = 0.0;
            assert_eq!(result["scores"], serde_json::json!(scores), "{result}");
            let mut placement = [1, 1];
            placement[seat] = 2;
            assert_eq!(
                result["placement"],
                serde_json::json!(placement),
                "{result}"
            );
            // The faulty bot's first turn is tick `seat`: the match ends there.
            assert_eq!(result["ticks"], seat + 1, "{result}");
        }
    }
}

#[test]
fn a_reply_gets_one_second_and_the_first_two_more() {
    // Each reply takes 1.5 s: the first is within its 3 s, the second is late.
    let slow = r#"python3 -c "
import sys, time
for line in iter(sys.stdin.readline, ''):
    if line.strip() in ('0', '2'):
        time.sleep(1.5)
        print('0 4 1' if line.strip() == '0' else '0 4 2', flush=True)
""#;
    let result = play([slow, "builtin:runner"], &[]);
    assert_eq!(result["reason"], "timeout", "{result}");
    assert_eq!(result["scores"], serde_json::json!([0.0, 1.0]), "{result}");
    assert_eq!(result["ticks"], 3, "{result}");
}

#[test]
fn flags_puoribor_does_not_have_are_refused() {
    for flag in [["--players", "4"], ["--board", "7"], ["--walls", "5"]] {
        let output = arbiter()
            .args([
                "play",
                "puoribor",
                "--bot",
                "builtin:runner",
                "--bot",
                "builtin:runner",
            ])
            .args(flag)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{flag:?} accepted");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(&flag[0][2..]), "{stderr}");
    }
    let result = play(["builtin:random", "builtin:random"], &["--max-ticks", "6"]);
    assert_eq!(result["ticks"], 6, "{result}");
    assert_eq!(result["reason"], "tick_limit", "{result}");
}

#[test]
fn replays_load_in_the_replay_reader() {
    let dir = temp_dir("replays");
    for (name, bots) in [
        ("a.jsonl", ["builtin:rotator", "builtin:random"]),
        ("b.jsonl.gz", ["builtin:runner", "builtin:rotator"]),
    ] {
        let path = dir.join(name);
        let result = play(bots, &["--seed", "9", "--replay", path.to_str().unwrap()]);
        let replay = arbiter_replay::read_replay(&path).unwrap();
        assert_eq!(replay.header.game, "puoribor");
        assert_eq!(replay.header.settings["max_ticks"], 200);
        let last = replay.ticks.last().unwrap();
        assert_eq!(u64::from(last.tick), result["ticks"].as_u64().unwrap());
        assert_eq!(replay.ticks.len(), last.tick as usize + 1);
        assert_eq!(replay.ticks[0].bots[1].received[0].text, "1\n9\n");
        assert_eq!(
            replay.ticks[1].action["kind"], "move",
            "the first action of {bots:?}"
        );
        assert_eq!(replay.result.unwrap().reason, result["reason"]);
    }
}

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

#[test]
fn exported_logs_decode_in_python_field_by_field() {
    let Some(python) = fights_venv::fights_python() else {
        return;
    };
    let dir = temp_dir("export");
    let helper = root().join("tests/python/fights_log.py");
    let cpp = cpp_starter();
    let before = unix_now();
    for (seed, bots) in [
        (1, ["builtin:rotator", "builtin:random"]),
        (2, ["builtin:random", "builtin:random"]),
        (3, [cpp.as_str(), "builtin:rotator"]),
    ] {
        let replay = dir.join(format!("{seed}.jsonl"));
        let log = dir.join(format!("{seed}.msgpack"));
        let seed = seed.to_string();
        let result = play(
            bots,
            &["--seed", &seed, "--replay", replay.to_str().unwrap()],
        );
        run(arbiter()
            .args(["replay", "export", "--format", "fights-msgpack"])
            .arg(&replay)
            .arg("-o")
            .arg(&log));
        let after = unix_now();
        // The start is estimated from the file's time: allow a little slack each side.
        let output = run(Command::new(&python)
            .arg(&helper)
            .arg("check")
            .arg(&log)
            .arg((before - 1.0).to_string())
            .arg((after + 1.0).to_string()));
        let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
        let ticks = result["ticks"].as_u64().unwrap();
        assert_eq!(summary["elements"], ticks + 1, "{summary} {result}");
        assert_eq!(
            summary["done"],
            result["reason"] == "goal",
            "{summary} {result}"
        );
    }

    // --start fixes the time: the first element is stamped when the match began.
    let log = dir.join("fixed.msgpack");
    run(arbiter()
        .args([
            "replay",
            "export",
            "--format",
            "fights-msgpack",
            "--start",
            "1700000000.25",
        ])
        .arg(dir.join("1.jsonl"))
        .arg("-o")
        .arg(&log));
    let output = run(Command::new(&python).arg(&helper).args([
        "check",
        log.to_str().unwrap(),
        "1700000000",
        "1700000100",
    ]));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    let first = summary["first"].as_f64().unwrap();
    assert!((1700000000.25..1700000000.5).contains(&first), "{summary}");
}

#[test]
fn logs_of_the_original_environment_import_and_export_unchanged() {
    let Some(python) = fights_venv::fights_python() else {
        return;
    };
    let dir = temp_dir("import");
    let helper = root().join("tests/python/fights_log.py");
    for seed in 1..4 {
        let log = dir.join(format!("{seed}.msgpack"));
        let replay = dir.join(format!("{seed}.jsonl.gz"));
        let again = dir.join(format!("{seed}.again.msgpack"));
        run(Command::new(&python).arg(&helper).args([
            "write",
            log.to_str().unwrap(),
            &seed.to_string(),
        ]));
        run(arbiter()
            .args(["replay", "import", "--format", "fights-msgpack"])
            .arg(&log)
            .arg("-o")
            .arg(&replay));
        let read = arbiter_replay::read_replay(&replay).unwrap();
        assert_eq!(read.header.game, "puoribor");
        assert!(read.result.is_some());
        run(arbiter()
            .args(["replay", "export", "--format", "fights-msgpack"])
            .arg(&replay)
            .arg("-o")
            .arg(&again));
        assert!(
            std::fs::read(&log).unwrap() == std::fs::read(&again).unwrap(),
            "seed {seed}: the log changed on its way through a replay"
        );
    }
}

#[test]
fn import_refuses_a_log_with_an_illegal_action() {
    let dir = temp_dir("refuse");
    let replay = dir.join("r.jsonl");
    play(
        ["builtin:runner", "builtin:runner"],
        &["--replay", replay.to_str().unwrap()],
    );
    let log = dir.join("r.msgpack");
    run(arbiter()
        .args(["replay", "export", "--format", "fights-msgpack"])
        .arg(&replay)
        .arg("-o")
        .arg(&log));
    // The first action is `[0, 4, 1]`, msgpack `93 00 04 01`: make it `[0, 4, 3]`.
    let mut bytes = std::fs::read(&log).unwrap();
    let at = bytes
        .windows(4)
        .position(|w| w == [0x93, 0, 4, 1])
        .expect("the first action");
    bytes[at + 3] = 3;
    std::fs::write(&log, bytes).unwrap();
    let stderr = common::failure(
        arbiter()
            .args(["replay", "import", "--format", "fights-msgpack"])
            .arg(&log)
            .arg("-o")
            .arg(dir.join("back.jsonl")),
    );
    assert!(
        stderr.contains("element 1") && stderr.contains("illegal"),
        "{stderr}"
    );
}

#[test]
fn exporting_another_game_is_refused() {
    let dir = temp_dir("other");
    let replay = dir.join("q.jsonl");
    run(arbiter().args([
        "play",
        "quoridor",
        "--bot",
        "builtin:runner",
        "--bot",
        "builtin:runner",
        "--replay",
        replay.to_str().unwrap(),
    ]));
    let output = arbiter()
        .args(["replay", "export", "--format", "fights-msgpack"])
        .arg(&replay)
        .arg("-o")
        .arg(dir.join("q.msgpack"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("quoridor"));
}

#[test]
fn perft_and_bench_know_puoribor() {
    let output = run(arbiter().args(["perft", "puoribor", "2"]));
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "27405");
    let output = run(arbiter().args(["bench", "puoribor", "--seconds", "0.2", "--json"]));
    let speed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(speed["plies_per_sec"].as_f64().unwrap() > speed["games_per_sec"].as_f64().unwrap());
}
