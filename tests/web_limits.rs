//! The web server's limits, on a real `arbiter web` process over real sockets: a huge replay and
//! a gzip bomb served and listed in bounded memory, a thousand live followers while the other
//! routes answer, idle connections closed, and connections over the cap refused while the
//! server goes on answering.

mod common;

use common::web::{WebServer, read_until};

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arbiter_replay::{BotTick, Header, MatchResult, Message, Player, PlayerKind, Record, Tick};
use flate2::Compression;
use flate2::write::GzEncoder;
use serde_json::{Value, json};

/// A folder of its own, removed (with its large files) when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        TempDir(common::temp_dir(name))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn line(record: &Record) -> Vec<u8> {
    let mut line = serde_json::to_vec(record).unwrap();
    line.push(b'\n');
    line
}

fn header_line() -> Vec<u8> {
    let players = ["north", "south"]
        .map(|name| Player {
            name: name.into(),
            kind: PlayerKind::Builtin,
            command: None,
        })
        .to_vec();
    line(&Record::Header(Header::new(
        "quoridor",
        json!({"size": 9}),
        1,
        players,
    )))
}

/// A tick of about a kilobyte, as a bot that logs a little writes them.
fn tick_line(n: u32) -> Vec<u8> {
    let bot = BotTick {
        received: vec![Message {
            at_ms: 1.5,
            text: "4 4 0 0 10 10\n".into(),
        }],
        sent: vec![Message {
            at_ms: 2.5,
            text: "4 5\n".into(),
        }],
        log: "thinking hard about the next move ".repeat(12),
        time_ms: Some(1.0),
        bank_ms: 900.0,
        ..BotTick::default()
    };
    line(&Record::Tick(Tick {
        tick: n,
        player: Some(n as usize % 2),
        action: json!({"kind": "move", "to": [4, 5]}),
        state: json!({"pawns": [[4, 5], [4, 3]], "walls": [10, 10]}),
        bots: vec![bot.clone(), bot],
    }))
}

fn result_line(ticks: u32) -> Vec<u8> {
    line(&Record::Result(MatchResult {
        ticks,
        reason: "goal".into(),
        scores: vec![1.0, 0.0],
        placement: vec![1, 2],
        bots: Vec::new(),
    }))
}

/// A complete plain replay of at least `bytes` bytes; its number of ticks.
fn write_big_replay(path: &Path, bytes: u64) -> u32 {
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    out.write_all(&header_line()).unwrap();
    // Ticks repeated from a block of a thousand: writing is as fast as the disk.
    let block: Vec<u8> = (0..1000).flat_map(tick_line).collect();
    let blocks = bytes.div_ceil(block.len() as u64) as u32;
    for _ in 0..blocks {
        out.write_all(&block).unwrap();
    }
    out.write_all(&result_line(blocks * 1000)).unwrap();
    out.flush().unwrap();
    blocks * 1000
}

/// A gzip file of a few megabytes that inflates to `members` times 64 MiB of valid tick lines:
/// one compressed member written again and again (gzip readers read members one after another).
fn write_gzip_bomb(path: &Path, members: usize) {
    let tick = tick_line(1);
    let mut text = header_line();
    let block: Vec<u8> = tick.repeat((64 << 20) / tick.len());
    let mut first = GzEncoder::new(Vec::new(), Compression::best());
    first.write_all(&text).unwrap();
    first.write_all(&block).unwrap();
    let mut out = std::fs::File::create(path).unwrap();
    out.write_all(&first.finish().unwrap()).unwrap();
    text.clear();
    let mut member = GzEncoder::new(Vec::new(), Compression::best());
    member.write_all(&block).unwrap();
    let member = member.finish().unwrap();
    for _ in 1..members {
        out.write_all(&member).unwrap();
    }
}

#[test]
fn a_huge_replay_and_a_gzip_bomb_are_served_and_listed_in_bounded_memory() {
    let dir = TempDir::new("huge");
    let big_ticks = write_big_replay(&dir.0.join("big.jsonl"), 500 << 20);
    write_gzip_bomb(&dir.0.join("bomb.jsonl.gz"), 32);
    let bomb_size = std::fs::metadata(dir.0.join("bomb.jsonl.gz"))
        .unwrap()
        .len();
    assert!(bomb_size < 16 << 20, "the bomb is {bomb_size} bytes");
    let server = WebServer::replays(&dir.0, &[]);

    let started = Instant::now();
    let (status, body) = server.get("/api/replays");
    assert_eq!(status, 200, "{body:.500}");
    let list: Value = serde_json::from_str(&body).unwrap();
    let find = |id: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .cloned()
            .unwrap()
    };
    let big = find("big.jsonl");
    assert_eq!(big["ticks"], big_ticks);
    assert_eq!(big["complete"], true);
    assert_eq!(big["problem"], Value::Null);
    let bomb = find("bomb.jsonl.gz");
    let problem = bomb["problem"].as_str().unwrap();
    assert!(
        problem.contains("bomb.jsonl.gz") && problem.contains("1024 MiB"),
        "{problem}"
    );
    eprintln!("listing: {:?}", started.elapsed());

    let (status, body) = server.get("/api/replay?id=bomb.jsonl.gz");
    assert_eq!(status, 422, "{body}");
    let refusal: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(refusal["kind"], "too_large");
    assert!(
        refusal["error"].as_str().unwrap().contains("bomb.jsonl.gz"),
        "{refusal}"
    );

    // The big replay, four times at once, each read as it comes and not kept.
    let started = Instant::now();
    let downloads: Vec<(u64, String)> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| download(&server, "/api/replay?id=big.jsonl")))
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    let lines = big_ticks + 2;
    for (total, end) in &downloads {
        assert!(*total > 500 << 20, "{total} bytes");
        assert!(
            end.contains(&format!(r#""complete":true,"lines":{lines}}}"#)),
            "{end}"
        );
    }
    eprintln!(
        "the 500 MB replay four times at once: {} bytes each in {:?}",
        downloads[0].0,
        started.elapsed()
    );

    let peak = server.peak_mib();
    eprintln!("peak memory of the server: {peak} MiB");
    assert!(peak < 200, "the server held {peak} MiB");
}

/// One request whose answer is read as it comes and not kept: its size, and its last bytes.
fn download(server: &WebServer, path: &str) -> (u64, String) {
    let mut stream = server.connect();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let (mut total, mut last) = (0u64, Vec::new());
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = stream.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        if total == 0 {
            let head = String::from_utf8_lossy(&buf[..n.min(200)]);
            assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        }
        total += n as u64;
        last.extend_from_slice(&buf[..n]);
        let keep = last.len().saturating_sub(300);
        last.drain(..keep);
    }
    (total, String::from_utf8_lossy(&last).into_owned())
}

#[test]
fn a_thousand_live_followers_leave_the_other_routes_answering() {
    let dir = TempDir::new("followers");
    let live = dir.0.join("live.jsonl");
    let mut file = std::fs::File::create(&live).unwrap();
    file.write_all(&header_line()).unwrap();
    file.write_all(&tick_line(0)).unwrap();
    file.flush().unwrap();
    let server = WebServer::replays(&dir.0, &[]);

    let followers: Vec<BufReader<TcpStream>> = (0..1000)
        .map(|_| {
            let mut stream = server.connect();
            write!(
                stream,
                "GET /api/replay/stream?id=live.jsonl HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            .unwrap();
            BufReader::new(stream)
        })
        .collect();
    // Every follower has its first two records: each is followed.
    let mut followers: Vec<_> = followers
        .into_iter()
        .map(|mut follower| {
            read_until(&mut follower, "id: 2");
            follower
        })
        .collect();

    let mut times = Vec::new();
    for round in 0..10 {
        for path in ["/api/replays", "/api/replay?id=live.jsonl", "/api/info"] {
            let started = Instant::now();
            let (status, body) = server.get(path);
            times.push(started.elapsed());
            assert_eq!(status, 200, "{path}, round {round}: {body:.300}");
        }
    }
    times.sort();
    let median = times[times.len() / 2];
    let slowest = times[times.len() - 1];
    eprintln!("with 1000 followers: median {median:?}, slowest {slowest:?}");
    assert!(median < Duration::from_millis(100), "median {median:?}");
    assert!(slowest < Duration::from_secs(2), "slowest {slowest:?}");

    // The match ends: every follower is told, and its stream ends.
    file.write_all(&result_line(0)).unwrap();
    file.flush().unwrap();
    let started = Instant::now();
    for follower in &mut followers {
        read_until(follower, "event: end");
    }
    eprintln!(
        "the result reached 1000 followers in {:?}",
        started.elapsed()
    );
    eprintln!("peak memory of the server: {} MiB", server.peak_mib());
}

/// Waits for the server to close `stream`; how long that took, from `since`.
fn closed_after(mut stream: TcpStream, since: Instant) -> Duration {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut buf = [0u8; 512];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return since.elapsed(),
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return since.elapsed(),
            Err(e) => panic!("the connection was not closed: {e}"),
        }
    }
}

/// One request on a kept-alive connection: the status (the body is read by its length).
fn keep_alive_get(stream: &mut BufReader<TcpStream>, path: &str) -> u16 {
    write!(stream.get_mut(), "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut status = String::new();
    stream.read_line(&mut status).unwrap();
    let mut length = 0;
    loop {
        let mut header = String::new();
        stream.read_line(&mut header).unwrap();
        if header == "\r\n" {
            break;
        }
        if let Some(value) = header.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    stream.read_exact(&mut body).unwrap();
    status.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn idle_connections_are_closed_and_those_over_the_cap_refused() {
    let dir = TempDir::new("idle");
    let server = WebServer::replays(&dir.0, &["--max-connections", "20", "--idle-timeout", "2"]);

    let mut kept = BufReader::new(server.connect());
    assert_eq!(keep_alive_get(&mut kept, "/api/info"), 200);
    let opened = Instant::now();
    let mut idle: Vec<TcpStream> = (0..19).map(|_| server.connect()).collect();
    // One sends half a request head and no more, as slowloris does.
    idle[0]
        .write_all(b"GET /api/info HTTP/1.1\r\nHost: x\r\n")
        .unwrap();

    // The cap is reached: one more is answered 503 and closed at once.
    let refused_at = Instant::now();
    let mut refused = server.connect();
    let mut answer = String::new();
    let _ = refused.read_to_string(&mut answer);
    assert!(refused_at.elapsed() < Duration::from_secs(1));
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 503"),
        "{answer}"
    );

    // The connections already open are still answered.
    assert_eq!(keep_alive_get(&mut kept, "/api/replays"), 200);

    // The idle ones are closed after the timeout, not before.
    let waited: Vec<Duration> = idle.drain(..).map(|s| closed_after(s, opened)).collect();
    let first = waited.iter().min().unwrap();
    let last = waited.iter().max().unwrap();
    eprintln!("idle connections closed after {first:?} to {last:?}");
    assert!(*first > Duration::from_millis(1500), "{first:?}");
    assert!(*last < Duration::from_secs(8), "{last:?}");

    // Their places are free again.
    let (status, _) = server.get("/api/info");
    assert_eq!(status, 200);
}
