//! `arbiter sprt` as a bot author runs it: real processes, a real SQLite store, a run killed
//! with SIGKILL and resumed.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_pgtest::Cluster;
use common::{arbiter, run, show_arbiter, temp_dir};
use serde_json::Value;

/// `arbiter sprt quoridor` with the store of `dir` and `args`.
fn sprt(dir: &Path, args: &[&str]) -> Command {
    let mut command = arbiter();
    command
        .args(["sprt", "quoridor", "--db"])
        .arg(dir.join("sprt.db"))
        .args(args)
        .args(show_arbiter());
    command
}

/// The one object `--json` prints.
fn json_of(mut command: Command) -> Value {
    let output = run(command.arg("--json"));
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "--json printed something else ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// A player folder running the random robot as a process with a seed of its own: as strong as
/// `builtin:random`, but its games never mirror those of the built-in one.
fn random_process(dir: &Path, seed: u64) -> String {
    let folder = dir.join(format!("random{seed}"));
    std::fs::create_dir_all(&folder).unwrap();
    let command = format!(
        "'{}' bot quoridor random --seed {seed}",
        env!("CARGO_BIN_EXE_arbiter")
    );
    std::fs::write(
        folder.join("info.txt"),
        format!("random{seed}\nRandom {seed}\n{command}\n"),
    )
    .unwrap();
    folder.display().to_string()
}

fn pentanomial(result: &Value) -> Vec<u64> {
    result["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect()
}

/// `blocker` (A) against `random` (B), seeded `seed`.
fn blocker_against_random(seed: &str) -> [&str; 8] {
    [
        "--bot",
        "builtin:blocker",
        "--bot",
        "builtin:random",
        "--seed",
        seed,
        "--jobs",
        "2",
    ]
}

#[test]
fn blocker_against_random_accepts_h1_and_json_has_the_documented_keys() {
    let dir = temp_dir("h1");
    let result = json_of(sprt(&dir, &blocker_against_random("1")));
    let keys: BTreeSet<&str> = result.as_object().unwrap().keys().map(|k| &**k).collect();
    let documented = [
        "result",
        "llr",
        "lower_bound",
        "upper_bound",
        "games",
        "pentanomial",
        "elo",
        "elo_error95",
        "los",
    ];
    assert_eq!(keys, BTreeSet::from(documented), "{result}");
    assert_eq!(result["result"], "H1", "{result}");
    assert!(result["llr"].as_f64().unwrap() >= result["upper_bound"].as_f64().unwrap());
    let counts = pentanomial(&result);
    assert_eq!(counts.len(), 5);
    assert_eq!(result["games"], counts.iter().sum::<u64>() * 2);
    assert!(
        result["games"].as_u64().unwrap() <= 400,
        "quickly: {result}"
    );
    assert!(result["elo"].as_f64().unwrap() > 300.0, "{result}");
    assert!(result["los"].as_f64().unwrap() > 0.99, "{result}");
    // The text says so too, and the queued pairs left are gone from the store.
    let output = run(&mut sprt(&dir, &blocker_against_random("2")));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.starts_with("H1 accepted: builtin:blocker is stronger"),
        "{text}"
    );
    let matches = run(arbiter()
        .args(["tournament", "matches", "--json", "--db"])
        .arg(dir.join("sprt.db")));
    let rows: Value = serde_json::from_slice(&matches.stdout).unwrap();
    assert!(
        rows.as_array()
            .unwrap()
            .iter()
            .all(|m| m["state"] != "queued"),
        "{rows}"
    );
}

#[test]
fn strong_against_blocker_accepts_h1() {
    let dir = temp_dir("strong");
    // A node budget keeps the games short and the same on every machine.
    let args = [
        "--bot",
        "builtin:strong/nodes=1000",
        "--bot",
        "builtin:blocker",
        "--seed",
        "3",
        "--max-games",
        "400",
    ];
    let result = json_of(sprt(&dir, &args));
    assert_eq!(result["result"], "H1", "{result}");
    assert!(result["elo"].as_f64().unwrap() > 100.0, "{result}");
}

#[test]
fn a_robot_against_itself_never_accepts_h1() {
    let dir = temp_dir("self");
    // Two copies of one robot mirror each other in a pair (the same seed, seats swapped):
    // every pair is 1–1.
    for seed in ["1", "2"] {
        let result = json_of(sprt(
            &dir,
            &[
                "--bot",
                "builtin:random",
                "--bot",
                "builtin:random",
                "--seed",
                seed,
                "--max-games",
                "200",
                "--jobs",
                "2",
            ],
        ));
        assert_ne!(result["result"], "H1", "{result}");
        assert_eq!(pentanomial(&result), [0, 0, 100, 0, 0], "{result}");
    }
    // The same robot as a process with a seed of its own plays games of its own.
    for seed in [3, 4] {
        let other = random_process(&dir, seed);
        let result = json_of(sprt(
            &dir,
            &[
                "--bot",
                "builtin:random",
                "--bot",
                &other,
                "--seed",
                &seed.to_string(),
                "--max-games",
                "100",
                "--jobs",
                "2",
            ],
        ));
        assert_ne!(result["result"], "H1", "{result}");
        let counts = pentanomial(&result);
        assert!(counts[2] < 50, "not mirrored: {result}");
    }
}

#[test]
fn a_killed_test_resumes_and_counts_every_pair_once() {
    let dir = temp_dir("resume");
    let other = random_process(&dir, 9);
    let args = [
        "--bot",
        "builtin:random",
        "--bot",
        &other,
        "--seed",
        "5",
        "--max-games",
        "240",
        "--jobs",
        "2",
    ];
    let (whole, killed) = (dir.join("whole"), dir.join("killed"));
    std::fs::create_dir_all(&whole).unwrap();
    std::fs::create_dir_all(&killed).unwrap();
    let whole = json_of(sprt(&whole, &args));
    let mut child = sprt(&killed, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed once some games are in the store, well before the last.
    let store = killed.join("sprt.db");
    let started = Instant::now();
    while done_matches(&store) < 20 && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = done_matches(&store);
    assert!((20..240).contains(&before), "killed after {before} games");
    let output = run(sprt(&killed, &args).arg("--json"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("resuming SPRT 1"), "{stderr}");
    let resumed: Value = serde_json::from_slice(&output.stdout).unwrap();
    // The same games as the run never killed: no pair counted twice, none lost.
    assert_eq!(resumed, whole);
    assert_eq!(resumed["games"], 240);
    let rows = matches(&store);
    let ids: BTreeSet<i64> = rows.iter().map(|m| m["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, (1..=240).collect(), "each match once");
    assert!(rows.iter().all(|m| m["state"] == "done"));
}

/// On PostgreSQL, `arbiter worker` processes help an SPRT as they help any tournament: both
/// play its games, each once.
#[test]
fn a_worker_helps_an_sprt_on_postgresql() {
    let dir = temp_dir("pg");
    let cluster = Cluster::start().unwrap();
    let url = cluster.database("sprt");
    let other = random_process(&dir, 6);
    let mut test = arbiter();
    test.args(["sprt", "quoridor", "--db", &url, "--json"])
        .args(["--bot", "builtin:random", "--bot", &other])
        .args(["--seed", "8", "--max-games", "200", "--jobs", "1"])
        .args(show_arbiter())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let test = test.spawn().unwrap();
    let started = Instant::now();
    while matches(Path::new(&url)).is_empty() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let worker = run(arbiter().args([
        "worker",
        "--db",
        &url,
        "--jobs",
        "1",
        "--until-idle",
        "--name",
        "helper",
    ]));
    let output = test.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["games"], 200, "{result}");
    let rows = matches(Path::new(&url));
    let ids: BTreeSet<i64> = rows.iter().map(|m| m["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, (1..=200).collect(), "each match once");
    let helped = rows.iter().filter(|m| m["worker"] == "helper").count();
    assert!(
        helped > 0 && helped < 200,
        "the worker played {helped} games: {}",
        String::from_utf8_lossy(&worker.stderr)
    );
}

fn matches(store: &Path) -> Vec<Value> {
    let output = arbiter()
        .args(["tournament", "matches", "--json", "--db"])
        .arg(store)
        .output()
        .unwrap();
    serde_json::from_slice::<Value>(&output.stdout)
        .ok()
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
}

fn done_matches(store: &Path) -> usize {
    if !store.exists() {
        return 0;
    }
    matches(store)
        .iter()
        .filter(|m| m["state"] == "done")
        .count()
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    let dir = temp_dir("bad");
    let cases: &[(&[&str], &str)] = &[
        (&["--bot", "builtin:random"], "needs two --bot"),
        (
            &[
                "--bot",
                "builtin:random",
                "--bot",
                "builtin:runner",
                "--elo0",
                "5",
                "--elo1",
                "5",
            ],
            "--elo0 5 must be below --elo1 5",
        ),
        (
            &[
                "--bot",
                "builtin:random",
                "--bot",
                "builtin:runner",
                "--alpha",
                "1.5",
            ],
            "--alpha 1.5 must be a probability",
        ),
        (
            &["--bot", "builtin:random", "--bot", "builtin:nobody"],
            "--bot builtin:nobody: quoridor has no such robot",
        ),
        (
            &[
                "--bot",
                "builtin:random",
                "--bot",
                "builtin:runner",
                "--resume",
                "7",
            ],
            "--resume 7",
        ),
    ];
    for (args, expected) in cases {
        let output = sprt(&dir, args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?} succeeded");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    let output = arbiter()
        .args(["sprt", "chess", "--bot", "a", "--bot", "b"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("chess"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Domino: both games of a pair on one board, drawn from the pair's seed; each pair its own.
#[test]
fn the_two_games_of_a_domino_pair_share_their_board() {
    let dir = temp_dir("domino");
    let store = dir.join("sprt.db");
    run(arbiter()
        .args([
            "sprt",
            "domino",
            "--bot",
            "builtin:parity",
            "--bot",
            "builtin:random",
        ])
        .args(["--max-games", "4", "--seed", "3", "--jobs", "1", "--db"])
        .arg(&store));
    let boards: Vec<Value> = matches(&store)
        .iter()
        .map(|m| {
            let file = std::fs::File::open(m["replay"].as_str().unwrap()).unwrap();
            let mut header = String::new();
            std::io::BufRead::read_line(
                &mut std::io::BufReader::new(flate2::read::GzDecoder::new(file)),
                &mut header,
            )
            .unwrap();
            serde_json::from_str::<Value>(&header).unwrap()["settings"].clone()
        })
        .collect();
    assert_eq!(boards.len(), 4);
    assert_eq!(boards[0], boards[1]);
    assert_eq!(boards[2], boards[3]);
    assert_ne!(boards[0]["obstacles"], boards[2]["obstacles"]);
}
