//! The block protocol of docs/games/labyrinth.md#protocol: the docs/games/labyrinth.md#example-session example session byte for byte, the
//! bot side, and the JSON the viewer reads.

use arbiter_games::labyrinth::{
    Action, Code, Goto, Labyrinth, LabyrinthClient, Level, Push, Setup,
};
use arbiter_games::{
    ClientEvent, Fault, FaultAction, Framing, Game, Recorded, SessionMode, Wire, WireClient,
};
use rand::SeedableRng;
use serde_json::json;

const BOARD_A: &str = include_str!("data/labyrinth_board_a.txt");
/// What the server sends alice in docs/games/labyrinth.md#example-session after her login (the login reply is the server's own).
const SESSION: &str = include_str!("data/labyrinth_session.txt");

fn section9() -> Labyrinth {
    section9_in(SessionMode::Alone)
}

fn section9_in(session: SessionMode) -> Labyrinth {
    Labyrinth::from_setup(Setup {
        level: Level::parse(BOARD_A).unwrap(),
        level_number: 1,
        game_id: 1,
        names: vec!["alice".to_owned(), "bob".to_owned()],
        session,
    })
    .unwrap()
}

const REPLIES: [&str; 3] = [
    "PUSH 0 1 2 15\nGOTO 0 2",
    "PUSH 1 1 3 15\nGOTO 3 2",
    "PUSH 1 0 0 4\nGOTO 1 2",
];

/// Every block alice receives in docs/games/labyrinth.md#example-session, as the referee sends them: the init block, then at the
/// start of every turn the turn block (hers with the private part), then the end.
fn alice_session() -> String {
    let mut game = section9();
    let mut out = String::new();
    game.start_message(0, 0, &mut out);
    for reply in REPLIES {
        match game.to_move() {
            Some(0) => game.turn_message(0, &mut out),
            _ => game.watch_message(0, &mut out),
        }
        let action = game.parse_action(reply).unwrap();
        game.apply(action).unwrap();
    }
    assert_eq!(game.to_move(), None);
    game.end_message(0, &mut out);
    out
}

#[test]
fn the_example_session_of_section_9_byte_for_byte() {
    let got = alice_session();
    for (i, (g, w)) in got.lines().zip(SESSION.lines()).enumerate() {
        assert_eq!(g, w, "line {}", i + 1);
    }
    assert_eq!(got, SESSION);
}

#[test]
fn bob_gets_his_own_init_and_private_part() {
    let mut game = section9();
    let mut out = String::new();
    game.start_message(0, 1, &mut out);
    assert!(out.contains("PLAYER 1\n") && out.ends_with("TARGETS 1 0\n.\n"));
    game.apply(game.parse_action(REPLIES[0]).unwrap()).unwrap();
    out.clear();
    game.turn_message(1, &mut out);
    assert!(out.ends_with("PLAYER 1\nMESSAGE OK\nTARGET 1\nEXTRAFIELD 15\nGAMESCORE 0\n.\n"));
}

#[test]
fn without_the_session_end_a_finished_game_sends_nothing() {
    let mut game = section9_in(SessionMode::Served);
    for reply in REPLIES {
        game.apply(game.parse_action(reply).unwrap()).unwrap();
    }
    let mut out = String::new();
    game.end_message(0, &mut out);
    assert_eq!(out, "");
}

#[test]
fn the_bot_side_rebuilds_every_position_it_is_asked_to_play() {
    let mut game = section9();
    let mut client = LabyrinthClient::default();
    let feed = |text: &str, client: &mut LabyrinthClient| -> Vec<ClientEvent<Labyrinth>> {
        text.lines()
            .map(|line| Labyrinth::client_feed(client, line).unwrap())
            .filter(|e| !matches!(e, ClientEvent::Pending))
            .collect()
    };
    let mut out = String::new();
    game.start_message(0, 0, &mut out);
    assert!(feed(&out, &mut client).is_empty());
    let mut turns = 0;
    for reply in REPLIES {
        out.clear();
        let mine = game.to_move() == Some(0);
        if mine {
            game.turn_message(0, &mut out);
        } else {
            game.watch_message(0, &mut out);
        }
        let events = feed(&out, &mut client);
        if mine {
            turns += 1;
            let [ClientEvent::YourTurn(seen)] = &events[..] else {
                panic!("one turn expected");
            };
            assert_eq!(seen.tiles(), game.tiles());
            assert_eq!(seen.positions(), game.positions());
            assert_eq!(seen.extra(0), game.extra(0));
            assert_eq!(seen.score(0), game.score(0));
            assert_eq!(seen.current_target(0), game.current_target(0));
            assert_eq!(seen.round(), game.round());
            assert_eq!(seen.to_move(), Some(0));
            let mut legal = Vec::new();
            let mut seen_legal = Vec::new();
            game.legal_actions(&mut legal);
            seen.legal_actions(&mut seen_legal);
            assert_eq!(legal, seen_legal);
        } else {
            assert!(events.is_empty(), "a block for bob is not alice's turn");
        }
        game.apply(game.parse_action(reply).unwrap()).unwrap();
    }
    assert_eq!(turns, 2);
    out.clear();
    game.end_message(0, &mut out);
    let events = feed(&out, &mut client);
    assert!(matches!(events[..], [ClientEvent::End]));
}

#[test]
fn a_reply_formats_and_parses_back() {
    let game = section9();
    let actions = [
        Action::goto(Push::new(0, 1, 2, 15), 0, 2),
        Action::Move {
            push: Push::new(1, 0, 3, 15),
            goto: Goto::None,
        },
    ];
    for action in actions {
        let mut text = String::new();
        game.format_action(action, &mut text);
        assert!(!text.ends_with('.') && !text.ends_with('\n'), "{text:?}");
        assert_eq!(game.parse_action(&text), Ok(action));
    }
    let mut text = String::new();
    game.format_action(Action::Void(Code::Timeout), &mut text);
    assert_eq!(text, "");
    assert_eq!(
        Labyrinth::PROTOCOL.framing,
        Framing::Block { terminator: "." }
    );
}

#[test]
fn faults_play_what_the_rules_prescribe() {
    let game = section9();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let bad_goto = game.parse_action("PUSH 0 1 2 15\nGOTO 3 1").unwrap();
    assert_eq!(
        game.on_fault(Fault::Illegal(bad_goto), &mut rng),
        FaultAction::Play(Action::PushOnly(Push::new(0, 1, 2, 15)))
    );
    let blocked = game.parse_action("PUSH 0 1 1 15\nGOTO 0 0").unwrap();
    assert_eq!(
        game.on_fault(Fault::Illegal(blocked), &mut rng),
        FaultAction::Play(Action::Void(Code::BlockedLine))
    );
    assert_eq!(
        game.on_fault(Fault::Malformed, &mut rng),
        FaultAction::Play(Action::Void(Code::NoPush))
    );
    assert_eq!(
        game.on_fault(Fault::Timeout, &mut rng),
        FaultAction::Play(Action::Void(Code::Timeout))
    );
}

#[test]
fn settings_record_is_what_the_viewer_reads() {
    let game = section9();
    assert_eq!(
        json_of(game.settings_record()),
        json!({
            "level": 1, "game_id": 1, "seed": null, "width": 4, "height": 3, "max_tick": 2,
            "blocked": [[1, 1]], "displays": [[3, 2], [0, 2]],
            "tiles": [12, 10, 14, 4, 5, 15, 5, 5, 9, 10, 11, 1],
            "starts": [[0, 0], [3, 0]], "targets": [[0, 1], [1, 0]],
        })
    );
    let generated = Labyrinth::generated(3, 2).unwrap();
    assert_eq!(json_of(generated.settings_record())["seed"], json!(3));
    assert_eq!(json_of(generated.settings_record())["level"], json!(3));
}

#[test]
fn snapshot_and_action_record_are_what_the_viewer_reads() {
    let mut game = section9();
    let action = game.parse_action(REPLIES[0]).unwrap();
    assert_eq!(
        json_of(game.action_record(action)),
        json!({"kind": "turn", "push": {"c": 0, "p": 1, "k": 2, "t": 15}, "goto": [0, 2], "code": "OK"})
    );
    game.apply(action).unwrap();
    assert_eq!(
        json_of(game.snapshot()),
        json!({
            "round": 0, "to_move": 1,
            "fields": [12, 10, 14, 4, 5, 15, 5, 5, 15, 9, 10, 11],
            "displays": [[1, 1, 2]], "positions": [[0, 2], [3, 0]], "extras": [1, 15],
            "scores": [1, 0], "targets": [1, 1], "codes": ["OK", "OK"],
        })
    );
    assert_eq!(
        json_of(game.action_record(Action::Void(Code::Timeout))),
        json!({"kind": "turn", "push": null, "goto": null, "code": "TIMEOUT"})
    );
    assert_eq!(
        json_of(game.action_record(Action::PushOnly(Push::new(1, 1, 3, 15)))),
        json!({"kind": "turn", "push": {"c": 1, "p": 1, "k": 3, "t": 15}, "goto": null, "code": "BAD_GOTO"})
    );
    for reply in &REPLIES[1..] {
        game.apply(game.parse_action(reply).unwrap()).unwrap();
    }
    assert_eq!(json_of(game.snapshot())["to_move"], json!(null));
    assert_eq!(json_of(game.snapshot())["targets"], json!([null, null]));
}

/// A replay record as JSON, as the viewer reads it.
fn json_of<T: serde::Serialize>(record: T) -> serde_json::Value {
    serde_json::to_value(record).expect("a record is JSON")
}
