//! `arbiter replay import --format graphisoft-log`: the spec's example session as alice's client
//! logged it, the ten logs of the real 2017 final in `../shared` (skipped with a notice when
//! that folder is absent; the logs are never copied here), and logs with one number changed.

mod common;

use std::path::{Path, PathBuf};

use arbiter_replay::{Replay, read_replay};
use common::{arbiter, failure, root, run, temp_dir};

/// docs/games/labyrinth.md#example-session as alice's client received it: she scores display 0, bob walks down column 3, and her
/// next move ends the game on the last display. The engine's tests check that the server sends
/// exactly this, so the importer is tested on the same bytes.
const EXAMPLE: &str = include_str!("../crates/games/tests/data/labyrinth_session.txt");

fn import(log: &Path, out: &Path) -> std::process::Command {
    let mut command = arbiter();
    command.args(["replay", "import", "--format", "graphisoft-log"]);
    command.arg(log).arg("-o").arg(out);
    command
}

fn imported(log: &Path, dir: &Path) -> Replay {
    let out = dir.join(format!(
        "{}.jsonl",
        log.file_stem().unwrap().to_string_lossy()
    ));
    run(&mut import(log, &out));
    read_replay(&out).expect("the imported replay reads back")
}

#[test]
fn the_example_session_is_rebuilt_turn_by_turn() {
    let dir = temp_dir("example");
    let log = dir.join("alice.log");
    std::fs::write(&log, EXAMPLE).unwrap();
    let replay = imported(&log, &dir);
    assert_eq!(replay.header.game, "labyrinth");
    let names: Vec<&str> = replay
        .header
        .players
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["alice", "bob"]);
    // Tick 0 is the start; then alice, bob, and alice's last turn, which no block follows.
    assert_eq!(replay.ticks.len(), 4);
    let first = &replay.ticks[1].action;
    assert_eq!(
        first["push"],
        serde_json::json!({"c": 0, "p": 1, "k": 2, "t": 15})
    );
    assert_eq!(first["goto"], serde_json::json!([0, 2]));
    let bob = &replay.ticks[2];
    assert_eq!(bob.player, Some(1));
    assert_eq!(
        bob.action["push"],
        serde_json::json!({"c": 1, "p": 1, "k": 3, "t": 15})
    );
    assert_eq!(bob.action["goto"], serde_json::json!([3, 2]));
    assert_eq!(bob.state["extras"], serde_json::json!([1, 11]));
    let last = &replay.ticks[3];
    assert_eq!(last.player, Some(0));
    assert_eq!(last.state["displays"], serde_json::json!([]));
    let result = replay.result.expect("a result");
    assert_eq!(result.scores, [2.0, 0.0]);
    assert_eq!(result.reason, "all_displays");
    let import = &replay.header.settings["import"];
    assert_eq!(import["logging_seat"], 0);
    assert_eq!(import["final_turn"], "inferred");
    let note = replay.header.settings["note"].as_str().unwrap();
    assert!(note.contains("reconstructed"), "{note}");
    assert!(note.contains("last turn"), "{note}");
    // Bob's order is rebuilt: display 1, which he never reached, is his first target.
    assert_eq!(
        replay.header.settings["targets"],
        serde_json::json!([[0, 1], [1, 0]])
    );
}

#[test]
fn a_changed_tile_or_position_stops_the_import_at_its_turn() {
    let dir = temp_dir("changed");
    let out = dir.join("out.jsonl");
    // The block after alice's turn with tile (3, 2) changed from 11 to 7: no push explains it.
    let tile = EXAMPLE.replacen(
        "FIELDS 12 10 14 4 5 15 5 5 15 9 10 11",
        "FIELDS 12 10 14 4 5 15 5 5 15 9 10 7",
        1,
    );
    let log = dir.join("tile.log");
    std::fs::write(&log, tile).unwrap();
    let stderr = failure(&mut import(&log, &out));
    assert!(stderr.contains("turn 1 (tick 0, seat 0"), "{stderr}");
    assert!(
        stderr.contains("FIELDS differs at (3, 2): ours 11 log 7"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing is written for a log that disagrees");

    // Bob placed where no push carries him.
    let position = EXAMPLE.replacen("POSITION 1 3 0\nPLAYER 1", "POSITION 1 2 0\nPLAYER 1", 1);
    std::fs::write(&log, position).unwrap();
    let stderr = failure(&mut import(&log, &out));
    assert!(stderr.contains("turn 1 (tick 0, seat 0"), "{stderr}");
    assert!(
        stderr.contains("seat 1 would be carried to (3, 0), the log has it at (2, 0)"),
        "{stderr}"
    );

    // Alice's GAMESCORE one point short: the blocks agree, the engine's count does not.
    let score = EXAMPLE.replacen("GAMESCORE 1", "GAMESCORE 0", 1);
    std::fs::write(&log, score).unwrap();
    let stderr = failure(&mut import(&log, &out));
    assert!(stderr.contains("turn 2 (tick 0, seat 1"), "{stderr}");
    assert!(
        stderr.contains("GAMESCORE differs: ours `GAMESCORE 1` log `GAMESCORE 0`"),
        "{stderr}"
    );
}

/// The logs of the real final, or `None` (with a notice) where `../shared` is absent.
fn final_logs() -> Option<Vec<PathBuf>> {
    let dir = root().join("../shared/data/graphisoft-2017-final");
    if !dir.is_dir() {
        eprintln!(
            "notice: {} is absent; the logs of the 2017 final are not checked",
            dir.display()
        );
        return None;
    }
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    logs.sort();
    Some(logs)
}

/// What the log says about itself: the logging seat, its number of turn blocks and SCORE.
fn summary(log: &str) -> (usize, usize, f64) {
    let mut seat = None;
    let mut blocks = 0;
    let mut score = None;
    for line in log.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some("PLAYER") if seat.is_none() => seat = words[1].parse().ok(),
            Some("TICK") => blocks += 1,
            Some("SCORE") => score = words[1].parse().ok(),
            _ => {}
        }
    }
    (seat.unwrap(), blocks, score.unwrap())
}

#[test]
fn every_game_of_the_2017_final_imports_with_no_disagreement() {
    let Some(logs) = final_logs() else { return };
    assert_eq!(logs.len(), 10, "{logs:?}");
    let dir = temp_dir("final");
    for log in &logs {
        let replay = imported(log, &dir);
        let (seat, blocks, score) = summary(&std::fs::read_to_string(log).unwrap());
        assert_eq!(replay.header.game, "labyrinth");
        assert_eq!(replay.header.players.len(), 10, "{}", log.display());
        // The start, then a tick per turn block: the turn it was sent before (the last one,
        // which no block follows, inferred).
        assert_eq!(replay.ticks.len(), blocks + 1, "{}", log.display());
        let result = replay.result.as_ref().expect("a result");
        assert_eq!(
            result.scores[seat],
            score,
            "{}: the logging seat's SCORE",
            log.display()
        );
        assert_eq!(result.reason, "all_displays", "{}", log.display());
        let settings = &replay.header.settings;
        assert_eq!(settings["import"]["logging_seat"], seat);
        assert_eq!(
            settings["import"]["ambiguous_pushes"],
            0,
            "{}",
            log.display()
        );
        let total: f64 = result.scores.iter().sum();
        assert_eq!(
            total as usize,
            settings["displays"].as_array().unwrap().len(),
            "{}: every display was used by someone",
            log.display()
        );
    }
}

#[test]
fn a_changed_number_in_a_final_log_is_refused_with_its_turn() {
    let Some(logs) = final_logs() else { return };
    let dir = temp_dir("final-changed");
    let text = std::fs::read_to_string(&logs[0]).unwrap();
    let width: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("SIZE "))
        .and_then(|s| s.split(' ').next())
        .and_then(|w| w.parse().ok())
        .unwrap();
    // The FIELDS of the 41st turn block, its first tile that a quarter turn changes turned.
    let (at, line) = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("FIELDS "))
        .nth(40)
        .unwrap();
    let mut tiles: Vec<u8> = line[7..].split(' ').map(|t| t.parse().unwrap()).collect();
    let j = tiles.iter().position(|&t| t != 15).unwrap();
    let old = tiles[j];
    tiles[j] = ((old << 1) | (old >> 3)) & 15;
    let new = tiles[j];
    let changed: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == at {
                let joined: Vec<String> = tiles.iter().map(u8::to_string).collect();
                format!("FIELDS {}\n", joined.join(" "))
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let log = dir.join("changed.log");
    std::fs::write(&log, changed).unwrap();
    let out = dir.join("out.jsonl");
    let stderr = failure(&mut import(&log, &out));
    // That block follows turn 40.
    assert!(stderr.contains("turn 40 (tick "), "{stderr}");
    let (x, y) = (j % width, j / width);
    assert!(
        stderr.contains(&format!(
            "FIELDS differs at ({x}, {y}): ours {old} log {new}"
        )),
        "{stderr}"
    );
}

/// `command` with its address space limited to `bytes`, so that a size taken on trust ends
/// it soon rather than after it has taken the machine's memory.
fn with_memory_limit(
    command: &mut std::process::Command,
    bytes: u64,
) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt as _;
    // SAFETY: setrlimit is async-signal-safe, and nothing else runs between fork and exec.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            match libc::setrlimit(libc::RLIMIT_AS, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        })
    }
}

/// `SIZE 4294967296 4294967296` made width × height wrap to 0, so a log whose FIELDS lines
/// were empty passed the size check, and the importer grew a list of pushes until the
/// allocator aborted (exit 134, a backtrace).
#[test]
fn a_graphisoft_log_whose_size_wraps_to_zero_is_refused() {
    let dir = temp_dir("wrapping-size");
    let text: String = EXAMPLE
        .lines()
        .map(|line| match line.split(' ').next() {
            Some("SIZE") => "SIZE 4294967296 4294967296\n".to_string(),
            Some("FIELDS") => "FIELDS\n".to_string(),
            _ => format!("{line}\n"),
        })
        .collect();
    let log = dir.join("wrap.log");
    std::fs::write(&log, text).unwrap();
    let out = dir.join("out.jsonl");
    let output = with_memory_limit(&mut import(&log, &out), 1 << 30)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(134), "{stderr}");
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        format!(
            "arbiter: {}: line 5: SIZE 4294967296 4294967296: both sides must be 2 to 20",
            log.display()
        )
    );
    assert!(!out.exists(), "nothing is written for a refused log");
    std::fs::remove_dir_all(&dir).unwrap();
}
