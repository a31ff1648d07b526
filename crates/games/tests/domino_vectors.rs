//! Every test vector of docs/games/domino.md (docs/games/domino.md#example-exchange and docs/games/domino.md#test-vectors), kept in `data/domino_vectors.txt`.

use std::collections::BTreeSet;

use arbiter_games::domino::{Cell, Domino, Placement, Settings, obstacle_count, parse_move};
use arbiter_games::{Game, Wire};

const VECTORS: &str = include_str!("data/domino_vectors.txt");

fn cells(list: &str) -> Vec<Cell> {
    if list == "-" {
        return Vec::new();
    }
    arbiter_games::domino::parse_obstacles(list).unwrap_or_else(|e| panic!("{list}: {e}"))
}

/// The text of an argument: between bars when it has spaces (or is empty).
fn text(arg: &str) -> &str {
    arg.strip_prefix('|')
        .and_then(|a| a.strip_suffix('|'))
        .unwrap_or(arg)
}

fn placement(arg: &str) -> Placement {
    parse_move(text(arg)).unwrap_or_else(|e| panic!("{arg}: {e}"))
}

/// A domino as a set of cells, whatever the order it was given in.
fn domino(p: Placement) -> [Cell; 2] {
    let mut cells = [p.a, p.b];
    cells.sort();
    cells
}

#[test]
fn every_vector_of_the_spec() {
    let mut game: Option<Domino> = None;
    let mut checked = 0;
    for (number, raw) in VECTORS.lines().enumerate() {
        let line = raw.split(" # ").next().unwrap().trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = format!("line {}: {raw}", number + 1);
        let (command, arg) = line.split_once(' ').unwrap_or((line, ""));
        let arg = arg.trim();
        let position = || {
            game.as_ref()
                .unwrap_or_else(|| panic!("{at}: no board yet"))
        };
        match command {
            "board" | "free" => {
                let (size, list) = arg.split_once(' ').expect("N LIST");
                let size: u8 = size.parse().unwrap();
                let mut listed = cells(list);
                if command == "free" {
                    let free: BTreeSet<Cell> = listed.into_iter().collect();
                    listed = (0..u16::from(size))
                        .flat_map(|y| (0..u16::from(size)).map(move |x| Cell::new(x, y)))
                        .filter(|c| !free.contains(c))
                        .collect();
                }
                let settings = Settings::custom(size, &listed).unwrap();
                game = Some(Domino::new(settings).unwrap());
            }
            "legal" => {
                let p = placement(arg);
                assert_eq!(position().check(p), Ok(()), "{at}");
                assert_eq!(position().parse_action(text(arg)), Ok(p), "{at}");
            }
            "illegal" => {
                let p = placement(arg);
                let error = position().check(p).expect_err(&at);
                assert!(!error.0.is_empty(), "{at}");
            }
            "malformed" => {
                let line = text(arg);
                assert!(parse_move(line).is_err(), "{at}");
            }
            "play" => {
                let game = game.as_mut().unwrap();
                game.apply(placement(arg))
                    .unwrap_or_else(|e| panic!("{at}: {e}"));
            }
            "moves" => {
                let expected: BTreeSet<[Cell; 2]> = if arg == "-" {
                    BTreeSet::new()
                } else {
                    arg.split(' ').map(|m| domino(placement(m))).collect()
                };
                let mut actions = Vec::new();
                position().legal_actions(&mut actions);
                let listed: BTreeSet<[Cell; 2]> = actions.iter().map(|&p| domino(p)).collect();
                assert_eq!(listed.len(), actions.len(), "{at}: a domino listed twice");
                assert_eq!(listed, expected, "{at}");
                assert_eq!(
                    position().count_placements() as usize,
                    actions.len(),
                    "{at}"
                );
            }
            "stuck" => assert!(position().is_stuck(), "{at}"),
            "winner" => {
                let winner: usize = arg.parse().unwrap();
                let game = game.as_mut().unwrap();
                assert!(game.is_stuck(), "{at}");
                assert_eq!(game.to_move(), Some(1 - winner), "{at}");
                game.apply_stuck();
                let outcome = game.outcome().expect("over");
                assert_eq!(outcome.reason, "no_moves", "{at}");
                assert_eq!(outcome.placement[winner], 1, "{at}");
                assert_eq!(outcome.scores[winner], 1.0, "{at}");
                assert_eq!(outcome.scores[1 - winner], 0.0, "{at}");
            }
            "obstacles" => {
                let (size, count) = arg.split_once(' ').unwrap();
                let (size, count): (u8, usize) = (size.parse().unwrap(), count.parse().unwrap());
                assert_eq!(obstacle_count(size), count, "{at}");
                for seed in 0..5 {
                    let settings = Settings::seeded(size, seed).unwrap();
                    assert_eq!(settings.obstacles.len(), count, "{at}");
                    let game = Domino::new(settings).unwrap();
                    let cells = u32::from(size) * u32::from(size);
                    assert_eq!(game.free_count(), cells - count as u32, "{at}: distinct");
                }
            }
            "sent" | "legacy" => {
                let mut settings = position().settings().clone();
                settings.legacy_obstacle_order = command == "legacy";
                let game = Domino::new(settings).unwrap();
                let mut out = String::new();
                game.start_message(1, 0, &mut out);
                let expected = if arg == "-" { "" } else { arg };
                assert_eq!(out, format!("{expected}\n"), "{at}");
            }
            other => panic!("{at}: unknown command {other:?}"),
        }
        checked += 1;
    }
    assert!(checked > 40, "only {checked} vectors read");
}
