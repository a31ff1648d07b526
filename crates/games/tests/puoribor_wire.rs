//! The line protocol of docs/games/puoribor.md#protocol, byte for byte, and the bot-side client.

use arbiter_games::puoribor::{Action, Puoribor};
use arbiter_games::{
    ClientEvent, Fault, FaultAction, Game, Recorded, StartRounds, TimeControl, Wire, WireClient,
};
use std::time::Duration;

fn message(lines: &str) -> String {
    let mut text: String = lines.split(" | ").flat_map(|l| [l, "\n"]).collect();
    if lines.is_empty() {
        text.clear();
    }
    text
}

/// The example exchange of docs/games/puoribor.md#protocol: (player, message sent, answer).
const EXAMPLE: [(usize, &str, &str); 6] = [
    (0, "0 | 4 0 10 | 4 8 10 | 0", "1 0 0"),
    (1, "1 | 4 0 9 | 4 8 10 | 1 | H 0 0 0", "0 4 7"),
    (0, "2 | 4 0 9 | 4 7 10 | 1 | H 0 0 0", "2 2 0"),
    (1, "3 | 4 0 8 | 4 7 10 | 2 | H 0 0 0 | V 2 0 0", "1 3 2"),
    (
        0,
        "4 | 4 0 8 | 4 7 9 | 3 | H 0 0 0 | H 3 2 1 | V 2 0 0",
        "3 0 0",
    ),
    (
        1,
        "5 | 4 0 6 | 4 7 9 | 4 | H 2 2 0 | V 2 0 0 | h 4 2 1 | v 0 3 1",
        "",
    ),
];

#[test]
fn start_and_end_messages() {
    let game = Puoribor::new();
    let mut out = String::new();
    game.start_message(0, 0, &mut out);
    assert_eq!(out, "0\n9\n");
    out.clear();
    game.start_message(0, 1, &mut out);
    assert_eq!(out, "1\n9\n");
    assert_eq!(Puoribor::PROTOCOL.start, StartRounds::ONE);
    out.clear();
    game.end_message(0, &mut out);
    assert_eq!(out, "-1\n");
}

#[test]
fn the_spec_example_byte_for_byte() {
    let mut game = Puoribor::new();
    for (player, sent, answer) in EXAMPLE {
        assert_eq!(game.to_move(), Some(player));
        let mut out = String::new();
        game.turn_message(player, &mut out);
        assert_eq!(out, message(sent), "tick {}", game.tick());
        if answer.is_empty() {
            break;
        }
        let action = game.parse_action(answer).unwrap();
        let mut formatted = String::new();
        game.format_action(action, &mut formatted);
        assert_eq!(formatted, answer);
        game.apply(action).unwrap();
    }
}

#[test]
fn the_client_rebuilds_every_position_of_the_example() {
    let mut game = Puoribor::new();
    let mut clients = [Default::default(), Default::default()];
    for (p, client) in clients.iter_mut().enumerate() {
        for line in [p.to_string().as_str(), "9"] {
            assert!(matches!(
                Puoribor::client_feed(client, line),
                Ok(ClientEvent::Pending)
            ));
        }
    }
    for (player, sent, answer) in EXAMPLE {
        let mut seen = None;
        for line in message(sent).lines() {
            match Puoribor::client_feed(&mut clients[player], line).unwrap() {
                ClientEvent::YourTurn(position) => seen = Some(position),
                ClientEvent::Pending | ClientEvent::Acknowledge(_) => {}
                ClientEvent::End => panic!("no end yet"),
            }
        }
        let seen = seen.expect("a complete turn");
        assert_eq!(seen.board(), game.board());
        assert_eq!(seen.hash(), game.hash());
        assert_eq!(seen.tick(), game.tick());
        if answer.is_empty() {
            break;
        }
        game.apply(game.parse_action(answer).unwrap()).unwrap();
    }
    assert!(matches!(
        Puoribor::client_feed(&mut clients[0], "-1"),
        Ok(ClientEvent::End)
    ));
}

#[test]
fn answers_are_three_integers() {
    let game = Puoribor::new();
    assert_eq!(game.parse_action("0 4 1"), Ok(Action::step(4, 1)));
    assert_eq!(game.parse_action("  3\t0  5 \r"), Ok(Action::rotate(0, 5)));
    // Well-formed but impossible: parsed, then refused by check as illegal.
    let odd = game.parse_action("7 -1 99").unwrap();
    assert_eq!(odd, Action::new(7, -1, 99));
    assert!(game.check(odd).unwrap_err().0.contains("action type"));
    let off = game.parse_action("0 -1 3").unwrap();
    assert!(game.check(off).unwrap_err().0.contains("off the board"));
    for (line, says) in [
        ("", "empty answer"),
        ("   ", "empty answer"),
        ("0 4", "got 2"),
        ("0 4 1 2", "got more"),
        ("0 four 1", "`four` is not an integer"),
        ("0 4.0 1", "`4.0` is not an integer"),
        ("0 4 99999999999", "is not an integer"),
    ] {
        let error = game.parse_action(line).unwrap_err();
        assert!(error.contains(says), "{line:?}: {error}");
    }
    let long = format!("0 4 {}", "9".repeat(10_000));
    assert!(game.parse_action(&long).unwrap_err().len() < 300);
}

#[test]
fn illegal_actions_say_why() {
    let game = Puoribor::new();
    for (action, says) in [
        (Action::step(4, 3), "at most two cells"),
        (Action::step(4, 2), "jump over the opponent"),
        (Action::step(5, 1), "diagonal"),
        (Action::step(4, 0), "already there"),
        (Action::horizontal(8, 0), "stick out"),
        (Action::rotate(6, 0), "does not fit"),
    ] {
        let error = game.check(action).unwrap_err().0;
        assert!(error.contains(says), "{action}: {error}");
    }
    let mut game = Puoribor::new();
    game.apply(Action::horizontal(3, 0)).unwrap();
    let error = game.check(Action::vertical(3, 0)).unwrap_err().0;
    assert!(error.contains("crosses"), "{error}");
    let error = game.check(Action::horizontal(4, 0)).unwrap_err().0;
    assert!(error.contains("overlaps"), "{error}");
}

#[test]
fn faults_forfeit_and_replies_are_timed_one_by_one() {
    let game = Puoribor::new();
    assert_eq!(
        Puoribor::PROTOCOL.time,
        TimeControl::PerReply {
            limit: Duration::from_secs(1),
            first_extra: Duration::from_secs(2)
        }
    );
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
    for fault in [Fault::Malformed, Fault::Timeout, Fault::Crash] {
        assert_eq!(game.on_fault(fault, &mut rng), FaultAction::Forfeit);
    }
}

#[test]
fn the_client_refuses_what_the_referee_never_sends() {
    let feed = |lines: &[&str]| -> Result<(), String> {
        let mut client = Default::default();
        for line in lines {
            Puoribor::client_feed(&mut client, line)?;
        }
        Ok(())
    };
    for (lines, says) in [
        (&["2"][..], "0 or 1"),
        (&["0", "7"][..], "board size must be 9"),
        (&["0", "9", "zero"][..], "a tick or -1"),
        (&["0", "9", "0", "4 0"][..], "player line"),
        (
            &["0", "9", "0", "4 0 10", "4 8 10", "1", "X 0 0 0"][..],
            "wall line",
        ),
        (
            &["0", "9", "1", "4 0 10", "4 8 10", "0"][..],
            "player 1's turn",
        ),
        (&["0", "9", "0", "4 0 10", "4 0 10", "0"][..], "same cell"),
        (
            &["0", "9", "0", "4 0 10", "4 8 10", "2", "H 0 0 0", "H 1 0 0"][..],
            "overlaps",
        ),
    ] {
        let error = feed(lines).unwrap_err();
        assert!(error.contains(says), "{lines:?}: {error}");
    }
}

/// A wall line far off the board was once made into bits before it was checked: a shift past
/// the 128 bits of the board's set, a panic with overflow checks (found by arbitrary input).
#[test]
fn a_wall_line_off_the_board_is_refused_before_it_is_shifted() {
    for wall in ["H 13 200 0", "V 8 0 0", "h 9 0 1", "v 255 255 1"] {
        let mut client = Default::default();
        let mut last = Ok(ClientEvent::Pending);
        for line in ["0", "9", "0", "4 0 10", "4 8 10", "1", wall] {
            last = Puoribor::client_feed(&mut client, line);
        }
        let Err(error) = last else {
            panic!("{wall} was taken")
        };
        assert!(error.contains("off the board"), "{wall}: {error}");
    }
}

#[test]
fn replay_json() {
    let mut game = Puoribor::new();
    game.apply(Action::horizontal(0, 0)).unwrap();
    let snapshot = json_of(game.snapshot());
    assert_eq!(snapshot["walls"], serde_json::json!([["H", 0, 0, 0]]));
    assert_eq!(snapshot["walls_remaining"], serde_json::json!([9, 10]));
    assert_eq!(snapshot["pawns"], serde_json::json!([[4, 0], [4, 8]]));
    assert_eq!(
        json_of(game.action_record(Action::rotate(2, 3))),
        serde_json::json!({"kind": "rotate", "type": 3, "x": 2, "y": 3})
    );
    assert_eq!(json_of(game.settings_record())["max_ticks"], 200);
}

/// A replay record as JSON, as the viewer reads it.
fn json_of<T: serde::Serialize>(record: T) -> serde_json::Value {
    serde_json::to_value(record).expect("a record is JSON")
}
