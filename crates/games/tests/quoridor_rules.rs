//! One test (at least) per rule of docs/games/quoridor.md; each fails when its rule breaks.

use std::collections::BTreeSet;

use arbiter_games::Game;
use arbiter_games::quoridor::{Action, Cell, EndReason, Quoridor, Settings, SettingsError, Wall};

fn c(x: u8, y: u8) -> Cell {
    Cell::new(x, y)
}

fn h(x: u8, y: u8) -> Wall {
    Wall::horizontal(x, y)
}

fn v(x: u8, y: u8) -> Wall {
    Wall::vertical(x, y)
}

/// A position on an `m`×`m` board with standard settings; every player holds `walls_left`
/// walls unless told otherwise.
fn position(
    players: u8,
    m: u8,
    current: usize,
    pawns: &[Option<Cell>],
    walls: &[(Wall, usize)],
) -> Quoridor {
    let left = vec![5; players as usize];
    position_with(players, m, current, pawns, &left, walls)
}

fn position_with(
    players: u8,
    m: u8,
    current: usize,
    pawns: &[Option<Cell>],
    walls_left: &[u8],
    walls: &[(Wall, usize)],
) -> Quoridor {
    let settings = Settings::standard(players, m).unwrap();
    Quoridor::from_position(settings, 10, current, pawns, walls_left, walls)
        .unwrap_or_else(|e| panic!("bad test position: {e}"))
}

fn moves(q: &Quoridor) -> BTreeSet<(u8, u8)> {
    let mut out = Vec::new();
    q.pawn_moves(&mut out);
    let set: BTreeSet<_> = out.iter().map(|c| (c.x, c.y)).collect();
    assert_eq!(set.len(), out.len(), "duplicate pawn moves: {out:?}");
    set
}

fn set(cells: &[(u8, u8)]) -> BTreeSet<(u8, u8)> {
    cells.iter().copied().collect()
}

fn legal(q: &Quoridor) -> Vec<Action> {
    let mut out = Vec::new();
    q.legal_actions(&mut out);
    out
}

fn err(q: &Quoridor, a: Action) -> String {
    q.check(a).expect_err("should be illegal").0
}

fn start(players: u8) -> Quoridor {
    Quoridor::new(Settings::standard(players, 9).unwrap()).unwrap()
}

// ---- settings ----

#[test]
fn standard_settings_follow_the_table() {
    let two = Settings::standard(2, 9).unwrap();
    assert_eq!(two.pawns, vec![c(4, 0), c(4, 8)]);
    assert_eq!(two.walls, vec![10, 10]);
    assert_eq!((two.max_ticks, two.start_player), (100, 0));
    let four = Settings::standard(4, 9).unwrap();
    assert_eq!(four.pawns, vec![c(4, 0), c(8, 4), c(4, 8), c(0, 4)]);
    assert_eq!(four.walls, vec![5; 4]);
    assert_eq!(four.max_ticks, 200);
    let small = Settings::standard(4, 5).unwrap();
    assert_eq!(small.pawns, vec![c(2, 0), c(4, 2), c(2, 4), c(0, 2)]);
    for m in (5..=25).step_by(2) {
        for players in [2, 4] {
            let q = Quoridor::new(Settings::standard(players, m).unwrap()).unwrap();
            assert_eq!(q.count_legal_actions(), legal(&q).len());
            assert_eq!(q.distance(0), Some(u32::from(m) - 1));
        }
    }
}

#[test]
fn bad_settings_are_refused_with_a_reason() {
    let bad = |s: Settings, words: &str| {
        let e = s.validate().expect_err("should be refused").to_string();
        assert!(e.contains(words), "{e:?} should mention {words:?}");
        assert!(Quoridor::new(s).is_err());
    };
    assert!(
        Settings::standard(3, 9)
            .unwrap_err()
            .to_string()
            .contains("2 or 4")
    );
    assert!(
        Settings::standard(2, 8)
            .unwrap_err()
            .to_string()
            .contains("odd")
    );
    assert!(Settings::standard(2, 27).is_err());
    assert!(Settings::standard(2, 3).is_err());
    let ok = Settings::standard(2, 9).unwrap();
    bad(
        Settings {
            walls: vec![10],
            ..ok.clone()
        },
        "walls",
    );
    bad(
        Settings {
            pawns: vec![c(4, 0)],
            ..ok.clone()
        },
        "pawns",
    );
    bad(
        Settings {
            pawns: vec![c(4, 0), c(9, 8)],
            ..ok.clone()
        },
        "off the",
    );
    bad(
        Settings {
            pawns: vec![c(4, 3), c(4, 3)],
            ..ok.clone()
        },
        "both on (4, 3)",
    );
    bad(
        Settings {
            pawns: vec![c(4, 8), c(4, 0)],
            ..ok.clone()
        },
        "own goal",
    );
    bad(
        Settings {
            start_player: 2,
            ..ok.clone()
        },
        "start_player",
    );
    bad(
        Settings {
            max_ticks: 0,
            ..ok.clone()
        },
        "max_ticks",
    );
    bad(
        Settings {
            board: 10,
            ..ok.clone()
        },
        "odd",
    );
    bad(Settings { players: 4, ..ok }, "walls");
}

#[test]
fn custom_pawns_walls_and_start_player_are_used() {
    let settings = Settings {
        players: 2,
        board: 7,
        walls: vec![1, 3],
        start_player: 1,
        max_ticks: 50,
        pawns: vec![c(0, 0), c(6, 6)],
    };
    let mut q = Quoridor::new(settings).unwrap();
    assert_eq!(q.to_move(), Some(1));
    assert_eq!((q.pawn(0), q.pawn(1)), (Some(c(0, 0)), Some(c(6, 6))));
    assert_eq!((q.walls_left(0), q.walls_left(1)), (1, 3));
    q.apply(Action::Wall(h(2, 2))).unwrap();
    assert_eq!(q.walls_left(1), 2);
    assert_eq!(q.to_move(), Some(0));
    q.apply(Action::Wall(h(2, 4))).unwrap();
    assert_eq!(q.walls_left(0), 0);
    q.apply(Action::Move(c(5, 6))).unwrap();
    assert_eq!(err(&q, Action::Wall(h(0, 4))), "no walls left");
    assert!(legal(&q).iter().all(|a| matches!(a, Action::Move(_))));
}

// ---- pawn moves ----

#[test]
fn steps_in_four_directions_and_never_diagonally() {
    let q = position(2, 9, 0, &[Some(c(4, 4)), Some(c(0, 8))], &[]);
    assert_eq!(moves(&q), set(&[(4, 3), (5, 4), (4, 5), (3, 4)]));
    assert!(err(&q, Action::Move(c(5, 5))).contains("(5, 5) is not a legal pawn move from (4, 4)"));
    assert!(err(&q, Action::Move(c(4, 6))).contains("not a legal pawn move"));
    assert!(err(&q, Action::Move(c(4, 4))).contains("not a legal pawn move"));
    assert!(err(&q, Action::Move(c(9, 4))).contains("outside the board"));
}

#[test]
fn board_edges_stop_steps() {
    let q = position(2, 9, 0, &[Some(c(0, 3)), Some(c(8, 8))], &[]);
    assert_eq!(moves(&q), set(&[(0, 2), (1, 3), (0, 4)]));
    let q = position(2, 9, 1, &[Some(c(4, 3)), Some(c(8, 8))], &[]);
    assert_eq!(moves(&q), set(&[(8, 7), (7, 8)]));
}

#[test]
fn walls_stop_steps_on_both_of_their_cells() {
    // Horizontal (3, 4) blocks (3,4)-(3,5) and (4,4)-(4,5).
    for pawn in [c(3, 4), c(4, 4)] {
        let q = position(2, 9, 0, &[Some(pawn), Some(c(0, 0))], &[(h(3, 4), 1)]);
        assert!(
            !moves(&q).contains(&(pawn.x, pawn.y + 1)),
            "{pawn} went through"
        );
    }
    let q = position(2, 9, 0, &[Some(c(5, 4)), Some(c(0, 0))], &[(h(3, 4), 1)]);
    assert!(
        moves(&q).contains(&(5, 5)),
        "the wall is only two cells long"
    );
    // Vertical (3, 4) blocks (3,4)-(4,4) and (3,5)-(4,5), from both sides.
    for (pawn, to) in [(c(3, 4), (4, 4)), (c(4, 5), (3, 5))] {
        let q = position(2, 9, 0, &[Some(pawn), Some(c(0, 0))], &[(v(3, 4), 1)]);
        assert!(!moves(&q).contains(&to), "{pawn} went through");
    }
}

#[test]
fn jump_straight_over_a_pawn() {
    let q = position(2, 9, 0, &[Some(c(4, 4)), Some(c(4, 5))], &[]);
    assert_eq!(moves(&q), set(&[(4, 3), (5, 4), (3, 4), (4, 6)]));
    let q = position(2, 9, 1, &[Some(c(4, 4)), Some(c(5, 4))], &[]);
    assert_eq!(moves(&q), set(&[(5, 3), (6, 4), (5, 5), (3, 4)]));
}

#[test]
fn both_side_steps_when_a_wall_is_behind_the_pawn() {
    // The cell behind (4,5) going down is (4,6), walled off by horizontal (4, 5).
    let q = position(2, 9, 0, &[Some(c(4, 4)), Some(c(4, 5))], &[(h(4, 5), 1)]);
    assert_eq!(moves(&q), set(&[(4, 3), (5, 4), (3, 4), (3, 5), (5, 5)]));
}

#[test]
fn both_side_steps_when_the_board_edge_is_behind_the_pawn() {
    let q = position(2, 9, 0, &[Some(c(4, 7)), Some(c(4, 8))], &[]);
    assert_eq!(moves(&q), set(&[(4, 6), (3, 7), (5, 7), (3, 8), (5, 8)]));
}

#[test]
fn a_side_step_is_stopped_by_a_wall_beside_the_pawn_or_the_board_edge() {
    // Wall behind, and vertical (3, 5) between (3,5) and (4,5): only the right side-step.
    let walls = [(h(4, 5), 1), (v(3, 5), 1)];
    let q = position(2, 9, 0, &[Some(c(4, 4)), Some(c(4, 5))], &walls);
    assert_eq!(moves(&q), set(&[(4, 3), (5, 4), (3, 4), (5, 5)]));
    // The neighbour (0, 1) has the board edge behind it: both side-steps, (0, 0) and (0, 2).
    let q = position(2, 9, 0, &[Some(c(1, 1)), Some(c(0, 1))], &[]);
    assert_eq!(moves(&q), set(&[(1, 0), (2, 1), (1, 2), (0, 0), (0, 2)]));
}

#[test]
fn no_jump_over_two_pawns_and_no_diagonal_instead() {
    let pawns = [Some(c(4, 2)), Some(c(8, 4)), Some(c(4, 4)), Some(c(4, 3))];
    let q = position(4, 9, 0, &pawns, &[]);
    assert_eq!(moves(&q), set(&[(4, 1), (3, 2), (5, 2)]));
}

#[test]
fn a_jump_onto_a_pawn_is_not_allowed_even_beside_a_wall() {
    // Behind the neighbour is a pawn and there is no wall: no move that way at all.
    let pawns = [Some(c(4, 2)), Some(c(3, 3)), Some(c(4, 4)), Some(c(4, 3))];
    let q = position(4, 9, 0, &pawns, &[(v(4, 2), 0)]);
    assert_eq!(moves(&q), set(&[(4, 1), (3, 2)]));
}

#[test]
fn two_side_steps_reaching_the_same_cell_count_once() {
    // Pawns above and to the right, each with the board edge or a wall behind: both offer (5, 0).
    let pawns = [Some(c(4, 1)), Some(c(4, 0)), Some(c(5, 1)), Some(c(0, 4))];
    let q = position(4, 9, 0, &pawns, &[(v(5, 0), 0)]);
    let got = moves(&q);
    assert!(got.contains(&(5, 0)) && got.contains(&(3, 0)) && got.contains(&(5, 2)));
    assert_eq!(q.count_legal_actions(), legal(&q).len());
}

// ---- walls ----

#[test]
fn walls_must_be_inside_the_board() {
    let q = start(2);
    assert!(q.check(Action::Wall(h(7, 7))).is_ok());
    assert!(q.check(Action::Wall(v(7, 7))).is_ok());
    for w in [h(8, 0), h(0, 8), v(8, 3), v(3, 8), h(200, 1)] {
        let e = err(&q, Action::Wall(w));
        assert!(e.contains(&format!("wall {w} is outside the board")), "{e}");
    }
}

#[test]
fn same_orientation_walls_may_not_share_an_edge() {
    let q = position(
        2,
        9,
        0,
        &[Some(c(4, 0)), Some(c(4, 8))],
        &[(h(3, 3), 1), (v(3, 5), 1)],
    );
    for w in [h(2, 3), h(3, 3), h(4, 3), v(3, 4), v(3, 5), v(3, 6)] {
        assert_eq!(
            err(&q, Action::Wall(w)),
            format!("wall {w} overlaps an existing wall")
        );
    }
    for w in [
        h(1, 3),
        h(5, 3),
        h(3, 2),
        h(3, 4),
        v(3, 2),
        v(3, 7),
        v(2, 5),
        v(4, 5),
    ] {
        assert!(q.check(Action::Wall(w)).is_ok(), "{w} should be legal");
    }
}

#[test]
fn walls_of_the_other_orientation_may_not_cross_at_the_same_anchor() {
    let q = position(
        2,
        9,
        0,
        &[Some(c(4, 0)), Some(c(4, 8))],
        &[(h(3, 3), 1), (v(5, 5), 1)],
    );
    assert_eq!(
        err(&q, Action::Wall(v(3, 3))),
        "wall (3, 3, 1) crosses an existing wall"
    );
    assert_eq!(
        err(&q, Action::Wall(h(5, 5))),
        "wall (5, 5, 0) crosses an existing wall"
    );
    // Touching in a T, or end to end, is fine.
    for w in [
        v(2, 2),
        v(4, 3),
        v(3, 2),
        v(3, 4),
        v(2, 3),
        h(5, 4),
        h(5, 6),
        h(4, 5),
        h(6, 5),
    ] {
        assert!(q.check(Action::Wall(w)).is_ok(), "{w} should be legal");
    }
}

/// Walls that close off the bottom two rows (and the cell (0, 6)) except for the step from
/// (0, 5) down to (0, 6); the last wall closes that gap.
fn bottom_pocket() -> (Vec<Wall>, Wall) {
    (vec![h(1, 6), h(3, 6), h(5, 6), h(7, 6), v(0, 6)], h(0, 5))
}

fn transpose(w: Wall) -> Wall {
    match w.orientation {
        arbiter_games::quoridor::Orientation::Horizontal => v(w.y, w.x),
        arbiter_games::quoridor::Orientation::Vertical => h(w.y, w.x),
    }
}

fn flip_y(w: Wall, m: u8) -> Wall {
    Wall {
        y: m - 2 - w.y,
        ..w
    }
}

fn flip_x(w: Wall, m: u8) -> Wall {
    Wall {
        x: m - 2 - w.x,
        ..w
    }
}

#[test]
fn a_wall_may_not_cut_any_player_off_its_goal() {
    let m = 9;
    // How the bottom pocket maps onto each player's goal edge with 4 players.
    let maps: [fn(Wall) -> Wall; 4] = [
        |w| w,
        |w| flip_x(transpose(w), 9),
        |w| flip_y(w, 9),
        transpose,
    ];
    let starts = [c(4, 0), c(8, 4), c(4, 8), c(0, 4)];
    let centre = [c(3, 3), c(5, 3), c(3, 5), c(5, 5)];
    for p in 0..4 {
        let (walls, last) = bottom_pocket();
        let walls: Vec<(Wall, usize)> = walls.into_iter().map(|w| (maps[p](w), 1)).collect();
        let last = maps[p](last);
        let pawns: Vec<Option<Cell>> = (0..4)
            .map(|q| Some(if q == p { starts[q] } else { centre[q] }))
            .collect();
        let q = position(4, m, p, &pawns, &walls);
        assert_eq!(
            err(&q, Action::Wall(last)),
            format!("wall {last} blocks every path to the goal of player {p}")
        );
        assert!(!legal(&q).contains(&Action::Wall(last)));
        // The same wall with the pawn moved into the pocket cuts nobody.
        let mut pawns = pawns;
        let inside = [c(4, 7), c(1, 4), c(4, 1), c(7, 4)];
        pawns[p] = Some(inside[p]);
        let q = position(4, m, p, &pawns, &walls);
        assert!(q.check(Action::Wall(last)).is_ok(), "player {p}");
        assert!(legal(&q).contains(&Action::Wall(last)));
    }
    // With 2 players, player 1 is cut off by the flipped pocket, player 0 by the pocket.
    for p in 0..2 {
        let (walls, last) = bottom_pocket();
        let map = |w| if p == 0 { w } else { flip_y(w, 9) };
        let walls: Vec<(Wall, usize)> = walls.into_iter().map(|w| (map(w), 0)).collect();
        let q = position(2, m, 1 - p, &[Some(c(4, 3)), Some(c(4, 5))], &walls);
        let e = err(&q, Action::Wall(map(last)));
        assert!(e.ends_with(&format!("goal of player {p}")), "{e}");
    }
}

#[test]
fn a_ring_of_walls_away_from_the_border_cuts_off_a_pawn_inside() {
    // A 2×2 box around (3..=4, 3..=4), touching no border; each of its walls may close it.
    let ring = [h(3, 2), v(2, 3), h(3, 4), v(4, 3)];
    for last in 0..4 {
        let walls: Vec<(Wall, usize)> = (0..4)
            .filter(|&k| k != last)
            .map(|k| (ring[k], 1))
            .collect();
        let q = position(2, 9, 0, &[Some(c(4, 4)), Some(c(4, 8))], &walls);
        let w = ring[last];
        assert_eq!(
            err(&q, Action::Wall(w)),
            format!("wall {w} blocks every path to the goal of player 0")
        );
        assert!(!legal(&q).contains(&Action::Wall(w)));
        let q = position(2, 9, 0, &[Some(c(6, 4)), Some(c(4, 8))], &walls);
        assert!(legal(&q).contains(&Action::Wall(w)), "an empty box is fine");
    }
}

#[test]
fn an_empty_walled_off_region_is_allowed() {
    // Box in the corner cell (0, 0)'s neighbourhood where no pawn is: a closed loop, no cut.
    let walls = [(h(0, 1), 0), (v(1, 0), 0)];
    let q = position(2, 9, 0, &[Some(c(4, 0)), Some(c(4, 8))], &walls);
    assert!(q.check(Action::Wall(h(0, 1))).is_err());
    let q = position(2, 9, 0, &[Some(c(4, 0)), Some(c(4, 8))], &walls[..1]);
    assert!(q.check(Action::Wall(v(1, 0))).is_ok());
    assert!(legal(&q).contains(&Action::Wall(v(1, 0))));
}

#[test]
fn paths_ignore_pawns() {
    // Player 0's only way to its goal goes through (0, 6), where player 1 stands.
    let walls = [(h(1, 6), 1), (h(3, 6), 1), (h(5, 6), 1), (h(7, 6), 1)];
    let q = position(2, 9, 0, &[Some(c(4, 0)), Some(c(0, 6))], &walls);
    assert!(q.check(Action::Wall(v(0, 6))).is_ok());
    assert_eq!(q.distance(0), Some(12));
    let mut after = q.clone();
    after.apply(Action::Wall(v(0, 6))).unwrap();
    assert_eq!(after.distance(0), Some(12));
}

#[test]
fn paths_of_eliminated_players_do_not_count() {
    // Player 0 is gone: walling off the bottom rows is fine for the others.
    let (walls, last) = bottom_pocket();
    let walls: Vec<(Wall, usize)> = walls.into_iter().map(|w| (w, 1)).collect();
    let pawns = [None, Some(c(8, 4)), Some(c(4, 5)), Some(c(0, 4))];
    let q = position(4, 9, 1, &pawns, &walls);
    assert!(q.check(Action::Wall(last)).is_ok());
}

#[test]
fn positions_with_a_pawn_cut_off_are_refused() {
    let (mut walls, last) = bottom_pocket();
    walls.push(last);
    let walls: Vec<(Wall, usize)> = walls.into_iter().map(|w| (w, 1)).collect();
    let settings = Settings::standard(2, 9).unwrap();
    let e = Quoridor::from_position(
        settings,
        3,
        0,
        &[Some(c(4, 0)), Some(c(4, 8))],
        &[5, 5],
        &walls,
    )
    .unwrap_err();
    assert!(e.to_string().contains("player 0 no path"), "{e}");
    let settings = Settings::standard(2, 9).unwrap();
    let crossing = [(h(3, 3), 0), (v(3, 3), 1)];
    let e = Quoridor::from_position(
        settings,
        3,
        0,
        &[Some(c(4, 0)), Some(c(4, 8))],
        &[5, 5],
        &crossing,
    )
    .unwrap_err();
    assert!(e.to_string().contains("crosses"), "{e}");
}

#[test]
fn wall_counts_go_down_and_no_walls_left_is_refused() {
    let q = position_with(2, 9, 0, &[Some(c(4, 0)), Some(c(4, 8))], &[1, 0], &[]);
    let mut q2 = q.clone();
    q2.apply(Action::Wall(h(0, 0))).unwrap();
    assert_eq!(q2.walls_left(0), 0);
    assert_eq!(err(&q2, Action::Wall(h(4, 4))), "no walls left");
    assert_eq!(q2.walls().collect::<Vec<_>>(), vec![(h(0, 0), 0)]);
}

// ---- turns, elimination and the end ----

/// Player 1 in the bottom-right corner: a wall above, players 2 and 3 in a row to its left.
fn boxed_four(walls_left_of_1: u8) -> Quoridor {
    let pawns = [Some(c(4, 0)), Some(c(8, 8)), Some(c(7, 8)), Some(c(6, 8))];
    position_with(
        4,
        9,
        1,
        &pawns,
        &[5, walls_left_of_1, 5, 5],
        &[(h(7, 7), 0)],
    )
}

#[test]
fn a_player_with_no_move_and_no_wall_is_stuck() {
    let q = boxed_four(0);
    assert_eq!(q.to_move(), Some(1));
    assert!(q.is_stuck());
    assert!(legal(&q).is_empty());
    assert_eq!(q.count_legal_actions(), 0);
    // With a wall in hand it is not stuck: it must place one.
    let q = boxed_four(1);
    assert!(!q.is_stuck());
    assert!(legal(&q).iter().all(|a| matches!(a, Action::Wall(_))));
}

#[test]
fn a_stuck_player_is_eliminated_and_never_plays_again() {
    let mut q = boxed_four(0);
    q.apply_stuck();
    assert_eq!(q.tick(), 11);
    assert!(q.is_eliminated(1));
    assert_eq!(q.pawn(1), None);
    assert_eq!(q.distance(1), None);
    assert_eq!(q.end_reason(), None);
    assert_eq!(q.to_move(), Some(2));
    // Its cell is free now: player 2 may step into it.
    assert!(moves(&q).contains(&(8, 8)));
    let mut order = Vec::new();
    for _ in 0..6 {
        let p = q.to_move().unwrap();
        order.push(p);
        let mut out = Vec::new();
        q.pawn_moves(&mut out);
        q.apply(Action::Move(out[0])).unwrap();
    }
    assert_eq!(order, vec![2, 3, 0, 2, 3, 0]);
}

#[test]
fn turn_order_starts_at_start_player_and_skips_the_eliminated() {
    let mut settings = Settings::standard(4, 9).unwrap();
    settings.start_player = 2;
    let mut q = Quoridor::new(settings.clone()).unwrap();
    let mut order = Vec::new();
    for _ in 0..5 {
        order.push(q.to_move().unwrap());
        q.apply(legal(&q)[0]).unwrap();
    }
    assert_eq!(order, vec![2, 3, 0, 1, 2]);
    let pawns = [Some(c(4, 0)), None, Some(c(4, 8)), None];
    let mut q = Quoridor::from_position(settings, 4, 2, &pawns, &[5; 4], &[]).unwrap();
    let mut order = Vec::new();
    for _ in 0..4 {
        order.push(q.to_move().unwrap());
        q.apply(legal(&q)[0]).unwrap();
    }
    assert_eq!(order, vec![2, 0, 2, 0]);
}

#[test]
fn reaching_the_goal_ends_the_match_after_that_turn() {
    let mut q = position(2, 9, 0, &[Some(c(4, 7)), Some(c(2, 2))], &[]);
    q.apply(Action::Move(c(4, 6))).unwrap();
    q.apply(Action::Move(c(2, 1))).unwrap();
    assert_eq!(q.to_move(), Some(0));
    q.apply(Action::Move(c(4, 7))).unwrap();
    q.apply(Action::Move(c(2, 0))).unwrap();
    assert_eq!(q.end_reason(), Some(EndReason::Goal));
    assert_eq!(q.to_move(), None);
    let o = q.outcome().unwrap();
    assert_eq!(
        (o.reason, o.scores.clone(), o.placement.clone()),
        ("goal", vec![0.0, 1.0], vec![2, 1])
    );
    // Play goes on for perft's sake, and the result stays.
    assert_eq!(q.current(), 0);
    assert!(!legal(&q).is_empty());
    q.apply_unchecked(Action::Move(c(4, 8)));
    assert_eq!(q.current(), 1);
    assert_eq!(q.tick(), 15);
    assert_eq!(q.outcome().unwrap().reason, "goal");
}

#[test]
fn every_goal_edge_ends_the_match() {
    let goals = [c(4, 8), c(0, 4), c(4, 0), c(8, 4)];
    let before = [c(4, 7), c(1, 4), c(4, 1), c(7, 4)];
    for p in 0..4 {
        let mut pawns: Vec<Option<Cell>> =
            vec![Some(c(3, 3)), Some(c(5, 3)), Some(c(3, 5)), Some(c(5, 5))];
        pawns[p] = Some(before[p]);
        let mut q = position(4, 9, p, &pawns, &[]);
        assert!(q.is_goal(p, goals[p]) && !q.is_goal(p, before[p]));
        q.apply(Action::Move(goals[p])).unwrap();
        let o = q.outcome().expect("over");
        assert_eq!(o.reason, "goal");
        assert_eq!(o.scores[p], 1.0);
        assert_eq!(o.placement[p], 1);
    }
}

#[test]
fn the_tick_limit_ends_the_match_and_ties_share_the_point() {
    let mut settings = Settings::standard(2, 9).unwrap();
    settings.max_ticks = 2;
    let mut q = Quoridor::new(settings.clone()).unwrap();
    q.apply(Action::Move(c(4, 1))).unwrap();
    assert_eq!(q.to_move(), Some(1));
    q.apply(Action::Move(c(4, 7))).unwrap();
    assert_eq!(q.to_move(), None);
    let o = q.outcome().unwrap();
    assert_eq!(o.reason, "tick_limit");
    assert_eq!(o.scores, vec![0.5, 0.5]);
    assert_eq!(o.placement, vec![1, 1]);

    settings.max_ticks = 3;
    let mut q = Quoridor::new(settings).unwrap();
    q.apply(Action::Move(c(4, 1))).unwrap();
    q.apply(Action::Wall(h(0, 0))).unwrap();
    q.apply(Action::Move(c(4, 2))).unwrap();
    let o = q.outcome().unwrap();
    assert_eq!((o.scores, o.placement), (vec![1.0, 0.0], vec![1, 2]));
}

#[test]
fn ties_among_four_share_one_point_and_one_place() {
    let pawns = [Some(c(4, 5)), Some(c(3, 4)), Some(c(4, 3)), Some(c(7, 7))];
    let settings = Settings {
        max_ticks: 11,
        ..Settings::standard(4, 9).unwrap()
    };
    let mut q = Quoridor::from_position(settings, 10, 3, &pawns, &[5; 4], &[]).unwrap();
    q.apply(Action::Move(c(7, 6))).unwrap();
    // Distances: 3, 3, 3, 1 — player 3 is nearest.
    let o = q.outcome().unwrap();
    assert_eq!(o.scores, vec![0.0, 0.0, 0.0, 1.0]);
    assert_eq!(o.placement, vec![2, 2, 2, 1]);
    let pawns = [Some(c(4, 5)), Some(c(3, 4)), Some(c(4, 3)), Some(c(5, 6))];
    let settings = Settings {
        max_ticks: 11,
        ..Settings::standard(4, 9).unwrap()
    };
    let mut q = Quoridor::from_position(settings, 10, 3, &pawns, &[5; 4], &[]).unwrap();
    q.apply(Action::Move(c(4, 6))).unwrap();
    let o = q.outcome().unwrap();
    assert_eq!(o.scores, vec![1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 0.0]);
    assert_eq!(o.placement, vec![1, 1, 1, 4]);
}

#[test]
fn eliminated_players_score_nothing_and_place_last_later_ones_higher() {
    let mut q = boxed_four(0);
    q.apply_stuck();
    let mut settings = q.settings().clone();
    settings.max_ticks = q.tick() + 1;
    // Run out the clock at once from the same position.
    let pawns: Vec<Option<Cell>> = (0..4).map(|p| q.pawn(p)).collect();
    let walls: Vec<(Wall, usize)> = q.walls().collect();
    let mut end =
        Quoridor::from_position(settings, q.tick(), 2, &pawns, &[5, 0, 5, 5], &walls).unwrap();
    end.apply(Action::Move(c(8, 8))).unwrap();
    let o = end.outcome().unwrap();
    assert_eq!(o.reason, "tick_limit");
    // Player 1 would have distance -1 in the public judge and win; here it gets nothing.
    assert_eq!(o.scores[1], 0.0);
    assert_eq!(o.placement[1], 4);
    // Two gone: given as eliminated, they are taken to have left in id order.
    let settings = Settings {
        max_ticks: 6,
        ..Settings::standard(4, 9).unwrap()
    };
    let pawns = [Some(c(4, 3)), None, Some(c(2, 4)), None];
    let mut q = Quoridor::from_position(settings, 5, 0, &pawns, &[5; 4], &[]).unwrap();
    q.apply(Action::Move(c(4, 4))).unwrap();
    let o = q.outcome().unwrap();
    assert_eq!(o.scores, vec![0.5, 0.0, 0.5, 0.0]);
    assert_eq!(o.placement, vec![1, 4, 1, 3]);
}

#[test]
fn fewer_than_two_players_on_the_board_ends_the_match() {
    // Two pawns in a corridor with the board edge and a wall: the one on turn is made to leave.
    let mut q = boxed_four(0);
    q.apply_stuck();
    let pawns = [None, None, Some(c(7, 8)), Some(c(6, 8))];
    let settings = Settings::standard(4, 9).unwrap();
    let walls: Vec<(Wall, usize)> = q.walls().collect();
    let mut q = Quoridor::from_position(settings, 30, 2, &pawns, &[0; 4], &walls).unwrap();
    assert_eq!(q.end_reason(), None);
    // The engine eliminates whoever is on turn when told to, stuck or not.
    q.apply_stuck();
    assert_eq!(q.end_reason(), Some(EndReason::LastPlayerLeft));
    assert_eq!(q.to_move(), None);
    let o = q.outcome().unwrap();
    assert_eq!(o.reason, "last_player_left");
    assert_eq!(o.scores, vec![0.0, 0.0, 0.0, 1.0]);
    assert_eq!(o.placement, vec![4, 3, 2, 1]);
    let one = [None, None, Some(c(7, 8)), None];
    let q = Quoridor::from_position(Settings::standard(4, 9).unwrap(), 30, 2, &one, &[0; 4], &[])
        .unwrap();
    assert_eq!(q.end_reason(), Some(EndReason::LastPlayerLeft));
}

#[test]
fn ticks_count_every_turn_including_a_stuck_one() {
    let mut q = start(2);
    assert_eq!(q.tick(), 0);
    q.apply(Action::Move(c(4, 1))).unwrap();
    assert_eq!(q.tick(), 1);
    q.apply(Action::Wall(h(0, 0))).unwrap();
    assert_eq!(q.tick(), 2);
    let mut q = boxed_four(0);
    let t = q.tick();
    q.apply_stuck();
    assert_eq!(q.tick(), t + 1);
}

#[test]
fn from_position_refuses_inconsistent_input() {
    let s = || Settings::standard(2, 9).unwrap();
    let p = [Some(c(4, 0)), Some(c(4, 8))];
    let refuse = |r: Result<Quoridor, SettingsError>, words: &str| {
        let e = r.expect_err("should be refused").to_string();
        assert!(e.contains(words), "{e:?} should mention {words:?}");
    };
    refuse(
        Quoridor::from_position(s(), 0, 2, &p, &[1, 1], &[]),
        "current player 2",
    );
    refuse(
        Quoridor::from_position(s(), 0, 0, &p[..1], &[1, 1], &[]),
        "pawns",
    );
    refuse(
        Quoridor::from_position(s(), 0, 0, &p, &[1], &[]),
        "walls-left",
    );
    refuse(
        Quoridor::from_position(s(), 0, 0, &[Some(c(9, 0)), p[1]], &[1, 1], &[]),
        "off the",
    );
    refuse(
        Quoridor::from_position(s(), 0, 0, &[p[1], p[1]], &[1, 1], &[]),
        "both on",
    );
    refuse(
        Quoridor::from_position(s(), 0, 0, &[None, p[1]], &[1, 1], &[]),
        "not on the board",
    );
    refuse(
        Quoridor::from_position(s(), 0, 0, &p, &[1, 1], &[(h(8, 0), 0)]),
        "outside",
    );
    refuse(
        Quoridor::from_position(s(), 0, 0, &p, &[1, 1], &[(h(1, 0), 0), (h(2, 0), 1)]),
        "overlaps",
    );
    refuse(
        Quoridor::from_position(s(), 0, 0, &p, &[1, 1], &[(h(1, 0), 2)]),
        "player 2",
    );
    let q = Quoridor::from_position(s(), 100, 0, &p, &[1, 1], &[]).unwrap();
    assert_eq!(q.end_reason(), Some(EndReason::TickLimit));
}

#[test]
fn distances_follow_walls() {
    let q = start(4);
    assert_eq!(
        (0..4).map(|p| q.distance(p)).collect::<Vec<_>>(),
        vec![Some(8); 4]
    );
    let q = position(2, 9, 0, &[Some(c(4, 0)), Some(c(4, 8))], &[(h(3, 0), 1)]);
    assert_eq!(q.distance(0), Some(9));
    assert_eq!(q.distance_from(0, c(0, 0)), Some(8));
    assert_eq!(q.distance_from(0, c(0, 8)), Some(0));
    assert_eq!(q.distance_from(0, c(9, 0)), None);
}
