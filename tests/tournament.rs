//! `arbiter tournament` as an organiser runs it: real bot processes, a real SQLite file, a run
//! killed with SIGKILL and resumed.

mod common;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{arbiter, root, run, show_arbiter, temp_dir};
use serde_json::Value;

fn json(command: &mut Command) -> Value {
    let output = run(command);
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// A player folder: `info.txt` with the alias, a full name and the command.
fn player(players: &Path, id: &str, alias: &str, command: &str) -> PathBuf {
    let dir = players.join(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("info.txt"),
        format!("{alias}\nFull Name of {alias}\n{command}\n"),
    )
    .unwrap();
    dir
}

/// A player folder running a built-in robot as a process, as a contestant's program runs.
fn robot_process(players: &Path, id: &str, robot: &str) {
    let command = format!("'{}' bot quoridor {robot}", env!("CARGO_BIN_EXE_arbiter"));
    player(players, id, robot, &command);
}

fn matches(db: &Path) -> Vec<Value> {
    let v = json(
        arbiter()
            .args(["tournament", "matches", "--json", "--db"])
            .arg(db),
    );
    v.as_array().unwrap().clone()
}

fn standings(db: &Path) -> Vec<Value> {
    let v = json(
        arbiter()
            .args(["tournament", "standings", "--json", "--db"])
            .arg(db),
    );
    v.as_array().unwrap().clone()
}

fn tournament(players: Option<&Path>, db: &Path, args: &[&str]) -> Command {
    let mut command = arbiter();
    command.args(["tournament", "run"]);
    if let Some(players) = players {
        command.arg(players);
    }
    command
        .args(show_arbiter())
        .args(["--game", "quoridor", "--db"])
        .arg(db)
        .args(args);
    command
}

fn seats(m: &Value) -> Vec<String> {
    m["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn six_players_with_a_broken_one_play_to_the_end() {
    let dir = temp_dir("six");
    let players = dir.join("players");
    robot_process(&players, "1001", "runner");
    robot_process(&players, "1002", "blocker");
    let starter = player(&players, "1003", "Starter", "python3 -u starter.py");
    std::fs::copy(
        root().join("examples/quoridor/starter.py"),
        starter.join("starter.py"),
    )
    .unwrap();
    player(
        &players,
        "1004",
        "Broken",
        "sh -c 'read n; echo \"Traceback: my bot is broken\" >&2; exit 1'",
    );
    std::fs::create_dir_all(players.join("empty-folder")).unwrap();
    let db = dir.join("contest.db");
    let output = run(&mut tournament(
        Some(&players),
        &db,
        &[
            "--add",
            "builtin:random",
            "--add",
            "builtin:runner",
            "--jobs",
            "2",
            "--seed",
            "11",
            "--time-bank-ms",
            "2000",
        ],
    ));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stderr.contains("1004 (Broken) excluded") && stderr.contains("my bot is broken"),
        "{stderr}"
    );
    assert!(
        stderr.contains("empty-folder") && stderr.contains("no info.txt"),
        "{stderr}"
    );
    assert!(
        stdout.contains("not playing:") && stdout.contains("1004"),
        "{stdout}"
    );

    let all = matches(&db);
    // Five players who play, every ordered pair once.
    assert_eq!(all.len(), 20);
    for m in &all {
        assert_eq!(m["state"], "done", "{m}");
        assert_eq!(m["scores"].as_array().unwrap().len(), 2);
        assert!(!seats(m).contains(&"1004".to_owned()));
        let replay = m["replay"].as_str().unwrap();
        assert!(Path::new(replay).is_file(), "{replay}");
        assert!(replay.starts_with(dir.join("contest-replays").to_str().unwrap()));
        assert!(m["faults"].is_array());
    }
    let table = standings(&db);
    assert_eq!(table.len(), 5);
    for row in &table {
        assert_eq!(row["games"], 8, "{row}");
        for key in [
            "player", "alias", "points", "wins", "draws", "losses", "rating", "error95", "faults",
        ] {
            assert!(row.get(key).is_some(), "{key} in {row}");
        }
    }
    let total: f64 = table.iter().map(|r| r["points"].as_f64().unwrap()).sum();
    assert_eq!(total, 20.0, "each match hands out one point");
    let ids: HashSet<&str> = table
        .iter()
        .map(|r| r["player"].as_str().unwrap())
        .collect();
    let expected: HashSet<&str> =
        ["1001", "1002", "1003", "builtin:random", "builtin:runner"].into();
    assert_eq!(ids, expected);
    // The random robot is last; nobody had a fault.
    assert_eq!(table[4]["player"], "builtin:random");
    assert!(table.iter().all(|r| r["faults"] == 0), "{table:?}");

    let csv = run(arbiter()
        .args(["tournament", "standings", "--csv", "--db"])
        .arg(&db));
    assert_eq!(String::from_utf8_lossy(&csv.stdout).lines().count(), 6);
    let text = run(arbiter().args(["tournament", "standings", "--db"]).arg(&db));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("Starter") && text.contains("/2"), "{text}");
    let mine = matches_of(&db, "Starter");
    assert_eq!(mine.len(), 8);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn matches_of(db: &Path, player: &str) -> Vec<Value> {
    let v = json(
        arbiter()
            .args([
                "tournament",
                "matches",
                "--json",
                "--player",
                player,
                "--db",
            ])
            .arg(db),
    );
    v.as_array().unwrap().clone()
}

#[test]
fn a_killed_run_resumes_and_plays_every_match_once() {
    let dir = temp_dir("kill");
    let players = dir.join("players");
    robot_process(&players, "p1", "runner");
    robot_process(&players, "p2", "blocker");
    // The Python starters think for tens of milliseconds a move: the run lasts long enough to
    // be killed in the middle.
    for id in ["p3", "p4"] {
        let folder = player(&players, id, id, "python3 starter.py");
        std::fs::copy(
            root().join("examples/quoridor/starter.py"),
            folder.join("starter.py"),
        )
        .unwrap();
    }
    let db = dir.join("t.db");
    let mut child = tournament(
        Some(&players),
        &db,
        &[
            "--rounds",
            "1",
            "--jobs",
            "2",
            "--seed",
            "3",
            "--time-bank-ms",
            "3000",
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    // Kill it once a few results are committed, well before the 12 matches are over.
    let deadline = Instant::now() + Duration::from_secs(60);
    let committed = |db: &Path| {
        let Ok(output) = arbiter()
            .args(["tournament", "matches", "--json", "--db"])
            .arg(db)
            .output()
        else {
            return 0;
        };
        match serde_json::from_slice::<Value>(&output.stdout) {
            Ok(Value::Array(all)) => all.iter().filter(|m| m["state"] == "done").count(),
            _ => 0,
        }
    };
    while Instant::now() < deadline && !(db.exists() && committed(&db) >= 3) {
        std::thread::sleep(Duration::from_millis(50));
    }
    // SIGKILL: no chance to clean up, as with a power cut.
    child.kill().unwrap();
    child.wait().unwrap();
    let before = matches(&db);
    let done_before: BTreeMap<i64, Value> = before
        .iter()
        .filter(|m| m["state"] == "done")
        .map(|m| (m["id"].as_i64().unwrap(), m.clone()))
        .collect();
    assert!(
        done_before.len() < before.len(),
        "killed after the end: the test proves nothing"
    );

    let output = run(arbiter()
        .args(["tournament", "resume", "--jobs", "2", "--db"])
        .arg(&db));
    assert!(String::from_utf8_lossy(&output.stdout).contains("rank"));
    let after = matches(&db);
    assert_eq!(after.len(), 12);
    let mut played: HashMap<(i64, String, String), usize> = HashMap::new();
    for m in &after {
        assert_eq!(m["state"], "done", "{m}");
        let s = seats(m);
        *played
            .entry((m["round"].as_i64().unwrap(), s[0].clone(), s[1].clone()))
            .or_default() += 1;
        if let Some(old) = done_before.get(&m["id"].as_i64().unwrap()) {
            assert_eq!(old, m, "a result committed before the kill was changed");
        }
    }
    assert_eq!(played.len(), 12, "every ordered pair once");
    assert!(played.values().all(|&n| n == 1));
    let table = standings(&db);
    assert!(table.iter().all(|r| r["games"] == 6), "{table:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn round_robin_covers_every_pair_and_seat_order_with_new_seeds_each_round() {
    let dir = temp_dir("rr");
    let db = dir.join("rr.db");
    run(&mut tournament(
        None,
        &db,
        &[
            "--add",
            "builtin:random",
            "--add",
            "builtin:runner",
            "--add",
            "builtin:blocker",
            "--rounds",
            "2",
            "--seed",
            "5",
            "--jobs",
            "1",
        ],
    ));
    let all = matches(&db);
    assert_eq!(all.len(), 12);
    for round in [1, 2] {
        let pairs: HashSet<Vec<String>> = all
            .iter()
            .filter(|m| m["round"] == round)
            .map(seats)
            .collect();
        assert_eq!(pairs.len(), 6, "round {round}: every ordered pair once");
    }
    let seeds: HashSet<u64> = all.iter().map(|m| m["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds.len(), 12, "a new seed for every match");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_same_seed_gives_the_same_schedule_seeds_and_results() {
    let dir = temp_dir("seed");
    let schedule = |name: &str, seed: &str| {
        let db = dir.join(name);
        run(&mut tournament(
            None,
            &db,
            &[
                "--add",
                "builtin:random",
                "--add",
                "builtin:runner",
                "--add",
                "builtin:blocker",
                "--format",
                "swiss",
                "--rounds",
                "3",
                "--seed",
                seed,
                "--jobs",
                "2",
            ],
        ));
        matches(&db)
            .iter()
            .map(|m| {
                (
                    m["round"].clone(),
                    m["seats"].clone(),
                    m["seed"].clone(),
                    m["scores"].clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    let a = schedule("a.db", "77");
    let b = schedule("b.db", "77");
    let c = schedule("c.db", "78");
    assert_eq!(a, b);
    assert_ne!(
        a.iter().map(|m| m.2.clone()).collect::<Vec<_>>(),
        c.iter().map(|m| m.2.clone()).collect::<Vec<_>>()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn swiss_never_repeats_a_pairing_while_another_is_possible() {
    let dir = temp_dir("swiss");
    let players = dir.join("players");
    for i in 1..=4 {
        let command = format!(
            "'{}' bot quoridor random --seed {i}",
            env!("CARGO_BIN_EXE_arbiter")
        );
        player(&players, &format!("r{i}"), &format!("random{i}"), &command);
    }
    let db = dir.join("swiss.db");
    run(&mut tournament(
        Some(&players),
        &db,
        &[
            "--add",
            "builtin:runner",
            "--format",
            "swiss",
            "--rounds",
            "5",
            "--seed",
            "9",
            "--jobs",
            "2",
        ],
    ));
    let all = matches(&db);
    // Five players: two pairs a round (both seat orders) and a bye.
    assert_eq!(all.len(), 5 * 4);
    let ids: Vec<String> = ["builtin:runner", "r1", "r2", "r3", "r4"]
        .map(String::from)
        .to_vec();
    let key = |a: &str, b: &str| {
        if a < b {
            (a.to_owned(), b.to_owned())
        } else {
            (b.to_owned(), a.to_owned())
        }
    };
    let mut met: HashSet<(String, String)> = HashSet::new();
    for round in 1..=5 {
        let mut in_round: HashSet<(String, String)> = HashSet::new();
        for m in all.iter().filter(|m| m["round"] == round) {
            let s = seats(m);
            in_round.insert(key(&s[0], &s[1]));
        }
        assert_eq!(in_round.len(), 2, "round {round}");
        if in_round.iter().any(|p| met.contains(p)) {
            // A repeat is allowed only if every way to pair the round (a bye and two pairs)
            // repeats a pairing.
            for bye in 0..5 {
                let rest: Vec<&String> = (0..5).filter(|&i| i != bye).map(|i| &ids[i]).collect();
                for (a, b, c, d) in [(0, 1, 2, 3), (0, 2, 1, 3), (0, 3, 1, 2)] {
                    let fresh = !met.contains(&key(rest[a], rest[b]))
                        && !met.contains(&key(rest[c], rest[d]));
                    assert!(!fresh, "round {round} repeats a pairing needlessly");
                }
            }
        }
        met.extend(in_round);
    }
    // A bye a round; a player plays both seat orders of its pairing in every other round.
    let table = standings(&db);
    let byes: u64 = table.iter().map(|r| r["byes"].as_u64().unwrap()).sum();
    assert_eq!(byes, 5, "{table:?}");
    for r in &table {
        assert_eq!(
            r["games"].as_u64().unwrap() + 2 * r["byes"].as_u64().unwrap(),
            10,
            "{r}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gauntlet_and_four_player_groups() {
    let dir = temp_dir("formats");
    let players = dir.join("players");
    for i in 1..=4 {
        let command = format!(
            "'{}' bot quoridor random --seed {i}",
            env!("CARGO_BIN_EXE_arbiter")
        );
        player(&players, &format!("r{i}"), &format!("random{i}"), &command);
    }
    let db = dir.join("g.db");
    run(&mut tournament(
        Some(&players),
        &db,
        &[
            "--format",
            "gauntlet",
            "--challenger",
            players.join("r2").to_str().unwrap(),
            "--jobs",
            "2",
        ],
    ));
    let all = matches(&db);
    assert_eq!(all.len(), 6);
    assert!(all.iter().all(|m| seats(m).contains(&"r2".to_owned())));

    let db = dir.join("four.db");
    run(&mut tournament(
        Some(&players),
        &db,
        &[
            "--players",
            "4",
            "--add",
            "builtin:runner",
            "--rounds",
            "2",
            "--seed",
            "1",
            "--jobs",
            "2",
        ],
    ));
    let all = matches(&db);
    // Five players, groups of four: one group a round, played in its four seat rotations.
    assert_eq!(all.len(), 8);
    let mut seat_counts: HashMap<String, Vec<u32>> = HashMap::new();
    for m in &all {
        assert_eq!(m["state"], "done", "{m}");
        for (seat, p) in seats(m).into_iter().enumerate() {
            seat_counts.entry(p).or_insert_with(|| vec![0; 4])[seat] += 1;
        }
    }
    for (p, counts) in &seat_counts {
        assert!(counts.iter().all(|&c| c == counts[0]), "{p} sat {counts:?}");
    }
    let table = standings(&db);
    assert_eq!(table.len(), 5);
    assert!(table[0]["rating"].as_f64().unwrap() >= table[4]["rating"].as_f64().unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_invocations_say_what_is_wrong() {
    let dir = temp_dir("bad");
    let db = dir.join("x.db");
    let output = tournament(None, &db, &["--add", "builtin:nobody"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("builtin:runner"));
    let output = tournament(
        None,
        &db,
        &[
            "--add",
            "builtin:random",
            "--add",
            "builtin:runner",
            "--format",
            "gauntlet",
        ],
    )
    .output()
    .unwrap();
    assert!(String::from_utf8_lossy(&output.stderr).contains("--challenger"));
    let output = arbiter()
        .args(["tournament", "standings", "--db"])
        .arg(dir.join("empty.db"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("there is no store"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn reading_a_store_that_is_not_there_creates_nothing() {
    let dir = temp_dir("no-store");
    let db = dir.join("nested/none.db");
    for command in [
        &["tournament", "standings", "--db"][..],
        &["tournament", "matches", "--db"],
        &["tournament", "resume", "--db"],
    ] {
        let output = arbiter().args(command).arg(&db).output().unwrap();
        assert!(!output.status.success(), "{command:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("there is no store"),
            "{command:?}: {stderr}"
        );
        assert!(
            !db.exists() && !db.parent().unwrap().exists(),
            "{command:?} created it"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_tournament_is_given_a_name_shown_with_its_standings_and_refused_when_unreadable() {
    let dir = temp_dir("name");
    let db = dir.join("t.db");
    let robots = ["--add", "builtin:random", "--add", "builtin:runner"];
    let named = [&robots[..], &["--name", "  Class 3B, spring final "]].concat();
    assert!(tournament(None, &db, &named).status().unwrap().success());
    let heading = |db: &Path| {
        let output = arbiter()
            .args(["tournament", "standings", "--db"])
            .arg(db)
            .output()
            .unwrap();
        let text = String::from_utf8(output.stdout).unwrap();
        text.lines().next().unwrap_or_default().to_owned()
    };
    assert!(
        heading(&db).starts_with("tournament 1 \"Class 3B, spring final\": quoridor"),
        "{}",
        heading(&db)
    );

    let rename = |args: &[&str]| {
        arbiter()
            .args(["tournament", "name", "--db"])
            .arg(&db)
            .args(args)
            .output()
            .unwrap()
    };
    assert!(rename(&["Finals"]).status.success());
    assert!(heading(&db).starts_with("tournament 1 \"Finals\":"));
    assert!(rename(&[]).status.success());
    assert!(heading(&db).starts_with("tournament 1: quoridor"));

    for (bad, why) in [
        ("   ", "visible character"),
        ("a\u{7}b", "control character"),
        (&"x".repeat(121), "at most 120"),
    ] {
        let output = rename(&[bad]);
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(why), "{bad:?}: {stderr}");
    }
    let output = arbiter()
        .args(["tournament", "name", "--db"])
        .arg(&db)
        .args(["--tournament", "7", "Seven"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("7"));
    std::fs::remove_dir_all(&dir).unwrap();
}
