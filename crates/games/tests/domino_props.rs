//! Property tests on positions reached by random play: the bitboard move generator and the
//! cell-by-cell `check` must agree on every pair of cells, and a bot rebuilding the board from
//! the protocol must see the referee's position.

use std::collections::HashSet;

use arbiter_games::domino::{Cell, Domino, DominoClient, Placement, Settings};
use arbiter_games::{ClientEvent, Game, Wire, WireClient};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A domino as the set of its cells.
fn key(p: Placement) -> (Cell, Cell) {
    if (p.a.y, p.a.x) <= (p.b.y, p.b.x) {
        (p.a, p.b)
    } else {
        (p.b, p.a)
    }
}

fn agree(game: &Domino, all: bool) -> Result<(), TestCaseError> {
    let mut actions = Vec::new();
    game.legal_actions(&mut actions);
    let legal: HashSet<(Cell, Cell)> = actions.iter().map(|&p| key(p)).collect();
    prop_assert_eq!(
        legal.len(),
        actions.len(),
        "a domino listed twice in {:?}",
        game
    );
    prop_assert_eq!(game.count_placements() as usize, actions.len());
    prop_assert_eq!(game.is_stuck(), actions.is_empty());
    for (k, &p) in actions.iter().enumerate() {
        prop_assert_eq!(game.nth_placement(k as u32), Some(p));
    }
    // Every cell, one past the board's edge included, with every cell near it (wrapping and
    // not): all pairs that could be a domino and the near misses. All pairs when `all`.
    let n = u16::from(game.size());
    let cells: Vec<Cell> = (0..=n)
        .flat_map(|y| (0..=n).map(move |x| Cell::new(x, y)))
        .collect();
    for &a in &cells {
        let near = |b: &&Cell| {
            let d = |u: u16, v: u16| u.abs_diff(v).min(n + 1 - u.abs_diff(v));
            d(a.x, b.x) <= 2 && d(a.y, b.y) <= 2
        };
        for &b in cells.iter().filter(|b| all || near(b)) {
            let p = Placement::new(a, b);
            prop_assert_eq!(
                game.check(p).is_ok(),
                legal.contains(&key(p)),
                "{} in {:?}",
                p,
                game
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn move_generation_agrees_with_check(
        size in prop::sample::select(vec![3u8, 5, 7, 9, 11, 13]),
        board_seed in any::<u64>(),
        plies in 0usize..80,
        seed in any::<u64>(),
    ) {
        let mut game = Domino::new(Settings::seeded(size, board_seed).unwrap()).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut actions = Vec::new();
        for ply in 0..plies {
            // Checking every pair near every cell is slow: every few plies is enough.
            if ply % 5 == 0 {
                agree(&game, false)?;
            }
            game.legal_actions(&mut actions);
            if actions.is_empty() {
                break;
            }
            let p = actions[rng.random_range(0..actions.len())];
            let free = game.free_count();
            // Either cell order is the same domino.
            let p = if rng.random() { p } else { Placement::new(p.b, p.a) };
            game.apply(p).unwrap();
            prop_assert_eq!(game.free_count(), free - 2);
        }
        agree(&game, true)?;
    }

    #[test]
    fn a_bot_rebuilds_the_referees_position_from_the_messages(
        board_seed in any::<u64>(),
        seed in any::<u64>(),
    ) {
        let mut game = Domino::new(Settings::generated(board_seed)).unwrap();
        let mut clients = [DominoClient::default(), DominoClient::default()];
        let mut message = String::new();
        for round in 0..Domino::PROTOCOL.start.rounds {
            for (p, client) in clients.iter_mut().enumerate() {
                message.clear();
                game.start_message(round, p, &mut message);
                let event = Domino::client_feed(client, message.trim_end_matches('\n'));
                prop_assert!(matches!(event, Ok(ClientEvent::Acknowledge("ok"))));
            }
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut actions = Vec::new();
        while !game.is_stuck() {
            let p = game.current();
            message.clear();
            game.turn_message(p, &mut message);
            let event = Domino::client_feed(&mut clients[p], message.trim_end_matches('\n'));
            let Ok(ClientEvent::YourTurn(seen)) = event else {
                return Err(TestCaseError::fail(format!("no turn after {message:?}")));
            };
            prop_assert_eq!(&seen, &game);
            game.legal_actions(&mut actions);
            let action = actions[rng.random_range(0..actions.len())];
            Domino::client_played(&mut clients[p], action);
            game.apply(action).unwrap();
        }
    }
}
