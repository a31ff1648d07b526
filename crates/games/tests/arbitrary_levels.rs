//! Labyrinth level files come from anyone (`--level-file`): any text is a level or an error,
//! and any level that parses plays a match without a panic.

use arbiter_games::Game;
use arbiter_games::labyrinth::{Labyrinth, Level};
use arbiter_games::playout::random_plies;
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::SmallRng;

const SMALL: &str = include_str!("../../../examples/labyrinth/small.level");

/// A line of a level file: a keyword of the format and numbers of any size.
fn level_line() -> impl Strategy<Value = String> {
    let keyword = prop::sample::select(vec![
        "SIZE", "MAXTICK", "FIELDS", "BLOCKED", "DISPLAY", "SEAT", "TARGETS", "#", "",
    ]);
    let number =
        prop_oneof![0usize..20, 0usize..=10_001, Just(usize::MAX),].prop_map(|n| n.to_string());
    (keyword, prop::collection::vec(number, 0..8))
        .prop_map(|(keyword, numbers)| format!("{keyword} {}", numbers.join(" ")))
}

/// The example level with one word replaced by `new`, and `extra` lines added.
fn changed_level(word: prop::sample::Index, new: &str, extra: &[String]) -> String {
    let mut words: Vec<&str> = SMALL.split_inclusive(char::is_whitespace).collect();
    let at = word.index(words.len());
    let end = if words[at].ends_with('\n') { "\n" } else { " " };
    let changed = format!("{new}{end}");
    words[at] = &changed;
    let mut text = words.concat();
    for line in extra {
        text += line;
        text.push('\n');
    }
    text
}

/// Plays `plies` random legal turns of a match on `level`, if it is one.
fn play(level: Level, players: usize, seed: u64, plies: u32) {
    let Ok(mut game) = Labyrinth::new(level, players) else {
        return;
    };
    let mut rng = SmallRng::seed_from_u64(seed);
    random_plies(&mut game, &mut rng, &mut Vec::new(), plies);
    let _ = game.outcome();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_text_is_a_level_or_an_error(text in any::<String>()) {
        let _ = Level::parse(&text);
    }

    #[test]
    fn a_changed_level_is_an_error_or_plays(
        word in any::<prop::sample::Index>(),
        new in prop_oneof![
            (0usize..=10_001).prop_map(|n| n.to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            level_line(),
        ],
        extra in prop::collection::vec(level_line(), 0..4),
        players in 1usize..=10,
        seed in any::<u64>(),
    ) {
        if let Ok(level) = Level::parse(&changed_level(word, &new, &extra)) {
            play(level, players, seed, 12);
        }
    }
}
