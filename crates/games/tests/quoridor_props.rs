//! Property tests on positions reached by random play: the bulk move generator and the
//! one-action `check` (which runs a plain flood fill for every wall) must agree everywhere.

use std::collections::HashSet;

use arbiter_games::Game;
use arbiter_games::quoridor::{Action, Cell, Orientation, Quoridor, Settings, Wall};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn agree(q: &Quoridor) -> Result<(), TestCaseError> {
    let mut actions = Vec::new();
    q.legal_actions(&mut actions);
    let legal: HashSet<Action> = actions.iter().copied().collect();
    prop_assert_eq!(legal.len(), actions.len(), "duplicate actions in {:?}", q);
    prop_assert_eq!(q.count_legal_actions(), actions.len());
    prop_assert_eq!(q.is_stuck(), actions.is_empty());
    for &a in &actions {
        prop_assert!(
            q.check(a).is_ok(),
            "{:?} listed but refused: {:?} in {:?}",
            a,
            q.check(a),
            q
        );
    }
    let m = q.board_size();
    for y in 0..=m {
        for x in 0..=m {
            for orientation in [Orientation::Horizontal, Orientation::Vertical] {
                let a = Action::Wall(Wall { x, y, orientation });
                prop_assert_eq!(q.check(a).is_ok(), legal.contains(&a), "{:?} in {:?}", a, q);
            }
            let a = Action::Move(Cell::new(x, y));
            prop_assert_eq!(q.check(a).is_ok(), legal.contains(&a), "{:?} in {:?}", a, q);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn move_generation_agrees_with_check(
        players in prop::sample::select(vec![2u8, 4]),
        board in prop::sample::select(vec![5u8, 7, 9, 11, 13]),
        walls in 0u8..=14,
        plies in 0usize..70,
        seed in any::<u64>(),
    ) {
        let settings = Settings::standard(players, board).unwrap().with_walls_each(walls);
        let mut q = Quoridor::new(settings).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut actions = Vec::new();
        for _ in 0..plies {
            agree(&q)?;
            if q.to_move().is_none() {
                break;
            }
            q.legal_actions(&mut actions);
            if actions.is_empty() {
                q.apply_stuck();
            } else {
                let a = actions[rng.random_range(0..actions.len())];
                q.apply(a).unwrap();
            }
        }
        agree(&q)?;
    }
}
