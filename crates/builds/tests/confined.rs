//! A build is confined as a bot is: no network, a user of its own, its memory limit, its log
//! bounded, nothing left behind. Each test is a language of the operator's file whose build
//! command does the one thing tested.

use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

use arbiter_builds::{BuildLimits, Built, Languages, Source, build};
use arbiter_sandbox::{SandboxConfig, SandboxPolicy};

/// The table with one more language, `.probe` files, built by `command` (`run` is `./bot`).
fn probe_language(dir: &Path, command: &str) -> Languages {
    let file = dir.join("languages.toml");
    let toml = format!(
        "[language.probe]\nextensions = [\"probe\"]\nbuild = {command:?}\nrun = \"./bot\"\n"
    );
    std::fs::write(&file, toml).unwrap();
    Languages::with_file(&file).unwrap()
}

/// Builds an empty `.probe` file whose build runs `command`, under `limits`, in the sandbox.
fn probe(test: &str, command: &str, limits: &BuildLimits) -> Built {
    let dir = arbiter_testdir::fresh(test);
    let languages = probe_language(&dir, command);
    let source = Source::File {
        name: "bot.probe",
        bytes: b"",
    };
    let sandbox = SandboxPolicy::Required(SandboxConfig::default());
    build(source, &languages, limits, &sandbox, &dir.join("work")).unwrap()
}

#[test]
fn a_build_runs_as_a_user_of_its_own_and_its_files_are_taken_out_of_the_jail() {
    let built = probe(
        "uid",
        "id -u > uid.txt && printf 'built\\n' > bot && echo done",
        &BuildLimits::default(),
    );
    let Built::Ok { folder, log, .. } = built else {
        panic!("{built:?}");
    };
    assert_eq!(log, "done\n");
    let uid: u32 = std::fs::read_to_string(folder.join("uid.txt"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_ne!(uid, 0, "the build ran as root");
    assert_eq!(
        std::fs::read_to_string(folder.join("bot")).unwrap(),
        "built\n"
    );
    let info = std::fs::read_to_string(folder.join("info.txt")).unwrap();
    assert_eq!(info, "bot\nbot (probe)\n./bot\n");
    arbiter_builds::remove_built(&folder);
    assert!(!folder.exists());
}

#[test]
fn a_build_has_no_network() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let command = format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)\""
    );
    let built = probe("network", &command, &BuildLimits::default());
    let Built::Failed { reason, log } = built else {
        panic!("a build reached the network: {built:?}");
    };
    assert_eq!(reason, "python3 exited with status 1");
    assert!(log.contains("Error"), "{log}");
    assert!(listener.accept().is_err(), "the build connected");
}

#[test]
fn a_build_over_its_memory_limit_is_stopped_and_says_so() {
    let limits = BuildLimits {
        memory_mb: 128,
        ..BuildLimits::default()
    };
    let command = "python3 -c \"x = bytearray(512 * 1024 * 1024); print(len(x))\"";
    let built = probe("memory", command, &limits);
    let Built::Failed { reason, .. } = built else {
        panic!("{built:?}");
    };
    // With a cgroup the sandbox says which limit; without one the allocation fails.
    assert!(
        reason == "the build went over its memory limit of 128 MiB"
            || reason == "python3 exited with status 1",
        "{reason}"
    );
}

#[test]
fn a_builds_log_keeps_its_start_and_its_end() {
    let limits = BuildLimits {
        log_bytes: 1000,
        ..BuildLimits::default()
    };
    let command = "echo first; yes filler | head -c 1000000; echo; echo last; exit 3";
    let built = probe("log", command, &limits);
    let Built::Failed { reason, log } = built else {
        panic!("{built:?}");
    };
    assert_eq!(reason, "echo exited with status 3");
    assert!(log.starts_with("first\n"), "{log}");
    assert!(log.ends_with("\nlast\n"), "{log}");
    assert!(
        log.contains("bytes of the build's output left out"),
        "{log}"
    );
    assert!(log.len() < 1100, "{} bytes kept", log.len());
}

#[test]
fn a_build_that_leaves_too_much_fails_with_the_limit() {
    let limits = BuildLimits {
        output_mb: 1,
        ..BuildLimits::default()
    };
    let command = "head -c 700000 /dev/zero > a && head -c 700000 /dev/zero > b";
    let built = probe("output", command, &limits);
    let Built::Failed { reason, .. } = built else {
        panic!("{built:?}");
    };
    assert_eq!(reason, "the build left more than 1 MiB in its folder");
}

#[test]
fn a_build_cannot_write_a_file_larger_than_its_output_limit() {
    let limits = BuildLimits {
        output_mb: 1,
        time: Duration::from_secs(60),
        ..BuildLimits::default()
    };
    let built = probe("file-size", "head -c 3000000 /dev/zero > big", &limits);
    let Built::Failed { reason, .. } = built else {
        panic!("{built:?}");
    };
    // `head` is killed by SIGXFSZ, and the shell running it exits with 128 + 25.
    assert!(
        reason.contains("SIGXFSZ") || reason.ends_with("exited with status 153"),
        "{reason}"
    );
}

#[test]
fn a_language_whose_compiler_is_missing_says_so() {
    let built = probe(
        "missing",
        "no-such-compiler -o bot bot.probe",
        &BuildLimits::default(),
    );
    let Built::Failed { reason, log } = built else {
        panic!("{built:?}");
    };
    assert!(
        reason.starts_with(
            "no-such-compiler exited with status 127: no-such-compiler is not installed"
        ),
        "{reason}"
    );
    assert!(log.contains("not found"), "{log}");
}
