//! Many workers on one store, as a contest spread over machines runs: `tournament run
//! --no-work` creates, `arbiter worker` processes claim and play, some are killed with
//! SIGKILL in the middle of a match. Every scenario runs on SQLite (workers of one machine)
//! and on a real PostgreSQL cluster started for the test.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_pgtest::Cluster;
use common::{arbiter, root, run, show_arbiter, temp_dir};
use serde_json::Value;

/// Where a scenario keeps its store.
struct Db {
    target: String,
    /// Replays go here (a database server has no file to put them next to).
    replays: PathBuf,
}

impl Db {
    fn sqlite(dir: &Path) -> Db {
        Db {
            target: dir.join("t.db").display().to_string(),
            replays: dir.join("replays"),
        }
    }

    fn postgres(cluster: &Cluster, dir: &Path) -> Db {
        Db {
            target: cluster.database("workers"),
            replays: dir.join("replays"),
        }
    }

    fn args(&self) -> Vec<String> {
        vec![
            "--db".into(),
            self.target.clone(),
            "--replays".into(),
            self.replays.display().to_string(),
        ]
    }
}

/// A player folder running a built-in robot as a process.
fn robot_process(players: &Path, id: &str, robot: &str) {
    let command = format!("'{}' bot quoridor {robot}", env!("CARGO_BIN_EXE_arbiter"));
    write_player(players, id, &command);
}

/// A player folder with the Python starter, which thinks for tens of milliseconds a move:
/// its matches last long enough to kill a worker in the middle of one.
fn python_player(players: &Path, id: &str) {
    let folder = write_player(players, id, "python3 starter.py");
    std::fs::copy(
        root().join("examples/quoridor/starter.py"),
        folder.join("starter.py"),
    )
    .unwrap();
}

fn write_player(players: &Path, id: &str, command: &str) -> PathBuf {
    let dir = players.join(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("info.txt"),
        format!("{id}\nFull Name {id}\n{command}\n"),
    )
    .unwrap();
    dir
}

/// `tournament run PLAYERS --game quoridor` with the scenario's store and `extra` flags.
fn tournament_run(players: &Path, db: &Db, extra: &[&str]) -> Command {
    let mut command = arbiter();
    command
        .args(["tournament", "run"])
        .arg(players)
        .args(show_arbiter())
        .args(["--game", "quoridor", "--time-bank-ms", "5000"])
        .args(db.args())
        .args(extra);
    command
}

/// Creates the tournament without playing it; returns its number as printed.
fn create(players: &Path, db: &Db, extra: &[&str]) -> i64 {
    let output = run(tournament_run(players, db, extra).arg("--no-work"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Every scenario counts on all its players playing: one excluded is a failure of the set-up.
    assert!(!stderr.contains(" excluded: "), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .trim()
        .strip_prefix("tournament ")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("--no-work printed {stdout:?}"))
}

fn worker(db: &Db, name: &str, extra: &[&str]) -> Child {
    arbiter()
        .args(["worker", "--db", &db.target, "--name", name, "--jobs", "1"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for a worker that must end well; returns what it wrote to stderr.
fn finished(child: Child) -> String {
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{}: {stderr}", output.status);
    stderr
}

fn matches(db: &Db, tournament: i64) -> Vec<Value> {
    let output = run(arbiter()
        .args(["tournament", "matches", "--json", "--db", &db.target])
        .args(["--tournament", &tournament.to_string()]));
    let all: Value = serde_json::from_slice(&output.stdout).unwrap();
    all.as_array().unwrap().clone()
}

/// The standings, without the time a move took (a clock reading, not a result).
fn standings(db: &Db, tournament: i64) -> Value {
    let output = run(arbiter()
        .args(["tournament", "standings", "--json", "--db", &db.target])
        .args(["--tournament", &tournament.to_string()]));
    let mut table: Value = serde_json::from_slice(&output.stdout).unwrap();
    for row in table.as_array_mut().unwrap() {
        row.as_object_mut().unwrap().remove("ms_per_move");
    }
    table
}

/// The standings of the same tournament played by one process into a store of its own.
fn one_process_standings(players: &Path, dir: &Path, extra: &[&str]) -> Value {
    let alone = Db::sqlite(&dir.join("alone"));
    run(tournament_run(players, &alone, extra).stdout(Stdio::null()));
    standings(&alone, 1)
}

/// Waits until a match of `tournament` is running on `worker`; returns its id.
fn running_on(db: &Db, tournament: i64, worker: &str) -> i64 {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let running = matches(db, tournament)
            .into_iter()
            .find(|m| m["state"] == "running" && m["worker"] == worker);
        if let Some(m) = running {
            return m["id"].as_i64().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("no match of {worker} ran within a minute");
}

/// Every match is over, played once, with its result.
fn assert_all_done(rows: &[Value], expected: usize) {
    assert_eq!(rows.len(), expected);
    for m in rows {
        assert_eq!(m["state"], "done", "{m}");
        assert!(m["scores"].is_array(), "{m}");
    }
}

fn kill(mut child: Child) {
    // SIGKILL: no chance to hand anything back, as with a machine that dies.
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Two Python starters and a robot: six matches, each long enough to kill a worker in it.
fn slow_players(dir: &Path) -> PathBuf {
    let players = dir.join("players");
    python_player(&players, "p1");
    python_player(&players, "p2");
    robot_process(&players, "r", "runner");
    players
}

const ROUND_ROBIN: &[&str] = &["--seed", "11", "--rounds", "2"];

fn four_robot_processes(dir: &Path) -> PathBuf {
    let players = dir.join("players");
    for (id, robot) in [
        ("a", "runner"),
        ("b", "blocker"),
        ("c", "random"),
        ("d", "runner"),
    ] {
        robot_process(&players, id, robot);
    }
    players
}

fn a_coordinator_and_three_workers_score_every_match_once(dir: &Path, db: &Db) {
    let players = four_robot_processes(dir);
    let id = create(&players, db, ROUND_ROBIN);
    let workers: Vec<Child> = (1..=3)
        .map(|w| worker(db, &format!("w{w}"), &["--until-idle"]))
        .collect();
    let coordinator = arbiter()
        .args(["tournament", "resume", "--jobs", "1", "--db", &db.target])
        .args(["--tournament", &id.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let logs: Vec<String> = workers.into_iter().map(finished).collect();
    finished(coordinator);
    let rows = matches(db, id);
    assert_all_done(&rows, 24);
    // Claimed once each, never handed back: every match was played exactly once.
    for m in &rows {
        assert_eq!(
            (m["claim"].as_i64(), m["attempts"].as_i64()),
            (Some(1), Some(0)),
            "{m}"
        );
    }
    let played_lines: usize = logs
        .iter()
        .map(|log| log.lines().filter(|l| l.contains(" match ")).count())
        .sum();
    let by_workers = rows.iter().filter(|m| m["worker"] != Value::Null).count();
    assert_eq!(by_workers, 24);
    assert!(played_lines <= 24, "{logs:?}");
    assert_eq!(
        standings(db, id),
        one_process_standings(&players, dir, ROUND_ROBIN)
    );
}

fn a_killed_worker_s_match_is_played_again_after_its_lease(dir: &Path, db: &Db) {
    let players = slow_players(dir);
    let id = create(&players, db, &["--seed", "5"]);
    let doomed = worker(db, "doomed", &["--lease", "2"]);
    let lost = running_on(db, id, "doomed");
    kill(doomed);
    let log = finished(worker(db, "heir", &["--until-idle", "--lease", "2"]));
    let rows = matches(db, id);
    assert_all_done(&rows, 6);
    let replayed = rows.iter().find(|m| m["id"] == lost).unwrap();
    assert_eq!(replayed["claim"], 2, "{replayed}");
    assert_eq!(
        replayed["attempts"], 1,
        "the dead worker counts as an attempt"
    );
    assert_eq!(replayed["worker"], "heir");
    let replay = PathBuf::from(replayed["replay"].as_str().unwrap());
    assert!(
        replay.ends_with(format!("m{lost:05}-2.jsonl.gz")),
        "{replay:?}"
    );
    assert!(replay.is_file());
    assert!(
        !replay
            .with_file_name(format!("m{lost:05}.jsonl.gz"))
            .exists(),
        "the dead worker's half replay is removed"
    );
    assert!(log.contains("its worker is gone; queued again"), "{log}");
    for m in rows.iter().filter(|m| m["id"] != lost) {
        assert_eq!(m["claim"], 1, "{m}");
    }
}

fn the_workers_finish_a_tournament_whose_coordinator_was_killed(dir: &Path, db: &Db) {
    let players = slow_players(dir);
    let coordinator = tournament_run(
        &players,
        db,
        &["--seed", "8", "--jobs", "1", "--lease", "2"],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    // The coordinator's own name: HOST:PID@START.
    let deadline = Instant::now() + Duration::from_secs(60);
    let name = loop {
        assert!(Instant::now() < deadline, "the coordinator never played");
        let output = arbiter()
            .args(["tournament", "matches", "--json", "--db", &db.target])
            .output()
            .unwrap();
        let rows: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        let running = rows
            .as_array()
            .and_then(|rows| rows.iter().find(|m| m["state"] == "running"));
        if let Some(m) = running {
            break m["worker"].as_str().unwrap().to_owned();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(name.contains(&format!(":{}@", coordinator.id())), "{name}");
    kill(coordinator);
    let workers: Vec<Child> = (1..=2)
        .map(|w| worker(db, &format!("w{w}"), &["--until-idle", "--lease", "2"]))
        .collect();
    for w in workers {
        finished(w);
    }
    let rows = matches(db, 1);
    assert_all_done(&rows, 6);
    assert!(standings(db, 1).as_array().unwrap().len() == 3);
}

fn swiss_rounds_are_paired_once_with_several_workers(dir: &Path, db: &Db) {
    let players = dir.join("players");
    for (id, robot) in [
        ("a", "runner"),
        ("b", "blocker"),
        ("c", "random"),
        ("d", "runner"),
        ("e", "blocker"),
        ("f", "random"),
    ] {
        robot_process(&players, id, robot);
    }
    let swiss = ["--format", "swiss", "--rounds", "3", "--seed", "21"];
    let id = create(&players, db, &swiss);
    let workers: Vec<Child> = (1..=3)
        .map(|w| worker(db, &format!("w{w}"), &["--until-idle"]))
        .collect();
    for w in workers {
        finished(w);
    }
    let rows = matches(db, id);
    assert_all_done(&rows, 18);
    let mut rounds: BTreeMap<i64, BTreeSet<Vec<String>>> = BTreeMap::new();
    for m in &rows {
        let seats: Vec<String> = serde_json::from_value(m["seats"].clone()).unwrap();
        let fresh = rounds
            .entry(m["round"].as_i64().unwrap())
            .or_default()
            .insert(seats);
        assert!(fresh, "a pairing twice in one round: {m}");
    }
    assert_eq!(rounds.keys().copied().collect::<Vec<_>>(), [1, 2, 3]);
    assert!(rounds.values().all(|r| r.len() == 6), "{rounds:?}");
    assert_eq!(
        standings(db, id),
        one_process_standings(&players, dir, &swiss)
    );
}

/// A worker started before there is anything to do waits, and plays the tournaments created
/// later, one after the other.
fn a_waiting_worker_plays_tournaments_created_later(dir: &Path, db: &Db) {
    let players = four_robot_processes(dir);
    // The store exists before the worker (a worker does not create one).
    let first = create(&players, db, &["--seed", "1"]);
    let waiting = worker(db, "waiting", &[]);
    let second = create(&players, db, &["--seed", "2"]);
    let deadline = Instant::now() + Duration::from_secs(120);
    for id in [first, second] {
        while matches(db, id).iter().any(|m| m["state"] != "done") {
            assert!(Instant::now() < deadline, "tournament {id} was not played");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    kill(waiting);
    let third = create(&players, db, &["--seed", "3"]);
    assert!(matches(db, third).iter().all(|m| m["state"] == "queued"));
}

/// Two tests of a scenario: on a SQLite file, and on a PostgreSQL cluster of its own.
macro_rules! on_both_stores {
    ($($scenario:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $scenario() {
                    let dir = super::temp_dir(concat!("sqlite-", stringify!($scenario)));
                    super::$scenario(&dir, &super::Db::sqlite(&dir));
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $scenario() {
                    let dir = super::temp_dir(concat!("pg-", stringify!($scenario)));
                    let cluster = super::Cluster::start().unwrap();
                    super::$scenario(&dir, &super::Db::postgres(&cluster, &dir));
                }
            )*
        }
    };
}

on_both_stores!(
    a_waiting_worker_plays_tournaments_created_later,
    a_coordinator_and_three_workers_score_every_match_once,
    a_killed_worker_s_match_is_played_again_after_its_lease,
    the_workers_finish_a_tournament_whose_coordinator_was_killed,
    swiss_rounds_are_paired_once_with_several_workers,
);

/// The server drops every connection of the workers, again and again, while they play: they
/// reconnect and carry on, and every match is still scored once.
#[test]
fn postgres_workers_whose_connections_drop_carry_on() {
    let dir = temp_dir("pg-drops");
    let cluster = Cluster::start().unwrap();
    let db = Db::postgres(&cluster, &dir);
    let players = slow_players(&dir);
    let id = create(&players, &db, &["--seed", "4"]);
    let workers: Vec<Child> = (1..=2)
        .map(|w| worker(&db, &format!("w{w}"), &["--until-idle"]))
        .collect();
    running_on(&db, id, "w1");
    for _ in 0..5 {
        cluster.terminate_connections("workers");
        std::thread::sleep(Duration::from_millis(300));
    }
    // A cut connection is found when the pool hands it out again, and replaced.
    for w in workers {
        finished(w);
    }
    let rows = matches(&db, id);
    assert_all_done(&rows, 6);
    for m in &rows {
        assert_eq!(m["claim"], 1, "no match changed hands: {m}");
    }
}
