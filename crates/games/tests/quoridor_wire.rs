//! The bot protocol, byte for byte, and the bot-side client that reads it back.

use arbiter_games::quoridor::{Action, Cell, Orientation, Quoridor, Settings, Wall};
use arbiter_games::{ClientEvent, Game, Recorded, Wire, WireClient};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;

fn start(players: u8) -> Quoridor {
    Quoridor::new(Settings::standard(players, 9).unwrap()).unwrap()
}

fn text(f: impl FnOnce(&mut String)) -> String {
    let mut out = String::new();
    f(&mut out);
    out
}

#[test]
fn the_spec_example_byte_for_byte() {
    let mut q = start(2);
    assert_eq!(
        text(|o| q.start_message(0, 1, o)),
        "2\n1\n9\n4 0 10\n4 8 10\n"
    );
    assert_eq!(
        text(|o| q.start_message(0, 0, o)),
        "2\n0\n9\n4 0 10\n4 8 10\n"
    );
    assert_eq!(text(|o| q.turn_message(0, o)), "1\n4 0 10\n4 8 10\n0\n\n");
    q.apply(Action::Move(Cell::new(4, 1))).unwrap();
    assert_eq!(text(|o| q.turn_message(1, o)), "2\n4 1 10\n4 8 10\n0\n\n");
    q.apply(Action::Wall(Wall::vertical(3, 6))).unwrap();
    q.apply(Action::Wall(Wall::horizontal(0, 0))).unwrap();
    assert_eq!(
        text(|o| q.turn_message(1, o)),
        "4\n4 1 9\n4 8 9\n2\n3 6 1 1\n0 0 0 0\n\n"
    );
    assert_eq!(text(|o| q.end_message(0, o)), "-1\n\n");
}

#[test]
fn eliminated_players_show_minus_one() {
    let pawns = [
        Some(Cell::new(4, 0)),
        None,
        Some(Cell::new(4, 8)),
        Some(Cell::new(0, 4)),
    ];
    let q = Quoridor::from_position(
        Settings::standard(4, 9).unwrap(),
        6,
        2,
        &pawns,
        &[5, 3, 4, 5],
        &[],
    )
    .unwrap();
    assert_eq!(
        text(|o| q.turn_message(2, o)),
        "7\n4 0 5\n-1 -1 3\n4 8 4\n0 4 5\n0\n\n"
    );
    assert_eq!(
        text(|o| q.start_message(0, 3, o)),
        "4\n3\n9\n4 0 5\n8 4 5\n4 8 5\n0 4 5\n"
    );
}

#[test]
fn answers_that_parse() {
    let q = start(2);
    let mv = |x, y| Action::Move(Cell::new(x, y));
    let wall = |x, y, orientation| Action::Wall(Wall { x, y, orientation });
    for (line, want) in [
        ("4 1", mv(4, 1)),
        ("  4 1  ", mv(4, 1)),
        ("4 1\r", mv(4, 1)),
        ("4\t1", mv(4, 1)),
        ("+4 01", mv(4, 1)),
        ("3 4 1", wall(3, 4, Orientation::Vertical)),
        ("3 4 0\r", wall(3, 4, Orientation::Horizontal)),
        // Off this board but a coordinate: `check` refuses it, not the parser.
        ("255 0", mv(255, 0)),
        ("9 9 1", wall(9, 9, Orientation::Vertical)),
    ] {
        assert_eq!(q.parse_action(line), Ok(want), "{line:?}");
    }
}

#[test]
fn answers_that_do_not_parse_say_what_was_received() {
    let q = start(2);
    for (line, words) in [
        ("", "empty answer"),
        ("   \r", "empty answer"),
        ("4", "got \"4\""),
        ("4 1 0 1", "got \"4 1 0 1\""),
        ("a b", "\"a\" is not an integer"),
        ("4.5 1", "\"4.5\" is not an integer"),
        ("4,1", "got \"4,1\""),
        ("4 1 2", "v must be 0 (horizontal) or 1 (vertical), got 2"),
        ("4 1 -1", "got -1"),
        ("-1 3", "x = -1 is not a coordinate"),
        ("3 256", "y = 256 is not a coordinate"),
        ("99999999999999999999999 1", "is not an integer"),
        (
            "move 4 1",
            "\"move\" is not an integer in the answer \"move 4 1\"",
        ),
    ] {
        let e = q.parse_action(line).expect_err(line);
        assert!(
            e.contains(words),
            "{line:?}: {e:?} should contain {words:?}"
        );
    }
    let long = format!("1 2 {}", "9".repeat(5000));
    let e = q.parse_action(&long).unwrap_err();
    assert!(e.len() < 300, "{e}");
}

#[test]
fn formatted_actions_parse_back() {
    let q = start(4);
    let mut actions = Vec::new();
    q.legal_actions(&mut actions);
    for a in actions {
        let line = text(|o| q.format_action(a, o));
        assert_eq!(q.parse_action(&line), Ok(a));
    }
    assert_eq!(
        text(|o| q.format_action(Action::Move(Cell::new(4, 1)), o)),
        "4 1"
    );
    assert_eq!(
        text(|o| q.format_action(Action::Wall(Wall::vertical(2, 3)), o)),
        "2 3 1"
    );
}

#[test]
fn json_shapes() {
    let mut q = start(2);
    q.apply(Action::Wall(Wall::vertical(2, 3))).unwrap();
    assert_eq!(
        json_of(q.snapshot()),
        json!({
            "tick": 1,
            "current": 1,
            "pawns": [[4, 0], [4, 8]],
            "walls_left": [9, 10],
            "walls": [[2, 3, 1, 0]],
            "distances": [8, 8],
            "eliminated": [false, false],
        })
    );
    assert_eq!(
        json_of(q.action_record(Action::Move(Cell::new(4, 7)))),
        json!({"kind": "move", "x": 4, "y": 7})
    );
    assert_eq!(
        json_of(q.action_record(Action::Wall(Wall::horizontal(1, 2)))),
        json!({"kind": "place", "x": 1, "y": 2, "v": 0})
    );
    let settings = json_of(q.settings_record());
    assert_eq!(settings["players"], 2);
    assert_eq!(settings["pawns"][1], json!({"x": 4, "y": 8}));
    let pawns = [
        Some(Cell::new(4, 0)),
        None,
        Some(Cell::new(4, 8)),
        Some(Cell::new(0, 4)),
    ];
    let q = Quoridor::from_position(
        Settings::standard(4, 9).unwrap(),
        6,
        2,
        &pawns,
        &[5; 4],
        &[],
    )
    .unwrap();
    assert_eq!(json_of(q.snapshot())["pawns"][1], json!(null));
    assert_eq!(json_of(q.snapshot())["distances"][1], json!(null));
    assert_eq!(
        json_of(q.snapshot())["eliminated"],
        json!([false, true, false, false])
    );
}

#[test]
fn fault_action_prefers_a_pawn_move() {
    let q = start(2);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..200 {
        match q.random_fallback(&mut rng) {
            Some(Action::Move(c)) => {
                seen.insert((c.x, c.y));
            }
            other => panic!("expected a pawn move, got {other:?}"),
        }
    }
    assert_eq!(seen.len(), 3, "uniform over the three moves: {seen:?}");
}

#[test]
fn fault_action_places_a_wall_when_no_pawn_move_is_left_and_none_when_stuck() {
    let pawns = [
        Some(Cell::new(4, 0)),
        Some(Cell::new(8, 8)),
        Some(Cell::new(7, 8)),
        Some(Cell::new(6, 8)),
    ];
    let walls = [(Wall::horizontal(7, 7), 0)];
    let settings = Settings::standard(4, 9).unwrap();
    let q = Quoridor::from_position(settings.clone(), 9, 1, &pawns, &[5, 1, 5, 5], &walls).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..100 {
        let Some(Action::Wall(w)) = q.random_fallback(&mut rng) else {
            panic!("expected a wall")
        };
        assert!(q.check(Action::Wall(w)).is_ok());
        seen.insert(w);
    }
    assert!(seen.len() > 20, "random walls: {}", seen.len());
    let q = Quoridor::from_position(settings, 9, 1, &pawns, &[5, 0, 5, 5], &walls).unwrap();
    assert_eq!(q.random_fallback(&mut rng), None);
}

fn feed_all(
    client: &mut <Quoridor as WireClient>::Client,
    message: &str,
) -> Vec<ClientEvent<Quoridor>> {
    message
        .split_inclusive('\n')
        .map(|line| Quoridor::client_feed(client, line.trim_end_matches('\n')).expect(line))
        .collect()
}

fn client_sees(
    game: &Quoridor,
    client: &mut <Quoridor as WireClient>::Client,
    me: usize,
) -> Quoridor {
    let turn = text(|o| game.turn_message(me, o));
    let mut events = feed_all(client, &turn);
    // The last line is the empty one after the turn.
    assert!(matches!(events.pop(), Some(ClientEvent::Pending)));
    match events.pop() {
        Some(ClientEvent::YourTurn(position)) => {
            assert!(events.iter().all(|e| matches!(e, ClientEvent::Pending)));
            position
        }
        _ => panic!("no turn after {turn:?}"),
    }
}

#[test]
fn the_client_rebuilds_every_position_of_random_matches() {
    for (players, board, seed) in [(2, 9, 1), (4, 9, 2), (2, 5, 3), (4, 11, 4), (2, 25, 5)] {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut game = Quoridor::new(Settings::standard(players, board).unwrap()).unwrap();
        let mut clients: Vec<_> = (0..players as usize)
            .map(|p| {
                let mut client = Default::default();
                let start = text(|o| game.start_message(0, p, o));
                assert!(
                    feed_all(&mut client, &start)
                        .iter()
                        .all(|e| matches!(e, ClientEvent::Pending))
                );
                client
            })
            .collect();
        let mut actions = Vec::new();
        while let Some(p) = game.to_move() {
            let seen = client_sees(&game, &mut clients[p], p);
            assert_eq!(seen.snapshot(), game.snapshot());
            seen.legal_actions(&mut actions);
            let mut ours = Vec::new();
            game.legal_actions(&mut ours);
            assert_eq!(actions, ours);
            if actions.is_empty() {
                game.apply_stuck();
            } else {
                game.apply_unchecked(actions[rng.random_range(0..actions.len())]);
            }
        }
        for client in clients.iter_mut() {
            let end = text(|o| game.end_message(0, o));
            let events = feed_all(client, &end);
            assert!(matches!(events[0], ClientEvent::End));
        }
    }
}

#[test]
fn the_client_reads_the_spec_example() {
    let mut client = Default::default();
    let events = feed_all(
        &mut client,
        "2\n1\n9\n4 0 10\n4 8 10\n2\n4 1 10\n4 8 10\n0\n\n",
    );
    let ClientEvent::YourTurn(q) = &events[8] else {
        panic!("turn expected at the F line")
    };
    assert_eq!(q.current(), 1);
    assert_eq!(q.tick(), 1);
    assert_eq!(q.pawn(0), Some(Cell::new(4, 1)));
    assert!(matches!(events[9], ClientEvent::Pending));
    let events = feed_all(&mut client, "-1\n\n");
    assert!(matches!(events[0], ClientEvent::End));
}

#[test]
fn the_client_tolerates_carriage_returns() {
    let mut client = Default::default();
    let events = feed_all(
        &mut client,
        "2\r\n0\r\n5\r\n2 0 3\r\n2 4 3\r\n1\r\n2 0 3\r\n2 4 3\r\n0\r\n",
    );
    assert!(matches!(events.last(), Some(ClientEvent::YourTurn(_))));
}

#[test]
fn the_client_refuses_malformed_input() {
    let cases = [
        ("3\n", "2 or 4"),
        ("x\n", "number of players"),
        ("2\n2\n", "player id 2"),
        ("2\n0\n9\n4 0\n", "start line"),
        (
            "2\n0\n8\n4 0 10\n4 7 10\n1\n4 0 10\n4 7 10\n0\n",
            "impossible position",
        ),
        ("2\n0\n9\n4 0 10\n4 8 10\n1\n4 0\n", "player line"),
        (
            "2\n0\n9\n4 0 10\n4 8 10\n1\n4 0 10\n4 8 10\nz\n",
            "number of walls",
        ),
        (
            "2\n0\n9\n4 0 10\n4 8 10\n1\n4 0 10\n4 8 10\n1\n3 3 2 0\n",
            "orientation",
        ),
        (
            "2\n0\n9\n4 0 10\n4 8 10\n1\n4 0 10\n4 8 10\n2\n3 3 0 0\n3 3 1 1\n",
            "crosses",
        ),
        ("2\n0\n9\n4 0 10\n4 8 10\n1\n-2 0 10\n", "x -2"),
    ];
    for (input, words) in cases {
        let mut client = Default::default();
        let err = input
            .lines()
            .map(|line| Quoridor::client_feed(&mut client, line))
            .find_map(Result::err)
            .unwrap_or_else(|| panic!("{input:?} was accepted"));
        assert!(
            err.contains(words),
            "{input:?}: {err:?} should contain {words:?}"
        );
    }
}

/// A replay record as JSON, as the viewer reads it.
fn json_of<T: serde::Serialize>(record: T) -> serde_json::Value {
    serde_json::to_value(record).expect("a record is JSON")
}
