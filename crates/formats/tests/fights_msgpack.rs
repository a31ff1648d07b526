//! The fights msgpack log called as a library: a replay exported and imported again gives the
//! same log byte for byte, and damaged logs are errors, never panics.

use arbiter_formats::fights_msgpack::{ExportError, ImportError, MatchStart, Problem};
use arbiter_formats::fights_msgpack::{export, import};
use arbiter_games::puoribor::Puoribor;
use arbiter_games::{Game, Recorded};
use arbiter_replay::{BotTick, Header, Message, Player, PlayerKind, Replay, Tick};
use rand::SeedableRng;
use rand::seq::IndexedRandom;

/// A typed record as the JSON a replay read back holds.
fn json(record: impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(record).unwrap()
}

const START: MatchStart = MatchStart::UnixSeconds(1_700_000_000.25);

/// A Puoribor match of random legal actions, one every 7 ms.
fn random_replay(seed: u64, actions: usize) -> Replay {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let mut game = Puoribor::new();
    let player = |name: &str| Player {
        name: name.into(),
        kind: PlayerKind::Process,
        command: None,
    };
    let header = Header::new(
        Puoribor::NAME,
        json(game.settings_record()),
        seed,
        vec![player("a"), player("b")],
    );
    let mut ticks = vec![Tick {
        tick: 0,
        player: None,
        action: Tick::start_action(),
        state: json(game.snapshot()),
        bots: vec![BotTick::default(), BotTick::default()],
    }];
    let mut legal = Vec::new();
    for i in 1..=actions {
        if game.to_move().is_none() {
            break;
        }
        legal.clear();
        game.legal_actions(&mut legal);
        let action = *legal.choose(&mut rng).unwrap();
        let mover = game.current();
        game.apply(action).unwrap();
        let mut bots = vec![BotTick::default(), BotTick::default()];
        bots[mover].sent.push(Message {
            at_ms: 7.0 * i as f64,
            text: action.to_string(),
        });
        ticks.push(Tick {
            tick: game.tick(),
            player: Some(mover),
            action: json(game.action_record(action)),
            state: json(game.snapshot()),
            bots,
        });
    }
    Replay {
        header,
        ticks,
        result: None,
    }
}

#[test]
fn export_import_export_gives_the_same_bytes() {
    for seed in 0..5 {
        let replay = random_replay(seed, 60);
        let log = export(&replay, START).unwrap();
        let imported = import(&log).unwrap();
        assert_eq!(imported.replay.ticks.len(), replay.ticks.len());
        let again = export(&imported.replay, START).unwrap();
        assert_eq!(again, log, "seed {seed}");
        // The end time given to the replay file puts the match where the log had it.
        let ended = imported.ended.expect("the log has timestamps");
        assert_eq!(
            export(&imported.replay, MatchStart::EndedAt(ended)).unwrap(),
            log
        );
    }
}

#[test]
fn a_replay_of_another_game_or_with_a_wrong_state_is_refused() {
    let mut replay = random_replay(1, 4);
    replay.header.game = "quoridor".into();
    let error = export(&replay, START).unwrap_err();
    assert!(matches!(error, ExportError::NotPuoribor { .. }), "{error}");
    assert!(error.to_string().contains("quoridor"), "{error}");

    let mut replay = random_replay(1, 4);
    replay.ticks[2].state["walls_remaining"] = serde_json::json!([0, 0]);
    let error = export(&replay, START).unwrap_err();
    assert!(
        matches!(
            error,
            ExportError::Differs {
                tick: 2,
                field: "walls_remaining",
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn damaged_logs_say_where() {
    let error = import(&[0x92, 0x01, 0xcb, 0x40]).unwrap_err();
    assert!(matches!(error, ImportError::NotMsgpack { .. }), "{error}");
    // A list of two values with one byte after its header: refused before decoding.
    let error = import(&[0x92, 0x01]).unwrap_err();
    assert!(
        matches!(error, ImportError::Size { offset: 0, .. }),
        "{error}"
    );
    let error = import(&[0x90]).unwrap_err();
    assert!(matches!(error, ImportError::Empty), "{error}");
    let error = import(&[0x01]).unwrap_err();
    assert!(matches!(error, ImportError::NotAList), "{error}");

    // Two actions swapped: the second element plays for the wrong agent or illegally.
    let log = export(&random_replay(2, 6), START).unwrap();
    let mut value = rmpv::decode::read_value(&mut &log[..]).unwrap();
    let rmpv::Value::Array(elements) = &mut value else {
        panic!()
    };
    elements.swap(1, 2);
    let mut bytes = Vec::new();
    rmpv::encode::write_value(&mut bytes, &value).unwrap();
    let error = import(&bytes).unwrap_err();
    let ImportError::Element { index: 1, problem } = &error else {
        panic!("{error}")
    };
    assert!(
        matches!(
            problem,
            Problem::WrongAgent { .. } | Problem::Illegal { .. }
        ),
        "{error}"
    );
}

#[test]
fn every_truncation_and_every_changed_byte_is_an_answer_not_a_panic() {
    let log = export(&random_replay(3, 4), START).unwrap();
    // Every 7th byte: each import decodes and replays the whole log.
    for end in (0..log.len()).step_by(7) {
        assert!(import(&log[..end]).is_err(), "cut at {end}");
    }
    for i in (0..log.len()).step_by(7) {
        for new in [0x00, 0x7f, 0xc0, 0xd6, 0xff] {
            let mut changed = log.clone();
            changed[i] = new;
            let _ = import(&changed);
        }
    }
}
