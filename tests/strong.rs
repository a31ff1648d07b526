//! The `strong` robot as a process (`arbiter bot quoridor strong`) in real matches: it speaks
//! the protocol, shows its thinking with `#draw` lines, and keeps within the clock, the
//! game's default one and a tiny one.

mod common;

use common::{arbiter, assert_no_faults, play_json, temp_dir};

/// The log lines the seat wrote over a replay, all ticks together.
fn logs_of(replay: &std::path::Path, seat: usize) -> String {
    let text = std::fs::read_to_string(replay).unwrap();
    let mut log = String::new();
    for line in text.lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(bot) = value["bots"].get(seat) {
            log.push_str(bot["log"].as_str().unwrap_or(""));
        }
    }
    log
}

#[test]
fn strong_as_a_process_shows_its_plan_and_keeps_to_the_default_clock() {
    let dir = temp_dir("default-clock");
    let replay = dir.join("m.jsonl");
    let strong = format!("{} bot quoridor strong", env!("CARGO_BIN_EXE_arbiter"));
    let result = play_json(
        "quoridor",
        &[
            "--bot",
            &strong,
            "--bot",
            "builtin:blocker",
            "--seed",
            "1",
            "--replay",
            replay.to_str().unwrap(),
        ],
    );
    assert_no_faults(&result);
    let log = logs_of(&replay, 0);
    assert!(log.contains("strong: depth "), "{log}");
    assert!(log.contains("#draw path "), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn strong_never_times_out_on_a_tiny_bank() {
    let tiny = ["--time-bank-ms", "100", "--time-per-turn-ms", "10"];
    let process = format!(
        "{} bot quoridor strong {}",
        env!("CARGO_BIN_EXE_arbiter"),
        tiny.join(" ")
    );
    for bots in [
        [process.as_str(), "builtin:strong"],
        ["builtin:strong", &process],
    ] {
        let mut args = vec!["--bot", bots[0], "--bot", bots[1], "--seed", "2"];
        args.extend(tiny);
        assert_no_faults(&play_json("quoridor", &args));
    }
}

#[test]
fn a_budget_form_names_the_robot_for_arbiter_bot() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = arbiter()
        .args(["bot", "quoridor", "strong/nodes=500"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start_and_turn = "2\n0\n9\n4 0 10\n4 8 10\n1\n4 0 10\n4 8 10\n0\n\n-1\n\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(start_and_turn.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "4 1\n");
    assert!(String::from_utf8_lossy(&output.stderr).contains("#draw path"));
}
