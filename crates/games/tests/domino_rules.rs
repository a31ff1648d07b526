//! Domino rules and protocol beyond the spec's vectors: drawn boards, the messages, the bot side.

use std::collections::BTreeSet;
use std::time::Duration;

use arbiter_games::domino::{
    Cell, Domino, DominoClient, GENERATED_SIZES, JUDGE_SIZE_DRAWS, Placement, Settings, StartToken,
    judge_size, obstacle_count, parse_move,
};
use arbiter_games::{
    ClientEvent, ExtraLines, Fault, FaultAction, Game, StartRounds, TimeControl, Wire, WireClient,
};

fn c(x: u16, y: u16) -> Cell {
    Cell::new(x, y)
}

fn spec_board() -> Domino {
    Domino::new(Settings::custom(5, &[c(0, 1), c(2, 2), c(2, 3)]).unwrap()).unwrap()
}

#[test]
fn drawn_boards_have_the_judges_obstacle_counts() {
    for (n, k) in [(13, 17), (15, 23), (17, 29), (19, 36), (25, 63), (51, 260)] {
        assert_eq!(obstacle_count(n), k);
        let settings = Settings::seeded(n, 42).unwrap();
        assert_eq!(settings.obstacles.len(), k, "n = {n}");
        let distinct: BTreeSet<Cell> = settings.obstacles.iter().copied().collect();
        assert_eq!(distinct.len(), k, "n = {n}");
    }
    for seed in 0..200 {
        let settings = Settings::generated(seed);
        assert_eq!(settings.obstacles.len(), obstacle_count(settings.size));
        settings.validate().unwrap();
    }
}

#[test]
fn the_judge_makes_13_and_51_from_one_number_each_every_other_odd_size_from_two() {
    let mut made = std::collections::BTreeMap::new();
    for s in 0..JUDGE_SIZE_DRAWS {
        *made.entry(judge_size(s)).or_insert(0) += 1;
    }
    let sizes: Vec<u8> = made.keys().copied().collect();
    assert_eq!(sizes, GENERATED_SIZES.step_by(2).collect::<Vec<_>>());
    for (size, numbers) in made {
        let expected = if size == 13 || size == 51 { 1 } else { 2 };
        assert_eq!(numbers, expected, "size {size}");
    }
}

#[test]
fn drawn_sizes_follow_the_judge_13_and_51_half_as_often_as_the_others() {
    let mut counts = std::collections::BTreeMap::new();
    let draws = 19_000;
    for seed in 0..draws {
        *counts.entry(Settings::generated(seed).size).or_insert(0u32) += 1;
    }
    // 500 expected for 13 and 51, 1,000 for the others (draws / 38 per number): a fair
    // draw stays within five standard deviations of each.
    for (size, count) in counts {
        let expected = if size == 13 || size == 51 {
            500.0
        } else {
            1000.0
        };
        let sd = (expected * (1.0 - expected / draws as f64)).sqrt();
        assert!(
            (f64::from(count) - expected).abs() < 5.0 * sd,
            "size {size} drawn {count} times, {expected} expected"
        );
    }
}

#[test]
fn the_same_board_seed_gives_the_same_board() {
    for seed in [0, 1, 7, u64::MAX] {
        assert_eq!(Settings::generated(seed), Settings::generated(seed));
        let a = Domino::new(Settings::generated(seed)).unwrap();
        let b = Domino::new(Settings::generated(seed)).unwrap();
        assert_eq!(a, b);
        // A board of a given size does not depend on whether the size was drawn.
        let size = Settings::generated(seed).size;
        assert_eq!(
            Settings::seeded(size, seed).unwrap(),
            Settings::generated(seed)
        );
    }
    assert_ne!(
        Settings::seeded(15, 1).unwrap(),
        Settings::seeded(15, 2).unwrap()
    );
}

/// Boards are drawn from ChaCha streams, so a given seed gives this board on every machine;
/// if this fails, a dependency changed how it draws, and stored tournaments would no longer
/// replay their boards.
#[test]
fn a_drawn_board_is_stable_across_versions() {
    let settings = Settings::generated(2024);
    let first: Vec<String> = settings.obstacles[..4]
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        (settings.size, first),
        (GOLDEN_SIZE, GOLDEN.map(str::to_owned).to_vec())
    );
}

const GOLDEN_SIZE: u8 = 41;
const GOLDEN: [&str; 4] = ["{28;0}", "{36;0}", "{1;1}", "{12;1}"];

#[test]
fn settings_are_checked() {
    for size in [1, 2, 4, 64, 65, 255] {
        assert!(Settings::seeded(size, 0).is_err(), "size {size}");
        assert!(Settings::custom(size, &[]).is_err(), "size {size}");
    }
    assert!(Settings::custom(63, &[]).is_ok());
    assert!(Settings::custom(3, &[]).is_ok());
    let err = Settings::custom(5, &[c(5, 0)]).unwrap_err();
    assert!(err.to_string().contains("{5;0}"), "{err}");
    let err = Settings::custom(5, &[c(1, 1), c(1, 1)]).unwrap_err();
    assert!(err.to_string().contains("twice"), "{err}");
    // Any order in, row-major order out.
    let settings = Settings::custom(5, &[c(4, 0), c(0, 3), c(1, 0)]).unwrap();
    assert_eq!(settings.obstacles, [c(1, 0), c(4, 0), c(0, 3)]);
    let mut unsorted = settings.clone();
    unsorted.obstacles.reverse();
    assert!(unsorted.validate().is_err());
}

#[test]
fn the_largest_board_wraps_in_both_directions() {
    let game = Domino::new(Settings::custom(63, &[]).unwrap()).unwrap();
    assert_eq!(game.count_placements(), 2 * 63 * 63);
    assert_eq!(game.check(Placement::new(c(62, 5), c(0, 5))), Ok(()));
    assert_eq!(game.check(Placement::new(c(5, 0), c(5, 62))), Ok(()));
    assert!(game.check(Placement::new(c(62, 62), c(0, 0))).is_err());
    assert!(game.check(Placement::new(c(63, 0), c(62, 0))).is_err());
}

#[test]
fn illegal_moves_say_why() {
    let game = spec_board();
    let why = |a: Cell, b: Cell| game.check(Placement::new(a, b)).unwrap_err().0;
    assert!(why(c(0, 0), c(4, 4)).contains("diagonal"));
    assert!(why(c(1, 1), c(3, 1)).contains("not side by side"));
    assert!(why(c(1, 1), c(1, 1)).contains("two cells"));
    assert!(why(c(5, 0), c(0, 0)).contains("off the board"));
    assert!(why(c(0, 1), c(0, 2)).contains("obstacle"));
    let mut played = game.clone();
    played.apply(Placement::new(c(3, 3), c(3, 2))).unwrap();
    let why = played
        .check(Placement::new(c(3, 2), c(4, 2)))
        .unwrap_err()
        .0;
    assert!(why.contains("covered by a domino"), "{why}");
}

#[test]
fn a_stuck_player_loses_and_the_match_is_over() {
    let mut game = Domino::new(Settings::custom(3, &[c(1, 1)]).unwrap()).unwrap();
    for p in [
        Placement::new(c(0, 0), c(0, 1)),
        Placement::new(c(2, 0), c(2, 2)),
        Placement::new(c(1, 2), c(0, 2)),
    ] {
        assert!(!game.is_stuck());
        game.apply(p).unwrap();
    }
    assert_eq!(game.to_move(), Some(1));
    assert!(game.is_stuck());
    assert_eq!(game.outcome(), None);
    game.apply_stuck();
    assert_eq!(game.to_move(), None);
    assert_eq!(game.loser(), Some(1));
    assert_eq!(game.tick(), 4);
    let outcome = game.outcome().unwrap();
    assert_eq!(
        (outcome.reason, outcome.scores, outcome.placement),
        ("no_moves", vec![1.0, 0.0], vec![1, 2])
    );
    let mut actions = vec![Placement::new(c(0, 0), c(0, 1))];
    game.legal_actions(&mut actions);
    assert!(actions.is_empty());
    assert!(game.check(Placement::new(c(1, 0), c(2, 0))).is_err());
}

#[test]
fn the_wire_protocol_of_the_spec() {
    let game = spec_board();
    assert_eq!(
        Domino::PROTOCOL.time,
        TimeControl::PerReply {
            limit: Duration::from_millis(500),
            first_extra: Duration::from_millis(2000),
        }
    );
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
    assert_eq!(
        game.on_fault(Fault::Timeout, &mut rng),
        FaultAction::Forfeit
    );
    assert_eq!(Domino::PROTOCOL.extra_lines, ExtraLines::NextReply);
    let start = Domino::PROTOCOL.start;
    assert_eq!(
        start,
        StartRounds {
            rounds: 2,
            ack: Some("ok")
        }
    );
    for line in ["ok", "OK", " Ok \r", "oK\t"] {
        assert_eq!(start.check_ack(line), Ok(()), "{line:?}");
    }
    for line in ["", "okay", "o k", "ok ok", "yes"] {
        assert!(start.check_ack(line).is_err(), "{line:?}");
    }
    let message = |f: &dyn Fn(&mut String)| {
        let mut out = String::new();
        f(&mut out);
        out
    };
    assert_eq!(message(&|o| game.start_message(0, 0, o)), "5\n");
    assert_eq!(message(&|o| game.start_message(0, 1, o)), "5\n");
    assert_eq!(
        message(&|o| game.start_message(1, 1, o)),
        "{0;1},{2;2},{2;3}\n"
    );
    assert_eq!(message(&|o| game.turn_message(0, o)), "START\n");
    assert_eq!(message(&|o| game.end_message(0, o)), "");

    let mut lower = game.settings().clone();
    lower.start_token = StartToken::Lower;
    let lower = Domino::new(lower).unwrap();
    assert_eq!(message(&|o| lower.turn_message(0, o)), "start\n");

    // The opponent is told the move in the mover's cell order, without its leading zeros.
    let mut played = game.clone();
    let p = played.parse_action("  {04;02},{3;2}\r").unwrap();
    assert_eq!(p, Placement::new(c(4, 2), c(3, 2)));
    played.apply(p).unwrap();
    assert_eq!(message(&|o| played.turn_message(1, o)), "{4;2},{3;2}\n");
    assert_eq!(message(&|o| played.format_action(p, o)), "{4;2},{3;2}");
}

#[test]
fn huge_coordinates_are_illegal_not_malformed() {
    let p = parse_move("{99999999999999999999;0},{0;0}").unwrap();
    assert_eq!(p.a.x, u16::MAX);
    assert!(
        spec_board()
            .check(p)
            .unwrap_err()
            .0
            .contains("off the board")
    );
}

#[test]
fn a_malformed_line_is_quoted_and_cut() {
    let long = format!("{{1;1}},{{1;2}}{}", "x".repeat(1000));
    let err = parse_move(&long).unwrap_err();
    assert!(err.len() < 200, "{err}");
    assert!(err.contains("{x1;y1},{x2;y2}"), "{err}");
    assert!(parse_move("").unwrap_err().contains("empty"));
}

fn feed(client: &mut DominoClient, line: &str) -> ClientEvent<Domino> {
    Domino::client_feed(client, line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
}

#[test]
fn the_bot_side_keeps_the_board_from_both_players_moves() {
    // The first player: acknowledges both start messages, then plays from START.
    let mut client = DominoClient::default();
    assert!(matches!(
        feed(&mut client, "5"),
        ClientEvent::Acknowledge("ok")
    ));
    assert!(matches!(
        feed(&mut client, "{0;1},{2;2},{2;3}"),
        ClientEvent::Acknowledge("ok")
    ));
    let ClientEvent::YourTurn(game) = feed(&mut client, "START") else {
        panic!("START asks for a move")
    };
    assert_eq!(game, spec_board());
    let mine = Placement::new(c(4, 2), c(0, 2));
    Domino::client_played(&mut client, mine);
    let ClientEvent::YourTurn(game) = feed(&mut client, "{2;4},{2;0}\r") else {
        panic!("a move asks for a move")
    };
    let mut expected = spec_board();
    expected.apply(mine).unwrap();
    expected.apply(Placement::new(c(2, 4), c(2, 0))).unwrap();
    assert_eq!(game, expected);
    assert_eq!(game.current(), 0);

    // The second player starts from the first player's move; an empty obstacle line is fine.
    let mut client = DominoClient::default();
    feed(&mut client, "3");
    feed(&mut client, "");
    let ClientEvent::YourTurn(game) = feed(&mut client, "{0;0},{1;0}") else {
        panic!()
    };
    assert_eq!(game.free_count(), 7);
    assert_eq!(game.current(), 1);

    // Lower-case start, and what a bot cannot make sense of.
    let mut client = DominoClient::default();
    feed(&mut client, "3");
    feed(&mut client, "{1;1}");
    assert!(matches!(
        feed(&mut client, "start"),
        ClientEvent::YourTurn(_)
    ));
    for (lines, bad) in [
        (&["4"][..], "even size"),
        (&["x"][..], "not a number"),
        (&["3", "{1;1}{2;2}"][..], "bad list"),
        (&["3", "{1;1}", "{1;1},{1;2}"][..], "illegal move"),
    ] {
        let mut client = DominoClient::default();
        let (last, first) = lines.split_last().unwrap();
        for line in first {
            feed(&mut client, line);
        }
        assert!(Domino::client_feed(&mut client, last).is_err(), "{bad}");
    }
}
