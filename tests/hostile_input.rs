//! Input nobody should give, given on purpose: a reader that goes away, absurd counts, huge
//! files, control characters. Each ends with a clear error or quietly, never with a panic.

mod common;

use std::process::{Command, Stdio};

use common::{arbiter, run, temp_dir};

/// Runs `command` with its standard output closed before it writes (`arbiter … | head -0`):
/// it must end quietly and successfully.
fn assert_quiet_with_stdout_closed(command: &mut Command) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{command:?}: {stderr}");
    assert!(!stderr.contains("Broken pipe"), "{command:?}: {stderr}");
    assert!(output.status.success(), "{command:?}: {}", output.status);
}

#[test]
fn a_broken_pipe_ends_every_printing_command_quietly() {
    let dir = temp_dir("broken-pipe");
    let db = dir.join("t.db");
    let db = db.to_str().unwrap();
    run(arbiter()
        .args(["tournament", "run", "quoridor", "--add", "builtin:random"])
        .args([
            "--add",
            "builtin:runner",
            "--rounds",
            "200",
            "--seed",
            "1",
            "--db",
            db,
        ]));
    let commands: &[&[&str]] = &[
        &["tournament", "matches", "--db", db],
        &["tournament", "matches", "--json", "--db", db],
        &["tournament", "standings", "--db", db],
        &["tournament", "standings", "--csv", "--db", db],
        &["tournament", "standings", "--json", "--db", db],
        &["perft", "quoridor", "2"],
        &["bench", "quoridor", "--seconds", "0.05"],
        &["bench", "quoridor", "--seconds", "0.05", "--json"],
        &[
            "play",
            "quoridor",
            "--bot",
            "builtin:random",
            "--bot",
            "builtin:runner",
        ],
        &[
            "play",
            "quoridor",
            "--json",
            "--bot",
            "builtin:random",
            "--bot",
            "builtin:runner",
        ],
        &["--help"],
    ];
    for args in commands {
        assert_quiet_with_stdout_closed(arbiter().args(*args));
    }
    let mut tournament = arbiter();
    tournament
        .args(["tournament", "run", "quoridor", "--add", "builtin:random"])
        .args(["--add", "builtin:runner", "--db"])
        .arg(dir.join("second.db"));
    assert_quiet_with_stdout_closed(&mut tournament);
    std::fs::remove_dir_all(&dir).unwrap();
}
