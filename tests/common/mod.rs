//! What the whole-process tests of the `arbiter` binary share: running it, scratch folders,
//! the starter bots, and the `play --json` contract.
#![allow(dead_code)] // each test binary uses its own part

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

use serde_json::Value;

pub mod web;

pub fn arbiter() -> Command {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
}

/// `--sandbox-ro` and the folder of the `arbiter` binary: player folders of the tests run it
/// (`arbiter bot GAME NAME`) by its path, which the sandbox shows only when told to, as an
/// organiser shows a toolchain installed in a folder of their own.
pub fn show_arbiter() -> [String; 2] {
    let dir = Path::new(env!("CARGO_BIN_EXE_arbiter")).parent().unwrap();
    ["--sandbox-ro".into(), dir.display().to_string()]
}

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `command`, which must succeed.
pub fn run(command: &mut Command) -> Output {
    let output = command.output().expect("the command starts");
    assert!(
        output.status.success(),
        "{command:?} failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A fresh scratch folder under the test process's own root, which is removed when the process
/// exits, its tests passed or failed.
pub fn temp_dir(name: &str) -> PathBuf {
    arbiter_testdir::fresh(name)
}

/// Time limits no seat comes near, even on a busy machine: a timeout depends on the clock, and
/// would make a match play differently from run to run.
pub fn generous_time(game: &str) -> [&'static str; 2] {
    match game {
        "quoridor" => ["--time-bank-ms", "20000"],
        _ => ["--time-per-reply-ms", "20000"],
    }
}

/// `arbiter play GAME --json ARGS`: the one JSON object it prints.
pub fn play_json(game: &str, args: &[&str]) -> Value {
    let output = run(arbiter().args(["play", game, "--json"]).args(args));
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "--json printed something else ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

pub fn assert_no_faults(result: &Value) {
    for bot in result["bots"].as_array().unwrap() {
        assert_eq!(bot["errors"], 0, "{result}");
        assert_eq!(bot["timeouts"], 0, "{result}");
        assert_eq!(bot["crashed"], false, "{result}");
    }
}

/// The C++ starter bot of `game`, compiled once per test binary; its path.
pub fn cpp_starter(game: &str) -> String {
    static BINARIES: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    let mut binaries = BINARIES.get_or_init(Default::default).lock().unwrap();
    binaries
        .entry(game.to_owned())
        .or_insert_with(|| {
            let out = temp_dir(&format!("cpp-{game}")).join("starter");
            run(Command::new("g++")
                .args(["-O2", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-o"])
                .arg(&out)
                .arg(root().join(format!("examples/{game}/starter.cpp"))));
            out.display().to_string()
        })
        .clone()
}

/// The command line of the Python starter bot of `game`.
pub fn python_starter(game: &str) -> String {
    format!(
        "python3 {}",
        root().join(format!("examples/{game}/starter.py")).display()
    )
}

/// Runs `command`, which must fail; what it printed on stderr.
pub fn failure(command: &mut Command) -> String {
    let output = command.output().expect("the command starts");
    assert!(!output.status.success(), "{command:?} succeeded");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Removes what an `arbiter` process killed by a test leaves in the temporary folder, which
/// the next Arbiter on the machine would sweep: its folder of builds, its matches' replays and
/// its bots' scratch folders (`arbiter-jails-UID/PID-K`, the shared folder too once empty).
pub fn remove_temporary_files_of(pid: u32) {
    let temp = std::env::temp_dir();
    let _ = std::fs::remove_dir_all(temp.join(format!("arbiter-builds-{pid}")));
    remove_entries_starting(&temp, &format!("arbiter-match-{pid}-"));
    for entry in std::fs::read_dir(&temp).into_iter().flatten().flatten() {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with("arbiter-jails-")
        {
            remove_entries_starting(&entry.path(), &format!("{pid}-"));
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

fn remove_entries_starting(folder: &Path, start: &str) {
    for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with(start) {
            let path = entry.path();
            let _ = match path.is_dir() {
                true => std::fs::remove_dir_all(&path),
                false => std::fs::remove_file(&path),
            };
        }
    }
}
