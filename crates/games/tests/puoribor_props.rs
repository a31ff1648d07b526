//! Property tests on positions reached by random play: the bulk generator (`legal_actions`,
//! `legal_mask`) and the one-action `check` (plain flood fills) must agree on every action,
//! and a position must survive the trip through the upstream board and the wire protocol.

use arbiter_games::puoribor::{Action, Puoribor};
use arbiter_games::{ClientEvent, Game, Wire, WireClient};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn agree(game: &Puoribor) -> Result<(), TestCaseError> {
    let mut actions = Vec::new();
    game.legal_actions(&mut actions);
    prop_assert!(actions.is_sorted(), "not in mask order: {:?}", game);
    prop_assert!(actions.windows(2).all(|w| w[0] != w[1]), "duplicates");
    prop_assert_eq!(game.count_legal_actions(), actions.len());
    let mask = game.legal_mask();
    let flat = game.legal_mask_flat();
    for (index, &in_flat) in flat.iter().enumerate() {
        let a = Action::from_index(index);
        let listed = actions.binary_search(&a).is_ok();
        let checked = game.check(a);
        prop_assert_eq!(
            checked.is_ok(),
            listed,
            "{} listed {}: {:?} in {:?}",
            a,
            listed,
            checked,
            game
        );
        prop_assert_eq!(mask[a.kind as usize][a.x as usize][a.y as usize], listed);
        prop_assert_eq!(in_flat == 1, listed);
        prop_assert_eq!(a.index(), Some(index));
    }
    for a in [
        Action::new(4, 0, 0),
        Action::new(-1, 0, 0),
        Action::step(9, 0),
        Action::rotate(0, -1),
    ] {
        prop_assert!(game.check(a).is_err());
    }
    Ok(())
}

fn round_trips(game: &Puoribor) -> Result<(), TestCaseError> {
    let walls = [game.walls_remaining(0), game.walls_remaining(1)];
    let rebuilt = Puoribor::from_board(&game.board(), walls, game.tick(), game.max_ticks())
        .map_err(|e| TestCaseError::fail(format!("{e} for {game:?}")))?;
    prop_assert_eq!(&rebuilt, game);
    prop_assert_eq!(rebuilt.hash(), game.hash());
    if let Some(p) = game.to_move() {
        let mut text = String::new();
        game.start_message(0, p, &mut text);
        game.turn_message(p, &mut text);
        let mut client = Default::default();
        let mut seen = None;
        for line in text.lines() {
            match Puoribor::client_feed(&mut client, line).map_err(TestCaseError::fail)? {
                ClientEvent::YourTurn(position) => seen = Some(position),
                ClientEvent::Pending | ClientEvent::Acknowledge(_) => {}
                ClientEvent::End => prop_assert!(false, "end in a turn message"),
            }
        }
        let seen = seen.expect("a complete turn");
        prop_assert_eq!(seen.board(), game.board());
        prop_assert_eq!(seen.hash(), game.hash());
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        game.legal_actions(&mut ours);
        seen.legal_actions(&mut theirs);
        prop_assert_eq!(ours, theirs);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn legal_actions_agree_with_check(plies in 0usize..80, seed in any::<u64>(), typed in any::<bool>()) {
        let mut game = Puoribor::new();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut actions = Vec::new();
        for _ in 0..plies {
            agree(&game)?;
            round_trips(&game)?;
            if game.to_move().is_none() {
                break;
            }
            game.legal_actions(&mut actions);
            // Choosing the type first plays rotations and moves often while walls are left.
            if typed {
                let kind = actions[rng.random_range(0..actions.len())].kind;
                let kind = if rng.random_bool(0.5) { Action::ROTATE } else { kind };
                if actions.iter().any(|a| a.kind == kind) {
                    actions.retain(|a| a.kind == kind);
                }
            }
            let a = actions[rng.random_range(0..actions.len())];
            game.apply(a).unwrap();
        }
        agree(&game)?;
        round_trips(&game)?;
    }
}
