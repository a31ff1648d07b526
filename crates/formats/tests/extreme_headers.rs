//! Every reader of another tool's file, fed headers no file should have (sizes of 0, 1,
//! 2^32-1, 2^32, 2^63, 2^64, negative, counts in the hundreds of thousands), each in a child
//! process whose address space is limited: the answer is an error naming what is wrong, never
//! an abort of the allocator or a panic.
//!
//! An rlimit applies to a whole process, so the reading is done by this test binary run again
//! ([`child_reads_one_file`], told what to read by an environment variable) under
//! `RLIMIT_AS`; the parent checks how the child ended and what it answered.

use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use arbiter_formats::{ai_arena, fights_msgpack, graphisoft, judge_log};
use arbiter_games::labyrinth::Level;
use arbiter_replay::{Replay, ReplayReader};
use proptest::prelude::*;
use rmpv::Value;

/// The address space of a child: far more than any file here needs read, far less than what a
/// size taken on trust asks for.
const MEMORY_LIMIT: u64 = 512 << 20;

/// The environment variable that makes [`child_reads_one_file`] read: `FORMAT:PATH`.
const JOB: &str = "ARBITER_FORMATS_READ_ONE";

/// What the child writes its answer to: the file read, with this added to its name.
const ANSWER: &str = ".answer";

const SESSION: &str = include_str!("../../games/tests/data/labyrinth_session.txt");
const SMALL_LEVEL: &str = include_str!("../../../examples/labyrinth/small.level");

/// The reader of `format` on the file at `path`: `Ok` or the error it gave.
fn read(format: &str, path: &Path) -> Result<(), String> {
    let text = || std::fs::read_to_string(path).unwrap();
    match format {
        "graphisoft-log" => graphisoft::import(&text(), "log")
            .map(drop)
            .map_err(|e| e.to_string()),
        "fights-msgpack" => fights_msgpack::import(&std::fs::read(path).unwrap())
            .map(drop)
            .map_err(|e| e.to_string()),
        "labyrinth-level" => Level::parse(&text()).map(drop),
        "ai-arena-map" => ai_arena::read_map(path)
            .map(drop)
            .map_err(|e| e.to_string()),
        "ai-arena-config" => ai_arena::read_config(path)
            .map(drop)
            .map_err(|e| e.to_string()),
        "judge-log" => {
            let reader = ReplayReader::new(std::io::Cursor::new(text().into_bytes()))
                .map_err(|e| e.to_string())?;
            let replay = Replay::from_reader(reader).map_err(|e| e.to_string())?;
            judge_log::export(&replay)
                .map(drop)
                .map_err(|e| e.to_string())
        }
        other => panic!("no reader {other}"),
    }
}

/// Not a test of its own: the child's side. Run as the parent, it returns at once.
#[test]
fn child_reads_one_file() {
    let Ok(job) = std::env::var(JOB) else { return };
    let (format, path) = job.split_once(':').unwrap();
    let answer = match read(format, Path::new(path)) {
        Ok(()) => "read".to_string(),
        Err(e) => format!("error: {}", e.replace('\n', " ")),
    };
    std::fs::write(format!("{path}{ANSWER}"), answer).unwrap();
}

/// A scratch folder of its own for each file.
fn scratch() -> PathBuf {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "arbiter-extreme-headers-{}-{n}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What the reader of `format` answers for `files` (name and bytes, the first one read), in a
/// child with [`MEMORY_LIMIT`] of address space; fails if the child did not end by itself.
fn answer(format: &str, files: &[(&str, &[u8])]) -> Result<(), String> {
    let dir = scratch();
    for (name, bytes) in files {
        std::fs::File::create(dir.join(name))
            .and_then(|mut f| f.write_all(bytes))
            .unwrap();
    }
    let path = dir.join(files[0].0);
    let mut child = Command::new(std::env::current_exe().unwrap());
    child
        .args([
            "--exact",
            "child_reads_one_file",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(JOB, format!("{format}:{}", path.display()));
    // SAFETY: setrlimit is async-signal-safe, and nothing else runs between fork and exec.
    unsafe {
        child.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: MEMORY_LIMIT,
                rlim_max: MEMORY_LIMIT,
            };
            match libc::setrlimit(libc::RLIMIT_AS, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let output = child.output().unwrap();
    let answer = std::fs::read_to_string(format!("{}{ANSWER}", path.display()));
    std::fs::remove_dir_all(&dir).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let start: String = String::from_utf8_lossy(files[0].1)
        .chars()
        .take(300)
        .collect();
    assert!(
        output.status.success(),
        "the {format} reader did not end by itself ({}; 134 is an abort) on a file starting \
         {start:?}:\n{stderr:.3000}",
        output.status
    );
    match answer.expect("the child wrote its answer").as_str() {
        "read" => Ok(()),
        error => Err(error.strip_prefix("error: ").unwrap_or(error).to_string()),
    }
}

/// `answer`, which must be an error; returns it.
fn refused(format: &str, files: &[(&str, &[u8])]) -> String {
    match answer(format, files) {
        Ok(()) => panic!(
            "the {format} reader took {:?}",
            String::from_utf8_lossy(files[0].1)
                .chars()
                .take(300)
                .collect::<String>()
        ),
        Err(e) => e,
    }
}

/// Numbers no header field of these formats takes: beyond 32 and 64 bits, negative, not
/// integers.
fn extreme() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "4294967295",
        "4294967296",
        "9223372036854775807",
        "9223372036854775808",
        "18446744073709551615",
        "18446744073709551616",
        "340282366920938463463374607431768211456",
        "-1",
        "-9223372036854775808",
        "1e9",
        "256",
        "65536",
    ])
    .prop_map(str::to_string)
}

/// [`extreme`], or 0 where a field must be at least 1.
fn extreme_or_zero() -> impl Strategy<Value = String> {
    prop_oneof![Just("0".to_string()), extreme()]
}

/// A count of repeated items: none, one past a limit, or hundreds of thousands.
fn huge_count() -> impl Strategy<Value = usize> {
    prop::sample::select(vec![0usize, 11, 101, 401, 5_001, 100_000, 1_000_000])
}

/// `text` with the line starting with `keyword` replaced by `line`.
fn with_line(text: &str, keyword: &str, line: &str) -> String {
    let mut out = String::new();
    let mut done = false;
    for l in text.lines() {
        if !done && l.split_whitespace().next() == Some(keyword) {
            out += line;
            done = true;
        } else {
            out += l;
        }
        out.push('\n');
    }
    out
}

/// `text` with every FIELDS line holding `tiles` tiles.
fn with_fields(text: &str, tiles: usize) -> String {
    let fields = format!("FIELDS{}", " 15".repeat(tiles));
    let lines = text.lines().map(|l| match l.starts_with("FIELDS") {
        true => fields.as_str(),
        false => l,
    });
    lines.map(|l| format!("{l}\n")).collect()
}

/// The number of tiles a board of `w` × `h` seems to need when the product wraps, as the
/// importer once computed it: what makes a wrapped size pass a naive check.
fn wrapped_tiles(w: &str, h: &str) -> usize {
    match (w.parse::<usize>(), h.parse::<usize>()) {
        (Ok(w), Ok(h)) => w.wrapping_mul(h).min(100_000),
        _ => 0,
    }
}

/// A GRAPHISOFT log with one header field extreme, as a changed client log would have it.
fn graphisoft_log() -> impl Strategy<Value = String> {
    let size = (extreme_or_zero(), extreme_or_zero()).prop_map(|(w, h)| {
        let log = with_line(SESSION, "SIZE", &format!("SIZE {w} {h}"));
        with_fields(&log, wrapped_tiles(&w, &h))
    });
    let line = |keyword: &'static str| {
        extreme_or_zero().prop_map(move |v| with_line(SESSION, keyword, &format!("{keyword} {v}")))
    };
    let count = |keyword: &'static str, item: &'static str| {
        huge_count()
            .prop_map(move |n| with_line(SESSION, keyword, &format!("{keyword}{}", item.repeat(n))))
    };
    // Sizes whose product wraps to a few cells in 64 bits.
    let wrapping = prop::sample::select(vec![
        ("4294967296", "4294967296"),
        ("9223372036854775808", "2"),
        ("18446744073709551615", "18446744073709551615"),
        ("6148914691236517206", "3"),
    ])
    .prop_map(|(w, h)| {
        let log = with_line(SESSION, "SIZE", &format!("SIZE {w} {h}"));
        with_fields(&log, wrapped_tiles(w, h))
    });
    prop_oneof![
        size,
        wrapping,
        line("DISPLAYS"),
        line("MAXTICK"),
        extreme().prop_map(|v| with_line(SESSION, "PLAYER", &format!("PLAYER {v}"))),
        extreme().prop_map(|v| with_line(SESSION, "TICK", &format!("TICK {v}"))),
        count("PLAYERS", " x"),
        count("TARGETS", " 0"),
        count("FIELDS", " 15"),
        huge_count().prop_map(|n| SESSION.replacen(
            "BLOCKED 1 1\n",
            &"BLOCKED 1 1\n".repeat(n.max(2)),
            1
        )),
        huge_count().prop_map(|n| SESSION.replacen(
            "DISPLAY 0 3 2\n",
            &"DISPLAY 0 3 2\n".repeat(n.max(2)),
            1
        )),
    ]
}

/// A hand-made Labyrinth level with one count extreme.
fn level_file() -> impl Strategy<Value = String> {
    let line = |keyword: &'static str, rest: &'static str| {
        extreme_or_zero()
            .prop_map(move |v| with_line(SMALL_LEVEL, keyword, &format!("{keyword} {v}{rest}")))
    };
    prop_oneof![
        (extreme_or_zero(), extreme_or_zero()).prop_map(|(w, h)| with_line(
            SMALL_LEVEL,
            "SIZE",
            &format!("SIZE {w} {h}")
        )),
        line("MAXTICK", ""),
        extreme().prop_map(|v| format!("{SMALL_LEVEL}DISPLAY {v} 0 0\n")),
        extreme().prop_map(|v| format!("{SMALL_LEVEL}SEAT {v} 0 0 TARGETS 0 1\n")),
        huge_count().prop_map(|n| format!("{SMALL_LEVEL}FIELDS{}\n", " 15".repeat(n.max(1)))),
        huge_count().prop_map(|n| format!("{SMALL_LEVEL}SEAT 5 0 0 TARGETS{}\n", " 0".repeat(n))),
        huge_count().prop_map(|n| format!("{SMALL_LEVEL}{}", "BLOCKED 2 1\n".repeat(n.max(1)))),
    ]
}

/// An AI Arena map with one field extreme.
fn ai_arena_map() -> impl Strategy<Value = String> {
    let map = |field: &str, value: &str| {
        let mut fields = vec![
            ("playerCount", "2".to_string()),
            ("boardSize", "9".to_string()),
            ("startingPlayer", "0".to_string()),
            (
                "pawnPos",
                r#"[{"x": 4, "y": 0}, {"x": 4, "y": 8}]"#.to_string(),
            ),
        ];
        for f in &mut fields {
            if f.0 == field {
                f.1 = value.to_string();
            }
        }
        let body: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("\"{k}\": {v}"))
            .collect();
        format!("{{{}}}", body.join(", "))
    };
    prop_oneof![
        extreme_or_zero().prop_map(move |v| map("playerCount", &v)),
        extreme_or_zero().prop_map(move |v| map("boardSize", &v)),
        extreme().prop_map(move |v| map("startingPlayer", &v)),
        extreme().prop_map(move |v| map(
            "pawnPos",
            &format!(r#"[{{"x": {v}, "y": 0}}, {{"x": 4, "y": 8}}]"#)
        )),
        huge_count().prop_map(move |n| {
            let pawns = vec![r#"{"x": 1, "y": 1}"#; n].join(", ");
            map("pawnPos", &format!("[{pawns}]"))
        }),
        (extreme_or_zero(), extreme_or_zero()).prop_map(|(r, c)| {
            format!(r#"{{"playerCount": 2, "board": {{"rows": {r}, "cols": {c}}}}}"#)
        }),
    ]
}

/// A replay of Domino whose settings or moves are extreme, for the judge's log.
fn domino_replay() -> impl Strategy<Value = String> {
    let replay = |settings: String, cells: String| {
        let header = format!(
            r#"{{"type": "header", "format": {{"major": 1, "minor": 0}}, "game": "domino", "settings": {settings}, "seed": 1, "players": [{{"name": "a", "kind": "process"}}, {{"name": "b", "kind": "process"}}]}}"#
        );
        let tick = format!(
            r#"{{"type": "tick", "tick": 1, "player": 0, "action": {{"kind": "place", "cells": {cells}}}, "state": null, "bots": [{{}}, {{}}]}}"#
        );
        format!("{header}\n{tick}\n")
    };
    prop_oneof![
        extreme_or_zero().prop_map(move |v| replay(
            format!(r#"{{"size": {v}, "obstacles": []}}"#),
            "[[0, 0], [0, 1]]".into()
        )),
        // Listed twice at least: a count the rules refuse.
        huge_count().prop_map(move |n| {
            let obstacles = vec![r#"{"x": 1, "y": 1}"#; n.max(2)].join(", ");
            replay(
                format!(r#"{{"size": 5, "obstacles": [{obstacles}]}}"#),
                "[[0, 0], [0, 1]]".into(),
            )
        }),
    ]
}

/// A replay of Domino whose move names cells of any size.
fn domino_replay_of_far_cells() -> impl Strategy<Value = String> {
    extreme().prop_map(|v| {
        let header = r#"{"type": "header", "format": {"major": 1, "minor": 0}, "game": "domino", "settings": {"size": 5, "obstacles": []}, "seed": 1, "players": [{"name": "a", "kind": "process"}, {"name": "b", "kind": "process"}]}"#;
        let tick = format!(
            r#"{{"type": "tick", "tick": 1, "player": 0, "action": {{"kind": "place", "cells": [[{v}, 0], [0, {v}]]}}, "state": null, "bots": [{{}}, {{}}]}}"#
        );
        format!("{header}\n{tick}\n")
    })
}

/// A msgpack header announcing `length` of each kind, as marker and length bytes.
fn msgpack_header() -> impl Strategy<Value = Vec<u8>> {
    let length = prop::sample::select(vec![
        0u64,
        1,
        15,
        255,
        65_535,
        65_536,
        2_147_483_648,
        4_294_967_295,
    ]);
    let marker = prop::sample::select(vec![
        0xc4u8, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf,
    ]);
    (marker, length).prop_map(|(marker, length)| {
        let width = match marker {
            0xc4 | 0xc7 | 0xd9 => 1,
            0xc5 | 0xc8 | 0xda | 0xdc | 0xde => 2,
            _ => 4,
        };
        let bytes = length.to_be_bytes();
        let mut out = vec![marker];
        out.extend(&bytes[8 - width..]);
        out
    })
}

/// A fights log whose structure announces extreme lengths: a header at some depth inside
/// lists, then some bytes.
fn fights_log() -> impl Strategy<Value = Vec<u8>> {
    (
        0usize..8,
        msgpack_header(),
        prop::collection::vec(any::<u8>(), 0..64),
        huge_count(),
    )
        .prop_map(|(depth, header, tail, padding)| {
            let mut out = vec![0x91; depth];
            out.extend(header);
            out.extend(tail);
            // Empty lists: the cheapest value to write and a costly one to decode.
            out.extend(std::iter::repeat_n(0x90, padding));
            out
        })
}

/// A fights log as `export` writes it of the start position, then that position again with the
/// fields `change` sets (or only the start, changed, if `alone`).
fn fights_position(alone: bool, change: impl FnOnce(&mut Vec<(Value, Value)>)) -> Vec<u8> {
    use arbiter_games::puoribor::Puoribor;
    use arbiter_games::{Game, Recorded};
    let game = Puoribor::new();
    let player = |name: &str| arbiter_replay::Player {
        name: name.into(),
        kind: arbiter_replay::PlayerKind::Process,
        command: None,
    };
    let replay = Replay {
        header: arbiter_replay::Header::new(
            Puoribor::NAME,
            serde_json::to_value(game.settings_record()).unwrap(),
            1,
            vec![player("a"), player("b")],
        ),
        ticks: vec![arbiter_replay::Tick {
            tick: 0,
            player: None,
            action: arbiter_replay::Tick::start_action(),
            state: serde_json::to_value(game.snapshot()).unwrap(),
            bots: vec![Default::default(), Default::default()],
        }],
        result: None,
    };
    let log =
        fights_msgpack::export(&replay, fights_msgpack::MatchStart::UnixSeconds(1.0e9)).unwrap();
    let Value::Array(mut elements) = rmpv::decode::read_value(&mut &log[..]).unwrap() else {
        panic!("a log is a list")
    };
    if !alone {
        elements.push(elements[0].clone());
    }
    if let Some(Value::Map(fields)) = elements.last_mut() {
        change(fields);
    }
    let mut bytes = Vec::new();
    rmpv::encode::write_value(&mut bytes, &Value::Array(elements)).unwrap();
    bytes
}

fn set(fields: &mut [(Value, Value)], key: &str, value: Value) {
    for (k, v) in fields.iter_mut() {
        if k.as_str() == Some(key) {
            *v = value.clone();
        }
    }
}

/// A number of any size msgpack holds.
fn msgpack_int() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            i64::MIN,
            -1,
            0,
            1,
            i64::from(u32::MAX),
            1 << 32,
            i64::MAX
        ])
        .prop_map(Value::from),
        Just(Value::from(u64::MAX)),
        any::<i64>().prop_map(Value::from),
    ]
}

/// A timestamp extension of any of its layouts, with any bytes.
fn timestamp() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![4usize, 8, 12])
        .prop_flat_map(|len| prop::collection::vec(any::<u8>(), len))
        .prop_map(|bytes| Value::Ext(-1, bytes))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_graphisoft_log_with_an_extreme_header_is_refused(log in graphisoft_log()) {
        refused("graphisoft-log", &[("game.log", log.as_bytes())]);
    }

    #[test]
    fn a_labyrinth_level_with_an_extreme_count_is_refused(level in level_file()) {
        refused("labyrinth-level", &[("x.level", level.as_bytes())]);
    }

    #[test]
    fn a_fights_log_announcing_extreme_lengths_is_refused(log in fights_log()) {
        refused("fights-msgpack", &[("log.msgpack", &log)]);
    }

    #[test]
    fn a_fights_position_with_extreme_numbers_is_refused(
        action in prop::collection::vec(msgpack_int(), 3),
        agent in msgpack_int(),
        stamp in timestamp(),
    ) {
        let log = fights_position(false, |fields| {
            set(fields, "action", Value::Array(action));
            set(fields, "agent_id", agent);
            set(fields, "timestamp", stamp);
        });
        refused("fights-msgpack", &[("log.msgpack", &log)]);
    }

    #[test]
    fn a_fights_start_with_any_timestamp_is_an_answer(stamp in timestamp()) {
        let log = fights_position(true, |fields| set(fields, "timestamp", stamp));
        let _ = answer("fights-msgpack", &[("log.msgpack", &log)]);
    }

    #[test]
    fn an_ai_arena_map_with_an_extreme_field_is_refused(map in ai_arena_map()) {
        refused("ai-arena-map", &[("map.json", map.as_bytes())]);
    }

    #[test]
    fn an_ai_arena_config_with_a_huge_count_of_bots_is_refused(count in huge_count()) {
        let bot = r#"{"id": "a", "name": "A", "runCommand": "./bot"}"#;
        let config = format!(r#"{{"map": "map.json", "bots": [{}]}}"#, vec![bot; count].join(", "));
        let map = br#"{"playerCount": 2, "boardSize": 9}"#;
        refused("ai-arena-config", &[("match.json", config.as_bytes()), ("map.json", map)]);
    }

    #[test]
    fn a_domino_replay_naming_far_cells_is_an_answer(replay in domino_replay_of_far_cells()) {
        let _ = answer("judge-log", &[("replay.jsonl", replay.as_bytes())]);
    }

    #[test]
    fn a_domino_replay_with_extreme_settings_has_no_judges_log(replay in domino_replay()) {
        refused("judge-log", &[("replay.jsonl", replay.as_bytes())]);
    }
}

/// The file that once made the importer abort: SIZE 4294967296 4294967296 wraps to a board of
/// 0 cells, so an empty FIELDS passed, and pass 1 grew a list of pushes until the allocator
/// gave up (exit 134).
#[test]
fn a_graphisoft_log_whose_size_wraps_to_zero_is_refused_on_its_line() {
    let log = with_fields(&with_line(SESSION, "SIZE", "SIZE 4294967296 4294967296"), 0);
    assert_eq!(
        refused("graphisoft-log", &[("wrap.log", log.as_bytes())]),
        "line 5: SIZE 4294967296 4294967296: both sides must be 2 to 20"
    );
}

/// Sixteen million empty lists in 16 MiB: decoded whole they once took gigabytes.
#[test]
fn a_fights_log_of_millions_of_empty_lists_is_refused_before_it_is_decoded() {
    let mut log = vec![0xdc, 0x13, 0x88];
    for _ in 0..5_000 {
        log.extend([0xdc, 0x0c, 0xcd]);
        log.extend(std::iter::repeat_n(0x90, 3_277));
    }
    let error = refused("fights-msgpack", &[("log.msgpack", &log)]);
    assert!(
        error.contains("more than 4000000 msgpack values"),
        "{error}"
    );
}
