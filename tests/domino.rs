//! `arbiter` playing Domino with real processes: the starter bots, every fault a bot can make,
//! the switches for bots written against the original judges, replays and the judge's log.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{arbiter, assert_no_faults, root, run, show_arbiter, temp_dir};
use serde_json::Value;

fn play_json(args: &[&str]) -> Value {
    common::play_json("domino", args)
}

fn cpp_starter() -> String {
    common::cpp_starter("domino")
}

fn python_starter() -> String {
    common::python_starter("domino")
}

/// The referee tests' scripted bot: answers the k-th line it reads with the k-th answer, and
/// copies what it reads to `transcript`.
fn scripted(transcript: &Path, answers: &[&str]) -> String {
    let script = root().join("crates/referee/tests/bots/scripted.py");
    let mut line = format!("python3 {} {}", script.display(), transcript.display());
    for answer in answers {
        line.push_str(&format!(" '{answer}'"));
    }
    line
}

#[test]
fn the_two_starter_bots_play_full_matches_without_a_fault() {
    let (python, cpp) = (python_starter(), cpp_starter());
    let cpp = cpp.as_str();
    for (seed, bots) in [("1", [python.as_str(), cpp]), ("2", [cpp, python.as_str()])] {
        let result = play_json(&["--bot", bots[0], "--bot", bots[1], "--seed", seed]);
        assert_no_faults(&result);
        assert_eq!(result["reason"], "no_moves", "{result}");
        assert_eq!(result["knockout"], false);
        assert!(result["ticks"].as_u64().unwrap() > 20, "{result}");
    }
}

#[test]
fn starters_and_robots_as_processes_play_without_a_fault() {
    let exe = env!("CARGO_BIN_EXE_arbiter");
    let parity = format!("{exe} bot domino parity --seed 4");
    for bots in [
        [python_starter(), "builtin:parity".to_owned()],
        [parity, cpp_starter()],
        [
            "builtin:random".to_owned(),
            format!("{exe} bot domino random"),
        ],
    ] {
        let result = play_json(&["--bot", &bots[0], "--bot", &bots[1], "--board", "25"]);
        assert_no_faults(&result);
        assert_eq!(result["reason"], "no_moves", "{result}");
    }
}

#[test]
fn the_solver_robot_as_a_process_plays_a_whole_match_in_time() {
    // Under the default clock of 500 ms a reply, which it reads and keeps to itself.
    let exe = env!("CARGO_BIN_EXE_arbiter");
    let solver = format!("{exe} bot domino solver --seed 2");
    let result = play_json(&["--bot", &solver, "--bot", "builtin:parity", "--board", "15"]);
    assert_no_faults(&result);
    assert_eq!(result["reason"], "no_moves", "{result}");
}

/// The board of the spec's example exchange, n = 3 with one obstacle in the middle.
const EXAMPLE: [&str; 4] = ["--board", "3", "--obstacles", "{1;1}"];
const A_EXAMPLE: &[&str] = &["ok", "ok", "{0;0},{0;1}", "{1;2},{0;2}"];
const B_EXAMPLE: &[&str] = &["ok", "ok", "{2;0},{2;2}"];

struct Played {
    result: Value,
    transcripts: [String; 2],
    summary: String,
}

/// Plays a 3×3 board with `obstacles` between two scripted bots, once with --json and once
/// for the summary.
fn play_scripted(name: &str, answers: [&[&str]; 2], obstacles: &str, extra: &[&str]) -> Played {
    let dir = temp_dir(name);
    let paths = [dir.join("a"), dir.join("b")];
    let bots = [
        scripted(&paths[0], answers[0]),
        scripted(&paths[1], answers[1]),
    ];
    // The scripted bots write what they read to a transcript outside their folder, which a
    // sandbox forbids: these matches run without one.
    let mut args: Vec<&str> = vec!["--board", "3", "--obstacles", obstacles, "--no-sandbox"];
    args.extend(extra);
    args.extend(["--bot", &bots[0], "--bot", &bots[1]]);
    let result = play_json(&args);
    let read = |p: &PathBuf| std::fs::read_to_string(p).unwrap_or_default();
    let transcripts = [read(&paths[0]), read(&paths[1])];
    for path in &paths {
        let _ = std::fs::remove_file(path);
    }
    let output = run(arbiter().args(["play", "domino"]).args(&args));
    let summary = String::from_utf8_lossy(&output.stdout).into_owned();
    let _ = std::fs::remove_dir_all(&dir);
    Played {
        result,
        transcripts,
        summary,
    }
}

fn assert_lost(played: &Played, loser: usize, reason: &str) {
    let result = &played.result;
    assert_eq!(result["reason"], reason, "{result}");
    assert_eq!(result["scores"][loser], 0.0, "{result}");
    assert_eq!(result["scores"][1 - loser], 1.0, "{result}");
    assert_eq!(result["placement"][1 - loser], 1, "{result}");
    assert_eq!(result["knockout"], reason == "timeout", "{result}");
    let winner = ["A", "B"][1 - loser];
    let line = played
        .summary
        .lines()
        .find(|l| l.contains("winner:"))
        .unwrap_or_else(|| panic!("no winner line in {}", played.summary));
    assert!(
        line.contains(&format!("(player {})", 1 - loser)),
        "{line} (winner {winner})"
    );
    assert_eq!(line.contains("knockout"), reason == "timeout", "{line}");
}

#[test]
fn the_example_exchange_is_won_by_the_first_player() {
    let played = play_scripted("example", [A_EXAMPLE, B_EXAMPLE], "{1;1}", &[]);
    assert_eq!(played.transcripts[0], "3\n{1;1}\nSTART\n{2;0},{2;2}\n");
    assert_eq!(played.transcripts[1], "3\n{1;1}\n{0;0},{0;1}\n");
    assert_lost(&played, 1, "no_moves");
    assert_no_faults(&played.result);
}

#[test]
fn each_fault_loses_the_match_with_its_reason() {
    let cases: [(&str, &[&str], &str); 6] = [
        ("malformed", &["ok", "ok", "{0;0} {0;1}"], "malformed"),
        ("wrong-ack", &["ok", "yes"], "malformed"),
        ("illegal", &["ok", "ok", "{0;0},{1;1}"], "illegal"),
        ("diagonal", &["ok", "ok", "{0;0},{2;2}"], "illegal"),
        ("timeout", &["ok", "ok", "@hang"], "timeout"),
        ("crash", &["ok", "ok", "@exit:3"], "crash"),
    ];
    for (name, a, reason) in cases {
        let played = play_scripted(name, [a, B_EXAMPLE], "{1;1}", &[]);
        assert_lost(&played, 0, reason);
    }
    // The second player's faults: a late first move, and a late acknowledgement.
    let played = play_scripted(
        "b-timeout",
        [A_EXAMPLE, &["ok", "ok", "@sleep:900:{2;0},{2;2}"]],
        "{1;1}",
        &[],
    );
    assert_lost(&played, 1, "timeout");
    let played = play_scripted(
        "b-late-ack",
        [A_EXAMPLE, &["ok", "@sleep:900:ok"]],
        "{1;1}",
        &[],
    );
    assert_lost(&played, 1, "timeout");
}

#[test]
fn the_switches_for_bots_of_the_original_judges() {
    // Obstacle (x=1, y=2) as the Java judge printed it, and the C# judge's start token. B
    // leaves at once, so that the match ends there.
    let answers: [&[&str]; 2] = [&["ok", "ok", "{0;0},{1;0}"], &["ok", "ok", "@exit:0"]];
    let switches = ["--legacy-obstacle-order", "--start-token", "start"];
    let played = play_scripted("switches", answers, "{1;2}", &switches);
    assert_eq!(played.transcripts[0], "3\n{2;1}\nstart\n");
    assert_eq!(played.transcripts[1], "3\n{2;1}\n{0;0},{1;0}\n");
    assert_lost(&played, 1, "crash");
    let played = play_scripted("no-switches", answers, "{1;2}", &[]);
    assert_eq!(played.transcripts[0], "3\n{1;2}\nSTART\n");
}

/// A bot that starts `delay_ms` late: what the first reply's start-up time allows.
fn starts_late(delay_ms: u32) -> String {
    format!(
        "sh -c 'sleep {}; exec {}'",
        f64::from(delay_ms) / 1000.0,
        python_starter()
    )
}

#[test]
fn startup_ms_alone_keeps_the_games_reply_limit_and_changes_the_first_reply_s_extra() {
    let late = starts_late(800);
    let bots = ["--bot", &late, "--bot", "builtin:random", "--board", "5"];
    // The judge's exact rule: 500 ms for the first `ok` too.
    let judge = play_json(&[&bots[..], &["--startup-ms", "0", "--seed", "1"]].concat());
    assert_eq!(judge["reason"], "timeout", "{judge}");
    assert_eq!(judge["scores"][0], 0.0, "{judge}");
    // By default the first reply has 2 s more, and the late start is forgiven.
    let default = play_json(&[&bots[..], &["--seed", "1"]].concat());
    assert_eq!(default["bots"][0]["timeouts"], 0, "{default}");
    // A game timed by a bank has no reply limit to give the extra to.
    let output = arbiter()
        .args(["play", "quoridor", "--startup-ms", "0"])
        .args(["--bot", "builtin:random", "--bot", "builtin:random"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--time-per-reply-ms"), "{stderr}");
}

// The differences from the course's judge, each decided in docs/games/domino.md ("Differences
// from the original judges"): one test per decision.

#[test]
fn a_lone_carriage_return_does_not_end_a_line() {
    // The judge (Java's readLine) ended a line at a lone `\r`; here only `\n` ends one.
    let played = play_scripted("lone-cr", [&["@raw:ok\r"], B_EXAMPLE], "{1;1}", &[]);
    assert_lost(&played, 0, "timeout");
    // A `\r` before the `\n` is dropped.
    let played = play_scripted(
        "crlf",
        [
            &["@raw:ok\r|", "ok", "{0;0},{0;1}", "{1;2},{0;2}"],
            B_EXAMPLE,
        ],
        "{1;1}",
        &[],
    );
    assert_eq!(played.result["bots"][0]["errors"], 0, "{}", played.result);
    assert_eq!(played.result["bots"][0]["timeouts"], 0, "{}", played.result);
}

#[test]
fn acknowledgements_are_trimmed_and_read_without_case() {
    // The judge did not trim, so `" ok"` lost there; here it passes, as `OK` did there.
    let a: &[&str] = &[" OK ", "Ok\t", "{0;0},{0;1}", "{1;2},{0;2}"];
    let played = play_scripted("acks", [a, B_EXAMPLE], "{1;1}", &[]);
    assert_lost(&played, 1, "no_moves");
    assert_no_faults(&played.result);
}

#[test]
fn a_move_is_exactly_two_cells_a_trailing_comma_or_a_prefix_is_malformed() {
    // The judge split on `{},;` and took five pieces: it let `move ` and a trailing comma
    // through, and refused a trailing blank. Here a move has one form, blanks around it aside.
    for (name, answer) in [("comma", "{0;0},{0;1},"), ("prefix", "move {0;0},{0;1}")] {
        let played = play_scripted(name, [&["ok", "ok", answer], B_EXAMPLE], "{1;1}", &[]);
        assert_lost(&played, 0, "malformed");
    }
    let a: &[&str] = &["ok", "ok", "{0;0},{0;1} ", "{1;2},{0;2}"];
    let played = play_scripted("blank", [a, B_EXAMPLE], "{1;1}", &[]);
    assert_lost(&played, 1, "no_moves");
}

#[test]
fn lines_to_bots_end_in_a_line_feed_alone() {
    // The judge wrote its platform's line end (CRLF on the course's Windows machines).
    let played = play_scripted("lf", [A_EXAMPLE, B_EXAMPLE], "{1;1}", &[]);
    assert_eq!(played.transcripts[0], "3\n{1;1}\nSTART\n{2;0},{2;2}\n");
    assert!(!played.transcripts.iter().any(|t| t.contains('\r')));
}

#[test]
fn obstacles_given_on_the_command_line_are_cells_as_moves_name_them() {
    // `{x;y}` is column x, row y in moves, in --obstacles and in the obstacle line alike; a
    // list copied from the judge's log (which printed `{y;x}`) has each pair swapped.
    let played = play_scripted(
        "obstacle",
        [&["ok", "ok", "{1;0},{1;1}"], B_EXAMPLE],
        "{1;0}",
        &[],
    );
    assert_eq!(played.transcripts[0], "3\n{1;0}\nSTART\n");
    assert_lost(&played, 0, "illegal");
}

#[test]
fn a_player_that_cannot_start_gives_its_opponent_a_knockout() {
    let dir = temp_dir("knockout-no-start");
    let players = dir.join("players");
    std::fs::create_dir_all(players.join("100001")).unwrap();
    std::fs::write(
        players.join("100001/info.txt"),
        "gone\nA B\n./no-such-program\n",
    )
    .unwrap();
    let db = dir.join("t.db");
    domino_tournament(
        &players,
        &db,
        &["--add", "builtin:random", "--keep-failing", "--seed", "5"],
    );
    let standings = tournament_json("standings", &db);
    let random = standings
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["player"] == "builtin:random")
        .unwrap_or_else(|| panic!("{standings}"));
    assert_eq!(
        (random["wins"].as_u64(), random["knockouts"].as_u64()),
        (Some(2), Some(2)),
        "{standings}"
    );
}

#[test]
fn drawn_boards_follow_the_seed_and_replays_load() {
    let dir = temp_dir("replays");
    let replay = |name: &str, extra: &[&str]| {
        let path = dir.join(name);
        let mut args = vec![
            "--bot",
            "builtin:parity",
            "--bot",
            "builtin:random",
            "--replay",
            path.to_str().unwrap(),
        ];
        args.extend(extra);
        let result = play_json(&args);
        (result, arbiter_replay::read_replay(&path).unwrap())
    };
    let (a, ra) = replay("a.jsonl", &["--seed", "8"]);
    let (b, rb) = replay("b.jsonl.gz", &["--seed", "8"]);
    assert_eq!(a, b);
    assert_eq!(ra.header.game, "domino");
    assert_eq!(ra.header.settings, rb.header.settings);
    assert_eq!(
        ra.header.settings["board_seed"], 8,
        "the match seed by default"
    );
    let size = ra.header.settings["size"].as_u64().unwrap();
    assert!((13..=51).contains(&size) && size % 2 == 1, "{size}");
    let obstacles = ra.header.settings["obstacles"].as_array().unwrap().len() as u64;
    assert_eq!(obstacles, (size * size + 5) / 10);
    let result = ra.result.as_ref().unwrap();
    assert_eq!(result.reason, "no_moves");
    assert_eq!(ra.ticks.len() as u64, a["ticks"].as_u64().unwrap() + 1);
    assert_eq!(ra.ticks[1].action["kind"], "place");
    assert_eq!(ra.ticks.last().unwrap().action["kind"], "stuck");

    // Another match seed with the same board seed: the same board, another match.
    let (_, rc) = replay("c.jsonl", &["--seed", "9", "--board-seed", "8"]);
    assert_eq!(rc.header.settings, ra.header.settings);
    let (_, rd) = replay("d.jsonl", &["--seed", "9"]);
    assert_ne!(rd.header.settings, ra.header.settings);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_domino_flags_are_refused() {
    for (args, needle) in [
        (&["--board", "4"][..], "odd"),
        (&["--board", "5", "--obstacles", "{7;7}"][..], "{7;7}"),
        (&["--board", "5", "--obstacles", "1 1"][..], "obstacle list"),
        (&["--players", "4"][..], "players"),
        (&["--walls", "3"][..], "walls"),
    ] {
        let output = arbiter()
            .args([
                "play",
                "domino",
                "--bot",
                "builtin:random",
                "--bot",
                "builtin:random",
            ])
            .args(args)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{args:?}");
        let message = String::from_utf8_lossy(&output.stderr);
        assert!(message.contains(needle), "{args:?}: {message}");
    }
}

#[test]
fn perft_and_bench_work() {
    // The empty 3×3 torus: 18 placements; each covers two cells of 4 neighbours, which ends
    // 4 + 4 - 1 placements, so 11 are left after it.
    let output = run(arbiter().args(["perft", "domino", "2", "--board", "3", "--obstacles", "-"]));
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "198");
    let output = run(arbiter().args(["perft", "domino", "3"]).args(EXAMPLE));
    let count: u64 = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .unwrap();
    assert_eq!(count, PERFT_3_EXAMPLE);
    let output = run(arbiter().args(["bench", "domino", "--seconds", "0.2", "--json"]));
    let speed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(speed["plies_per_sec"].as_f64().unwrap() > speed["games_per_sec"].as_f64().unwrap());
}

/// Counted by the engine (whose generator the property tests check against `check`).
const PERFT_3_EXAMPLE: u64 = 360;

/// Plays the example board between scripted bots with a replay, and exports the judge's log.
fn judge_log(name: &str, answers: [&[&str]; 2]) -> String {
    let dir = temp_dir(&format!("log-{name}"));
    let replay = dir.join("match.jsonl");
    play_scripted(
        name,
        answers,
        "{1;1}",
        &["--replay", replay.to_str().unwrap()],
    );
    let log = dir.join("123456VS654321.log");
    run(arbiter()
        .args(["replay", "export", "--format", "judge-log"])
        .arg(&replay)
        .arg("-o")
        .arg(&log));
    let text = std::fs::read_to_string(&log).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    text
}

const LOG_HEAD: &str = "Size 3\nObstacles {1;1}\nPlayer1 \"scripted.py\"\nPlayer2 \"scripted.py\"\n\
                        Communication\n";

#[test]
fn the_judges_log_of_a_match() {
    assert_eq!(
        judge_log("clean", [A_EXAMPLE, B_EXAMPLE]),
        format!(
            "{LOG_HEAD}OK\nOK\nOK\nOK\nMoves:\n{{0;0}},{{0;1}}\n{{2;0}},{{2;2}}\n{{1;2}},{{0;2}}\n"
        )
    );
    // A wrong acknowledgement, and a wrong move, end with ERROR; a timeout with nothing.
    assert_eq!(
        judge_log("wrong-ack", [A_EXAMPLE, &["ok", "yes"]]),
        format!("{LOG_HEAD}OK\nOK\nOK\nERROR\n")
    );
    assert_eq!(
        judge_log("wrong-move", [A_EXAMPLE, &["ok", "ok", "{0;0},{1;0}"]]),
        format!("{LOG_HEAD}OK\nOK\nOK\nOK\nMoves:\n{{0;0}},{{0;1}}\nERROR\n")
    );
    assert_eq!(
        judge_log("late-ack", [&["ok", "@sleep:900:ok"], B_EXAMPLE]),
        format!("{LOG_HEAD}OK\nOK\n")
    );
}

#[test]
fn only_domino_replays_have_a_judges_log() {
    let dir = temp_dir("log-quoridor");
    let replay = dir.join("q.jsonl");
    run(arbiter()
        .args([
            "play",
            "quoridor",
            "--bot",
            "builtin:runner",
            "--bot",
            "builtin:runner",
            "--replay",
        ])
        .arg(&replay));
    let message = common::failure(
        arbiter()
            .args(["replay", "export", "--format", "judge-log"])
            .arg(&replay)
            .arg("-o")
            .arg(dir.join("x.log")),
    );
    assert!(
        message.contains("quoridor") && message.contains("domino"),
        "{message}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn each_pairing_of_a_tournament_plays_both_games_of_a_round_on_its_own_board() {
    let dir = temp_dir("tournament-boards");
    let db = dir.join("t.db");
    let players = dir.join("players");
    for (id, robot) in [("100001", "random"), ("100002", "parity")] {
        std::fs::create_dir_all(players.join(id)).unwrap();
        let command = format!("{} bot domino {robot}", env!("CARGO_BIN_EXE_arbiter"));
        std::fs::write(
            players.join(id).join("info.txt"),
            format!("p{id}\nA B\n{command}\n"),
        )
        .unwrap();
    }
    domino_tournament(
        &players,
        &db,
        &[
            "--add",
            "builtin:random",
            "--add",
            "builtin:parity",
            "--seed",
            "5",
            "--rounds",
            "2",
        ],
    );
    let mut boards: std::collections::HashMap<Vec<String>, Vec<u64>> = Default::default();
    for entry in walk(&dir) {
        let name = entry.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with('m') || !name.contains(".jsonl") {
            continue;
        }
        let replay = arbiter_replay::read_replay(&entry).unwrap();
        let mut seats: Vec<String> = replay
            .header
            .players
            .iter()
            .map(|p| p.name.clone())
            .collect();
        seats.sort();
        let seed = replay.header.settings["board_seed"].as_u64().unwrap();
        boards.entry(seats).or_default().push(seed);
    }
    assert!(!boards.is_empty(), "no replays found in {}", dir.display());
    // Two rounds of both seat orders: two boards a pairing, each played by both of a round's
    // games.
    let mut distinct: Vec<u64> = boards
        .values_mut()
        .flat_map(|seeds| {
            seeds.sort();
            assert_eq!(seeds.len(), 4, "{seeds:?}");
            assert!(seeds[0] == seeds[1] && seeds[2] == seeds[3], "{seeds:?}");
            assert_ne!(seeds[0], seeds[2], "both rounds on one board: {seeds:?}");
            [seeds[0], seeds[2]]
        })
        .collect();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() > 1, "pairings share one board: {boards:?}");
}

#[test]
fn a_player_whose_first_move_is_illegal_is_warned_and_plays() {
    let dir = temp_dir("tournament-illegal");
    let players = dir.join("players");
    let folder = players.join("123456");
    std::fs::create_dir_all(&folder).unwrap();
    // Speaks the protocol, ignores the board: every move is two cells apart.
    let command =
        "sh -c 'read n; echo ok; read o; echo ok; while read l; do echo \"{0;0},{2;2}\"; done'";
    std::fs::write(folder.join("info.txt"), format!("blind\nA B\n{command}\n")).unwrap();
    let db = dir.join("t.db");
    let output = domino_tournament(
        &players,
        &db,
        &["--add", "builtin:random", "--seed", "5", "--no-sandbox"],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "123456 (blind) plays, but its first move in the check was against the rules"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("excluded"), "{stderr}");
    let matches = tournament_json("matches", &db);
    let played = matches.as_array().unwrap();
    assert_eq!(played.len(), 2, "{matches}");
    for m in played {
        assert_eq!(m["reason"], "illegal", "{m}");
    }
}

/// `ProxyPlayer.jar`, built once per test binary from tests/data/judge/ProxyPlayer.java.
fn proxy_player_jar() -> PathBuf {
    static JAR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    JAR.get_or_init(|| {
        let dir = temp_dir("proxy-player-jar");
        let source = root().join("tests/data/judge/ProxyPlayer.java");
        run(Command::new("javac")
            .arg("-d")
            .arg(dir.join("classes"))
            .arg(source));
        let jar = dir.join("ProxyPlayer.jar");
        run(Command::new("jar")
            .arg("cfe")
            .arg(&jar)
            .arg("ProxyPlayer")
            .arg("-C")
            .arg(dir.join("classes"))
            .arg("."));
        jar
    })
    .clone()
}

/// A players folder laid out as the course's judge repository has it: `example_players/`
/// beside the judge, each player folder named by a student number, its info.txt written for
/// the judge on Windows (`\` paths from the judge's folder, a bare `.jar`).
fn course_players(dir: &Path) -> PathBuf {
    let players = dir.join("example_players");
    let infos = [
        (
            "024680",
            "gracz2\nAugust Stanowicz\njava -jar \".\\example_players\\024680\\ProxyPlayer.jar\"",
        ),
        (
            "343434",
            "gracz3\nTomasz Grodecki\njava -jar \".\\example_players\\343434\\ProxyPlayer.jar\"",
        ),
        (
            "123456",
            "gracz1\r\nStanisław Poniatowski\r\nProxyPlayer.jar",
        ),
    ];
    for (id, info) in infos {
        let folder = players.join(id);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("info.txt"), info).unwrap();
        std::fs::copy(proxy_player_jar(), folder.join("ProxyPlayer.jar")).unwrap();
    }
    players
}

#[test]
fn the_course_s_player_folders_start_and_play_unchanged() {
    let dir = temp_dir("course-players");
    let players = course_players(&dir);
    let db = dir.join("t.db");
    let output = domino_tournament(&players, &db, &["--seed", "3"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("excluded"), "{stderr}");
    let matches = tournament_json("matches", &db);
    let played = matches.as_array().unwrap();
    assert_eq!(played.len(), 6, "{matches}");
    for m in played {
        assert_eq!(m["reason"], "no_moves", "{m}");
    }
    // `arbiter play` takes a folder the same way; `--commands as-written` runs the command as
    // written, and java finds no jar at the Windows path.
    let folder = players.join("024680");
    let result = play_json(&[
        "--bot",
        folder.to_str().unwrap(),
        "--bot",
        "builtin:random",
        "--seed",
        "2",
    ]);
    assert_no_faults(&result);
    let output = arbiter()
        .args([
            "play",
            "domino",
            "--commands",
            "as-written",
            "--seed",
            "2",
            "--bot",
        ])
        .arg(&folder)
        .args(["--bot", "builtin:random", "--json"])
        .output()
        .unwrap();
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["reason"], "crash", "{result}");
}

#[test]
fn a_course_player_that_cannot_run_here_is_told_why() {
    let dir = temp_dir("course-windows");
    let players = dir.join("example_players");
    for (id, info) in [
        ("135790", "gracz4\nJan Nowak\nBedziedobrze.exe"),
        ("246802", "gracz5\nJan Nowak\njava -jar Missing.jar"),
    ] {
        std::fs::create_dir_all(players.join(id)).unwrap();
        std::fs::write(players.join(id).join("info.txt"), info).unwrap();
    }
    std::fs::write(players.join("135790/Bedziedobrze.exe"), b"MZ\x90\x00").unwrap();
    for (id, says) in [
        (
            "135790",
            "Bedziedobrze.exe is a Windows program, which cannot run here",
        ),
        ("246802", "Missing.jar is not in the player folder"),
    ] {
        let output = arbiter()
            .args(["play", "domino", "--bot"])
            .arg(players.join(id))
            .args(["--bot", "builtin:random"])
            .output()
            .unwrap();
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(says), "{stderr}");
    }
}

/// `arbiter tournament run` of Domino on `players` into `db`, one match at a time.
fn domino_tournament(players: &Path, db: &Path, args: &[&str]) -> std::process::Output {
    let mut command = arbiter();
    command
        .args(["tournament", "run"])
        .args(show_arbiter())
        .arg(players)
        .args(["--game", "domino", "--jobs", "1"])
        .args(args)
        .arg("--db")
        .arg(db);
    run(&mut command)
}

/// `arbiter tournament matches` or `standings` of `db`, as JSON.
fn tournament_json(what: &str, db: &Path) -> Value {
    let output = run(arbiter()
        .args(["tournament", what, "--json", "--db"])
        .arg(db));
    serde_json::from_slice(&output.stdout).unwrap()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// A judge-style command `players\100016\` names the player folder itself: it was rewritten
/// to `./` and the match failed with "cannot start `./`", which said nothing of the line.
#[test]
fn a_judge_command_naming_its_own_folder_says_so_instead_of_cannot_start() {
    let dir = temp_dir("judge-folder-command");
    let folder = dir.join("players").join("100016");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("info.txt"),
        "gracz\nJan Kowalski\nplayers\\100016\\\n",
    )
    .unwrap();
    let output = arbiter()
        .args(["play", "domino", "--bot"])
        .arg(&folder)
        .args(["--bot", "builtin:random"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(!stderr.contains("cannot start `./`"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: the command `players\\100016\\`, run as the course's judge ran it, cannot \
             run here: `players\\100016\\` is the player folder itself, not a program",
            folder.join("info.txt").display()
        )),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
