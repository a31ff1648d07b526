//! Input nobody should give, given on purpose: a reader that goes away, absurd counts, huge
//! files, control characters. Each ends with a clear error or quietly, never with a panic.

mod common;

use std::process::{Command, Stdio};

use common::{arbiter, failure, run, show_arbiter, temp_dir};

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

/// Runs `arbiter ARGS`, which must fail with a clear message (no panic) containing `wanted`.
fn refused(args: &[&str], wanted: &str) {
    let stderr = failure(arbiter().args(args));
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(stderr.contains(wanted), "{args:?}: {stderr}");
}

#[test]
fn absurd_counts_are_refused_naming_the_flag_and_its_range() {
    let robots = ["--add", "builtin:random", "--add", "builtin:runner"];
    let run = |extra: &[&str]| -> Vec<String> {
        ["tournament", "run", "quoridor", "--db", "/nonexistent/t.db"]
            .iter()
            .chain(&robots)
            .chain(extra)
            .map(|s| s.to_string())
            .collect()
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            run(&["--jobs", "100000"]),
            "--jobs <JOBS>': 100000 is not in 1..=1024",
        ),
        (run(&["--jobs", "0"]), "--jobs"),
        (
            run(&["--rounds", "4294967295"]),
            "--rounds <ROUNDS>': 4294967295 is not in 1..=10000",
        ),
        (
            ["tournament", "resume", "--jobs", "5000"]
                .map(String::from)
                .to_vec(),
            "is not in 1..=1024",
        ),
        (
            ["perft", "quoridor", "4294967295"]
                .map(String::from)
                .to_vec(),
            "is not in 0..=64",
        ),
        (
            ["bench", "quoridor", "--seconds", "1e30"]
                .map(String::from)
                .to_vec(),
            "--seconds <SECONDS>': expected seconds from 0 to 86400",
        ),
        (
            ["bench", "quoridor", "--seconds", "inf"]
                .map(String::from)
                .to_vec(),
            "--seconds",
        ),
        (
            [
                "game-server",
                "quoridor",
                "--db",
                "x",
                "--accounts",
                "y",
                "--interval",
            ]
            .into_iter()
            .chain(["18446744073709551615"])
            .map(String::from)
            .collect(),
            "--interval <INTERVAL>': 18446744073709551615 is not in 0..=604800",
        ),
        (
            ["game-server", "quoridor", "--db", "x", "--accounts", "y"]
                .into_iter()
                .chain(["--login-timeout", "0"])
                .map(String::from)
                .collect(),
            "--login-timeout",
        ),
    ];
    for (args, wanted) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, wanted);
    }
}

#[test]
fn threads_the_machine_cannot_start_are_an_error_not_a_panic() {
    let dir = temp_dir("threads");
    // Too little address space for 1024 thread stacks: some threads cannot start.
    let line = format!(
        "ulimit -v 600000 && exec {} tournament run quoridor --add builtin:random \
         --add builtin:runner --rounds 600 --jobs 1024 --seed 1 --db {}",
        env!("CARGO_BIN_EXE_arbiter"),
        dir.join("t.db").display()
    );
    let output = Command::new("sh").args(["-c", &line]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    if !output.status.success() {
        assert!(stderr.contains("(--jobs)"), "{stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A player folder `id` in `players` with this info.txt.
fn player(players: &std::path::Path, id: &str, info: &str) {
    let dir = players.join(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("info.txt"), info).unwrap();
}

#[test]
fn a_huge_info_txt_and_control_characters_in_names_stay_off_the_terminal() {
    let dir = temp_dir("folders");
    let players = dir.join("players");
    let bot = format!("{} bot quoridor random", env!("CARGO_BIN_EXE_arbiter"));
    player(
        &players,
        "huge",
        &format!("huge\nHuge\n{}\n", "x".repeat(10 << 20)),
    );
    player(
        &players,
        "long",
        &format!("long\nLong\n{}\n", "y".repeat(60_000)),
    );
    player(
        &players,
        "evil",
        &format!("e\x1b[2J\x1b]0;pwned\x07vil\nEvil\n{bot}\n"),
    );
    let db = dir.join("t.db");
    let output = run(arbiter()
        .args([
            "tournament",
            "run",
            "quoridor",
            "--add",
            "builtin:random",
            "--db",
        ])
        .arg(&db)
        .args(show_arbiter())
        .arg(&players));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("info.txt: the file is larger than 64 KiB"),
        "{stderr:.2000}"
    );
    let standings = run(arbiter().args(["tournament", "standings", "--db"]).arg(&db));
    let matches = run(arbiter().args(["tournament", "matches", "--db"]).arg(&db));
    for printed in [
        &output.stdout,
        &output.stderr,
        &standings.stdout,
        &matches.stdout,
    ] {
        let text = String::from_utf8_lossy(printed);
        assert!(
            text.len() < 4000,
            "{} bytes printed: {text:.2000}",
            text.len()
        );
        assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text}");
    }
    let standings = String::from_utf8_lossy(&standings.stdout);
    assert!(
        standings.contains(r"e\u{1b}[2J\u{1b}]0;pwned\u{7}vil"),
        "{standings}"
    );
    // The store keeps the name as it was written.
    let json = run(arbiter()
        .args(["tournament", "standings", "--json", "--db"])
        .arg(&db));
    assert!(String::from_utf8_lossy(&json.stdout).contains(r"e\u001b[2J"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_endless_level_file_is_refused_at_its_limit() {
    let stderr = failure(arbiter().args([
        "play",
        "labyrinth",
        "--bot",
        "builtin:random",
        "--level-file",
        "/dev/zero",
    ]));
    assert!(
        stderr.contains("--level-file /dev/zero: the file is larger than 1 MiB"),
        "{stderr}"
    );
}

/// A fights log of sixteen million empty msgpack lists in 16 MiB: each took tens of bytes
/// once decoded, and the whole log was decoded before it was looked at: under 512 MiB of
/// address space the import aborted (exit 134), and a 256 MiB log grew to gigabytes.
#[test]
fn a_fights_log_of_millions_of_empty_lists_is_refused_before_it_is_decoded() {
    use std::os::unix::process::CommandExt as _;
    let dir = temp_dir("empty-lists");
    let mut log = vec![0xdc, 0x13, 0x88];
    for _ in 0..5_000 {
        log.extend([0xdc, 0x0c, 0xcd]);
        log.extend(std::iter::repeat_n(0x90, 3_277));
    }
    let path = dir.join("lists.msgpack");
    std::fs::write(&path, log).unwrap();
    let mut command = arbiter();
    command
        .args(["replay", "import", "--format", "fights-msgpack"])
        .arg(&path)
        .arg("-o")
        .arg(dir.join("out.jsonl"));
    // SAFETY: setrlimit is async-signal-safe, and nothing else runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 512 << 20,
                rlim_max: 512 << 20,
            };
            match libc::setrlimit(libc::RLIMIT_AS, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let output = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(": the log holds more than 4000000 msgpack values"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
