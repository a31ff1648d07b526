//! Replays kept in the store reach the web server of another machine: a real `arbiter web
//! --db` over real sockets serves a finished match whose file is gone and follows a match
//! being written, both from the store only.

mod common;

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::sync::Arc;

use arbiter_replay::{Record, ReplayReader, ReplayWriter};
use arbiter_store::blocking::{ReplayStore, Store};
use arbiter_store::upload::{ReplayUpload, upload_file};
use arbiter_store::{
    Format, MatchReplay, NewMatch, Presence, ReplayKey, Scope, StoredResult, Tournament, now_ms,
};
use common::web::WebServer;
use serde_json::{Value, json};

/// A real Quoridor match between robots, played by `arbiter play`: its records.
fn robots_match(dir: &Path) -> Vec<Record> {
    let played = dir.join("played.jsonl.gz");
    common::play_json(
        "quoridor",
        &[
            "--bot",
            "builtin:runner",
            "--bot",
            "builtin:blocker",
            "--seed",
            "11",
            "--replay",
            played.to_str().unwrap(),
        ],
    );
    let reader = ReplayReader::open(&played).unwrap();
    let mut records = vec![Record::Header(reader.header().clone())];
    records.extend(reader.map(Result::unwrap));
    records
}

/// A tournament of two matches, both claimed; its id.
fn tournament(store: &Store, replays: &Path) -> i64 {
    let t = Tournament {
        id: 0,
        game: "quoridor".into(),
        format: Format::RoundRobin,
        seed: 11,
        rounds: 1,
        players_per_match: 2,
        settings: json!({"replays": replays}),
        created: now_ms(),
        finished: None,
        max_attempts: 3,
        name: None,
    };
    let matches: Vec<NewMatch> = (1..=2)
        .map(|id| NewMatch {
            id,
            round: 1,
            seats: vec!["builtin:runner".into(), "builtin:blocker".into()],
            seed: 11,
        })
        .collect();
    let settings = t.settings.clone();
    let id = store
        .create(&t, &|_| settings.clone(), &[], &matches, None)
        .unwrap();
    for _ in 0..2 {
        store
            .claim("w", 60_000, Scope::Tournament(id))
            .unwrap()
            .unwrap();
    }
    id
}

fn write(writer: &mut ReplayWriter, records: &[Record]) {
    for record in records {
        writer.write(record).unwrap();
    }
}

/// One HTTP/1.0 request (the answer is not chunked): the status and the body as JSON.
fn get_json(server: &WebServer, path: &str) -> (u16, Value) {
    let mut stream = server.connect();
    write!(stream, "GET {path} HTTP/1.0\r\nHost: x\r\n\r\n").unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let (status, body) = common::web::status_and_body(&text);
    let body = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body:.300}"));
    (status, body)
}

/// Reads a stream of server-sent events until a line holding `needle`: the records seen.
fn records_until(follower: &mut impl BufRead, needle: &str) -> usize {
    let mut records = 0;
    let mut line = String::new();
    loop {
        line.clear();
        let n = follower.read_line(&mut line).unwrap();
        assert!(n > 0, "the stream ended before {needle:?}");
        records += usize::from(line.trim_end() == "event: record");
        if line.contains("event: failure") {
            let mut data = String::new();
            follower.read_line(&mut data).unwrap();
            panic!("{line}{data}");
        }
        if line.contains(needle) {
            return records;
        }
    }
}

#[test]
fn a_finished_and_a_live_match_are_served_from_the_store_alone() {
    let dir = common::temp_dir("stored-replays");
    let db = dir.join("t.db");
    let store = Store::open(db.to_str().unwrap(), Presence::MayCreate).unwrap();
    let t = tournament(&store, &dir.join("replays"));
    let records = robots_match(&dir);
    let ticks = records.len() - 2;
    let replays = Arc::new(store.open_replays().unwrap());

    // Match 1 was played on another machine: its file is not here, its replay is stored.
    let finished = dir.join("m00001.jsonl.gz");
    let mut writer = ReplayWriter::create(&finished).unwrap();
    write(&mut writer, &records);
    writer.finish().unwrap();
    let key = |match_id| {
        ReplayKey::from(MatchReplay {
            tournament: t,
            match_id,
            claim: 1,
        })
    };
    upload_file(&replays, &key(1), &finished).unwrap();
    let result = StoredResult {
        scores: vec![1.0, 0.0],
        placement: vec![1, 2],
        reason: "goal".into(),
        faults: Vec::new(),
        replay: Some(finished.to_string_lossy().into_owned()),
        ticks: ticks as u32,
        time_ms: vec![0.0, 0.0],
        turns: vec![1, 1],
    };
    store.finish(t, &[(1, 1, result)]).unwrap();
    std::fs::remove_file(&finished).unwrap();

    // Match 2 is being played on another machine: half of it is written so far.
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let live = elsewhere.join("m00002.jsonl.gz");
    let upload = ReplayUpload::start(replays.clone(), key(2), &live);
    let mut writer = ReplayWriter::create(&live).unwrap();
    let half = records.len() / 2;
    write(&mut writer, &records[..half]);
    while replays.replay(&key(2)).unwrap().is_none_or(|r| r.size == 0) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }

    let server = WebServer::start(&[OsStr::new("--db"), db.as_os_str()]);
    let (status, replay) = get_json(&server, &format!("/api/tournaments/{t}/matches/1/replay"));
    assert_eq!(status, 200, "{replay}");
    assert_eq!(replay["complete"], true);
    assert_eq!(replay["ticks"].as_array().unwrap().len(), ticks);
    assert_eq!(replay["lines"], records.len());

    let follow = format!("/api/tournaments/{t}/matches/2/replay/stream");
    let mut follower = BufReader::new(server.connect());
    write!(
        follower.get_mut(),
        "GET {follow} HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    .unwrap();
    let seen = records_until(&mut follower, &format!("id: {half}"));
    assert_eq!(seen, half);
    let (status, partial) = get_json(&server, &format!("/api/tournaments/{t}/matches/2/replay"));
    assert_eq!(status, 200, "{partial}");
    assert_eq!(
        (partial["complete"].clone(), partial["lines"].clone()),
        (json!(false), json!(half))
    );

    write(&mut writer, &records[half..]);
    writer.finish().unwrap();
    upload.finish().unwrap();
    let rest = records_until(&mut follower, "event: end");
    assert_eq!(seen + rest, records.len(), "every line once, in order");
    assert!(!live.starts_with(dir.join("replays")));
    std::fs::remove_file(&live).unwrap();
    let (status, whole) = get_json(&server, &format!("/api/tournaments/{t}/matches/2/replay"));
    assert_eq!(status, 200, "{whole}");
    assert_eq!(whole["complete"], true);
    drop(server);
    replays_close(replays);
    store.close();
    std::fs::remove_dir_all(&dir).unwrap();
}

fn replays_close(replays: Arc<ReplayStore>) {
    if let Ok(replays) = Arc::try_unwrap(replays) {
        replays.close();
    }
}
