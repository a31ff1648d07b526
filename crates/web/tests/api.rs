//! The JSON API and pages, called through the router with no socket (tower's `oneshot`).

use std::path::{Path, PathBuf};

use arbiter_replay::{
    BotSummary, BotTick, Header, MatchResult, Message, Player, PlayerKind, Record, ReplayWriter,
    Tick,
};
use arbiter_store::blocking::Store;
use arbiter_store::{
    Contestant, Format, Handed, NewMatch, RatingRow, Scope, SeatFaults, Status, StoredResult,
    Tournament, TournamentStore,
};
use arbiter_web::{AppState, ReplaySource, app};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

/// A fresh folder, removed when the test process exits.
fn temp_dir(name: &str) -> PathBuf {
    arbiter_testdir::fresh(&format!("api-{name}"))
}

fn bot(error: Option<&str>, log: &str, offline: bool) -> BotTick {
    BotTick {
        received: vec![Message {
            at_ms: 1.0,
            text: "1\n4 0 10\n4 8 10\n0\n\n".into(),
        }],
        sent: vec![Message {
            at_ms: 2.5,
            text: "4 1".into(),
        }],
        error: error.map(str::to_owned),
        notes: Vec::new(),
        log: log.into(),
        offline,
        time_ms: Some(1.5),
        cpu_ms: None,
        cpu_between_turns_ms: None,
        bank_ms: 990.0,
    }
}

fn tick(n: u32, bots: Vec<BotTick>) -> Record {
    Record::Tick(Tick {
        tick: n,
        player: (n > 0).then_some(((n + 1) % 2) as usize),
        action: if n == 0 {
            Tick::start_action()
        } else {
            json!({"kind": "move", "x": 4, "y": n})
        },
        state: json!({"tick": n, "pawns": [[4, 0], [4, 8]], "walls": []}),
        bots,
    })
}

fn header() -> Record {
    Record::Header(Header::new(
        "quoridor",
        json!({"board": 9}),
        7,
        vec![
            Player {
                name: "mybot".into(),
                kind: PlayerKind::Process,
                command: Some("./mybot".into()),
            },
            Player {
                name: "runner".into(),
                kind: PlayerKind::Builtin,
                command: None,
            },
        ],
    ))
}

fn result() -> Record {
    Record::Result(MatchResult {
        ticks: 3,
        reason: "goal".into(),
        scores: vec![0.0, 1.0],
        placement: vec![2, 1],
        bots: vec![
            BotSummary {
                name: "mybot".into(),
                errors: 1,
                timeouts: 0,
                crashed: true,
            },
            BotSummary {
                name: "runner".into(),
                errors: 0,
                timeouts: 0,
                crashed: false,
            },
        ],
    })
}

/// A short match: player 0 answers badly at tick 1 and crashes at tick 3.
fn records() -> Vec<Record> {
    vec![
        header(),
        tick(0, vec![bot(None, "", false), bot(None, "", false)]),
        tick(
            1,
            vec![
                bot(
                    Some("expected 2 numbers"),
                    "thinking\n#draw cell 4 4 red\n",
                    false,
                ),
                bot(None, "", false),
            ],
        ),
        tick(2, vec![bot(None, "", false), bot(None, "", false)]),
        tick(
            3,
            vec![
                bot(Some("bot exited with code 3"), "", true),
                bot(None, "", false),
            ],
        ),
        result(),
    ]
}

fn write_replay(path: &Path, records: &[Record]) {
    let mut writer = ReplayWriter::create(path).unwrap();
    for record in records {
        writer.write(record).unwrap();
    }
    writer.finish().unwrap();
}

/// Calls the router once; the body as JSON (or as a string, if it is not JSON).
async fn get(state: &AppState, uri: &str) -> (StatusCode, Value) {
    let response = app(state.clone())
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    (status, body)
}

/// The whole of a stream that ends by itself (after a result or a failure), as text.
async fn stream_text(state: &AppState, uri: &str) -> String {
    let response = app(state.clone())
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn replay_dir(name: &str) -> (PathBuf, AppState) {
    let dir = temp_dir(name);
    write_replay(&dir.join("plain.jsonl"), &records());
    std::fs::create_dir_all(dir.join("t1")).unwrap();
    write_replay(&dir.join("t1/packed.jsonl.gz"), &records());
    let state = AppState::new(ReplaySource::Dir(dir.clone()), None);
    (dir, state)
}

#[test]
fn lists_replays_with_their_summaries() {
    let (_dir, state) = replay_dir("list");
    runtime().block_on(async {
        let (status, body) = get(&state, "/api/replays").await;
        assert_eq!(status, StatusCode::OK);
        let list = body.as_array().unwrap();
        let mut ids: Vec<&str> = list.iter().map(|r| r["id"].as_str().unwrap()).collect();
        ids.sort();
        assert_eq!(ids, ["plain.jsonl", "t1/packed.jsonl.gz"]);
        for r in list {
            assert_eq!(r["game"], "quoridor");
            assert_eq!(r["players"], json!(["mybot", "runner"]));
            assert_eq!(r["ticks"], 4);
            assert_eq!(r["complete"], true);
            assert_eq!(r["faults"], 2);
            assert_eq!(r["placement"], json!([2, 1]));
        }
    });
}

#[test]
fn serves_a_replay_plain_or_gzip() {
    let (_dir, state) = replay_dir("one");
    runtime().block_on(async {
        for id in ["plain.jsonl", "t1%2Fpacked.jsonl.gz"] {
            let (status, body) = get(&state, &format!("/api/replay?id={id}")).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            assert_eq!(body["header"]["game"], "quoridor");
            assert_eq!(body["ticks"].as_array().unwrap().len(), 4);
            assert_eq!(body["ticks"][1]["bots"][0]["error"], "expected 2 numbers");
            assert_eq!(
                body["ticks"][1]["bots"][0]["log"],
                "thinking\n#draw cell 4 4 red\n"
            );
            assert_eq!(body["result"]["reason"], "goal");
            assert_eq!(body["complete"], true);
            assert_eq!(body["lines"], 6);
        }
    });
}

#[test]
fn names_no_file_outside_the_folder() {
    let (dir, state) = replay_dir("escape");
    std::fs::write(dir.join("notes.txt"), "secret").unwrap();
    runtime().block_on(async {
        for id in [
            "..%2Fetc%2Fpasswd",
            "%2Fetc%2Fpasswd",
            "notes.txt",
            "missing.jsonl",
            "t1%2F..%2F..%2Fx.jsonl",
        ] {
            let (status, body) = get(&state, &format!("/api/replay?id={id}")).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{id}: {body}");
            assert_eq!(body["kind"], "not_found");
        }
        let (status, body) = get(&state, "/api/replay").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(body["error"].as_str().unwrap().contains("id"));
    });
}

#[test]
fn a_newer_format_is_refused_with_a_message_for_people() {
    let dir = temp_dir("too-new");
    let mut lines = serde_json::to_value(header()).unwrap();
    lines["format"] = json!({"major": 2, "minor": 0});
    lines["added_in_2_0"] = json!(true);
    std::fs::write(dir.join("new.jsonl"), format!("{lines}\n")).unwrap();
    std::fs::write(dir.join("junk.jsonl"), "not json\n").unwrap();
    let state = AppState::new(ReplaySource::Dir(dir), None);
    runtime().block_on(async {
        let (status, body) = get(&state, "/api/replay?id=new.jsonl").await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(body["kind"], "too_new");
        let message = body["error"].as_str().unwrap();
        assert!(
            message.contains("2.0") && message.contains("upgrade"),
            "{message}"
        );

        let (status, body) = get(&state, "/api/replay?id=junk.jsonl").await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(body["kind"], "bad_replay");

        let (_, list) = get(&state, "/api/replays").await;
        let new = list
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == "new.jsonl")
            .unwrap();
        assert!(new["problem"].as_str().unwrap().contains("newer"));
    });
}

#[test]
fn a_damaged_line_is_refused_whole_and_named_in_the_listing() {
    let dir = temp_dir("damaged");
    let mut text = String::new();
    for (n, record) in records().iter().enumerate() {
        let line = serde_json::to_string(record).unwrap();
        // The second tick loses its end, as a file cut and appended to would.
        text.push_str(if n == 2 { &line[..40] } else { &line });
        text.push('\n');
    }
    std::fs::write(dir.join("damaged.jsonl"), text).unwrap();
    let state = AppState::new(ReplaySource::Dir(dir), None);
    runtime().block_on(async {
        let (status, body) = get(&state, "/api/replay?id=damaged.jsonl").await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(body["kind"], "bad_replay");
        assert!(body["error"].as_str().unwrap().contains("line 3"), "{body}");
        let (_, list) = get(&state, "/api/replays").await;
        assert!(
            list[0]["problem"].as_str().unwrap().contains("line 3"),
            "{list}"
        );
    });
}

#[test]
fn a_replay_past_the_cap_on_its_text_is_refused_by_name() {
    let dir = temp_dir("cap");
    write_replay(&dir.join("long.jsonl.gz"), &records());
    let size = std::fs::metadata(dir.join("long.jsonl.gz")).unwrap().len();
    // A cap below the text, which is larger than the compressed file.
    let state = AppState::with_replay_cap(ReplaySource::Dir(dir), None, size);
    runtime().block_on(async {
        // Read, then from the cache.
        for uri in [
            "/api/replay?id=long.jsonl.gz",
            "/api/replay?id=long.jsonl.gz",
        ] {
            let (status, body) = get(&state, uri).await;
            assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
            assert_eq!(body["kind"], "too_large");
            let message = body["error"].as_str().unwrap();
            assert!(message.contains("long.jsonl.gz") && message.contains("--max-replay-mb"));
        }
        let (_, list) = get(&state, "/api/replays").await;
        assert!(
            list[0]["problem"].as_str().unwrap().contains("limit"),
            "{list}"
        );
        let text = stream_text(&state, "/api/replay/stream?id=long.jsonl.gz").await;
        assert!(
            text.contains("event: failure") && text.contains("limit"),
            "{text}"
        );
        assert!(text.contains("event: end"), "{text}");
    });
}

#[test]
fn a_replay_being_written_is_served_as_far_as_it_goes_and_listed_as_live() {
    let dir = temp_dir("growing");
    let all = records();
    // A gzip stream cut after its last sync flush, as while the referee is still writing.
    let path = dir.join("growing.jsonl.gz");
    let mut writer = ReplayWriter::create(&path).unwrap();
    for record in &all[..3] {
        writer.write(record).unwrap();
    }
    let state = AppState::new(ReplaySource::Dir(dir), None);
    runtime().block_on(async {
        let (status, body) = get(&state, "/api/replay?id=growing.jsonl.gz").await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["complete"], false);
        assert_eq!(body["ticks"].as_array().unwrap().len(), 2);
        assert_eq!(body["lines"], 3);
        let (_, live) = get(&state, "/api/live").await;
        assert_eq!(live[0]["kind"], "file");
        assert_eq!(live[0]["replay"]["id"], "growing.jsonl.gz");
    });
    drop(writer);
}

#[test]
fn the_stream_sends_the_lines_after_from_then_ends_at_the_result() {
    let (_dir, state) = replay_dir("stream");
    runtime().block_on(async {
        let response = app(state.clone())
            .oneshot(
                Request::get("/api/replay/stream?id=plain.jsonl&from=4")
                    .body(Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "text/event-stream"
        );
        // The stream ends by itself after the result, so the whole body can be read.
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let text = String::from_utf8(bytes.to_vec()).unwrap();
        let ids: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("id: "))
            .collect();
        assert_eq!(ids, ["5", "6"], "{text}");
        assert!(text.contains("\"type\":\"result\""), "{text}");
        assert!(text.contains("event: end"), "{text}");
    });
}

#[test]
fn the_stream_resumes_after_the_last_event_id() {
    let (_dir, state) = replay_dir("resume");
    runtime().block_on(async {
        let response = app(state.clone())
            .oneshot(
                Request::get("/api/replay/stream?id=plain.jsonl")
                    .header("Last-Event-ID", "5")
                    .body(Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let text = String::from_utf8(bytes.to_vec()).unwrap();
        let ids: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("id: "))
            .collect();
        assert_eq!(ids, ["6"], "{text}");
    });
}

#[test]
fn the_stream_of_a_newer_format_says_so_and_ends() {
    let dir = temp_dir("stream-new");
    let mut first = serde_json::to_value(header()).unwrap();
    first["format"] = json!({"major": 9, "minor": 1});
    std::fs::write(dir.join("new.jsonl"), format!("{first}\n")).unwrap();
    let state = AppState::new(ReplaySource::Dir(dir), None);
    runtime().block_on(async {
        let text = stream_text(&state, "/api/replay/stream?id=new.jsonl").await;
        assert!(text.contains("event: failure"), "{text}");
        assert!(text.contains("9.1"), "{text}");
        assert!(text.contains("event: end"), "{text}");
    });
}

#[test]
fn pages_and_scripts_are_served_with_their_types() {
    let state = AppState::new(ReplaySource::None, None);
    runtime().block_on(async {
        for (uri, kind, needle) in [
            ("/", "text/html", "home-page.js"),
            ("/replay.html", "text/html", "replay-page.js"),
            ("/tournament.html", "text/html", "tournament-page.js"),
            ("/js/replay/overlay.js", "text/javascript", "#draw"),
            ("/css/style.css", "text/css", ":root"),
        ] {
            let response = app(state.clone())
                .oneshot(Request::get(uri).body(Body::empty()).unwrap())
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::OK, "{uri}");
            let content_type = response.headers()[header::CONTENT_TYPE].to_str().unwrap();
            assert!(content_type.starts_with(kind), "{uri}: {content_type}");
            let bytes = response.into_body().collect().await.unwrap().to_bytes();
            assert!(String::from_utf8_lossy(&bytes).contains(needle), "{uri}");
        }
        let (status, _) = get(&state, "/nope.html").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        let (status, body) = get(&state, "/api/nope").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(body["kind"], "not_found");
        let (_, info) = get(&state, "/api/info").await;
        assert_eq!(info["store"], false);
        assert_eq!(info["replays"], "none");
        let games = info["games"].as_array().unwrap();
        assert!(
            games
                .iter()
                .any(|g| g["name"] == "labyrinth" && g["renderer"] == "labyrinth"),
            "{info}"
        );
    });
}

#[test]
fn without_a_store_the_tournament_routes_say_so() {
    let state = AppState::new(ReplaySource::None, None);
    runtime().block_on(async {
        let (status, body) = get(&state, "/api/tournaments").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, json!([]));
        let (status, body) = get(&state, "/api/tournaments/1/standings").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert!(body["error"].as_str().unwrap().contains("--db"), "{body}");
    });
}

fn contestant(id: &str) -> Contestant {
    Contestant {
        id: id.into(),
        alias: id.trim_start_matches("builtin:").into(),
        full_name: format!("{id} full name"),
        command: None,
        folder: None,
        status: Status::Ok,
        reason: None,
        program: None,
    }
}

/// A store with one tournament of three players: match 1 played (mybot lost with a fault and
/// a replay), match 2 being played, match 3 queued; written as the tournament runner writes
/// (blocking), shown as the server shows it (async, on the runtime the test serves on).
fn tournament_state(name: &str) -> (PathBuf, tokio::runtime::Runtime, AppState) {
    let dir = temp_dir(name);
    let replays = dir.join("replays");
    std::fs::create_dir_all(&replays).unwrap();
    write_replay(&replays.join("m00001.jsonl.gz"), &records());
    let mut running = ReplayWriter::create(replays.join("m00002.jsonl.gz")).unwrap();
    for record in &records()[..2] {
        running.write(record).unwrap();
    }
    std::mem::forget(running);
    let store = Store::open(
        dir.join("t.db").to_str().unwrap(),
        arbiter_store::Presence::MayCreate,
    )
    .unwrap();
    let t = Tournament {
        id: 1,
        game: "quoridor".into(),
        format: Format::RoundRobin,
        seed: 1,
        rounds: 1,
        players_per_match: 2,
        settings: json!({"replays": replays}),
        created: 1_700_000_000_000,
        finished: None,
        max_attempts: 3,
        name: None,
    };
    let players = [
        contestant("mybot"),
        contestant("builtin:runner"),
        contestant("builtin:random"),
    ];
    let matches: Vec<NewMatch> = [
        ["mybot", "builtin:runner"],
        ["builtin:runner", "builtin:random"],
        ["builtin:random", "mybot"],
    ]
    .iter()
    .enumerate()
    .map(|(i, seats)| NewMatch {
        id: i as i64 + 1,
        round: 1,
        seats: seats.iter().map(|s| s.to_string()).collect(),
        seed: i as u64,
    })
    .collect();
    let settings = t.settings.clone();
    let id = store
        .create(&t, &|_| settings.clone(), &players, &matches, None)
        .unwrap();
    assert_eq!(id, 1);
    let first = store
        .claim("w", 60_000, Scope::Tournament(id))
        .unwrap()
        .unwrap()
        .row;
    let result = StoredResult {
        scores: vec![0.0, 1.0],
        placement: vec![2, 1],
        reason: "goal".into(),
        faults: vec![SeatFaults {
            seat: 0,
            player: "mybot".into(),
            errors: 1,
            timeouts: 0,
            crashed: true,
            killed_for: None,
            note: None,
        }],
        replay: Some(replays.join("m00001.jsonl.gz").to_string_lossy().into()),
        ticks: 3,
        time_ms: vec![4.5, 1.0],
        turns: vec![2, 1],
    };
    let taken = store
        .finish(id, &[(first.id, first.claim, result)])
        .unwrap();
    assert_eq!(taken, [Handed::Taken]);
    store
        .save_ratings(
            id,
            1,
            &[
                RatingRow {
                    player: "builtin:runner".into(),
                    rating: 1100.0,
                    deviation: Some(150.0),
                    games: 1,
                },
                RatingRow {
                    player: "mybot".into(),
                    rating: 900.0,
                    deviation: Some(150.0),
                    games: 1,
                },
            ],
        )
        .unwrap();
    store
        .claim("w", 60_000, Scope::Tournament(id))
        .unwrap()
        .unwrap();
    store.close();
    let runtime = runtime();
    let store = runtime
        .block_on(TournamentStore::open(
            dir.join("t.db").to_str().unwrap(),
            arbiter_store::Presence::MayCreate,
        ))
        .unwrap();
    let state = AppState::new(ReplaySource::Dir(replays), Some(store));
    (dir, runtime, state)
}

#[test]
fn tournaments_standings_and_ratings() {
    let (_dir, runtime, state) = tournament_state("standings");
    runtime.block_on(async {
        let (status, list) = get(&state, "/api/tournaments").await;
        assert_eq!(status, StatusCode::OK, "{list}");
        assert_eq!(list[0]["id"], 1);
        assert_eq!(
            list[0]["matches"],
            json!({"total": 3, "queued": 1, "running": 1, "done": 1, "failed": 0})
        );

        let (status, t) = get(&state, "/api/tournaments/1").await;
        assert_eq!(status, StatusCode::OK, "{t}");
        assert_eq!(t["game"], "quoridor");
        let rows = t["standings"]["rows"].as_array().unwrap();
        assert_eq!(rows[0]["player"], "builtin:runner");
        assert_eq!(rows[0]["wins"], 1);
        let mybot = rows.iter().find(|r| r["player"] == "mybot").unwrap();
        assert_eq!(mybot["faults"], 2);
        assert_eq!(t["standings"]["two_player"], true);
        assert_eq!(t["standings"]["cross"].as_array().unwrap().len(), 3);
        assert_eq!(t["players"].as_array().unwrap().len(), 3);

        let (_, standings) = get(&state, "/api/tournaments/1/standings").await;
        assert_eq!(standings["rows"], t["standings"]["rows"]);

        let (_, ratings) = get(&state, "/api/tournaments/1/ratings").await;
        assert_eq!(ratings[0]["round"], 1);
        assert_eq!(ratings[0]["ratings"][0]["player"], "builtin:runner");
        assert_eq!(ratings[0]["ratings"][0]["error95"], 150.0);

        let (status, body) = get(&state, "/api/tournaments/9").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(body["error"], "there is no tournament 9");
    });
}

#[test]
fn matches_are_filtered_by_player_opponent_result_faults_and_state() {
    let (_dir, runtime, state) = tournament_state("matches");
    runtime.block_on(async {
        let ids = |body: &Value| -> Vec<i64> {
            body.as_array()
                .unwrap()
                .iter()
                .map(|m| m["id"].as_i64().unwrap())
                .collect()
        };
        let (_, all) = get(&state, "/api/tournaments/1/matches").await;
        assert_eq!(ids(&all), [1, 2, 3]);
        assert_eq!(all[0]["seats"][0]["alias"], "mybot");
        assert_eq!(all[0]["seats"][0]["outcome"], "loss");
        assert_eq!(all[0]["seats"][0]["crashed"], true);
        assert_eq!(all[0]["seats"][1]["outcome"], "win");
        assert_eq!(all[1]["state"], "running");
        assert_eq!(all[1]["has_replay"], true);
        assert_eq!(all[2]["has_replay"], false);

        for (query, expected) in [
            ("player=mybot", vec![1, 3]),
            ("player=mybot&result=loss", vec![1]),
            ("player=mybot&opponent=builtin%3Arandom", vec![3]),
            ("player=builtin%3Arandom&opponent=mybot", vec![3]),
            ("opponent=builtin%3Arunner", vec![1, 2]),
            ("player=mybot&result=win", vec![]),
            ("player=builtin%3Arunner&result=win", vec![1]),
            ("faults=yes", vec![1]),
            ("faults=no", vec![2, 3]),
            ("player=builtin%3Arunner&faults=yes", vec![]),
            ("state=running", vec![2]),
            ("state=queued", vec![3]),
        ] {
            let (status, body) = get(&state, &format!("/api/tournaments/1/matches?{query}")).await;
            assert_eq!(status, StatusCode::OK, "{query}: {body}");
            assert_eq!(ids(&body), expected, "{query}");
        }
        let (status, body) = get(&state, "/api/tournaments/1/matches?result=maybe").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(body["error"].as_str().unwrap().contains("win, draw, loss"));

        let (_, one) = get(&state, "/api/tournaments/1/matches/1").await;
        assert_eq!(one["reason"], "goal");
        let (status, _) = get(&state, "/api/tournaments/1/matches/77").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
    });
}

#[test]
fn a_match_replay_is_served_and_a_running_one_is_live() {
    let (_dir, runtime, state) = tournament_state("match-replay");
    runtime.block_on(async {
        let (status, replay) = get(&state, "/api/tournaments/1/matches/1/replay").await;
        assert_eq!(status, StatusCode::OK, "{replay}");
        assert_eq!(replay["complete"], true);
        assert_eq!(replay["ticks"].as_array().unwrap().len(), 4);

        let (status, running) = get(&state, "/api/tournaments/1/matches/2/replay").await;
        assert_eq!(status, StatusCode::OK, "{running}");
        assert_eq!(running["complete"], false);

        let (status, body) = get(&state, "/api/tournaments/1/matches/3/replay").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert!(body["error"].as_str().unwrap().contains("queued"));

        let (_, live) = get(&state, "/api/live").await;
        let live = live.as_array().unwrap();
        assert_eq!(live.len(), 1, "{live:?}");
        assert_eq!(live[0]["kind"], "match");
        assert_eq!(live[0]["match"]["id"], 2);
        assert_eq!(live[0]["match"]["tournament"], 1);
    });
}

#[test]
fn a_player_page_lists_its_faults_and_slowest_answers() {
    let (_dir, runtime, state) = tournament_state("player");
    runtime.block_on(async {
        let (status, p) = get(&state, "/api/tournaments/1/players/mybot").await;
        assert_eq!(status, StatusCode::OK, "{p}");
        assert_eq!(p["player"]["alias"], "mybot");
        assert_eq!(p["standing"]["rank"], 3);
        let faults = p["faults"].as_array().unwrap();
        assert_eq!(faults.len(), 2);
        assert_eq!(faults[0]["match"], 1);
        assert_eq!(faults[0]["tick"], 1);
        assert_eq!(faults[0]["error"], "expected 2 numbers");
        assert_eq!(faults[1]["error"], "bot exited with code 3");
        let slowest = p["slowest"].as_array().unwrap();
        assert!(!slowest.is_empty());
        assert_eq!(slowest[0]["time_ms"], 1.5);
        assert_eq!(slowest[0]["answer"], "4 1");

        let (status, _) = get(&state, "/api/tournaments/1/players/nobody").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        let (_, players) = get(&state, "/api/tournaments/1/players").await;
        assert_eq!(players.as_array().unwrap().len(), 3);
    });
}

#[test]
fn an_internal_failure_keeps_its_details_out_of_the_response() {
    use axum::response::IntoResponse;
    let response = arbiter_web::AppError::Internal("sqlite at /secret/path.db is locked".into())
        .into_response();
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    runtime().block_on(async {
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("secret"), "{text}");
        assert!(text.contains("internal"), "{text}");
    });
}

#[test]
fn a_malformed_request_is_answered_in_json_too() {
    let (_dir, runtime, state) = tournament_state("malformed");
    runtime.block_on(async {
        let (status, body) = get(&state, "/api/tournaments/abc").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["kind"], "bad_request", "{body}");
        let (status, body) = get(&state, "/api/replay/stream?id=x.jsonl&from=-3").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["kind"], "bad_request", "{body}");
    });
}

#[test]
fn answers_are_gzipped_for_a_client_that_takes_gzip_but_live_streams_are_not() {
    use std::io::Read;
    let (_dir, state) = replay_dir("gzip");
    runtime().block_on(async {
        let request = |uri: &str| {
            Request::get(uri)
                .header(header::ACCEPT_ENCODING, "gzip")
                .body(Body::empty())
                .unwrap()
        };
        let response = app(state.clone())
            .oneshot(request("/api/replay?id=plain.jsonl"))
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()[header::CONTENT_ENCODING], "gzip");
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .unwrap();
        let body: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(body["ticks"].as_array().unwrap().len(), 4);

        let page = app(state.clone())
            .oneshot(request("/js/replay-page.js"))
            .await
            .unwrap();
        assert_eq!(page.headers()[header::CONTENT_ENCODING], "gzip");
        // A record of a live match goes out the moment it is read.
        let stream = app(state.clone())
            .oneshot(request("/api/replay/stream?id=plain.jsonl"))
            .await
            .unwrap();
        assert!(stream.headers().get(header::CONTENT_ENCODING).is_none());
    });
}

#[test]
fn the_stream_of_a_replay_that_stopped_growing_without_a_result_says_it_stalled() {
    let dir = temp_dir("stalled");
    let path = dir.join("cut.jsonl");
    // The referee's lines up to a tick, then nothing: its runner was killed long ago.
    write_replay(&path, &records()[..3]);
    let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(600);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(long_ago)
        .unwrap();
    let state = AppState::new(ReplaySource::Dir(dir), None);
    runtime().block_on(async {
        let started = std::time::Instant::now();
        let text = stream_text(&state, "/api/replay/stream?id=cut.jsonl").await;
        assert!(started.elapsed().as_secs() < 10, "ended at once");
        assert_eq!(text.matches("event: record").count(), 3, "{text}");
        let stalled = text
            .find("event: stalled\ndata: no result")
            .expect("stalled");
        assert!(text[stalled..].contains("event: end"), "{text}");
        let (_, live) = get(&state, "/api/live").await;
        assert_eq!(live, json!([]), "a stalled replay is not live");
    });
}

#[test]
fn a_tournament_whose_runner_is_gone_says_so_and_how_to_resume() {
    let (dir, runtime, state) = tournament_state("runner-gone");
    runtime.block_on(async {
        let (_, t) = get(&state, "/api/tournaments/1").await;
        assert_eq!(t["runner"]["state"], "playing", "{t}");
        // The runner killed: nobody renews the lease of its match, which runs out.
        let db = dir.join("t.db");
        let store = TournamentStore::open(db.to_str().unwrap(), arbiter_store::Presence::MayCreate)
            .await
            .unwrap();
        store.renew("w", -1).await.unwrap();
        let (_, t) = get(&state, "/api/tournaments/1").await;
        assert_eq!(t["runner"]["state"], "gone", "{t}");
        assert_eq!(t["runner"]["lapsed"], json!([2]));
        assert_eq!(
            t["runner"]["resume"],
            format!(
                "arbiter tournament resume --db {} --tournament 1",
                db.display()
            )
        );
        let (_, list) = get(&state, "/api/tournaments").await;
        assert_eq!(list[0]["runner"]["state"], "gone");
        let (_, running) = get(&state, "/api/tournaments/1/matches?state=running").await;
        assert_eq!(running[0]["stalled"], true, "{running}");
        let (_, live) = get(&state, "/api/live").await;
        assert_eq!(live, json!([]), "a match no worker plays is not live");
    });
}

/// A game server's store: game 1 finished (with its replay), game 2 running, its status
/// published; the state of a viewer reading it as another process would.
async fn game_server_store(name: &str) -> AppState {
    use arbiter_store::{
        GameRecord, GameServerStore, GameServers, NextStart, Presence, RunningGame, Score, Seat,
        ServerMode, ServerStatus, TeamState, TeamStatus,
    };
    let dir = temp_dir(name);
    let db = dir.join("server.db");
    let db = db.to_str().unwrap();
    let replay = dir.join("labyrinth-1.jsonl");
    write_replay(&replay, &records());
    {
        let store = GameServerStore::open(db, "labyrinth").await.unwrap();
        let record = GameRecord {
            id: 1,
            round: 1,
            mode: ServerMode::Test,
            level: 1,
            seats: vec!["ann".into(), "robot_1".into()],
            teams: vec![true, false],
            points: vec![3.0, 1.0],
            reason: "all treasures found".into(),
            replay: Some(replay.display().to_string()),
        };
        store.record_game(&record).await.unwrap();
        let running = RunningGame {
            id: 2,
            round: 2,
            mode: ServerMode::Test,
            level: 2,
            seats: vec![
                Seat {
                    name: "ann".into(),
                    team: true,
                },
                Seat {
                    name: "robot_1".into(),
                    team: false,
                },
            ],
            rule: "ascending test score, ties by earlier login".into(),
            replay: None,
            started: 5,
        };
        let status = ServerStatus {
            game: "labyrinth".into(),
            mode: ServerMode::Test,
            over: false,
            started: 1,
            played: 1,
            teams: vec![TeamStatus {
                team: "ann".into(),
                state: TeamState::Playing,
                since: Some(2),
            }],
            scoreboard: vec![Score {
                rank: 1,
                team: "ann".into(),
                test: 3.0,
                live: 0.0,
            }],
            running: vec![running],
            next: Some(NextStart {
                at: 9,
                level: 3,
                mode: ServerMode::Test,
            }),
        };
        store.publish(&status).await.unwrap();
    }
    let servers = GameServers::open(db, Presence::ReadOnly).await.unwrap();
    AppState::with_game_servers(
        ReplaySource::None,
        None,
        None,
        Some(arbiter_web::ServerView::new(servers, None)),
        1 << 30,
    )
}

#[test]
fn a_game_server_is_shown_with_its_games_by_id() {
    runtime().block_on(async {
        let state = game_server_store("game-server").await;
        let (status, info) = get(&state, "/api/info").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(info["servers"], json!(["labyrinth"]));
        let (_, list) = get(&state, "/api/servers").await;
        assert_eq!(
            list,
            json!([{"game": "labyrinth", "mode": "test", "over": false,
            "played": 1, "running": 1, "teams": 1}])
        );
        let (status, server) = get(&state, "/api/servers/labyrinth").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            server["scoreboard"][0],
            json!({"rank": 1, "team": "ann", "test": 3.0, "live": 0.0})
        );
        assert_eq!(server["teams"][0]["state"], "playing");
        assert_eq!(server["next"], json!({"at": 9, "level": 3, "mode": "test"}));
        let (_, games) = get(&state, "/api/servers/labyrinth/games").await;
        assert_eq!(games[0]["id"], 1);
        assert_eq!(
            games[0]["seats"][0],
            json!({"name": "ann", "team": true, "points": 3.0})
        );
        assert_eq!(games[0]["replay"], true);
        let (_, running) = get(&state, "/api/servers/labyrinth/games/2").await;
        assert_eq!(running["state"], "running");
        assert_eq!(
            running["rule"],
            "ascending test score, ties by earlier login"
        );
        let (status, replay) = get(&state, "/api/servers/labyrinth/games/1/replay").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(replay["header"]["game"], "quoridor");
        let (status, body) = get(&state, "/api/servers/labyrinth/games/2/replay").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert!(
            body["error"].as_str().unwrap().contains("wrote none"),
            "{body}"
        );
    });
}

#[test]
fn an_unknown_game_server_or_game_is_a_404_saying_which() {
    runtime().block_on(async {
        let state = game_server_store("game-server-404").await;
        for (uri, message) in [
            (
                "/api/servers/labyrinth/games/99",
                "the labyrinth server has no game 99",
            ),
            ("/api/servers/chess", "there is no game server of \"chess\""),
            (
                "/api/servers/chess/events",
                "there is no game server of \"chess\"",
            ),
        ] {
            let (status, body) = get(&state, uri).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{uri}: {body}");
            assert!(
                body["error"].as_str().unwrap().contains(message),
                "{uri}: {body}"
            );
            assert_eq!(body["kind"], "not_found");
        }
        let (status, body) = get(&state, "/api/servers/labyrinth/games/first").await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    });
}

#[test]
fn the_events_of_a_game_server_start_with_its_status() {
    runtime().block_on(async {
        let state = game_server_store("game-server-events").await;
        let response = app(state.clone())
            .oneshot(
                Request::get("/api/servers/labyrinth/events")
                    .body(Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let mut body = response.into_body();
        let frame = body.frame().await.unwrap().unwrap().into_data().unwrap();
        let text = String::from_utf8(frame.to_vec()).unwrap();
        assert!(text.starts_with("event: status\ndata: {"), "{text}");
        assert!(
            text.contains(r#""scoreboard":[{"rank":1,"team":"ann","test":3.0"#),
            "{text}"
        );
    });
}
