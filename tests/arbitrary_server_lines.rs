//! The game server reads lines from anyone on the network: arbitrary bytes before a login and
//! as a logged-in team's answers leave it serving, and the game it plays ends normally.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::process::Stdio;
use std::time::Duration;

use common::{arbiter, run, temp_dir};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A line as a hostile or broken client sends it: protocol words, numbers of any size,
/// control characters, invalid UTF-8, or a very long run of one byte.
fn garbage_line(rng: &mut SmallRng) -> Vec<u8> {
    const WORDS: &[&str] = &[
        "LOGIN", "alice", "pw", "PUSH", "GOTO", "MESSAGE", ".", "-1", "0", "\x1b[2J", "\0",
    ];
    let mut line = Vec::new();
    match rng.random_range(0..4) {
        0 => {
            for _ in 0..rng.random_range(0..12) {
                line.extend_from_slice(WORDS[rng.random_range(0..WORDS.len())].as_bytes());
                line.push(b' ');
            }
        }
        1 => {
            for _ in 0..rng.random_range(0..6) {
                let number: i64 = rng.random();
                line.extend_from_slice(format!("{number} ").as_bytes());
            }
        }
        2 => line.extend((0..rng.random_range(0..200)).map(|_| rng.random::<u8>())),
        _ => line.extend(std::iter::repeat_n(b'9', rng.random_range(1..300_000))),
    }
    line.push(b'\n');
    line
}

/// One connection that sends `lines` (and perhaps no `.` at all), then reads what the server
/// answers until it closes or a moment passes.
fn hostile_connection(addr: &str, lines: &[Vec<u8>], close_early: bool) {
    let Ok(mut stream) = TcpStream::connect(addr) else {
        return;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    for line in lines {
        if stream.write_all(line).is_err() {
            return;
        }
    }
    if close_early {
        let _ = stream.shutdown(Shutdown::Write);
    }
    let mut sink = Vec::new();
    let _ = stream.read_to_end(&mut sink);
}

#[test]
fn arbitrary_lines_before_and_after_a_login_leave_the_server_playing() {
    let dir = temp_dir("server-lines");
    let accounts = dir.join("teams.toml");
    for team in ["alice", "bob"] {
        run(arbiter()
            .args(["accounts", "add", "--file"])
            .arg(&accounts)
            .args([team, "--password", "pw"]));
    }
    let log = std::fs::File::create(dir.join("server.log")).unwrap();
    let mut server = arbiter()
        .args([
            "server",
            "labyrinth",
            "--listen",
            "127.0.0.1:0",
            "--accounts",
        ])
        .arg(&accounts)
        .arg("--db")
        .arg(dir.join("server.db"))
        .args([
            "--interval",
            "3600",
            "--games",
            "1",
            "--start-when-idle",
            "2",
        ])
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(server.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let addr = first.trim().trim_start_matches("listening on ").to_owned();

    let mut rng = SmallRng::seed_from_u64(11);
    for connection in 0..40 {
        let lines: Vec<Vec<u8>> = (0..rng.random_range(0..20))
            .map(|_| garbage_line(&mut rng))
            .collect();
        hostile_connection(&addr, &lines, connection % 2 == 0);
    }

    // alice logs in, then answers every turn of hers with garbage; bob is a robot.
    let mut alice = TcpStream::connect(&addr).unwrap();
    alice
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    alice.write_all(b"LOGIN alice pw\n.\n").unwrap();
    let mut bob = arbiter()
        .args([
            "bot",
            "labyrinth",
            "random",
            "--connect",
            &addr,
            "--team",
            "bob",
        ])
        .env("ARBITER_PASSWORD", "pw")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(alice.try_clone().unwrap());
    let (mut block, mut turns) = (String::new(), 0);
    while reader.read_line(&mut block).unwrap_or(0) > 0 {
        if !block.ends_with("\n.\n") {
            continue;
        }
        // A block addressed to alice: her turn.
        if block.starts_with("TICK") && block.contains("\nMESSAGE ") {
            turns += 1;
            for _ in 0..rng.random_range(1..4) {
                let _ = alice.write_all(&garbage_line(&mut rng));
            }
            let _ = alice.write_all(b".\n");
        }
        block.clear();
    }
    assert!(turns > 0, "alice was never asked to play");
    let status = server.wait().unwrap();
    let _ = bob.wait();
    let log = std::fs::read_to_string(dir.join("server.log")).unwrap();
    assert!(!log.contains("panicked"), "{log}");
    assert!(status.success(), "{status}: {log}");
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert!(rest.contains("1 games played"), "{rest}");
    std::fs::remove_dir_all(&dir).unwrap();
}
