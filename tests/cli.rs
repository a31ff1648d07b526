//! The `arbiter` binary as users and scripts run it: real processes, real files.

mod common;

use common::{arbiter, assert_no_faults, root, run, temp_dir};
use serde_json::Value;

fn play_json(args: &[&str]) -> Value {
    common::play_json("quoridor", args)
}

fn cpp_starter() -> String {
    common::cpp_starter("quoridor")
}

#[test]
fn play_json_prints_the_contract_object() {
    let result = play_json(&[
        "--bot",
        "builtin:runner",
        "--bot",
        "builtin:blocker",
        "--seed",
        "3",
    ]);
    assert_eq!(result["game"], "quoridor");
    assert_eq!(result["seed"], 3);
    assert!(result["ticks"].as_u64().unwrap() > 0);
    let reason = result["reason"].as_str().unwrap();
    assert!(["goal", "tick_limit", "last_player_left"].contains(&reason));
    assert_eq!(result["scores"].as_array().unwrap().len(), 2);
    let total: f64 = result["scores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_f64().unwrap())
        .sum();
    assert!((total - 1.0).abs() < 1e-9, "the point is shared: {result}");
    assert_eq!(result["placement"].as_array().unwrap().len(), 2);
    assert_eq!(result["bots"][0]["name"], "runner");
    assert_no_faults(&result);
}

#[test]
fn python_starter_finishes_a_match_without_a_fault() {
    let starter = format!(
        "python3 {}",
        root().join("examples/quoridor/starter.py").display()
    );
    for seat in 0..2 {
        let mut bots = ["builtin:runner", "builtin:runner"];
        bots[seat] = &starter;
        let result = play_json(&["--bot", bots[0], "--bot", bots[1]]);
        assert_no_faults(&result);
    }
}

#[test]
fn cpp_starter_finishes_a_match_without_a_fault() {
    let starter = &cpp_starter();
    let result = play_json(&["--bot", starter, "--bot", "builtin:blocker"]);
    assert_no_faults(&result);
    let result = play_json(&[
        "--players",
        "4",
        "--bot",
        "builtin:random",
        "--bot",
        starter,
        "--bot",
        starter,
        "--bot",
        "builtin:blocker",
    ]);
    assert_no_faults(&result);
}

#[test]
fn robots_as_processes_speak_the_protocol_without_a_fault() {
    let exe = env!("CARGO_BIN_EXE_arbiter");
    for robot in ["random", "runner", "blocker"] {
        let process = format!("{exe} bot quoridor {robot}");
        let result = play_json(&[
            "--players",
            "4",
            "--bot",
            &process,
            "--bot",
            "builtin:blocker",
            "--bot",
            &process,
            "--bot",
            "builtin:random",
        ]);
        assert_no_faults(&result);
    }
}

#[test]
fn a_player_folder_is_accepted_as_a_bot() {
    let dir = temp_dir("folder");
    let player = dir.join("123456");
    std::fs::create_dir(&player).unwrap();
    std::fs::copy(
        root().join("examples/quoridor/starter.py"),
        player.join("bot.py"),
    )
    .unwrap();
    // The command is relative to the folder: it only works if it is run there.
    std::fs::write(
        player.join("info.txt"),
        "Starter\nAda Lovelace\npython3 bot.py\n",
    )
    .unwrap();
    let result = play_json(&["--bot", player.to_str().unwrap(), "--bot", "builtin:runner"]);
    assert_eq!(result["bots"][0]["name"], "Starter");
    assert_no_faults(&result);
}

#[test]
fn a_player_folder_named_by_a_relative_path_plays_with_and_without_the_sandbox() {
    let dir = temp_dir("relative");
    let player = dir.join("players/mybot");
    std::fs::create_dir_all(&player).unwrap();
    let bot = player.join("bot.sh");
    std::fs::write(
        &bot,
        format!(
            "#!/bin/sh\nexec '{}' bot quoridor runner\n",
            env!("CARGO_BIN_EXE_arbiter")
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&bot, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(player.join("info.txt"), "mybot\nMy Bot\n./bot.sh\n").unwrap();
    let absolute = player.display().to_string();
    for (folder, sandbox) in [
        ("players/mybot", "--no-sandbox"),
        ("players/mybot", "--sandbox"),
        ("./players/mybot/", "--no-sandbox"),
        (absolute.as_str(), "--no-sandbox"),
        (absolute.as_str(), "--sandbox"),
    ] {
        let output = run(arbiter()
            .current_dir(&dir)
            .args(["play", "quoridor", "--json", "--seed", "2", sandbox])
            .args(common::show_arbiter())
            .args(["--bot", folder, "--bot", "builtin:blocker"]));
        let result: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(result["bots"][0]["name"], "mybot", "{folder} {sandbox}");
        assert_no_faults(&result);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn same_seed_gives_the_same_match() {
    let dir = temp_dir("seed");
    let replay = |name: &str| {
        let path = dir.join(name);
        play_json(&[
            "--players",
            "4",
            "--bot",
            "builtin:random",
            "--bot",
            "builtin:random",
            "--bot",
            "builtin:blocker",
            "--bot",
            "builtin:random",
            "--seed",
            "11",
            "--replay",
            path.to_str().unwrap(),
        ])
    };
    let (a, b) = (replay("a.jsonl"), replay("b.jsonl.gz"));
    assert_eq!(a, b);
    let read = |name: &str| {
        let mut replay = arbiter_replay::read_replay(dir.join(name)).unwrap();
        arbiter_replay::strip_timing(&mut replay);
        replay
    };
    assert_eq!(read("a.jsonl"), read("b.jsonl.gz"));
}

#[test]
fn judge_config_writes_score_json() {
    let dir = temp_dir("judge");
    std::fs::write(
        dir.join("map.json"),
        r#"{"playerCount":2,"maxTicks":60,"boardSize":7,"startingPlayer":1,
            "pawnPos":[{"x":3,"y":0},{"x":3,"y":6}],"ownedWalls":3}"#,
    )
    .unwrap();
    let exe = env!("CARGO_BIN_EXE_arbiter");
    let config = serde_json::json!({
        "map": "map.json",
        "bots": [
            {"id": "abcd1234", "name": "bot1", "runCommand": format!("{exe} bot quoridor runner")},
            {"id": "1234abcd", "name": "bot2", "runCommand": format!("{exe} bot quoridor random")},
        ]
    });
    std::fs::write(dir.join("match.json"), config.to_string()).unwrap();
    run(arbiter()
        .current_dir(&dir)
        .args(["play", "--config", "match.json"]));
    let score: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("score.json")).unwrap()).unwrap();
    let total = score["abcd1234"].as_f64().unwrap() + score["1234abcd"].as_f64().unwrap();
    assert!((total - 1.0).abs() < 1e-9, "{score}");
}

/// Runs `arbiter ARGS`, expects it to fail, and returns what it printed on stderr.
fn failure(args: &[&str]) -> String {
    common::failure(arbiter().args(args))
}

#[test]
fn a_bot_that_cannot_start_is_a_clear_error() {
    let message = failure(&[
        "play",
        "quoridor",
        "--bot",
        "/no/such/program",
        "--bot",
        "builtin:runner",
    ]);
    assert!(message.contains("/no/such/program"), "{message}");
}

#[test]
fn an_unknown_robot_lists_the_robots_there_are() {
    let message = failure(&[
        "play",
        "quoridor",
        "--bot",
        "builtin:nobody",
        "--bot",
        "builtin:runner",
    ]);
    assert!(
        message.contains("nobody") && message.contains("blocker"),
        "{message}"
    );
}

#[test]
fn wrong_number_of_bots_is_refused() {
    let message = failure(&[
        "play",
        "quoridor",
        "--players",
        "4",
        "--bot",
        "builtin:runner",
        "--bot",
        "builtin:runner",
    ]);
    assert!(message.contains("4 players"), "{message}");
}

#[test]
fn an_even_board_is_refused() {
    let message = failure(&[
        "play",
        "quoridor",
        "--board",
        "8",
        "--bot",
        "builtin:runner",
        "--bot",
        "builtin:runner",
    ]);
    assert!(message.contains("board"), "{message}");
}

#[test]
fn a_player_folder_without_info_txt_is_a_clear_error() {
    let dir = temp_dir("no-info");
    let message = failure(&[
        "play",
        "quoridor",
        "--bot",
        dir.to_str().unwrap(),
        "--bot",
        "builtin:runner",
    ]);
    assert!(message.contains("info.txt"), "{message}");
}

#[test]
fn perft_prints_the_count() {
    let output = run(arbiter().args(["perft", "quoridor", "2"]));
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "16677");
}

#[test]
fn bench_json_prints_rates() {
    let output = run(arbiter().args(["bench", "quoridor", "--seconds", "0.2", "--json"]));
    let speed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(speed["games_per_sec"].as_f64().unwrap() > 0.0);
    assert!(speed["plies_per_sec"].as_f64().unwrap() > speed["games_per_sec"].as_f64().unwrap());
}

#[test]
fn bot_command_answers_the_first_turn_of_the_spec_example() {
    use std::io::Write;
    let mut child = arbiter()
        .args(["bot", "quoridor", "runner"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"2\n1\n9\n4 0 10\n4 8 10\n2\n4 1 10\n4 8 10\n0\n\n-1\n\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout), "4 7\n");
}
