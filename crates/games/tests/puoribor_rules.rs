//! Rules beyond the spec's vectors: the end of a match, the hash, the upstream board.

use arbiter_games::Game;
use arbiter_games::puoribor::{Action, End, Puoribor, WallLine, WallLineKind};

fn play(actions: &[Action]) -> Puoribor {
    let mut game = Puoribor::new();
    for &a in actions {
        game.apply(a).unwrap_or_else(|e| panic!("{a}: {e}"));
    }
    game
}

#[test]
fn equal_positions_reached_in_different_orders_hash_equal() {
    let (h, v) = (Action::horizontal, Action::vertical);
    let a = play(&[h(0, 0), h(5, 5), v(2, 2), v(6, 6)]);
    let b = play(&[v(2, 2), v(6, 6), h(0, 0), h(5, 5)]);
    assert_eq!(a, b);
    assert_eq!(a.hash(), b.hash());

    let s = Action::step;
    let a = play(&[s(3, 0), s(4, 7), s(3, 1), s(4, 8)]);
    let b = play(&[s(4, 1), s(3, 8), s(3, 1), s(4, 8)]);
    assert_eq!(a.board(), b.board());
    assert_eq!(a.hash(), b.hash());
    assert_ne!(a.tick(), Puoribor::new().tick());

    // Rotations of sub-boards that share no segment commute.
    let r = Action::rotate;
    let a = play(&[h(1, 1), v(6, 6), r(0, 0), r(5, 5)]);
    let b = play(&[h(1, 1), v(6, 6), r(5, 5), r(0, 0)]);
    assert_ne!(a.board(), play(&[h(1, 1), v(6, 6)]).board());
    assert_eq!(a, b);
    assert_eq!(a.hash(), b.hash());
}

#[test]
fn the_hash_tells_owners_turns_and_walls_apart() {
    let (h, s) = (Action::horizontal, Action::step);
    let mine = play(&[h(0, 0), s(4, 7)]);
    let theirs = play(&[s(4, 1), h(0, 0)]);
    assert_ne!(mine.hash(), theirs.hash());
    let before = play(&[s(4, 1)]);
    let back = play(&[s(4, 1), s(4, 7), s(4, 0), s(4, 8)]);
    assert_eq!(
        Puoribor::new().hash(),
        back.hash(),
        "same position, same player on turn"
    );
    assert_ne!(before.hash(), Puoribor::new().hash());
    // A rotation that moves nothing still spends two walls.
    let spun = play(&[Action::rotate(2, 2)]);
    assert_eq!(spun.board(), Puoribor::new().board());
    assert_eq!(spun.walls_remaining(0), 8);
    assert_ne!(spun.hash(), play(&[s(4, 1), s(4, 7), s(4, 0)]).hash());
}

#[test]
fn a_pawn_on_its_goal_row_wins() {
    let game = Puoribor::from_parts(0, 200, [(2, 7), (6, 1)], [10, 10], &[]).unwrap();
    let mut game = game;
    game.apply(Action::step(2, 8)).unwrap();
    assert_eq!(game.to_move(), None);
    assert_eq!(game.end(), Some(End::Goal { winner: 0 }));
    assert!(game.done());
    let outcome = game.outcome().unwrap();
    assert_eq!(
        (outcome.scores, outcome.placement, outcome.reason),
        (vec![1.0, 0.0], vec![1, 2], "goal")
    );
    assert!(
        game.check(Action::step(6, 0)).is_err(),
        "nothing is played after the end"
    );
    let mut actions = vec![Action::step(0, 0)];
    game.legal_actions(&mut actions);
    assert!(actions.is_empty());
    assert_eq!(game.count_legal_actions(), 0);
    assert!(game.legal_mask().iter().flatten().flatten().all(|&m| !m));
}

#[test]
fn two_hundred_actions_without_a_winner_are_a_draw() {
    let mut game = Puoribor::new();
    let shuffle = [
        Action::step(3, 0),
        Action::step(3, 8),
        Action::step(4, 0),
        Action::step(4, 8),
    ];
    for tick in 0..200 {
        assert_eq!(game.to_move(), Some(tick % 2));
        game.apply(shuffle[tick % 4]).unwrap();
    }
    assert_eq!(game.tick(), 200);
    assert_eq!(game.to_move(), None);
    let outcome = game.outcome().unwrap();
    assert_eq!(
        (outcome.scores, outcome.placement, outcome.reason),
        (vec![0.5, 0.5], vec![1, 1], "tick_limit")
    );

    // A winning move on the last tick is a win, not a draw.
    let mut game = Puoribor::from_parts(199, 200, [(0, 0), (5, 1)], [0, 0], &[]).unwrap();
    game.apply(Action::step(5, 0)).unwrap();
    assert_eq!(game.outcome().unwrap().reason, "goal");
    assert_eq!(game.outcome().unwrap().scores, vec![0.0, 1.0]);
}

#[test]
fn rotated_walls_keep_their_owners() {
    let mut game = play(&[Action::horizontal(0, 0), Action::vertical(1, 1)]);
    game.apply(Action::rotate(0, 0)).unwrap();
    let lines: Vec<WallLine> = game.wall_lines().collect();
    let owners: Vec<(char, u8)> = lines.iter().map(|w| (w.kind.letter(), w.owner)).collect();
    // H 0 0 (player 0) turns into V 2 0, V 1 1 (player 1) into H 1 1.
    assert_eq!(owners, vec![('H', 1), ('V', 0)], "{lines:?}");
    let board = game.board();
    assert_eq!((board[3][2][0], board[3][2][1]), (1, 1));
    assert_eq!((board[2][1][1], board[2][2][1]), (2, 2));
}

type Board = [[[u8; 9]; 9]; 6];

#[test]
fn upstream_boards_are_checked() {
    let game = play(&[Action::horizontal(2, 2), Action::rotate(1, 1)]);
    let board = game.board();
    let rebuilt = Puoribor::from_board(&board, [9, 8], 2, 200).unwrap();
    assert_eq!(rebuilt, game);

    let broken = |edit: &dyn Fn(&mut Board), says: &str| {
        let mut b = Puoribor::new().board();
        edit(&mut b);
        let error = Puoribor::from_board(&b, [10, 10], 0, 200).unwrap_err().0;
        assert!(error.contains(says), "{error}");
    };
    broken(&|b| b[0][4][0] = 0, "missing");
    broken(&|b| b[1][0][0] = 1, "two pawns");
    broken(&|b| b[2][3][3] = 3, "labelled 1 or 2");
    broken(&|b| b[4][3][3] = 1, "midpoint");
    broken(
        &|b| {
            b[2][3][3] = 1;
            b[2][4][3] = 2;
            b[4][3][3] = 1;
        },
        "midpoint",
    );
    broken(&|b| b[2][3][8] = 1, "outer edge");
    broken(
        &|b| {
            for column in b[2].iter_mut() {
                column[4] = 1;
            }
        },
        "no path",
    );
}

#[test]
fn positions_from_parts_are_checked() {
    let line = |kind, x, y| WallLine {
        kind,
        x,
        y,
        owner: 0,
    };
    let parts =
        |walls: &[WallLine]| Puoribor::from_parts(0, 200, [(4, 0), (4, 8)], [10, 10], walls);
    assert!(parts(&[line(WallLineKind::UnitHorizontal, 8, 3)]).is_ok());
    let error = parts(&[line(WallLineKind::Horizontal, 8, 3)])
        .unwrap_err()
        .0;
    assert!(error.contains("off the board"), "{error}");
    let error = parts(&[
        line(WallLineKind::Horizontal, 3, 3),
        line(WallLineKind::Vertical, 3, 3),
    ])
    .unwrap_err()
    .0;
    assert!(error.contains("cross"), "{error}");
    let error = parts(&[
        line(WallLineKind::UnitVertical, 3, 3),
        line(WallLineKind::Vertical, 3, 2),
    ])
    .unwrap_err()
    .0;
    assert!(error.contains("overlaps"), "{error}");
}

#[test]
fn display_draws_the_board() {
    let game = play(&[Action::horizontal(0, 0)]);
    let text = game.to_string();
    assert_eq!(text.lines().count(), 19);
    assert!(text.lines().nth(1).unwrap().contains(" 0 "));
    assert!(
        text.lines().nth(2).unwrap().starts_with("+---+--- "),
        "{text}"
    );
}
