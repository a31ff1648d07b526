use super::*;
use proptest::prelude::*;
use serde_json::json;

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![
        0.0..1e7f64,
        any::<f64>().prop_filter("finite", |f| f.is_finite())
    ]
}

fn message() -> impl Strategy<Value = Message> {
    (finite(), "(.|\n){0,20}").prop_map(|(at_ms, text)| Message { at_ms, text })
}

fn bot_tick() -> impl Strategy<Value = BotTick> {
    (
        prop::collection::vec(message(), 0..3),
        prop::collection::vec(message(), 0..3),
        prop::option::of(".{0,20}"),
        prop::collection::vec(".{0,10}", 0..2),
        "(.|\n){0,30}",
        any::<bool>(),
        prop::option::of(finite()),
        prop::option::of(finite()),
        prop::option::of(finite()),
        finite(),
    )
        .prop_map(
            |(
                received,
                sent,
                error,
                notes,
                log,
                offline,
                time_ms,
                cpu_ms,
                cpu_between_turns_ms,
                bank_ms,
            )| BotTick {
                received,
                sent,
                error,
                notes,
                log,
                offline,
                time_ms,
                cpu_ms,
                cpu_between_turns_ms,
                bank_ms,
            },
        )
}

fn player() -> impl Strategy<Value = Player> {
    (
        ".{0,10}",
        prop_oneof![
            Just(PlayerKind::Process),
            Just(PlayerKind::Builtin),
            Just(PlayerKind::Tcp)
        ],
        prop::option::of(".{0,20}"),
    )
        .prop_map(|(name, kind, command)| Player {
            name,
            kind,
            command,
        })
}

fn record() -> impl Strategy<Value = Record> {
    let header = (
        "[a-z]{1,10}",
        json_value(),
        any::<u64>(),
        prop::collection::vec(player(), 0..5),
    )
        .prop_map(|(game, settings, seed, players)| {
            Record::Header(Header::new(game, settings, seed, players))
        });
    let tick = (
        any::<u32>(),
        prop::option::of(0usize..8),
        json_value(),
        json_value(),
        prop::collection::vec(bot_tick(), 0..5),
    )
        .prop_map(|(tick, player, action, state, bots)| {
            Record::Tick(Tick {
                tick,
                player,
                action,
                state,
                bots,
            })
        });
    let summary = (".{0,10}", any::<u32>(), any::<u32>(), any::<bool>()).prop_map(
        |(name, errors, timeouts, crashed)| BotSummary {
            name,
            errors,
            timeouts,
            crashed,
        },
    );
    let result = (
        any::<u32>(),
        "[a-z_]{1,12}",
        prop::collection::vec(finite(), 0..5),
        prop::collection::vec(any::<u32>(), 0..5),
        prop::collection::vec(summary, 0..5),
    )
        .prop_map(|(ticks, reason, scores, placement, bots)| {
            Record::Result(MatchResult {
                ticks,
                reason,
                scores,
                placement,
                bots,
            })
        });
    prop_oneof![header, tick, result]
}

fn sample_replay() -> Replay {
    let bot = |log: &str| BotTick {
        received: vec![Message {
            at_ms: 0.25,
            text: "2\n0\n9\n4 0 10\n4 8 10\n".into(),
        }],
        sent: vec![Message {
            at_ms: 1.5,
            text: "4 1".into(),
        }],
        error: None,
        notes: vec![],
        log: log.into(),
        offline: false,
        time_ms: Some(1.25),
        cpu_ms: None,
        cpu_between_turns_ms: None,
        bank_ms: 1028.75,
    };
    Replay {
        header: Header::new(
            "quoridor",
            json!({"players": 2, "board": 9}),
            42,
            vec![
                Player {
                    name: "a".into(),
                    kind: PlayerKind::Process,
                    command: Some("python3 bot.py".into()),
                },
                Player {
                    name: "b".into(),
                    kind: PlayerKind::Builtin,
                    command: None,
                },
            ],
        ),
        ticks: (0..3)
            .map(|t| Tick {
                tick: t,
                player: (t > 0).then_some((t as usize + 1) % 2),
                action: if t == 0 {
                    Tick::start_action()
                } else {
                    json!({"kind": "move", "x": 4, "y": t})
                },
                state: json!({"pawns": [[4, t], [4, 8]]}),
                bots: vec![bot("thinking…\n"), bot("")],
            })
            .collect(),
        result: Some(MatchResult {
            ticks: 2,
            reason: "goal".into(),
            scores: vec![1.0, 0.0],
            placement: vec![1, 2],
            bots: vec![
                BotSummary {
                    name: "a".into(),
                    errors: 0,
                    timeouts: 1,
                    crashed: false,
                },
                BotSummary {
                    name: "b".into(),
                    errors: 2,
                    timeouts: 0,
                    crashed: true,
                },
            ],
        }),
    }
}

fn to_bytes(replay: &Replay, gzip: bool) -> Vec<u8> {
    let mut writer = if gzip {
        ReplayWriter::gzip(Vec::new())
    } else {
        ReplayWriter::new(Vec::new())
    };
    replay.write_to(&mut writer).unwrap();
    writer.finish().unwrap()
}

fn from_bytes(bytes: Vec<u8>) -> Result<Replay, ReplayError> {
    Replay::from_reader(ReplayReader::from_reader(io::Cursor::new(bytes))?)
}

proptest! {
    #[test]
    fn every_record_round_trips(record in record()) {
        let line = serde_json::to_string(&record).unwrap();
        prop_assert!(!line.contains('\n'), "one record is one line");
        let back: Record = serde_json::from_str(&line).unwrap();
        prop_assert_eq!(back, record);
    }

    #[test]
    fn ticks_round_trip_through_writer_and_reader(
        ticks in prop::collection::vec(record(), 0..6),
        gzip in any::<bool>(),
    ) {
        let mut replay = sample_replay();
        replay.ticks = ticks
            .into_iter()
            .filter_map(|r| match r { Record::Tick(t) => Some(t), _ => None })
            .collect();
        let back = from_bytes(to_bytes(&replay, gzip)).unwrap();
        prop_assert_eq!(back, replay);
    }
}

#[test]
fn lines_look_as_documented() {
    let text = String::from_utf8(to_bytes(&sample_replay(), false)).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0]["type"], "header");
    assert_eq!(lines[0]["format"], json!({"major": 1, "minor": 0}));
    assert_eq!(lines[0]["players"][0]["kind"], "process");
    assert_eq!(lines[0]["players"][1]["command"], Value::Null);
    assert_eq!(lines[1]["type"], "tick");
    assert_eq!(lines[1]["player"], Value::Null);
    assert_eq!(lines[1]["action"], json!({"kind": "start"}));
    assert_eq!(lines[1]["bots"][0]["error"], Value::Null);
    assert!(
        lines[1]["bots"][0].get("notes").is_none(),
        "empty notes are left out"
    );
    assert_eq!(lines[4]["type"], "result");
    assert_eq!(lines[4]["bots"][1]["crashed"], true);
}

#[test]
fn gzip_round_trip_through_files() {
    let dir = arbiter_testdir::fresh("gzip-round-trip");
    let replay = sample_replay();
    for name in ["r.jsonl", "r.jsonl.gz"] {
        let path = dir.join(name);
        let mut writer = ReplayWriter::create(&path).unwrap();
        replay.write_to(&mut writer).unwrap();
        writer.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            bytes.starts_with(&[0x1f, 0x8b]),
            name.ends_with(".gz"),
            "{name}"
        );
        assert_eq!(read_replay(&path).unwrap(), replay, "{name}");
    }
    // Content decides, not the name.
    std::fs::rename(dir.join("r.jsonl.gz"), dir.join("renamed.jsonl")).unwrap();
    assert_eq!(read_replay(dir.join("renamed.jsonl")).unwrap(), replay);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gzip_lines_can_be_read_before_finish() {
    // A live viewer decompresses what has been flushed so far.
    let replay = sample_replay();
    let mut writer = ReplayWriter::gzip(Vec::new());
    replay.write_to(&mut writer).unwrap();
    let ReplayWriter {
        sink: Sink::Gzip(encoder),
        ..
    } = writer
    else {
        unreachable!()
    };
    let partial = encoder.get_ref().clone();
    let mut text = String::new();
    let _ = flate2::read::GzDecoder::new(&partial[..]).read_to_string(&mut text);
    assert_eq!(text.lines().count(), 5, "{text}");
}

#[test]
fn a_newer_major_version_is_refused() {
    let line =
        r#"{"type":"header","format":{"major":2,"minor":0},"game":"quoridor","something":"new"}"#;
    let err = from_bytes(format!("{line}\n").into_bytes()).unwrap_err();
    assert!(matches!(err, ReplayError::TooNew { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "replay format 2.0 is newer than this arbiter reads (1.x); upgrade arbiter"
    );
}

#[test]
fn a_newer_minor_version_is_read_ignoring_what_it_adds() {
    let mut text = String::from_utf8(to_bytes(&sample_replay(), false)).unwrap();
    text = text.replacen(r#""minor":0"#, r#""minor":7,"compression":"zstd""#, 1);
    text = text.replacen(
        r#""type":"tick","#,
        r#""type":"tick","camera":{"zoom":2},"#,
        1,
    );
    text.insert_str(
        text.find("\n").unwrap() + 1,
        "{\"type\":\"chat\",\"text\":\"gl hf\"}\n",
    );
    let replay = from_bytes(text.into_bytes()).unwrap();
    assert_eq!(replay.header.format, FormatVersion { major: 1, minor: 7 });
    let mut expected = sample_replay();
    expected.header.format.minor = 7;
    assert_eq!(replay, expected);
}

#[test]
fn a_malformed_line_is_reported_with_its_number() {
    let text = String::from_utf8(to_bytes(&sample_replay(), false)).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = r#"{"type":"tick","tick":"two"}"#;
    let err = from_bytes(lines.join("\n").into_bytes()).unwrap_err();
    assert!(
        matches!(err, ReplayError::Malformed { line: 3, .. }),
        "{err:?}"
    );
    assert!(err.to_string().starts_with("replay line 3: "), "{err}");

    lines[2] = "not json at all";
    let err = from_bytes(lines.join("\n").into_bytes()).unwrap_err();
    assert!(err.to_string().starts_with("replay line 3: "), "{err}");
}

#[test]
fn a_file_must_start_with_a_header() {
    let err = from_bytes(b"{\"type\":\"tick\"}\n".to_vec()).unwrap_err();
    assert!(err.to_string().starts_with("replay line 1: "), "{err}");
    assert!(matches!(from_bytes(Vec::new()), Err(ReplayError::Empty)));
}

#[test]
fn a_replay_without_result_is_a_cut_short_match() {
    let mut replay = sample_replay();
    replay.result = None;
    assert_eq!(from_bytes(to_bytes(&replay, false)).unwrap(), replay);
}

#[test]
fn strip_timing_zeroes_every_clock_reading() {
    let mut a = sample_replay();
    let mut b = sample_replay();
    b.ticks[1].bots[0].sent[0].at_ms = 99.0;
    b.ticks[2].bots[1].bank_ms = 3.0;
    b.ticks[2].bots[1].time_ms = Some(7.0);
    assert_ne!(a, b);
    strip_timing(&mut a);
    strip_timing(&mut b);
    assert_eq!(a, b);
    assert_eq!(
        a.ticks[1].bots[0].time_ms,
        Some(0.0),
        "present stays present"
    );

    let mut records: Vec<Record> = sample_replay().records().collect();
    strip_timing(&mut records);
    let Record::Tick(tick) = &records[1] else {
        panic!()
    };
    assert_eq!(tick.bots[0].received[0].at_ms, 0.0);
}

/// A game's settings type, fields deliberately out of sorted order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Settings {
    walls: u8,
    board: u8,
}

/// A game's action record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Step {
    kind: String,
    x: u8,
}

#[test]
fn typed_records_write_sorted_settings_and_events() {
    let header: Record<Settings, TickAction<Step>, Vec<u8>> = Record::Header(Header::new(
        "test",
        Settings {
            walls: 10,
            board: 9,
        },
        1,
        Vec::new(),
    ));
    let tick = |action| {
        Record::<Settings, _, _>::Tick(Tick {
            tick: 0,
            player: None,
            action,
            state: vec![1u8],
            bots: Vec::new(),
        })
    };
    let mut writer = ReplayWriter::new(Vec::new());
    writer.write(&header).unwrap();
    writer.write(&tick(Event::Start.into())).unwrap();
    writer.write(&tick(Event::Forfeit.into())).unwrap();
    writer.write(&tick(TickAction::Played(a_move()))).unwrap();
    let text = String::from_utf8(writer.finish().unwrap()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains(r#""settings":{"board":9,"walls":10}"#),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains(r#""action":{"kind":"start"}"#),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].contains(r#""action":{"kind":"forfeit"}"#),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].contains(r#""action":{"kind":"move","x":3}"#),
        "{}",
        lines[3]
    );
    assert_eq!(Tick::start_action(), json!({"kind": "start"}));
    assert_eq!(Tick::stuck_action(), json!({"kind": "stuck"}));
    for (line, action) in [
        (lines[2], TickAction::Event(Event::Forfeit)),
        (lines[3], TickAction::Played(a_move())),
    ] {
        match serde_json::from_str::<Record<Value, TickAction<Step>, Vec<u8>>>(line) {
            Ok(Record::Tick(tick)) => assert_eq!(tick.action, action),
            other => panic!("{line}: {other:?}"),
        }
    }
}

fn a_move() -> Step {
    Step {
        kind: "move".into(),
        x: 3,
    }
}

/// Gzip-compressed `bytes`, as a replay file of arbitrary content would be.
fn gzipped(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

proptest! {
    // The reader takes files from anyone (the web server's replays folder, `replay export`):
    // whatever the bytes, a replay or an error, never a panic.
    #[test]
    fn arbitrary_bytes_are_a_replay_or_an_error(
        bytes in prop::collection::vec(any::<u8>(), 0..4096),
        gzip in any::<bool>(),
    ) {
        let bytes = if gzip { gzipped(&bytes) } else { bytes };
        let _ = from_bytes(bytes);
    }

    #[test]
    fn a_damaged_replay_is_a_replay_or_an_error(
        cut in 0usize..2000,
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        gzip in any::<bool>(),
    ) {
        let mut bytes = to_bytes(&sample_replay(), false);
        for (at, byte) in flips {
            let at = at.index(bytes.len());
            bytes[at] = byte;
        }
        bytes.truncate(cut.min(bytes.len()));
        let bytes = if gzip { gzipped(&bytes) } else { bytes };
        let _ = from_bytes(bytes);
    }
}

#[test]
fn a_replay_of_one_endless_line_is_refused_at_its_limit() {
    let endless = io::repeat(b'x');
    let Err(error) = ReplayReader::from_reader(endless) else {
        panic!("an endless line is no replay");
    };
    assert_eq!(error.to_string(), "replay line 1: longer than 16 MiB");
}
