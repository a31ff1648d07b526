//! One test per rule of docs/games/labyrinth.md#board-and-tiles–docs/games/labyrinth.md#turns-and-the-end and docs/games/labyrinth.md#where-arbiter-differs-from-the-2017-server, named after the rule.

use arbiter_games::labyrinth::{
    Action, Cell, Code, Goto, Labyrinth, Level, Push, class_of, reach, rot, same_class,
};
use arbiter_games::{Fault, Game, Wire};
use rand::SeedableRng;

const BOARD_A: &str = include_str!("data/labyrinth_board_a.txt");

fn board_a() -> Labyrinth {
    Labyrinth::new(Level::parse(BOARD_A).unwrap(), 2).unwrap()
}

/// A 4×4 board of crossings (every cell reaches every other), no blocked cell, four displays:
/// 0 (3,3), 1 (0,3), 2 (2,0), 3 (1,2). Seat 0 starts at (0,0) with TARGETS 0 1 2 3, seat 1 at
/// (0,0) too with TARGETS 1 0 2 3.
const OPEN: &str = "SIZE 4 4\nMAXTICK 8\nFIELDS 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15\n\
    DISPLAY 0 3 3\nDISPLAY 1 0 3\nDISPLAY 2 2 0\nDISPLAY 3 1 2\n\
    SEAT 0 0 0 TARGETS 0 1 2 3\nSEAT 1 0 0 TARGETS 1 0 2 3\n";

fn open(players: usize) -> Labyrinth {
    Labyrinth::new(Level::parse(OPEN).unwrap(), players).unwrap()
}

/// A reply block, lines separated by `|`.
fn reply(game: &Labyrinth, text: &str) -> Action {
    game.parse_action(&text.replace('|', "\n"))
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn play(game: &mut Labyrinth, text: &str) {
    let action = reply(game, text);
    game.apply(action).unwrap_or_else(|e| panic!("{text}: {e}"));
}

/// What the referee does with a reply: plays it when legal, else what the rules prescribe.
fn referee(game: &mut Labyrinth, text: &str) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let action = match game.parse_action(&text.replace('|', "\n")) {
        Err(_) => game.on_fault(Fault::Malformed, &mut rng).played(),
        Ok(a) => match game.check(a) {
            Ok(()) => Some(a),
            Err(_) => game.on_fault(Fault::Illegal(a), &mut rng).played(),
        },
    };
    game.apply_unchecked(action.expect("Labyrinth prescribes an action"));
}

fn code_of(game: &Labyrinth, text: &str) -> String {
    let error = game.check(reply(game, text)).expect_err(text);
    error.0.split(':').next().unwrap().to_owned()
}

fn cell(x: u8, y: u8) -> Cell {
    Cell::new(x, y)
}

fn row(game: &Labyrinth, y: usize) -> Vec<u8> {
    (0..game.width()).map(|x| game.tile(x, y)).collect()
}

fn column(game: &Labyrinth, x: usize) -> Vec<u8> {
    (0..game.height()).map(|y| game.tile(x, y)).collect()
}

fn level_error(text: &str) -> String {
    Level::parse(text).expect_err(text)
}

// docs/games/labyrinth.md#board-and-tiles Board

#[test]
fn neighbours_connect_only_when_both_facing_sides_are_open() {
    // (0,0) = 12 opens south and east, (1,0) = 10 opens west: connected; (0,1) = 5 opens north.
    let game = board_a();
    let r = reach(game.tiles(), 4, 3, 0);
    assert!(r.contains(1) && r.contains(4));
    // (2,0) = 14 opens east, (3,0) = 4 does not open west.
    assert!(!r.contains(3));
}

#[test]
fn walking_does_not_wrap_around_the_border() {
    // Row 0: 10 5 10 — (0,0) opens west, (2,0) opens east, but the border is a wall.
    let level = "SIZE 3 2\nMAXTICK 1\nFIELDS 10 5 10 1 1 1\nDISPLAY 0 2 1\nSEAT 0 0 0 TARGETS 0\n";
    let game = Labyrinth::new(Level::parse(level).unwrap(), 1).unwrap();
    assert_eq!(game.reach_of(0).iter().collect::<Vec<_>>(), vec![0]);
}

#[test]
fn rot_turns_each_open_side_a_quarter_and_classes_are_the_rotations() {
    assert_eq!(rot(1), 2);
    assert_eq!(rot(8), 1);
    assert_eq!(rot(12), 9);
    assert_eq!(rot(rot(rot(rot(11)))), 11);
    for t in 1..16u8 {
        let (class, n) = class_of(t);
        for &u in &class[..n] {
            assert!(same_class(t, u));
        }
        assert_eq!((1..16).filter(|&u| same_class(t, u)).count(), n);
    }
}

#[test]
fn blocked_cells_are_off_the_border_apart_and_few() {
    let base = "SIZE 6 6\nMAXTICK 2\nFIELDS".to_owned()
        + &" 15".repeat(36)
        + "\nDISPLAY 0 0 0\nSEAT 0 1 1 TARGETS 0\n";
    assert!(Level::parse(&(base.clone() + "BLOCKED 1 1\nBLOCKED 3 4\n")).is_ok());
    assert!(level_error(&(base.clone() + "BLOCKED 0 2\n")).contains("border"));
    assert!(level_error(&(base.clone() + "BLOCKED 1 1\nBLOCKED 2 3\n")).contains("at least 2"));
    assert!(
        level_error(&(base.clone() + "BLOCKED 1 1\nBLOCKED 3 3\nBLOCKED 4 4\n"))
            .contains("at most")
    );
}

#[test]
fn displays_are_on_distinct_cells_and_at_most_a_quarter_of_the_cells() {
    let base = "SIZE 4 2\nMAXTICK 2\nFIELDS 15 15 15 15 15 15 15 15\nSEAT 0 0 0 TARGETS 0 1\n";
    assert!(Level::parse(&(base.to_owned() + "DISPLAY 0 0 1\nDISPLAY 1 3 0\n")).is_ok());
    assert!(level_error(&(base.to_owned() + "DISPLAY 0 0 1\nDISPLAY 1 0 1\n")).contains("both"));
    let three = "DISPLAY 0 0 1\nDISPLAY 1 3 0\nDISPLAY 2 2 0\n";
    assert!(level_error(&(base.to_owned() + three)).contains("N·M/4"));
}

#[test]
fn max_tick_is_between_l_over_c_and_twice_l() {
    let level = |t: u32| {
        format!(
            "SIZE 4 4\nMAXTICK {t}\nFIELDS{}\nDISPLAY 0 0 0\nDISPLAY 1 1 1\nDISPLAY 2 2 2\n\
             DISPLAY 3 3 3\nSEAT 0 0 0 TARGETS 0 1 2 3\nSEAT 1 0 0 TARGETS 0 1 2 3\n",
            " 15".repeat(16)
        )
    };
    assert!(level_error(&level(9)).contains("MAXTICK"));
    // L/c = 4/2 = 2 rounds at least.
    assert!(Labyrinth::new(Level::parse(&level(2)).unwrap(), 2).is_ok());
    assert!(Labyrinth::new(Level::parse(&level(1)).unwrap(), 2).is_err());
    assert!(
        Labyrinth::new(Level::parse(&level(1)).unwrap(), 4).is_err(),
        "only 2 seats"
    );
}

#[test]
fn every_player_starts_with_extra_tile_15() {
    let game = Labyrinth::generated(2, 10).unwrap();
    assert!(game.extras().iter().all(|&t| t == 15));
}

#[test]
fn princesses_may_share_a_cell() {
    let game = open(2);
    assert_eq!(game.position(0), game.position(1));
}

#[test]
fn a_level_file_reads_back_what_it_writes() {
    for seed in [1, 7, 99] {
        let level = Level::generate(seed);
        let again = Level::parse(&level.to_text()).unwrap();
        assert_eq!(again.tiles, level.tiles);
        assert_eq!(again.blocked, level.blocked);
        assert_eq!(again.displays, level.displays);
        assert_eq!(again.targets, level.targets);
        assert_eq!(again.starts, level.starts);
        assert_eq!(again.max_tick, level.max_tick);
    }
}

#[test]
fn a_bad_level_file_is_refused_with_its_line_number() {
    let error = level_error("SIZE 4 3\nMAXTICK 2\nFIELDS 12 10 99\n");
    assert!(
        error.starts_with("line 3:") && error.contains("99"),
        "{error}"
    );
    let error = level_error("SIZE 4 3\nPUSH 1 2\n");
    assert!(error.starts_with("line 2:"), "{error}");
}

#[test]
fn targets_must_be_permutations() {
    let text = BOARD_A.replace("SEAT 1 3 0 TARGETS 1 0", "SEAT 1 3 0 TARGETS 1 1");
    assert!(level_error(&text).contains("permutation"));
}

// docs/games/labyrinth.md#targets-and-scoring Targets and scoring

#[test]
fn current_target_is_the_first_active_display_of_the_list() {
    let mut game = open(2);
    assert_eq!(game.current_target(0), Some(0));
    assert_eq!(game.current_target(1), Some(1));
    // Seat 0 takes display 0; seat 1 then has 1 still.
    play(&mut game, "PUSH 0 1 1 15|GOTO 3 3");
    assert_eq!(game.current_target(0), Some(1));
    // Seat 1 takes display 1, which seat 0 was after too: seat 0 moves on to 2.
    play(&mut game, "PUSH 0 1 1 15|GOTO 0 3");
    assert_eq!(game.score(1), 1);
    assert_eq!(game.current_target(0), Some(2));
    assert_eq!(game.current_target(1), Some(2), "0 is used, 2 is next");
}

#[test]
fn goto_onto_the_current_target_scores_and_deactivates_it_for_all() {
    let mut game = open(2);
    play(&mut game, "PUSH 0 1 1 15|GOTO 3 3");
    assert_eq!(game.score(0), 1);
    assert!(!game.is_active(0));
    assert_eq!(game.active_displays().count(), 3);
}

/// Seat 0 starts on its first target, display 0 at (0,0), on a 4×4 board of crossings.
fn on_target() -> Labyrinth {
    let level = "SIZE 4 4\nMAXTICK 4\nFIELDS".to_owned()
        + &" 15".repeat(16)
        + "\nDISPLAY 0 0 0\nDISPLAY 1 1 1\nSEAT 0 0 0 TARGETS 0 1\n";
    Labyrinth::new(Level::parse(&level).unwrap(), 1).unwrap()
}

#[test]
fn goto_to_own_cell_scores() {
    let mut game = on_target();
    play(&mut game, "PUSH 0 1 3 15|GOTO 0 0");
    assert_eq!(game.score(0), 1);
}

#[test]
fn standing_on_the_target_does_not_score() {
    let mut game = on_target();
    play(&mut game, "PUSH 0 1 3 15");
    assert_eq!(game.score(0), 0);
    assert!(game.is_active(0));
}

/// A push moves a princess and a display on its line in step, so the only way to end a push on
/// the target is to be carried along with it; that is not a GOTO and does not score.
#[test]
fn being_carried_onto_the_target_does_not_score() {
    let mut game = on_target();
    play(&mut game, "PUSH 0 1 0 15");
    assert_eq!(game.position(0), cell(1, 0));
    assert_eq!(game.display_cell(0), cell(1, 0));
    assert_eq!(game.score(0), 0);
}

#[test]
fn other_displays_on_the_end_cell_give_nothing() {
    // Seat 0's target is 0 at (3,3); it walks to (0,3), display 1's cell.
    let mut game = open(2);
    play(&mut game, "PUSH 0 1 1 15|GOTO 0 3");
    assert_eq!(game.score(0), 0);
    assert!(game.is_active(1));
}

#[test]
fn generated_levels_start_every_seat_at_distance_5_from_its_first_target() {
    for seed in 1..=20 {
        let level = Level::generate(seed);
        assert!((14..=20).contains(&level.width) && (14..=20).contains(&level.height));
        assert!(level.validate().is_ok(), "seed {seed}");
        assert_eq!(level.seats(), 10);
        for s in 0..10 {
            let first = level.displays[level.targets[s][0] as usize];
            assert_eq!(level.starts[s].manhattan(first), 5, "seed {seed} seat {s}");
        }
    }
}

// docs/games/labyrinth.md#turns-and-the-end Turns and end

#[test]
fn tick_counts_rounds() {
    let mut game = open(2);
    assert_eq!((game.round(), game.to_move()), (0, Some(0)));
    referee(&mut game, "");
    assert_eq!((game.round(), game.to_move()), (0, Some(1)));
    referee(&mut game, "");
    assert_eq!((game.round(), game.to_move()), (1, Some(0)));
    assert_eq!(game.tick(), 2, "Game::tick counts turns");
    let mut block = String::new();
    game.turn_message(0, &mut block);
    assert!(block.starts_with("TICK 1\n"));
}

#[test]
fn game_ends_right_after_the_last_display_is_used() {
    // docs/games/labyrinth.md#example-session: alice scores display 0, bob plays, alice scores display 1 in round 1: bob never plays
    // round 1.
    let mut game = board_a();
    play(&mut game, "PUSH 0 1 2 15|GOTO 0 2");
    play(&mut game, "PUSH 1 1 3 15|GOTO 3 2");
    assert_eq!(game.to_move(), Some(0));
    play(&mut game, "PUSH 1 0 0 4|GOTO 1 2");
    assert_eq!(game.to_move(), None);
    assert_eq!(game.tick(), 3);
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.reason, "all_displays");
    assert_eq!(outcome.scores, vec![2.0, 0.0]);
    assert_eq!(outcome.placement, vec![1, 2]);
}

#[test]
fn game_ends_after_the_last_seat_of_the_last_round() {
    let mut game = board_a();
    for turn in 0..4 {
        assert_eq!(game.to_move(), Some(turn % 2));
        referee(&mut game, "");
    }
    assert_eq!(game.to_move(), None);
    assert_eq!(game.outcome().unwrap().reason, "tick_limit");
    assert_eq!(
        game.outcome().unwrap().placement,
        vec![1, 1],
        "a tie is an equal place"
    );
}

#[test]
fn a_row_pushed_right_takes_the_tile_at_x0_and_drops_the_last() {
    let mut game = board_a();
    play(&mut game, "PUSH 0 1 0 15");
    assert_eq!(row(&game, 0), vec![15, 12, 10, 14]);
    assert_eq!(game.extra(0), 4);
}

#[test]
fn a_row_pushed_left_takes_the_tile_at_the_far_end_and_drops_x0() {
    let mut game = board_a();
    play(&mut game, "PUSH 0 0 2 15");
    assert_eq!(row(&game, 2), vec![10, 11, 1, 15]);
    assert_eq!(game.extra(0), 9);
}

#[test]
fn a_column_pushed_down_and_up() {
    let mut game = board_a();
    play(&mut game, "PUSH 1 1 2 15");
    assert_eq!(column(&game, 2), vec![15, 14, 5]);
    assert_eq!(game.extra(0), 11);
    play(&mut game, "PUSH 1 0 3 15");
    assert_eq!(column(&game, 3), vec![5, 1, 15]);
    assert_eq!(game.extra(1), 4);
}

#[test]
fn a_princess_on_the_falling_cell_goes_to_the_inserted_cell() {
    let mut game = board_a();
    // Bob at (3,0); alice pushes row 0 right: (3,0) falls out, bob goes to (0,0).
    play(&mut game, "PUSH 0 1 0 15");
    assert_eq!(game.position(1), cell(0, 0));
    assert_eq!(game.position(0), cell(1, 0), "alice rode along");
}

#[test]
fn displays_move_with_their_tiles_and_wrap_too() {
    let mut game = board_a();
    play(&mut game, "PUSH 0 0 2 15");
    // Display 1 at (0,2) is on the falling cell: it goes to (3,2); display 0 (3,2) → (2,2).
    assert_eq!(game.display_cell(1), cell(3, 2));
    assert_eq!(game.display_cell(0), cell(2, 2));
}

#[test]
fn the_fallen_tile_becomes_the_extra_with_its_orientation_kept() {
    let mut game = board_a();
    play(&mut game, "PUSH 0 1 2 15");
    assert_eq!(game.extra(0), 1);
    assert_eq!(game.extra(1), 15, "only the pusher's extra changes");
}

#[test]
fn push_onto_a_blocked_line_is_void_with_blocked_line() {
    let mut game = board_a();
    let before = game.tiles().to_vec();
    assert_eq!(code_of(&game, "PUSH 0 1 1 15"), "BLOCKED_LINE");
    referee(&mut game, "PUSH 1 0 1 15|GOTO 0 1");
    assert_eq!(game.tiles(), &before[..]);
    assert_eq!(game.code(0), Code::BlockedLine);
    assert_eq!(game.position(0), cell(0, 0), "no GOTO on a void turn");
}

#[test]
fn push_with_c_p_or_k_out_of_range_is_void_with_bad_push() {
    let game = board_a();
    for text in [
        "PUSH 2 0 0 15",
        "PUSH 0 2 0 15",
        "PUSH 0 1 3 15",
        "PUSH 1 1 4 15",
    ] {
        assert_eq!(code_of(&game, text), "BAD_PUSH", "{text}");
    }
}

#[test]
fn push_with_a_tile_not_a_rotation_of_the_extra_is_void_with_bad_tile() {
    let mut game = board_a();
    play(&mut game, "PUSH 0 1 2 15");
    referee(&mut game, "");
    // Alice's extra is 1: 2, 4, 8 are rotations, 3 is not.
    assert!(game.check(reply(&game, "PUSH 0 1 0 8")).is_ok());
    assert_eq!(code_of(&game, "PUSH 0 1 0 3"), "BAD_TILE");
}

#[test]
fn an_invalid_push_voids_the_whole_turn_and_keeps_the_extra() {
    let mut game = board_a();
    play(&mut game, "PUSH 0 1 2 15");
    referee(&mut game, "");
    let before = (game.tiles().to_vec(), game.positions(), game.extra(0));
    referee(&mut game, "PUSH 1 1 0 7|GOTO 1 0");
    assert_eq!(game.code(0), Code::BadTile);
    assert_eq!(
        (game.tiles().to_vec(), game.positions(), game.extra(0)),
        before
    );
    assert_eq!(game.to_move(), Some(1), "the turn is taken");
}

#[test]
fn goto_is_judged_on_the_board_after_the_push() {
    let game = board_a();
    // (1,2) is reachable from alice's cell on Board A, but PUSH 0 1 2 15 puts 9 there, closed
    // to the west; (0,2) becomes a crossing and stays reachable.
    assert!(game.reach_of(0).contains(2 * 4 + 1));
    assert_eq!(code_of(&game, "PUSH 0 1 2 15|GOTO 1 2"), "BAD_GOTO");
    assert!(game.check(reply(&game, "PUSH 0 1 2 15|GOTO 0 2")).is_ok());
}

#[test]
fn an_unreachable_goto_keeps_the_push_and_the_princess_stays_with_bad_goto() {
    let mut game = board_a();
    referee(&mut game, "PUSH 0 1 2 15|GOTO 3 1");
    assert_eq!(game.code(0), Code::BadGoto);
    assert_eq!(row(&game, 2), vec![15, 9, 10, 11], "the push stands");
    assert_eq!(game.extra(0), 1);
    assert_eq!(game.position(0), cell(0, 0));
}

#[test]
fn an_off_board_or_malformed_goto_is_bad_goto() {
    let game = board_a();
    assert_eq!(code_of(&game, "PUSH 0 1 2 15|GOTO 4 0"), "BAD_GOTO");
    assert_eq!(code_of(&game, "PUSH 0 1 2 15|GOTO 0"), "BAD_GOTO");
    assert_eq!(code_of(&game, "PUSH 0 1 2 15|GOTO x 1"), "BAD_GOTO");
    let mut game = board_a();
    referee(&mut game, "PUSH 0 1 2 15|GOTO -1 0");
    assert_eq!(game.code(0), Code::BadGoto);
    assert_eq!(game.extra(0), 1, "the push stands");
}

#[test]
fn no_goto_means_the_princess_stays() {
    let mut game = board_a();
    play(&mut game, "PUSH 1 1 2 15");
    assert_eq!(game.position(0), cell(0, 0));
    assert_eq!(game.code(0), Code::Ok);
}

// docs/games/labyrinth.md#where-arbiter-differs-from-the-2017-server Decisions

#[test]
fn reply_lines_come_in_any_order_and_the_first_push_and_goto_count() {
    let game = board_a();
    let a = reply(&game, "HELLO|GOTO 0 2|PUSH 0 1 2 15|PUSH 1 1 1 1|GOTO 1 1");
    assert_eq!(a, Action::goto(Push::new(0, 1, 2, 15), 0, 2));
}

#[test]
fn reply_lines_may_end_in_cr_and_have_runs_of_blanks() {
    let game = board_a();
    let a = game
        .parse_action("  PUSH   0 1\t2 15 \r\nGOTO 0  2\r")
        .unwrap();
    assert_eq!(a, Action::goto(Push::new(0, 1, 2, 15), 0, 2));
}

#[test]
fn a_missing_or_malformed_push_is_no_push() {
    let game = board_a();
    for text in [
        "",
        "GOTO 0 0",
        "PUSH 0 1 2",
        "PUSH 0 1 2 15 3",
        "PUSH a b c d",
        "push 0 1 2 15",
    ] {
        let error = game.parse_action(text).expect_err(text);
        assert!(error.starts_with("NO_PUSH: "), "{text}: {error}");
    }
    let mut game = board_a();
    referee(&mut game, "PUSH 0 1 -2 15");
    assert_eq!(game.code(0), Code::NoPush);
    assert_eq!(game.extra(0), 15);
}

#[test]
fn a_timeout_voids_the_turn_with_timeout_and_the_game_goes_on() {
    let mut game = board_a();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let action = game.on_fault(Fault::Timeout, &mut rng).played().unwrap();
    assert_eq!(action, Action::Void(Code::Timeout));
    game.apply_unchecked(action);
    assert_eq!(game.code(0), Code::Timeout);
    assert_eq!(game.to_move(), Some(1));
}

#[test]
fn an_offline_seat_plays_void_turns_and_keeps_its_points() {
    let mut game = board_a();
    play(&mut game, "PUSH 0 1 2 15|GOTO 0 2");
    referee(&mut game, "");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let action = game.on_fault(Fault::Crash, &mut rng).played().unwrap();
    assert_eq!(action.push(), None);
    let tiles = game.tiles().to_vec();
    game.apply_unchecked(action);
    assert_eq!(game.tiles(), &tiles[..]);
    assert_eq!(game.score(0), 1);
}

#[test]
fn one_code_per_turn_and_a_push_error_hides_the_goto_one() {
    let game = board_a();
    // BAD_PUSH before BAD_TILE before BLOCKED_LINE, all before BAD_GOTO.
    assert_eq!(code_of(&game, "PUSH 0 1 9 3|GOTO 9 9"), "BAD_PUSH");
    assert_eq!(code_of(&game, "PUSH 0 1 1 3|GOTO 9 9"), "BAD_TILE");
    assert_eq!(code_of(&game, "PUSH 0 1 1 15|GOTO 9 9"), "BLOCKED_LINE");
    assert_eq!(code_of(&game, "PUSH 0 1 0 15|GOTO 9 9"), "BAD_GOTO");
}

#[test]
fn a_refused_reply_is_explained_in_words_after_its_code() {
    let game = board_a();
    let error = game.check(reply(&game, "PUSH 1 1 0 7")).unwrap_err().0;
    assert!(
        error.starts_with("BAD_TILE: ") && error.contains("extra tile is 15"),
        "{error}"
    );
    let error = game.check(reply(&game, "PUSH 0 1 1 15")).unwrap_err().0;
    assert!(error.contains("BLOCKED"), "{error}");
}

#[test]
fn message_is_ok_on_the_first_turn_then_the_code_of_the_previous_turn() {
    let mut game = board_a();
    let mut block = String::new();
    game.turn_message(0, &mut block);
    assert!(block.contains("\nMESSAGE OK\n"));
    referee(&mut game, "PUSH 0 1 1 15");
    referee(&mut game, "PUSH 0 1 0 15");
    block.clear();
    game.turn_message(0, &mut block);
    assert!(block.contains("\nMESSAGE BLOCKED_LINE\n"), "{block}");
    block.clear();
    game.watch_message(1, &mut block);
    assert!(
        !block.contains("MESSAGE"),
        "the watch block has no private part"
    );
}

#[test]
fn inactive_displays_are_never_sent() {
    let mut game = board_a();
    play(&mut game, "PUSH 0 1 2 15|GOTO 0 2");
    let mut block = String::new();
    game.watch_message(0, &mut block);
    assert!(!block.contains("DISPLAY 0 "));
    assert!(block.contains("DISPLAY 1 1 2\n"));
}

#[test]
fn abandoning_ends_the_match_at_once_with_the_points_so_far() {
    let mut game = board_a();
    play(&mut game, "PUSH 0 1 2 15|GOTO 0 2");
    game.abandon();
    assert_eq!(game.to_move(), None);
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.reason, "abandoned");
    assert_eq!(outcome.scores, vec![1.0, 0.0]);
}

#[test]
fn void_turns_and_refused_gotos_are_not_legal_replies() {
    let game = board_a();
    assert!(game.check(Action::Void(Code::Ok)).is_err());
    assert!(
        game.check(Action::PushOnly(Push::new(0, 1, 2, 15)))
            .is_err()
    );
    assert!(
        game.check(Action::Move {
            push: Push::new(0, 1, 2, 15),
            goto: Goto::None
        })
        .is_ok()
    );
}
