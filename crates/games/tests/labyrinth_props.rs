//! Properties of the Labyrinth engine over random positions of generated and small levels.

use std::collections::HashSet;

use arbiter_games::labyrinth::{Action, Goto, Labyrinth, Level, Push, pushed_cell};
use arbiter_games::{Game, Wire};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A level: a generated one, or a small hand-made one drawn from the seed.
fn level(seed: u64) -> Level {
    if seed.is_multiple_of(2) {
        return Level::generate(seed);
    }
    let mut rng = SmallRng::seed_from_u64(seed);
    let (w, h) = (rng.random_range(2..=6usize), rng.random_range(2..=6usize));
    let l = (w * h / 4).max(1);
    let mut text = format!("SIZE {w} {h}\nMAXTICK {}\nFIELDS", 2 * l);
    for _ in 0..w * h {
        text += &format!(" {}", rng.random_range(1..=15));
    }
    text += "\n";
    if w >= 3 && h >= 3 {
        text += &format!(
            "BLOCKED {} {}\n",
            rng.random_range(1..w - 1),
            rng.random_range(1..h - 1)
        );
    }
    let mut cells: Vec<usize> = (0..w * h).collect();
    for i in 0..l {
        let j = rng.random_range(i..w * h);
        cells.swap(i, j);
        text += &format!("DISPLAY {i} {} {}\n", cells[i] % w, cells[i] / w);
    }
    for s in 0..3 {
        let order: Vec<String> = (0..l).map(|d| ((d + s) % l).to_string()).collect();
        let (x, y) = (rng.random_range(0..w), rng.random_range(0..h));
        text += &format!("SEAT {s} {x} {y} TARGETS {}\n", order.join(" "));
    }
    Level::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// A position after `plies` random legal turns (fewer if the match ends).
fn position(seed: u64, plies: usize) -> Labyrinth {
    let level = level(seed);
    let players = 1 + (seed as usize / 2) % level.seats().min(3).min(level.displays.len());
    let mut game = Labyrinth::new(level, players).unwrap();
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x5eed);
    let mut actions = Vec::new();
    for _ in 0..plies {
        if game.to_move().is_none() {
            break;
        }
        game.legal_actions(&mut actions);
        game.apply_unchecked(actions[rng.random_range(0..actions.len())]);
    }
    game
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn legal_actions_agree_with_check(seed in 0u64..1000, plies in 0usize..20, probes in prop::collection::vec((0u8..3, 0u8..3, 0u8..22, 0u8..17, 0u8..22, 0u8..22, 0u8..3), 40)) {
        let game = position(seed, plies);
        prop_assume!(game.to_move().is_some());
        let mut actions = Vec::new();
        game.legal_actions(&mut actions);
        prop_assert!(!actions.is_empty());
        let set: HashSet<Action> = actions.iter().copied().collect();
        prop_assert_eq!(set.len(), actions.len(), "no action twice");
        for &a in &actions {
            prop_assert!(game.check(a).is_ok(), "{:?}: {:?}", a, game.check(a));
        }
        let (w, h) = (game.width(), game.height());
        let s = game.seat_on_turn();
        for (c, p, k, t, x, y, g) in probes {
            let push = Push::new(c, p, k, t);
            let goto = match g { 0 => Goto::None, 1 => Goto::Cell(x, y), _ => Goto::Cell(x % w as u8, y % h as u8) };
            let action = Action::Move { push, goto };
            // Without a GOTO the listed twin is the walk to the own cell after the push.
            let listed = match goto {
                Goto::None => {
                    let at = game.position(s);
                    let (px, py) = if (c as usize) < 2 && (p as usize) < 2 && (k as usize) < if c == 0 { h } else { w } {
                        pushed_cell(w, h, push, at.x as usize, at.y as usize)
                    } else {
                        (at.x as usize, at.y as usize)
                    };
                    Action::goto(push, px as u8, py as u8)
                }
                _ => action,
            };
            prop_assert_eq!(game.check(action).is_ok(), set.contains(&listed), "{:?}", action);
        }
    }

    #[test]
    fn legal_replies_format_and_parse_back(seed in 0u64..1000, plies in 0usize..10, pick in any::<prop::sample::Index>()) {
        let game = position(seed, plies);
        prop_assume!(game.to_move().is_some());
        let mut actions = Vec::new();
        game.legal_actions(&mut actions);
        let action = actions[pick.index(actions.len())];
        let mut text = String::new();
        game.format_action(action, &mut text);
        prop_assert_eq!(game.parse_action(&text), Ok(action));
    }

    #[test]
    fn random_matches_keep_the_invariants(seed in 0u64..400) {
        let mut game = position(seed, 0);
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut actions = Vec::new();
        let total_displays = game.level().displays.len();
        let mut turns = 0;
        while game.to_move().is_some() {
            let points: u32 = game.scores().iter().sum();
            prop_assert_eq!(points as usize + game.active_displays().count(), total_displays);
            let mut tiles = game.tiles().to_vec();
            let mut sorted = game.level().tiles.clone();
            let extras: Vec<u8> = game.extras().to_vec();
            tiles.extend(&extras);
            sorted.extend(std::iter::repeat_n(15, extras.len()));
            // Tiles are only moved around, up to rotation when inserted: open sides count.
            let sides = |v: &[u8]| v.iter().map(|t| t.count_ones()).sum::<u32>();
            prop_assert_eq!(sides(&tiles), sides(&sorted));
            game.legal_actions(&mut actions);
            game.apply_unchecked(actions[rng.random_range(0..actions.len())]);
            turns += 1;
        }
        let outcome = game.outcome().unwrap();
        prop_assert!(turns as u32 <= game.level().max_tick * game.num_players() as u32);
        prop_assert!(outcome.placement.iter().all(|&p| p >= 1 && p as usize <= game.num_players()));
    }
}
