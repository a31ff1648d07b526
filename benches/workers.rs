//! Matches per minute with 1, 2 and 4 `arbiter worker` processes on this machine, for robots
//! played in the worker's process and for player folders whose bots are processes, on a
//! SQLite file and on a throw-away PostgreSQL cluster; beside each, the one process
//! `tournament run --jobs N` on the same tournament.
//!
//! `cargo bench --bench workers` builds `arbiter` and prints a table; each figure is the
//! median of `ARBITER_BENCH_REPEATS` runs (default 3). `ARBITER_BENCH_ROBOT_ROUNDS` and
//! `ARBITER_BENCH_PROCESS_ROUNDS` set the size of the tournaments (round robins of three
//! players, six matches a round).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_pgtest::Cluster;

/// Who plays.
#[derive(Clone, Copy)]
enum Players {
    /// Built-in robots, played inside the worker's process.
    Robots,
    /// Player folders running `arbiter bot quoridor ROBOT`: a process per bot, sandboxed.
    Processes,
}

/// The three robots of every tournament.
const ROBOTS: [&str; 3] = ["runner", "blocker", "random"];

/// Where the store is.
#[derive(Clone, Copy)]
enum Backend {
    Sqlite,
    Postgres,
}

/// How the matches are played.
#[derive(Clone, Copy)]
enum Mode {
    /// `tournament run --no-work`, then this many `arbiter worker --jobs 1` processes.
    Workers(usize),
    /// One `tournament run --jobs N` process.
    OneProcess(usize),
}

struct Bench {
    dir: PathBuf,
    cluster: Cluster,
    /// Databases made so far, to name the next.
    made: usize,
}

impl Bench {
    /// A fresh, empty store.
    fn fresh(&mut self, backend: Backend) -> String {
        self.made += 1;
        match backend {
            Backend::Sqlite => {
                let dir = self.dir.join(format!("db{}", self.made));
                std::fs::create_dir_all(&dir).unwrap();
                dir.join("t.db").display().to_string()
            }
            Backend::Postgres => self.cluster.database(&format!("db{}", self.made)),
        }
    }

    /// The player folders running the robots as processes.
    fn players(&self) -> PathBuf {
        let players = self.dir.join("players");
        for robot in ROBOTS {
            let folder = players.join(robot);
            std::fs::create_dir_all(&folder).unwrap();
            let command = format!("'{}' bot quoridor {robot}", arbiter_path().display());
            std::fs::write(
                folder.join("info.txt"),
                format!("{robot}\nRobot {robot}\n{command}\n"),
            )
            .unwrap();
        }
        players
    }

    /// `tournament run quoridor` for `players` at `target`, creating or playing.
    fn tournament_run(&self, players: Players, rounds: u32, target: &str) -> Command {
        let mut command = Command::new(arbiter_path());
        command.args(["tournament", "run", "quoridor"]);
        match players {
            Players::Robots => {
                for robot in ROBOTS {
                    command.args(["--add", &format!("builtin:{robot}")]);
                }
            }
            Players::Processes => {
                command.arg(self.players());
                let bin = arbiter_path().parent().unwrap().to_owned();
                command.arg("--sandbox-ro").arg(bin);
            }
        }
        command
            .args([
                "--seed",
                "5",
                "--rounds",
                &rounds.to_string(),
                "--db",
                target,
            ])
            .arg("--replays")
            .arg(self.dir.join(format!("replays{}", self.made)))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// Plays a tournament as `mode` says; returns how many matches and how long it took,
    /// from the first worker's start (the tournament is created before).
    fn play(&mut self, players: Players, rounds: u32, backend: Backend, mode: Mode) -> f64 {
        let target = self.fresh(backend);
        let mut create = self.tournament_run(players, rounds, &target);
        let elapsed = match mode {
            Mode::Workers(n) => {
                succeeded(create.arg("--no-work").spawn().unwrap());
                let began = Instant::now();
                let workers: Vec<Child> = (0..n).map(|w| worker(&target, w)).collect();
                workers.into_iter().for_each(succeeded);
                began.elapsed()
            }
            Mode::OneProcess(n) => {
                let began = Instant::now();
                succeeded(create.args(["--jobs", &n.to_string()]).spawn().unwrap());
                began.elapsed()
            }
        };
        let played = done_matches(&target);
        assert_eq!(
            played,
            rounds as usize * 6,
            "every match of {target} played"
        );
        played as f64 * 60.0 / elapsed.as_secs_f64()
    }
}

fn worker(target: &str, number: usize) -> Child {
    Command::new(arbiter_path())
        .args(["worker", "--db", target, "--until-idle", "--jobs", "1"])
        .args(["--name", &format!("w{number}")])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for a process that must end well.
fn succeeded(child: Child) {
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

/// How many matches of the store's tournament are done.
fn done_matches(target: &str) -> usize {
    let output = Command::new(arbiter_path())
        .args(["tournament", "matches", "--json", "--db", target])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let rows: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    rows.as_array()
        .unwrap()
        .iter()
        .filter(|m| m["state"] == "done")
        .count()
}

fn arbiter_path() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_arbiter"))
}

fn env(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut runs: Vec<f64>) -> f64 {
    runs.sort_by(f64::total_cmp);
    runs[runs.len() / 2]
}

fn main() {
    let repeats = env("ARBITER_BENCH_REPEATS", 3).max(1);
    let dir = std::env::temp_dir().join(format!("arbiter-workers-{}", std::process::id()));
    let mut bench = Bench {
        cluster: Cluster::start().expect("starting PostgreSQL"),
        dir: dir.clone(),
        made: 0,
    };
    println!("median of {repeats} run(s), matches per minute");
    println!("players    store       N  N workers  tournament run --jobs N");
    let began = Instant::now();
    for (players, name, rounds) in [
        (
            Players::Robots,
            "robots",
            env("ARBITER_BENCH_ROBOT_ROUNDS", 50),
        ),
        (
            Players::Processes,
            "processes",
            env("ARBITER_BENCH_PROCESS_ROUNDS", 20),
        ),
    ] {
        for (backend, store) in [
            (Backend::Sqlite, "sqlite"),
            (Backend::Postgres, "postgresql"),
        ] {
            for n in [1, 2, 4] {
                let mut measure = |mode| {
                    median(
                        (0..repeats)
                            .map(|_| bench.play(players, rounds, backend, mode))
                            .collect(),
                    )
                };
                let workers = measure(Mode::Workers(n));
                let alone = measure(Mode::OneProcess(n));
                println!("{name:<10} {store:<10} {n:>2} {workers:>10.0} {alone:>24.0}");
            }
        }
    }
    println!(
        "({} matches a robots run, {} a processes run; {:.0} s in all)",
        env("ARBITER_BENCH_ROBOT_ROUNDS", 50) * 6,
        env("ARBITER_BENCH_PROCESS_ROUNDS", 20) * 6,
        Duration::as_secs_f64(&began.elapsed())
    );
    drop(bench);
    let _ = std::fs::remove_dir_all(dir);
}
