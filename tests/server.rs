//! The game server over real sockets: `arbiter server` as a process, clients written here.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use arbiter_bots::Robots;
use arbiter_games::labyrinth::{Labyrinth, LabyrinthClient};
use arbiter_games::{ClientEvent, Game, Wire, WireClient};
use common::{arbiter, run, temp_dir};

/// The level of the §9 example session.
const SPEC_LEVEL: &str = "SIZE 4 3
MAXTICK 2
FIELDS 12 10 14 4 5 15 5 5 9 10 11 1
BLOCKED 1 1
DISPLAY 0 3 2
DISPLAY 1 0 2
SEAT 0 0 0 TARGETS 0 1
SEAT 1 3 0 TARGETS 1 0
";

/// What alice receives in §9, byte for byte.
const SPEC_ALICE: &str = "MESSAGE OK
NEXTSTART 1 30 0
.
ID 1
PLAYERS alice bob
PLAYER 0
LEVEL 1
SIZE 4 3
DISPLAYS 2
MAXTICK 2
BLOCKED 1 1
TARGETS 0 1
.
TICK 0
FIELDS 12 10 14 4 5 15 5 5 9 10 11 1
DISPLAY 0 3 2
DISPLAY 1 0 2
POSITION 0 0 0
POSITION 1 3 0
PLAYER 0
MESSAGE OK
TARGET 0
EXTRAFIELD 15
GAMESCORE 0
.
TICK 0
FIELDS 12 10 14 4 5 15 5 5 15 9 10 11
DISPLAY 1 1 2
POSITION 0 0 2
POSITION 1 3 0
PLAYER 1
.
TICK 1
FIELDS 12 10 14 15 5 15 5 4 15 9 10 5
DISPLAY 1 1 2
POSITION 0 0 2
POSITION 1 3 2
PLAYER 0
MESSAGE OK
TARGET 1
EXTRAFIELD 1
GAMESCORE 1
.
SCORE 2 2 0
ID 1
NEXTSTART 0 -1 0
.
END 2 0
.
";

struct Server {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Server {
    /// `arbiter server labyrinth` on a free port of 127.0.0.1, with the accounts and database
    /// of `dir`, logging to `dir/server.log`.
    fn start(dir: &Path, args: &[&str]) -> Server {
        Server::start_game(dir, "labyrinth", args)
    }

    fn start_game(dir: &Path, game: &str, args: &[&str]) -> Server {
        let log = std::fs::File::create(dir.join("server.log")).unwrap();
        let mut child = arbiter()
            .args([
                "server",
                game,
                "--port",
                "0",
                "--host",
                "127.0.0.1",
                "--accounts",
            ])
            .arg(dir.join("teams.toml"))
            .arg("--db")
            .arg(dir.join("server.db"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut first)
            .unwrap();
        let port = first
            .trim()
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("expected `listening on ADDR`, got {first:?}"));
        Server {
            child,
            port,
            dir: dir.to_owned(),
        }
    }

    fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn connect(&self) -> TcpStream {
        TcpStream::connect(self.addr()).unwrap()
    }

    /// Waits for the server to end its session; what it printed on stdout.
    fn finish(mut self) -> String {
        let mut out = String::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        let status = self.child.wait().unwrap();
        assert!(status.success(), "server failed: {}", self.log());
        out
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn add_teams(dir: &Path, teams: &[(&str, &str)]) {
    for (team, password) in teams {
        run(arbiter()
            .args(["accounts", "add", "--file"])
            .arg(dir.join("teams.toml"))
            .args([team, "--password", password]));
    }
}

/// Sends a login block; the server's answer block.
fn login(stream: &mut TcpStream, team: &str, password: &str) -> String {
    write!(stream, "LOGIN {team} {password}\n.\n").unwrap();
    read_block(&mut BufReader::new(stream.try_clone().unwrap()))
}

/// One block, up to and with its `.` line; empty at the end of the stream.
fn read_block(reader: &mut impl BufRead) -> String {
    let mut block = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return block;
        }
        block.push_str(&line);
        if line == ".\n" {
            return block;
        }
    }
}

/// Reads everything until the server closes the connection.
fn read_to_end(stream: &mut TcpStream) -> String {
    let mut text = String::new();
    let _ = stream.read_to_string(&mut text);
    text
}

/// Plays a session, answering each turn block addressed to this client (one with a MESSAGE
/// line) with the next of `replies`; everything received.
fn scripted(mut stream: TcpStream, replies: &[&str]) -> String {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut replies = replies.iter();
    let mut all = String::new();
    loop {
        let block = read_block(&mut reader);
        if block.is_empty() {
            return all;
        }
        if block.starts_with("TICK")
            && block.contains("\nMESSAGE ")
            && let Some(reply) = replies.next()
        {
            stream.write_all(reply.as_bytes()).unwrap();
        }
        all.push_str(&block);
    }
}

#[test]
fn the_example_session_of_the_spec_byte_for_byte() {
    let dir = temp_dir("spec");
    add_teams(&dir, &[("alice", "secret"), ("bob", "hunter2")]);
    std::fs::write(dir.join("level.txt"), SPEC_LEVEL).unwrap();
    let level = dir.join("level.txt");
    let server = Server::start(
        &dir,
        &[
            "--interval",
            "30",
            "--min-players",
            "2",
            "--games",
            "1",
            "--start-when-idle",
            "2",
            "--level-file",
            level.to_str().unwrap(),
        ],
    );
    let mut alice = server.connect();
    alice.write_all(b"LOGIN alice secret\n.\n").unwrap();
    // Alice logs in first: she gets seat 0 (ties by earlier login).
    let mut reader = BufReader::new(alice.try_clone().unwrap());
    let first = read_block(&mut reader);
    assert_eq!(first, "MESSAGE OK\nNEXTSTART 1 30 0\n.\n");
    let alice_thread = std::thread::spawn(move || {
        let mut all = first;
        let mut replies = [
            "PUSH 0 1 2 15\nGOTO 0 2\n.\n",
            "PUSH 1 0 0 4\nGOTO 1 2\n.\n",
        ]
        .iter();
        loop {
            let block = read_block(&mut reader);
            if block.is_empty() {
                return all;
            }
            if block.starts_with("TICK") && block.contains("\nMESSAGE ") {
                alice.write_all(replies.next().unwrap().as_bytes()).unwrap();
            }
            all.push_str(&block);
        }
    });
    let mut bob = server.connect();
    bob.write_all(b"LOGIN bob hunter2\n.\n").unwrap();
    let bob_all = scripted(bob, &["PUSH 1 1 3 15\nGOTO 3 2\n.\n"]);
    let alice_all = alice_thread.join().unwrap();
    assert_eq!(alice_all, SPEC_ALICE);
    assert!(
        bob_all.contains("SCORE 0 0 0\nID 1\nNEXTSTART 0 -1 0\n.\nEND 0 0\n.\n"),
        "{bob_all}"
    );
    let out = server.finish();
    assert!(out.contains("1 games played"), "{out}");
    let log = std::fs::read_to_string(dir.join("server.log")).unwrap();
    assert!(!log.contains("secret") && !log.contains("hunter2"), "{log}");
    let replay = std::fs::read_to_string(dir.join("replays/labyrinth-1.jsonl")).unwrap();
    assert!(!replay.contains("secret") && !replay.contains("hunter2"));
    let replay = arbiter_replay::read_replay(dir.join("replays/labyrinth-1.jsonl")).unwrap();
    let kinds: Vec<_> = replay.header.players.iter().map(|p| p.kind).collect();
    assert_eq!(kinds, [arbiter_replay::PlayerKind::Tcp; 2]);
}

#[test]
fn logins_are_refused_with_the_reasons_of_the_spec() {
    let dir = temp_dir("login");
    add_teams(&dir, &[("alice", "secret")]);
    let server = Server::start(&dir, &["--interval", "3600", "--login-timeout", "1"]);
    let refused = |text: &[u8]| {
        let mut s = server.connect();
        s.write_all(text).unwrap();
        read_to_end(&mut s)
    };
    assert_eq!(refused(b"LOGIN alice wrong\n.\n"), "MESSAGE BAD_LOGIN\n.\n");
    assert_eq!(
        refused(b"LOGIN nobody secret\n.\n"),
        "MESSAGE BAD_LOGIN\n.\n"
    );
    assert_eq!(refused(b"LOGIN Alice secret\n.\n"), "MESSAGE SYNTAX\n.\n");
    assert_eq!(refused(b"LOGIN alice\n.\n"), "MESSAGE SYNTAX\n.\n");
    assert_eq!(refused(b"HELLO\n.\n"), "MESSAGE SYNTAX\n.\n");
    let long = format!("LOGIN alice {}\n.\n", "x".repeat(5000));
    assert_eq!(refused(long.as_bytes()), "MESSAGE SYNTAX\n.\n");
    // A client that says nothing is dropped when its login time is up.
    assert_eq!(refused(b""), "MESSAGE SYNTAX\n.\n");
    // Other lines of the login block are ignored, \r\n is accepted.
    let mut first = server.connect();
    let reply = login(&mut first, "alice", "secret\r\nHELLO");
    assert!(reply.starts_with("MESSAGE OK\nNEXTSTART 1 "), "{reply}");
    assert_eq!(
        refused(b"LOGIN alice secret\n.\n"),
        "MESSAGE ALREADY_CONNECTED\n.\n"
    );
    // Once the first connection is gone, the team may log in again.
    drop(first);
    std::thread::sleep(Duration::from_millis(200));
    let mut again = server.connect();
    assert!(login(&mut again, "alice", "secret").starts_with("MESSAGE OK\n"));
    assert!(!server.log().contains("secret"), "{}", server.log());
}

/// A client that plays with the greedy robot through the wire codec, checking that every block
/// that follows its own reply is its own simulation of that reply.
fn checked_player(stream: TcpStream, team: &str, password: &str) -> (String, u32) {
    let mut writer = stream.try_clone().unwrap();
    write!(writer, "LOGIN {team} {password}\n.\n").unwrap();
    let mut reader = BufReader::new(stream);
    assert!(read_block(&mut reader).starts_with("MESSAGE OK\n"));
    let mut robot = Labyrinth::robot("greedy", 0).unwrap();
    let mut client = LabyrinthClient::default();
    let mut expected: Option<String> = None;
    let mut previous_fields: Option<(Vec<u8>, usize, usize)> = None;
    let mut all = String::new();
    let mut turns = 0;
    loop {
        let block = read_block(&mut reader);
        if block.is_empty() {
            return (all, turns);
        }
        all.push_str(&block);
        if block.starts_with("TICK") {
            if let Some(expected) = expected.take() {
                // The turn block sent to every seat is the same up to its private part.
                let public = block.split("MESSAGE ").next().unwrap();
                let want = expected.split("MESSAGE ").next().unwrap();
                assert_eq!(public.trim_end_matches(".\n"), want.trim_end_matches(".\n"));
            }
            let fields: Vec<u8> = block
                .lines()
                .find(|l| l.starts_with("FIELDS "))
                .unwrap()
                .split(' ')
                .skip(1)
                .map(|t| t.parse().unwrap())
                .collect();
            if let Some((before, w, h)) = &previous_fields {
                assert!(one_push_apart(before, &fields, *w, *h), "{block}");
            }
            previous_fields = client
                .game()
                .map(|game| (fields, game.width(), game.height()));
        } else {
            previous_fields = None;
        }
        for line in block.lines() {
            match Labyrinth::client_feed(&mut client, line).unwrap() {
                ClientEvent::YourTurn(game) => {
                    let action = robot.choose(&game);
                    let mut answer = String::new();
                    game.format_action(action, &mut answer);
                    answer.push_str("\n.\n");
                    reader.get_mut().write_all(answer.as_bytes()).unwrap();
                    turns += 1;
                    let mut next = game.clone();
                    next.apply(action).unwrap();
                    if next.to_move().is_some() {
                        let mut text = String::new();
                        let me = client.seat().unwrap();
                        if next.to_move() == Some(me) {
                            next.turn_message(me, &mut text);
                        } else {
                            next.watch_message(me, &mut text);
                        }
                        expected = Some(text);
                    }
                }
                ClientEvent::End => {}
                _ => {}
            }
        }
    }
}

/// Whether `after` is `before` with one row or column pushed (or unchanged: a void turn).
fn one_push_apart(before: &[u8], after: &[u8], w: usize, h: usize) -> bool {
    if before == after {
        return true;
    }
    for c in 0..2u8 {
        for p in 0..2u8 {
            let lines = if c == 0 { h } else { w };
            for k in 0..lines {
                let mut tiles = before.to_vec();
                let (x, y) = if c == 0 {
                    (if p == 1 { 0 } else { w - 1 }, k)
                } else {
                    (k, if p == 1 { 0 } else { h - 1 })
                };
                let t = after[y * w + x];
                let push = arbiter_games::labyrinth::Push::new(c, p, k as u8, t);
                arbiter_games::labyrinth::board::push_tiles(&mut tiles, w, h, push);
                if tiles == after {
                    return true;
                }
            }
        }
    }
    false
}

#[test]
fn a_client_plays_a_whole_game_against_robots_and_every_block_follows_the_rules() {
    let dir = temp_dir("full");
    add_teams(&dir, &[("carol", "pw")]);
    let server = Server::start(
        &dir,
        &[
            "--interval",
            "3600",
            "--games",
            "1",
            "--start-when-idle",
            "1",
        ],
    );
    let (all, turns) = checked_player(server.connect(), "carol", "pw");
    assert!(turns > 0);
    assert!(
        all.contains("PLAYERS carol robot_1 robot_2 robot_3\n"),
        "{all}"
    );
    let end = all.rsplit("SCORE ").next().unwrap();
    assert!(end.contains("NEXTSTART 0 -1 0\n.\nEND "), "{end}");
    server.finish();
}

/// The `SCORE s st sf` line of a session's transcript.
fn score(all: &str) -> (f64, f64) {
    let line = all.lines().find(|l| l.starts_with("SCORE ")).unwrap();
    let v: Vec<f64> = line
        .split(' ')
        .skip(1)
        .map(|n| n.parse().unwrap())
        .collect();
    (v[0], v[1])
}

#[test]
fn a_restarted_server_keeps_the_scores() {
    let dir = temp_dir("restart");
    add_teams(&dir, &[("dave", "pw")]);
    let args = [
        "--interval",
        "3600",
        "--games",
        "1",
        "--start-when-idle",
        "1",
    ];
    let mut totals = 0.0;
    let mut levels = Vec::new();
    for _ in 0..3 {
        let server = Server::start(&dir, &args);
        let (all, _) = checked_player(server.connect(), "dave", "pw");
        let (s, st) = score(&all);
        totals += s;
        assert_eq!(st, totals, "{all}");
        levels.push(
            all.lines()
                .find(|l| l.starts_with("LEVEL "))
                .unwrap()
                .to_owned(),
        );
        server.finish();
    }
    // Levels cycle on, and game ids too.
    assert_eq!(levels, ["LEVEL 1", "LEVEL 2", "LEVEL 3"]);
    let out = run(arbiter()
        .args(["server", "labyrinth", "--standings", "--db"])
        .arg(dir.join("server.db")));
    let out = String::from_utf8(out.stdout).unwrap();
    assert!(out.contains(&format!("dave     0  {totals:>4}")), "{out}");
}

#[test]
fn bad_clients_are_dropped_and_the_others_play_on() {
    let dir = temp_dir("robust");
    add_teams(
        &dir,
        &[
            ("good", "pw"),
            ("flood", "pw"),
            ("deaf", "pw"),
            ("long", "pw"),
        ],
    );
    let server = Server::start(
        &dir,
        &[
            "--interval",
            "5",
            "--games",
            "4",
            "--start-when-idle",
            "4",
            "--reply-ms",
            "50",
            "--login-timeout",
            "30",
        ],
    );
    // A thousand connections that never log in (within their login time).
    let idle: Vec<TcpStream> = (0..1000).map(|_| server.connect()).collect();
    let mut deaf = server.connect();
    assert!(login(&mut deaf, "deaf", "pw").starts_with("MESSAGE OK"));
    let mut flood = server.connect();
    assert!(login(&mut flood, "flood", "pw").starts_with("MESSAGE OK"));
    let flooder = std::thread::spawn(move || {
        let mut reader = flood.try_clone().unwrap();
        std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
        let lines = "PUSH 0 0 0 1\n".repeat(1000);
        while flood.write_all(lines.as_bytes()).is_ok() {}
    });
    let mut long = server.connect();
    assert!(login(&mut long, "long", "pw").starts_with("MESSAGE OK"));
    let good = arbiter()
        .args([
            "bot",
            "labyrinth",
            "greedy",
            "--connect",
            &server.addr(),
            "--team",
            "good",
        ])
        .env("ARBITER_PASSWORD", "pw")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // An overlong line, logged in: told SYNTAX and dropped.
    let mut reader = BufReader::new(long.try_clone().unwrap());
    long.write_all(format!("{}\n", "y".repeat(5000)).as_bytes())
        .unwrap();
    let mut rest = String::new();
    let _ = reader.read_to_string(&mut rest);
    assert!(rest.ends_with("MESSAGE SYNTAX\n.\n"), "{rest}");
    let good = good.wait_with_output().unwrap();
    assert!(good.status.success());
    flooder.join().unwrap();
    let out = server.finish();
    assert!(out.contains("4 games played"), "{out}");
    let log = std::fs::read_to_string(dir.join("server.log")).unwrap();
    assert!(log.contains("flood"), "{log}");
    assert!(log.contains("stopped reading"), "{log}");
    drop(idle);
    drop(deaf);
}

#[test]
fn a_quoridor_bot_plays_a_match_over_tcp() {
    let dir = temp_dir("quoridor");
    add_teams(&dir, &[("q", "pw")]);
    let server = Server::start_game(
        &dir,
        "quoridor",
        &[
            "--interval",
            "3600",
            "--games",
            "1",
            "--start-when-idle",
            "1",
        ],
    );
    let bot = run(arbiter()
        .args(["bot", "quoridor", "runner", "--connect", &server.addr()])
        .args(["--team", "q", "--password", "pw"]));
    assert!(bot.status.success());
    let out = server.finish();
    assert!(out.contains("1 games played"), "{out}");
    let replay = arbiter_replay::read_replay(dir.join("replays/quoridor-1.jsonl")).unwrap();
    assert_eq!(replay.header.players[0].name, "q");
    assert_eq!(
        replay.header.players[0].kind,
        arbiter_replay::PlayerKind::Tcp
    );
    let result = replay.result.expect("the match ended");
    assert!(result.bots[0].errors == 0 && result.bots[0].timeouts == 0 && !result.bots[0].crashed);
}
