//! Every importer takes files from other tools, and every exporter replays from anyone: whatever
//! the bytes, the answer is a result or an error, never a panic, and memory stays bounded.

use std::io::Write;

use arbiter_formats::{ai_arena, fights_msgpack, graphisoft, judge_log};
use arbiter_replay::{Replay, ReplayReader};
use proptest::prelude::*;

const SESSION: &str = include_str!("../../games/tests/data/labyrinth_session.txt");

/// A number as a changed log would hold it: small, huge, negative, or not a number at all.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        (0u16..300).prop_map(|n| n.to_string()),
        "[0-9]{19,40}",
        "[a-z.-]{0,3}",
    ]
}

/// The example session with the `word`th whitespace-separated word replaced by `new`.
fn with_word_changed(text: &str, word: prop::sample::Index, new: &str) -> String {
    let mut words: Vec<&str> = text.split_inclusive(char::is_whitespace).collect();
    let at = word.index(words.len());
    let end = if words[at].ends_with('\n') { "\n" } else { " " };
    let changed = format!("{new}{end}");
    words[at] = &changed;
    words.concat()
}

/// A JSON value of any shape, for the fields of a replay an exporter reads.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "[a-z{};, 0-9]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A replay of `game` whose settings, actions and states are arbitrary JSON.
fn odd_replay(
    game: &str,
    settings: serde_json::Value,
    ticks: Vec<(serde_json::Value, serde_json::Value)>,
) -> Option<Replay> {
    let header = serde_json::json!({
        "type": "header", "format": {"major": 1, "minor": 0}, "game": game,
        "settings": settings, "seed": 1,
        "players": [{"name": "a", "kind": "process"}, {"name": "b", "kind": "process"}],
    });
    let mut text = format!("{header}\n");
    for (i, (action, state)) in ticks.into_iter().enumerate() {
        let tick = serde_json::json!({
            "type": "tick", "tick": i, "player": i % 2, "action": action, "state": state,
            "bots": [{}, {}],
        });
        text += &format!("{tick}\n");
    }
    let reader = ReplayReader::new(std::io::Cursor::new(text.into_bytes())).ok()?;
    Replay::from_reader(reader).ok()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_graphisoft_log_of_any_text_is_an_answer(text in any::<String>()) {
        let _ = graphisoft::import(&text, "any.log");
    }

    #[test]
    fn a_graphisoft_log_with_any_word_changed_is_an_answer(
        word in any::<prop::sample::Index>(),
        new in number(),
    ) {
        let _ = graphisoft::import(&with_word_changed(SESSION, word, &new), "changed.log");
    }

    #[test]
    fn a_fights_log_of_any_bytes_is_an_answer(
        bytes in prop::collection::vec(any::<u8>(), 0..2048),
    ) {
        let _ = fights_msgpack::import(&bytes);
    }

    #[test]
    fn an_ai_arena_map_of_any_text_is_an_answer(
        text in prop_oneof![
            any::<String>(),
            (any::<prop::sample::Index>(), number()).prop_map(|(word, new)| with_word_changed(
                r#"{"boardSize": 9, "numOfPlayers": 2, "numOfWalls": 10, "pawnPositions": [[4, 0], [4, 8]]}"#,
                word,
                &new,
            )),
        ],
    ) {
        let path = arbiter_testdir::root().join("map.json");
        std::fs::File::create(&path).unwrap().write_all(text.as_bytes()).unwrap();
        let _ = ai_arena::read_map(&path);
    }

    #[test]
    fn exporting_a_replay_of_any_values_is_an_answer(
        game in prop::sample::select(vec!["puoribor", "domino", "quoridor"]),
        settings in json_value(),
        ticks in prop::collection::vec((json_value(), json_value()), 0..6),
    ) {
        if let Some(replay) = odd_replay(game, settings, ticks) {
            let _ = judge_log::export(&replay);
            let _ = fights_msgpack::export(&replay, fights_msgpack::MatchStart::UnixSeconds(0.0));
        }
    }
}

/// msgpack announces lengths before the data: a log claiming four billion elements is refused
/// without the memory it asks for.
#[test]
fn a_fights_log_announcing_huge_data_is_refused() {
    for huge in [
        vec![0xdd, 0xff, 0xff, 0xff, 0xff],
        vec![0xdf, 0xff, 0xff, 0xff, 0xff],
        vec![0xdb, 0xff, 0xff, 0xff, 0xff],
        vec![0xc6, 0xff, 0xff, 0xff, 0xff],
        [vec![0x91, 0xdd, 0xff, 0xff, 0xff, 0xff], vec![0x90; 1000]].concat(),
    ] {
        assert!(fights_msgpack::import(&huge).is_err());
    }
}

/// A log of arrays nested a hundred thousand deep once overflowed the stack of a test thread in
/// a debug build (the decoder recursed 1024 levels before refusing): refused at a few levels.
#[test]
fn a_fights_log_nested_deeper_than_any_log_is_refused_within_the_stack() {
    let deep = vec![0x91; 100_000];
    let error = fights_msgpack::import(&deep).unwrap_err().to_string();
    assert!(error.contains("depth"), "{error}");
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || fights_msgpack::import(&deep).is_err())
        .unwrap();
    assert!(handle.join().unwrap());
}
