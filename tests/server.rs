//! The game server over real sockets: `arbiter server` as a process, clients written here.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use arbiter_games::labyrinth::{
    Labyrinth, LabyrinthClient, Push, class_of, push_tiles, pushed_cell, reach,
};
use arbiter_games::{ClientEvent, Game, Wire, WireClient};
use arbiter_pgtest::Cluster;
use arbiter_robots::Robots;
use common::{arbiter, root, run, temp_dir};

/// Board A of docs/games/labyrinth.md#test-vectors, the level of the docs/games/labyrinth.md#example-session example session.
const SPEC_LEVEL: &str = "crates/games/tests/data/labyrinth_board_a.txt";

/// What the server sends alice in docs/games/labyrinth.md#example-session after her login reply, byte for byte: the same file the
/// engine's and the importer's tests read, so the three cannot drift apart.
const SPEC_SESSION: &str = include_str!("../crates/games/tests/data/labyrinth_session.txt");

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
        let on = ["--port", "0", "--host", "127.0.0.1"];
        Server::start_on(dir, game, &on, args)
    }

    /// A server listening on every address of both IPv4 and IPv6: clients on 127.0.0.1 and
    /// on ::1 come from two different addresses.
    fn start_dual_stack(dir: &Path, args: &[&str]) -> Server {
        Server::start_on(dir, "labyrinth", &["--listen", "[::]:0"], args)
    }

    fn start_on(dir: &Path, game: &str, on: &[&str], args: &[&str]) -> Server {
        Server::start_on_store(dir, game, on, dir.join("server.db").as_os_str(), args)
    }

    fn start_on_store(dir: &Path, game: &str, on: &[&str], db: &OsStr, args: &[&str]) -> Server {
        let log = std::fs::File::create(dir.join("server.log")).unwrap();
        let mut child = arbiter()
            .args(["server", game])
            .args(on)
            .arg("--accounts")
            .arg(dir.join("teams.toml"))
            .arg("--db")
            .arg(db)
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

    /// A session that plays `games` games and starts each as soon as `idle` clients wait.
    fn session(dir: &Path, games: u32, idle: u32, args: &[&str]) -> Server {
        Server::session_of(dir, "labyrinth", games, idle, args)
    }

    fn session_of(dir: &Path, game: &str, games: u32, idle: u32, args: &[&str]) -> Server {
        let (games, idle) = (games.to_string(), idle.to_string());
        let mut all = vec![
            "--interval",
            "3600",
            "--games",
            &games,
            "--start-when-idle",
            &idle,
        ];
        all.extend_from_slice(args);
        Server::start_game(dir, game, &all)
    }

    fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(self.addr()).unwrap();
        // Only a safety net: a server that stops talking fails the test instead of hanging it.
        stream
            .set_read_timeout(Some(Duration::from_secs(300)))
            .unwrap();
        stream
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

/// Sends a login block; the server's answer block. Read byte by byte, so that nothing after
/// it (the game may start at once) is taken from the stream.
fn login(stream: &mut TcpStream, team: &str, password: &str) -> String {
    write!(stream, "LOGIN {team} {password}\n.\n").unwrap();
    let mut block = Vec::new();
    let mut byte = [0u8];
    while !(block.ends_with(b"\n.\n") || block == b".\n")
        && stream.read(&mut byte).unwrap_or(0) == 1
    {
        block.push(byte[0]);
    }
    String::from_utf8(block).unwrap()
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
    let level = root().join(SPEC_LEVEL);
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
    assert_eq!(
        alice_all,
        format!("MESSAGE OK\nNEXTSTART 1 30 0\n.\n{SPEC_SESSION}")
    );
    assert!(
        bob_all.contains("SCORE 0 0 0\nID 1\nNEXTSTART 0 -1 0\n.\nEND 0 0\n.\n"),
        "{bob_all}"
    );
    let out = server.finish();
    assert!(out.contains("1 games played"), "{out}");
    let log = std::fs::read_to_string(dir.join("server.log")).unwrap();
    assert!(!log.contains("secret") && !log.contains("hunter2"), "{log}");
    // Written gzipped, so read through the decoder.
    let mut replay = String::new();
    let file = std::fs::File::open(dir.join("replays/labyrinth-1.jsonl.gz")).unwrap();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(file), &mut replay).unwrap();
    assert!(
        replay.contains("\"type\":\"header\"")
            && !replay.contains("secret")
            && !replay.contains("hunter2")
    );
    let replay = arbiter_replay::read_replay(dir.join("replays/labyrinth-1.jsonl.gz")).unwrap();
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

/// A client that plays with the greedy robot through the wire codec, checking every block it
/// receives: those that follow its own reply against its own simulation of that reply, all of
/// them against the rules as a [`Watch`] sees them. Everything received, and its turns.
fn checked_player(stream: TcpStream, team: &str, password: &str) -> (String, u32) {
    let mut writer = stream.try_clone().unwrap();
    write!(writer, "LOGIN {team} {password}\n.\n").unwrap();
    let mut reader = BufReader::new(stream);
    let first = read_block(&mut reader);
    assert!(first.starts_with("MESSAGE OK\n"), "{first}");
    let (all, turns) = checked_session(reader);
    (first + &all, turns)
}

/// Plays a logged-in session to its end; see [`checked_player`].
fn checked_session(mut reader: BufReader<TcpStream>) -> (String, u32) {
    let mut robot = Labyrinth::robot("greedy", 0).unwrap();
    let mut client = LabyrinthClient::default();
    let mut watch = Watch::default();
    let mut expected: Option<String> = None;
    let mut all = String::new();
    let mut turns = 0;
    loop {
        let block = read_block(&mut reader);
        if block.is_empty() {
            return (all, turns);
        }
        all.push_str(&block);
        watch.block(&block);
        if block.starts_with("TICK")
            && let Some(expected) = expected.take()
        {
            // The turn block sent to every seat is the same up to its private part.
            let public = block.split("MESSAGE ").next().unwrap();
            let want = expected.split("MESSAGE ").next().unwrap();
            assert_eq!(public.trim_end_matches(".\n"), want.trim_end_matches(".\n"));
        }
        for line in block.lines() {
            if let ClientEvent::YourTurn(game) = Labyrinth::client_feed(&mut client, line).unwrap()
            {
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
        }
    }
}

/// One turn block as a client reads it.
#[derive(Clone, Debug)]
struct TurnBlock {
    tick: u32,
    fields: Vec<u8>,
    displays: BTreeMap<usize, (usize, usize)>,
    positions: Vec<(usize, usize)>,
    player: usize,
    /// MESSAGE, TARGET, EXTRAFIELD, GAMESCORE: only in the block of the seat on turn.
    private: Option<(String, usize, u8, u32)>,
}

impl TurnBlock {
    fn parse(block: &str) -> TurnBlock {
        let mut turn = TurnBlock {
            tick: 0,
            fields: Vec::new(),
            displays: BTreeMap::new(),
            positions: Vec::new(),
            player: 0,
            private: None,
        };
        let (mut message, mut target, mut extra, mut score) = (None, None, None, None);
        for line in block.lines() {
            let mut words = line.split(' ');
            let keyword = words.next().unwrap();
            let rest: Vec<&str> = words.collect();
            let n = |i: usize| -> usize { rest[i].parse().unwrap() };
            match keyword {
                "TICK" => turn.tick = n(0) as u32,
                "FIELDS" => turn.fields = rest.iter().map(|t| t.parse().unwrap()).collect(),
                "DISPLAY" => {
                    let previous = turn.displays.insert(n(0), (n(1), n(2)));
                    assert!(previous.is_none(), "a display listed twice: {block}");
                }
                "POSITION" => {
                    assert_eq!(n(0), turn.positions.len(), "seats in order: {block}");
                    turn.positions.push((n(1), n(2)));
                }
                "PLAYER" => turn.player = n(0),
                "MESSAGE" => message = Some(rest[0].to_owned()),
                "TARGET" => target = Some(n(0)),
                "EXTRAFIELD" => extra = Some(n(0) as u8),
                "GAMESCORE" => score = Some(n(0) as u32),
                "." => {}
                _ => panic!("unexpected line {line:?} in {block}"),
            }
        }
        if let Some(message) = message {
            turn.private = Some((message, target.unwrap(), extra.unwrap(), score.unwrap()));
        }
        turn
    }
}

/// What a client can know of a game from the blocks it receives, checked against the engine's
/// rules block by block: every seat's turn, robots' and other clients' too, must be one valid
/// push of a tile of that seat's extra (void turns aside), the seat's princess must end on a
/// cell reachable after that push, the others must only be carried by it, and a display may
/// disappear only under the princess of the seat that just moved.
#[derive(Default)]
struct Watch {
    width: usize,
    height: usize,
    seats: usize,
    me: usize,
    blocked_rows: Vec<usize>,
    blocked_columns: Vec<usize>,
    /// The tiles each seat's extra may be (more than one only when two pushes look alike).
    extras: Vec<Vec<u8>>,
    scores: Vec<u32>,
    last: Option<TurnBlock>,
}

impl Watch {
    fn block(&mut self, block: &str) {
        match block.split([' ', '\n']).next().unwrap() {
            "ID" => self.init(block),
            "TICK" => {
                let turn = TurnBlock::parse(block);
                self.turn(turn);
            }
            "SCORE" => {
                let s: u32 = block.split([' ', '\n']).nth(1).unwrap().parse().unwrap();
                let last = self.last.take().expect("a turn before the game's end");
                let mine = self.scores[self.me];
                // Only the last turn goes unseen: it may have scored, if it was this seat's.
                if last.player == self.me {
                    assert!(s == mine || s == mine + 1, "SCORE {s}, counted {mine}");
                } else {
                    assert_eq!(s, mine, "SCORE {s}, counted {mine}");
                }
            }
            _ => {}
        }
    }

    fn init(&mut self, block: &str) {
        let mut blocked = Vec::new();
        for line in block.lines() {
            let words: Vec<&str> = line.split(' ').collect();
            match words[0] {
                "PLAYERS" => self.seats = words.len() - 1,
                "PLAYER" => self.me = words[1].parse().unwrap(),
                "SIZE" => {
                    self.width = words[1].parse().unwrap();
                    self.height = words[2].parse().unwrap();
                }
                "BLOCKED" => blocked.push((
                    words[1].parse::<usize>().unwrap(),
                    words[2].parse::<usize>().unwrap(),
                )),
                _ => {}
            }
        }
        self.blocked_columns = blocked.iter().map(|b| b.0).collect();
        self.blocked_rows = blocked.iter().map(|b| b.1).collect();
        self.extras = vec![vec![15]; self.seats];
        self.scores = vec![0; self.seats];
        self.last = None;
    }

    fn turn(&mut self, next: TurnBlock) {
        let (w, h) = (self.width, self.height);
        assert_eq!(next.fields.len(), w * h);
        assert_eq!(next.positions.len(), self.seats);
        assert!(next.player < self.seats);
        assert_eq!(
            next.private.is_some(),
            next.player == self.me,
            "only the seat on turn gets the private part"
        );
        match self.last.take() {
            None => assert_eq!(
                (next.tick, next.player),
                (0, 0),
                "a game starts with seat 0"
            ),
            Some(before) => self.moved(&before, &next),
        }
        if let Some((message, target, extra, score)) = &next.private {
            // The greedy robot never sends an invalid turn.
            assert_eq!(message, "OK");
            assert!(
                next.displays.contains_key(target),
                "TARGET {target} is not active"
            );
            assert!(
                self.extras[self.me].contains(extra),
                "EXTRAFIELD {extra}, the pushes seen leave {:?}",
                self.extras[self.me]
            );
            self.extras[self.me] = vec![*extra];
            assert_eq!(*score, self.scores[self.me], "GAMESCORE");
        }
        self.last = Some(next);
    }

    /// Checks the turn of `before.player` that led from `before` to `next`.
    fn moved(&mut self, before: &TurnBlock, next: &TurnBlock) {
        let (w, h) = (self.width, self.height);
        let k = before.player;
        let wrapped = k + 1 == self.seats;
        assert_eq!(next.player, (k + 1) % self.seats, "turn order");
        assert_eq!(
            next.tick,
            before.tick + u32::from(wrapped),
            "TICK counts rounds"
        );
        // Several candidate pushes may look alike: keep every extra they leave.
        let mut extras: Vec<u8> = Vec::new();
        let mut scored = None;
        if before.fields == next.fields
            && before.positions == next.positions
            && before.displays == next.displays
        {
            // A void turn.
            extras.extend(&self.extras[k]);
            scored = Some(0);
        }
        let mut tiles_to_try: Vec<u8> = Vec::new();
        for &e in &self.extras[k] {
            let (class, n) = class_of(e);
            tiles_to_try.extend(&class[..n]);
        }
        for c in 0..2u8 {
            let lines = if c == 0 { h } else { w };
            for line in 0..lines {
                let blocked = if c == 0 {
                    &self.blocked_rows
                } else {
                    &self.blocked_columns
                };
                if blocked.contains(&line) {
                    continue;
                }
                for p in 0..2u8 {
                    for &t in &tiles_to_try {
                        let push = Push::new(c, p, line as u8, t);
                        let mut tiles = before.fields.clone();
                        let fallen = push_tiles(&mut tiles, w, h, push);
                        if tiles != next.fields {
                            continue;
                        }
                        if let Some(points) = self.after_push(before, next, push, &tiles) {
                            assert!(scored.is_none_or(|s| s == points));
                            scored = Some(points);
                            if !extras.contains(&fallen) {
                                extras.push(fallen);
                            }
                        }
                    }
                }
            }
        }
        let Some(points) = scored else {
            panic!(
                "seat {k}'s turn (extra {:?}) is no valid push and reachable move:\n{before:?}\n{next:?}",
                self.extras[k]
            );
        };
        self.extras[k] = extras;
        self.scores[k] += points;
    }

    /// Whether `next` follows from `before` by `push` (giving `tiles`) and a GOTO of the seat on
    /// turn; the points it scored if so.
    fn after_push(
        &self,
        before: &TurnBlock,
        next: &TurnBlock,
        push: Push,
        tiles: &[u8],
    ) -> Option<u32> {
        let (w, h) = (self.width, self.height);
        let k = before.player;
        for (s, &(x, y)) in before.positions.iter().enumerate() {
            let carried = pushed_cell(w, h, push, x, y);
            if s == k {
                let (gx, gy) = next.positions[k];
                if !reach(tiles, w, h, carried.1 * w + carried.0).contains(gy * w + gx) {
                    return None;
                }
            } else if next.positions[s] != carried {
                return None;
            }
        }
        if next
            .displays
            .keys()
            .any(|d| !before.displays.contains_key(d))
        {
            return None;
        }
        let mut points = 0;
        for (d, &(x, y)) in &before.displays {
            let carried = pushed_cell(w, h, push, x, y);
            match next.displays.get(d) {
                Some(&cell) if cell == carried => {}
                Some(_) => return None,
                None if carried == next.positions[k] => points += 1,
                None => return None,
            }
        }
        (points <= 1).then_some(points)
    }
}

#[test]
fn a_client_plays_a_whole_game_against_robots_and_every_block_follows_the_rules() {
    let dir = temp_dir("full");
    add_teams(&dir, &[("carol", "pw")]);
    let server = Server::session(&dir, 1, 1, &[]);
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

/// The server queues the last SCORE and END blocks and ends its session: they must still reach
/// every client before the process exits, whichever client's socket is written last.
/// A small level for ten, with no blocked cell: 8 × 5, ten displays, three rounds.
fn ten_seat_level(dir: &Path) -> PathBuf {
    let mut level = String::from("SIZE 8 5\nMAXTICK 3\nFIELDS");
    for i in 0..40 {
        level.push_str(&format!(" {}", (i * 7 + i / 8) % 15 + 1));
    }
    level.push('\n');
    for d in 0..10 {
        level.push_str(&format!("DISPLAY {d} {} {}\n", (d * 3) % 8, d / 3));
    }
    for s in 0..10 {
        let targets: Vec<String> = (0..10).map(|i| ((s + i) % 10).to_string()).collect();
        level.push_str(&format!(
            "SEAT {s} {} 4 TARGETS {}\n",
            s % 8,
            targets.join(" ")
        ));
    }
    let path = dir.join("ten.level");
    std::fs::write(&path, level).unwrap();
    path
}

#[test]
fn every_client_hears_the_end_of_the_session_before_the_server_exits() {
    let dir = temp_dir("end");
    let teams: Vec<String> = (0..10).map(|i| format!("e{i}")).collect();
    let accounts: Vec<(&str, &str)> = teams.iter().map(|t| (t.as_str(), "pw")).collect();
    add_teams(&dir, &accounts);
    let level = ten_seat_level(&dir);
    let server = Server::session(&dir, 1, 10, &["--level-file", level.to_str().unwrap()]);
    let clients: Vec<_> = teams
        .iter()
        .map(|team| {
            let stream = server.connect();
            let team = team.clone();
            std::thread::spawn(move || checked_player(stream, &team, "pw").0)
        })
        .collect();
    for client in clients {
        let all = client.join().unwrap();
        assert!(all.contains("\nNEXTSTART 0 -1 0\n.\nEND "), "{all}");
    }
    server.finish();
}

/// A board every cell of which is open to every other: a lone greedy player scores on every
/// turn, so a game gives it exactly as many points as there are displays.
const OPEN_LEVEL: &str = "SIZE 4 4
MAXTICK 3
FIELDS 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15
DISPLAY 0 3 3
DISPLAY 1 0 3
DISPLAY 2 3 0
SEAT 0 0 0 TARGETS 0 1 2
";

/// A small level for four, with two blocked cells, mostly open: who moves first takes more of
/// the six displays, so the live totals depend on the seat order.
const FOUR_LEVEL: &str = "SIZE 6 6
MAXTICK 3
FIELDS 15 15 14 15 15 15
FIELDS 15 3 15 15 12 15
FIELDS 15 15 15 11 15 15
FIELDS 13 15 15 15 15 15
FIELDS 15 15 6 15 15 7
FIELDS 15 15 15 15 15 15
BLOCKED 2 2
BLOCKED 4 4
DISPLAY 0 5 5
DISPLAY 1 0 5
DISPLAY 2 3 0
DISPLAY 3 1 3
DISPLAY 4 5 2
DISPLAY 5 2 4
SEAT 0 0 0 TARGETS 0 1 2 3 4 5
SEAT 1 5 0 TARGETS 5 4 3 2 1 0
SEAT 2 0 5 TARGETS 3 5 1 0 2 4
SEAT 3 5 5 TARGETS 4 2 0 5 3 1
";

/// The numbers of the first line of `block` starting with `keyword`.
fn numbers_of(block: &str, keyword: &str) -> Vec<f64> {
    let prefix = format!("{keyword} ");
    let line = block
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no {keyword} in {block}"));
    line.split(' ')
        .skip(1)
        .map(|n| n.parse().unwrap())
        .collect()
}

/// The blocks of a transcript.
fn blocks(all: &str) -> Vec<&str> {
    all.split_inclusive(".\n").collect()
}

/// One game of a live session as one client saw it.
#[derive(Debug)]
struct SeenGame {
    players: Vec<String>,
    level: u32,
    /// s, st, sf of its SCORE line.
    score: (f64, f64, f64),
    /// NEXTSTART X t m of its after-game block.
    next: Vec<f64>,
}

fn seen_games(team: &str, all: &str) -> Vec<SeenGame> {
    let mut games = Vec::new();
    let mut players = Vec::new();
    let mut level = 0;
    for block in blocks(all) {
        if block.starts_with("ID ") {
            let line = block.lines().find(|l| l.starts_with("PLAYERS ")).unwrap();
            players = line.split(' ').skip(1).map(str::to_owned).collect();
            let seat = numbers_of(block, "PLAYER")[0] as usize;
            assert_eq!(
                players[seat], team,
                "PLAYER is the client's own seat: {block}"
            );
            level = numbers_of(block, "LEVEL")[0] as u32;
        } else if block.starts_with("SCORE ") {
            let s = numbers_of(block, "SCORE");
            games.push(SeenGame {
                players: std::mem::take(&mut players),
                level,
                score: (s[0], s[1], s[2]),
                next: numbers_of(block, "NEXTSTART"),
            });
        }
    }
    games
}

#[test]
fn a_live_session_seats_the_fifteen_games_in_the_order_of_the_final() {
    let dir = temp_dir("live");
    let teams = ["t1", "t2", "t3", "t4"];
    add_teams(&dir, &teams.map(|t| (t, "pw")));
    std::fs::write(dir.join("open.level"), OPEN_LEVEL).unwrap();
    std::fs::write(dir.join("four.level"), FOUR_LEVEL).unwrap();
    // Test scores first, on the same database: t3 plays two test games alone, t4 one, t1 and t2
    // none (a tie, broken by login order).
    let mut test = HashMap::from([("t1", 0.0), ("t2", 0.0)]);
    for (team, games) in [("t3", "2"), ("t4", "1")] {
        let server = Server::start(
            &dir,
            &[
                "--interval",
                "3600",
                "--games",
                games,
                "--min-players",
                "1",
                "--start-when-idle",
                "1",
                "--level-file",
                dir.join("open.level").to_str().unwrap(),
            ],
        );
        let (all, _) = checked_player(server.connect(), team, "pw");
        let last = seen_games(team, &all).pop().unwrap();
        assert!(last.score.1 > 0.0, "{all}");
        test.insert(team, last.score.1);
        server.finish();
    }
    assert!(test["t3"] > test["t4"], "{test:?}");

    let server = Server::start(
        &dir,
        &[
            "--live",
            "--interval",
            "3600",
            "--min-players",
            "4",
            "--start-when-idle",
            "4",
            "--level-file",
            dir.join("four.level").to_str().unwrap(),
        ],
    );
    // Logins one after the other, in an order that is none of the orders checked.
    let login_order = ["t3", "t2", "t4", "t1"];
    let mut players = Vec::new();
    for team in login_order {
        let stream = server.connect();
        let mut writer = stream.try_clone().unwrap();
        write!(writer, "LOGIN {team} pw\n.\n").unwrap();
        let mut reader = BufReader::new(stream);
        let first = read_block(&mut reader);
        assert!(first.starts_with("MESSAGE OK\nNEXTSTART 1 "), "{first}");
        assert!(first.ends_with(" 1\n.\n"), "m = 1 in live mode: {first}");
        players.push((team, std::thread::spawn(move || checked_session(reader))));
    }
    let transcripts: Vec<(&str, String)> = players
        .into_iter()
        .map(|(team, thread)| (team, thread.join().unwrap().0))
        .collect();
    let out = server.finish();
    assert!(out.contains("15 games played"), "{out}");

    let login = |team: &str| login_order.iter().position(|t| *t == team).unwrap();
    let seen: HashMap<&str, Vec<SeenGame>> = transcripts
        .iter()
        .map(|(team, all)| (*team, seen_games(team, all)))
        .collect();
    for (team, games) in &seen {
        assert_eq!(games.len(), 15, "{team}");
    }
    // Live totals after each game, from the SCORE lines; test totals do not move.
    let mut live: HashMap<&str, f64> = teams.iter().map(|t| (*t, 0.0)).collect();
    let mut sorted: Vec<&str> = teams.to_vec();
    for (g, first) in seen["t1"].iter().enumerate() {
        let players = &first.players;
        for team in teams {
            assert_eq!(&seen[team][g].players, players, "game {}", g + 1);
        }
        match g / 5 {
            0 => sorted.sort_by(|a, b| test[a].total_cmp(&test[b]).then(login(a).cmp(&login(b)))),
            1 => sorted.sort_by(|a, b| test[b].total_cmp(&test[a]).then(login(a).cmp(&login(b)))),
            _ => {
                sorted.sort_by(|a, b| {
                    live[a]
                        .total_cmp(&live[b])
                        .then(test[a].total_cmp(&test[b]))
                        .then(login(a).cmp(&login(b)))
                });
                // n = 4: s_3, s_1, s_0, s_2.
                sorted = [3, 1, 0, 2].map(|i| sorted[i]).to_vec();
            }
        }
        assert_eq!(players, &sorted, "seats of game {}: {live:?}", g + 1);
        for team in teams {
            let game = &seen[team][g];
            assert_eq!(game.level, g as u32 % 5 + 1);
            assert_eq!(
                game.score.1,
                test[team],
                "{team}'s test total in game {}",
                g + 1
            );
            let total = live[team] + game.score.0;
            assert_eq!(
                game.score.2,
                total,
                "{team}'s live total after game {}",
                g + 1
            );
            live.insert(team, total);
            if g < 14 {
                assert_eq!(game.next[0], (g as f64 + 1.0) % 5.0 + 1.0);
                assert_eq!(game.next[2], 1.0);
            } else {
                assert_eq!(game.next, [0.0, -1.0, 1.0]);
            }
        }
    }
    // Round 3 only tests the live scores if they differ: the level is chosen so they do.
    let mut totals: Vec<f64> = live.values().copied().collect();
    totals.sort_by(f64::total_cmp);
    totals.dedup();
    assert!(totals.len() > 1, "{live:?}");
    for (team, all) in &transcripts {
        assert!(
            all.ends_with(&format!("END {} {}\n.\n", test[team], live[team])),
            "{team}: {all}"
        );
    }
    // The live totals are in the database, and a restarted live server does not play again.
    let out = run(arbiter()
        .args(["server", "labyrinth", "--standings", "--db"])
        .arg(dir.join("server.db")));
    let out = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 4, "{out}");
    for row in &rows {
        let team = row[1];
        assert_eq!(row[2].parse::<f64>().unwrap(), live[team], "{out}");
        assert_eq!(row[3].parse::<f64>().unwrap(), test[team], "{out}");
    }
    let again = Server::start(&dir, &["--live", "--interval", "3600"]).finish();
    assert!(again.contains("0 games played"), "{again}");
}

/// `arbiter bot GAME NAME --connect` plays one match against the server's robot; the replay
/// shows the TCP seat without a fault.
fn bot_plays_a_match_over_tcp(game: &str, bot: &str) {
    let dir = temp_dir(game);
    add_teams(&dir, &[("b", "pw")]);
    let server = Server::session_of(&dir, game, 1, 1, &[]);
    run(arbiter()
        .args(["bot", game, bot, "--connect", &server.addr()])
        .args(["--team", "b", "--password", "pw"]));
    let out = server.finish();
    assert!(out.contains("1 games played"), "{out}");
    let replay =
        arbiter_replay::read_replay(dir.join(format!("replays/{game}-1.jsonl.gz"))).unwrap();
    let players = &replay.header.players;
    assert_eq!(
        (players[0].name.as_str(), players[0].kind),
        ("b", arbiter_replay::PlayerKind::Tcp)
    );
    assert_ne!(players[1].kind, arbiter_replay::PlayerKind::Tcp);
    let result = replay.result.expect("the match ended");
    let tcp = &result.bots[0];
    assert!(
        tcp.errors == 0 && tcp.timeouts == 0 && !tcp.crashed,
        "{:?}\n{}",
        result.bots,
        std::fs::read_to_string(dir.join("server.log")).unwrap()
    );
}

#[test]
fn a_domino_bot_acknowledges_the_start_and_plays_a_match_over_tcp() {
    bot_plays_a_match_over_tcp("domino", "parity");
}

#[test]
fn a_quoridor_bot_plays_a_match_over_tcp() {
    bot_plays_a_match_over_tcp("quoridor", "runner");
}

#[test]
fn a_puoribor_bot_plays_a_match_over_tcp() {
    bot_plays_a_match_over_tcp("puoribor", "runner");
}

/// docs/games/labyrinth.md#disconnects: a client that disconnects leaves its princess on the board and its turns void; the
/// others play on, and the game's clients still hear the end.
#[test]
fn a_client_that_disconnects_mid_game_leaves_its_princess_and_its_turns_are_void() {
    let dir = temp_dir("disconnect");
    add_teams(&dir, &[("dave", "pw"), ("erin", "pw")]);
    let server = Server::session(&dir, 1, 2, &["--min-players", "2"]);
    // Dave logs in first (seat 0) and leaves as soon as the game starts.
    let mut dave = server.connect();
    assert_eq!(
        login(&mut dave, "dave", "pw"),
        "MESSAGE OK\nNEXTSTART 1 3600 0\n.\n"
    );
    let erin = std::thread::spawn({
        let addr = server.addr();
        move || {
            run(arbiter()
                .args(["bot", "labyrinth", "greedy", "--connect", &addr])
                .args(["--team", "erin", "--password", "pw"]))
        }
    });
    let init = read_block(&mut BufReader::new(dave.try_clone().unwrap()));
    assert!(
        init.starts_with("ID 1\nPLAYERS dave erin\nPLAYER 0\n"),
        "{init}"
    );
    drop(dave);
    erin.join().unwrap();
    server.finish();

    let replay = arbiter_replay::read_replay(dir.join("replays/labyrinth-1.jsonl.gz")).unwrap();
    let result = replay.result.as_ref().expect("the match ended");
    assert_ne!(result.reason, "abandoned", "erin is still connected");
    assert!(result.bots[0].crashed && !result.bots[1].crashed);
    let turns: Vec<_> = replay
        .ticks
        .iter()
        .filter(|t| t.player == Some(0))
        .collect();
    assert!(turns.len() > 1);
    for tick in turns {
        assert_eq!(
            tick.action["push"],
            serde_json::Value::Null,
            "dave's turns are void"
        );
        let before = &replay.ticks[tick.tick as usize - 1].state["positions"][0];
        assert_eq!(
            &tick.state["positions"][0], before,
            "his princess does not walk"
        );
    }
}

/// docs/games/labyrinth.md#disconnects: a game with no connected client left ends at once, robots or not.
#[test]
fn a_game_whose_last_client_disconnects_ends_at_once() {
    let dir = temp_dir("abandoned");
    add_teams(&dir, &[("frank", "pw")]);
    let server = Server::session(&dir, 1, 1, &[]);
    let mut frank = server.connect();
    login(&mut frank, "frank", "pw");
    let init = read_block(&mut BufReader::new(frank.try_clone().unwrap()));
    assert!(
        init.starts_with("ID 1\nPLAYERS frank robot_1 robot_2 robot_3\n"),
        "{init}"
    );
    drop(frank);
    server.finish();

    let replay = arbiter_replay::read_replay(dir.join("replays/labyrinth-1.jsonl.gz")).unwrap();
    let result = replay.result.expect("the match ended");
    assert_eq!(result.reason, "abandoned");
    assert!(result.ticks < 4, "ended after {} turns", result.ticks);
}

/// A client that answers each of its turns with a push of row 0 by its own extra tile (valid on
/// a level without blocked cells) until the server closes; everything received.
fn pushing_client(mut reader: BufReader<TcpStream>) -> String {
    let mut writer = reader.get_ref().try_clone().unwrap();
    let mut all = String::new();
    loop {
        let block = read_block(&mut reader);
        if block.is_empty() {
            return all;
        }
        if let Some(extra) = block.lines().find_map(|l| l.strip_prefix("EXTRAFIELD ")) {
            write!(writer, "PUSH 0 1 0 {extra}\n.\n").unwrap();
        }
        all.push_str(&block);
    }
}

/// docs/games/labyrinth.md#sessions-on-the-game-server: more than ten waiting clients play ⌈n/10⌉ games at once of near-equal size, seated in
/// one order (here all tied on test score, so by login) and cut into consecutive tables.
#[test]
fn twelve_waiting_clients_play_two_tables_of_six_in_login_order() {
    let dir = temp_dir("tables");
    let teams: Vec<String> = (0..12).map(|i| format!("t{i:02}")).collect();
    let accounts: Vec<(&str, &str)> = teams.iter().map(|t| (t.as_str(), "pw")).collect();
    add_teams(&dir, &accounts);
    let level = ten_seat_level(&dir);
    let server = Server::session(&dir, 2, 12, &["--level-file", level.to_str().unwrap()]);
    let clients: Vec<_> = teams
        .iter()
        .map(|team| {
            // One after another: each login is answered before the next team connects.
            let mut stream = server.connect();
            assert!(login(&mut stream, team, "pw").starts_with("MESSAGE OK\n"));
            std::thread::spawn(move || pushing_client(BufReader::new(stream)))
        })
        .collect();
    let mut tables: BTreeMap<String, String> = BTreeMap::new();
    for (team, client) in teams.iter().zip(clients) {
        let all = client.join().unwrap();
        let id = all.lines().find_map(|l| l.strip_prefix("ID ")).unwrap();
        let players = all
            .lines()
            .find_map(|l| l.strip_prefix("PLAYERS "))
            .unwrap();
        assert!(
            players.split(' ').any(|p| p == team),
            "{team} not in {players}"
        );
        assert!(all.contains("\nNEXTSTART 0 -1 0\n.\nEND "), "{all}");
        let seen = tables
            .entry(id.to_owned())
            .or_insert_with(|| players.to_owned());
        assert_eq!(
            seen, players,
            "every client of game {id} hears the same PLAYERS"
        );
    }
    server.finish();
    let tables: Vec<&String> = tables.values().collect();
    assert_eq!(tables, [&teams[..6].join(" "), &teams[6..].join(" ")]);
}

/// An operator adds a team during a session: it logs in without a restart.
#[test]
fn a_team_added_while_the_server_runs_can_log_in() {
    let dir = temp_dir("add-team");
    add_teams(&dir, &[("alice", "secret")]);
    let server = Server::start(&dir, &["--interval", "3600"]);
    let mut early = server.connect();
    assert_eq!(login(&mut early, "zed", "pw"), "MESSAGE BAD_LOGIN\n.\n");
    add_teams(&dir, &[("zed", "pw")]);
    let mut zed = server.connect();
    assert!(login(&mut zed, "zed", "pw").starts_with("MESSAGE OK\n"));
    let mut alice = server.connect();
    assert!(login(&mut alice, "alice", "secret").starts_with("MESSAGE OK\n"));
}

/// A client of the server from ::1, whereas [`Server::connect`] comes from 127.0.0.1.
fn connect_v6(server: &Server) -> TcpStream {
    let stream = TcpStream::connect(("::1", server.port)).expect("IPv6 on the loopback");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    stream
}

/// A line of /proc/PID/status in kB, e.g. `VmHWM`.
fn status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in {status}"))
}

/// How many sockets this process may open besides what it has: the soft limit of open files
/// (read from /proc, no system call), minus a margin for the other tests.
fn spare_descriptors() -> usize {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(3)?.parse::<usize>().ok())
        .map_or(500, |soft| soft.saturating_sub(300).max(100))
}

/// Sends a bad login on each of `count` connections, all open at once (as many as the
/// descriptors allow), then reads every answer.
fn flood_of_bad_logins(server: &Server, count: usize) -> Vec<String> {
    let mut answers = Vec::with_capacity(count);
    let wave = spare_descriptors().min(count);
    while answers.len() < count {
        let open: Vec<TcpStream> = (0..wave.min(count - answers.len()))
            .map(|_| {
                let mut s = server.connect();
                s.write_all(b"LOGIN alice guess\n.\n").unwrap();
                s
            })
            .collect();
        answers.extend(open.into_iter().map(|mut s| read_to_end(&mut s)));
    }
    answers
}

/// A thousand bad logins from one address, all at once, while a team logs in from another:
/// its answer comes within a second, and the server's memory stays bounded.
#[test]
fn a_flood_of_bad_logins_neither_delays_a_good_login_nor_grows_the_server() {
    let dir = temp_dir("login-flood");
    add_teams(&dir, &[("alice", "secret"), ("bob", "pw")]);
    let server = Server::start_dual_stack(&dir, &["--interval", "3600"]);
    let flood = std::thread::scope(|scope| {
        let flood = scope.spawn(|| flood_of_bad_logins(&server, 1000));
        // Let the flood start before the good login.
        std::thread::sleep(Duration::from_millis(300));
        let mut bob = connect_v6(&server);
        let start = std::time::Instant::now();
        let reply = login(&mut bob, "bob", "pw");
        let waited = start.elapsed();
        assert!(reply.starts_with("MESSAGE OK\n"), "{reply}");
        eprintln!("good login answered in {waited:?} during the flood");
        assert!(waited < Duration::from_secs(1), "{waited:?}");
        flood.join().unwrap()
    });
    assert!(
        flood.iter().all(|a| a == "MESSAGE BAD_LOGIN\n.\n"),
        "{:?}",
        flood.iter().find(|a| *a != "MESSAGE BAD_LOGIN\n.\n")
    );
    let pid = server.child.id();
    let (peak, now) = (status_kb(pid, "VmHWM"), status_kb(pid, "VmRSS"));
    eprintln!("server memory: peak {peak} kB, now {now} kB");
    assert!(peak < 200 * 1024, "the server peaked at {peak} kB");
    let log = server.log();
    assert!(
        log.contains("too many failed logins from its address"),
        "{log}"
    );
}

/// A name that is no team is refused in the same time as a wrong password: the time of the
/// answer does not tell which teams exist.
#[test]
fn unknown_and_known_teams_are_refused_in_the_same_time() {
    let dir = temp_dir("login-timing");
    add_teams(&dir, &[("alice", "secret")]);
    let server = Server::start(&dir, &["--interval", "3600"]);
    let time_of = |team: &str| {
        let mut s = server.connect();
        let start = std::time::Instant::now();
        assert_eq!(login(&mut s, team, "wrong"), "MESSAGE BAD_LOGIN\n.\n");
        start.elapsed()
    };
    let (mut known, mut unknown) = (Vec::new(), Vec::new());
    // Four of each, alternating: eight failures, within the free ones of an address.
    for _ in 0..4 {
        known.push(time_of("alice"));
        unknown.push(time_of("nobody"));
    }
    known.sort();
    unknown.sort();
    let (known, unknown) = (known[2], unknown[2]);
    eprintln!("refused in {known:?} (known team), {unknown:?} (no such team)");
    let ratio = unknown.as_secs_f64() / known.as_secs_f64();
    assert!((0.5..2.0).contains(&ratio), "{unknown:?} against {known:?}");
}

/// After ten failures an address waits before its next attempt: a login made too early is
/// refused unchecked, even with the right password; the team still logs in from elsewhere.
#[test]
fn repeated_bad_logins_from_one_address_are_refused_unchecked() {
    let dir = temp_dir("login-throttle");
    add_teams(&dir, &[("alice", "secret")]);
    let server = Server::start_dual_stack(&dir, &["--interval", "3600"]);
    let answers: Vec<String> = std::thread::scope(|scope| {
        let guesses: Vec<_> = (0..12)
            .map(|i| {
                let server = &server;
                scope.spawn(move || {
                    let mut s = server.connect();
                    login(&mut s, "alice", &format!("guess{i}"))
                })
            })
            .collect();
        guesses.into_iter().map(|g| g.join().unwrap()).collect()
    });
    assert!(answers.iter().all(|a| a == "MESSAGE BAD_LOGIN\n.\n"));
    let mut right = server.connect();
    assert_eq!(
        login(&mut right, "alice", "secret"),
        "MESSAGE BAD_LOGIN\n.\n"
    );
    let mut elsewhere = connect_v6(&server);
    assert!(login(&mut elsewhere, "alice", "secret").starts_with("MESSAGE OK\n"));
    let log = server.log();
    assert!(
        log.contains("too many failed logins from its address, not checked"),
        "{log}"
    );
}

fn file_mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// The accounts file is created for its owner only and kept so; one others may read is
/// warned about, once, by `accounts add` and by the server.
#[test]
fn the_accounts_file_is_kept_to_its_owner_and_a_readable_one_is_warned_about() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("accounts-mode");
    let file = dir.join("teams.toml");
    add_teams(&dir, &[("alice", "secret")]);
    assert_eq!(file_mode(&file), 0o600);
    add_teams(&dir, &[("bob", "pw")]);
    assert_eq!(file_mode(&file), 0o600);
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let added = run(arbiter()
        .args(["accounts", "add", "--file"])
        .arg(&file)
        .args(["carol", "--password", "pw"]));
    let said = String::from_utf8_lossy(&added.stderr);
    assert!(
        said.contains("warning:") && said.contains("mode 0644"),
        "{said}"
    );
    let server = Server::start(&dir, &["--interval", "3600"]);
    let mut alice = server.connect();
    assert!(login(&mut alice, "alice", "secret").starts_with("MESSAGE OK\n"));
    let log = server.log();
    assert_eq!(log.matches("warning:").count(), 1, "{log}");
    assert!(log.contains("chmod 600"), "{log}");
}

/// The JSON of an answer's body (chunked or not).
fn json_body(body: &str) -> serde_json::Value {
    let start = body.find(['{', '[']).expect("a JSON body");
    let end = body.rfind(['}', ']']).expect("a JSON body");
    serde_json::from_str(&body[start..=end]).unwrap_or_else(|e| panic!("{e}: {body}"))
}

#[test]
fn another_process_shows_the_game_server_from_its_store() {
    let dir = temp_dir("shown");
    add_teams(&dir, &[("erin", "pw"), ("fred", "pw")]);
    let server = Server::session(&dir, 2, 2, &[]);
    erin_and_fred_play_their_session(server);
    let db = dir.join("server.db");
    let web = common::web::WebServer::start(&["--db".as_ref(), db.as_os_str()]);
    let (code, body) = web.get("/api/servers/labyrinth");
    assert_eq!(code, 200, "{body}");
    let status = json_body(&body);
    assert_eq!(status["over"], true, "{status}");
    assert_eq!(status["played"], 2, "{status}");
    assert!(status["running"].as_array().unwrap().is_empty());
    assert!(status["next"].is_null());
    for team in status["teams"].as_array().unwrap() {
        assert_eq!(team["state"], "disconnected", "{status}");
        assert!(team["since"].is_i64(), "seen gone at the end: {status}");
    }
    let out = run(arbiter()
        .args(["server", "labyrinth", "--standings", "--db"])
        .arg(&db));
    let printed: Vec<(u64, String, f64, f64)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (
                w[0].parse().unwrap(),
                w[1].to_owned(),
                w[2].parse().unwrap(),
                w[3].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(printed.len(), 2, "both teams are ranked");
    let shown: Vec<(u64, String, f64, f64)> = status["scoreboard"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let n = |k: &str| s[k].as_f64().unwrap();
            (
                s["rank"].as_u64().unwrap(),
                s["team"].as_str().unwrap().to_owned(),
                n("live"),
                n("test"),
            )
        })
        .collect();
    assert_eq!(shown, printed, "the scoreboard is the standings");
    let (code, body) = web.get("/api/servers/labyrinth/games");
    assert_eq!(code, 200, "{body}");
    let games = json_body(&body);
    let ids: Vec<_> = games
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].clone())
        .collect();
    assert_eq!(ids, [2, 1], "newest first");
    assert_eq!(games[1]["level"], 1);
    assert_eq!(games[1]["seats"][0]["team"], true);
    let (code, body) = web.get("/api/servers/labyrinth/games/1/replay");
    assert_eq!(code, 200, "{body}");
    assert!(body.contains(r#""game":"labyrinth""#), "{body:.300}");
    let (code, body) = web.get("/api/servers/labyrinth/games/99");
    assert_eq!(code, 404, "{body}");
    assert!(
        body.contains("the labyrinth server has no game 99"),
        "{body}"
    );
    let (code, body) = web.get("/api/info");
    assert_eq!(code, 200);
    assert_eq!(
        json_body(&body)["servers"],
        serde_json::json!(["labyrinth"])
    );
}

/// A game server on PostgreSQL keeps each game's replay in the store, so that a viewer on
/// another machine (here: one the replay files are gone from) shows it; and every team of the
/// accounts file is listed, the one that never logged in too.
#[test]
fn a_game_server_on_postgresql_keeps_its_replays_in_the_store() {
    let dir = temp_dir("pg-shown");
    let cluster = Cluster::start().unwrap();
    let db = cluster.database("game_server");
    add_teams(&dir, &[("erin", "pw"), ("fred", "pw"), ("gina", "pw")]);
    let files = dir.join("replays");
    let on = ["--port", "0", "--host", "127.0.0.1"];
    let session = [
        "--interval",
        "3600",
        "--games",
        "2",
        "--start-when-idle",
        "2",
    ];
    let args: Vec<&str> = session
        .into_iter()
        .chain(["--replays", files.to_str().unwrap()])
        .collect();
    let server = Server::start_on_store(&dir, "labyrinth", &on, db.as_ref(), &args);
    erin_and_fred_play_their_session(server);

    let web = common::web::WebServer::start(&["--db".as_ref(), db.as_ref()]);
    let from_files: Vec<serde_json::Value> = (1..=2).map(|id| server_replay(&web, id)).collect();
    std::fs::remove_dir_all(&files).unwrap();
    for (id, from_file) in (1..=2).zip(&from_files) {
        // Compared whole, but not printed: a replay is long.
        assert!(
            &server_replay(&web, id) == from_file,
            "game {id}: not the same replay"
        );
    }
    let (code, body) = web.get("/api/servers/labyrinth/games/1/replay/stream");
    assert_eq!(code, 200, "{body}");
    assert!(
        body.contains("event: end"),
        "the stored replay is complete: {body:.300}"
    );

    let (code, body) = web.get("/api/servers/labyrinth");
    assert_eq!(code, 200, "{body}");
    let status = json_body(&body);
    let teams: Vec<(&str, bool)> = status["teams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["team"].as_str().unwrap(), t["since"].is_null()))
        .collect();
    assert_eq!(
        teams,
        [("erin", false), ("fred", false), ("gina", true)],
        "gina never logged in: {status}"
    );
}

/// Teams erin and fred (password `pw`) play `server`'s session to its end.
fn erin_and_fred_play_their_session(server: Server) {
    let players: Vec<_> = [("erin", server.connect()), ("fred", server.connect())]
        .into_iter()
        .map(|(team, stream)| std::thread::spawn(move || checked_player(stream, team, "pw")))
        .collect();
    for player in players {
        player.join().unwrap();
    }
    server.finish();
}

/// The replay of game `id` of the Labyrinth server, as the viewer's API answers it.
fn server_replay(web: &common::web::WebServer, id: u32) -> serde_json::Value {
    let (code, body) = web.get(&format!("/api/servers/labyrinth/games/{id}/replay"));
    assert_eq!(code, 200, "game {id}: {body:.300}");
    let replay: serde_json::Value = serde_json::from_str(&unchunked(&body)).unwrap();
    assert_eq!(replay["header"]["game"], "labyrinth");
    assert_eq!(replay["complete"], true);
    replay
}

/// A body sent in chunks (`SIZE\r\nBYTES\r\n`…, ending with size 0), put back together.
fn unchunked(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    loop {
        let (size, after) = rest.split_once("\r\n").expect("a chunk size line");
        let size = usize::from_str_radix(size.trim(), 16).expect("a hexadecimal chunk size");
        if size == 0 {
            return out;
        }
        out.push_str(&after[..size]);
        rest = &after[size + 2..];
    }
}
