//! The test vectors of docs/games/puoribor.md (docs/games/puoribor.md#test-vectors, and the worked example of docs/games/puoribor.md#rotation), read from
//! `tests/data/puoribor_vectors.txt` by one generic runner.

use std::collections::BTreeSet;

use arbiter_games::Game;
use arbiter_games::puoribor::{Action, Puoribor, WallLine, WallLineKind};

struct Runner {
    name: String,
    game: Puoribor,
    /// A `position` line waiting for its `wall` lines.
    pending: Option<(PendingPosition, Vec<WallLine>)>,
}

#[derive(Clone, Copy)]
struct PendingPosition {
    pawns: [(u8, u8); 2],
    walls: [u8; 2],
}

fn pair(text: &str) -> (u8, u8) {
    let (x, y) = text.split_once(',').expect("a cell `X,Y`");
    (x.parse().unwrap(), y.parse().unwrap())
}

fn action(args: &[&str]) -> Action {
    let n: Vec<i32> = args
        .iter()
        .map(|t| t.parse().expect("an integer"))
        .collect();
    assert_eq!(n.len(), 3, "an action is `T X Y`");
    Action::new(n[0], n[1], n[2])
}

fn wall_line(text: &str) -> WallLine {
    let t: Vec<&str> = text.split_whitespace().collect();
    let [kind, x, y, owner] = t[..] else {
        panic!("a wall line is `K X Y OWNER`: {text}")
    };
    WallLine {
        kind: WallLineKind::from_letter(kind).expect("H, V, h or v"),
        x: x.parse().unwrap(),
        y: y.parse().unwrap(),
        owner: owner.parse().unwrap(),
    }
}

/// The same position with player `p` on turn.
fn with_turn(game: &Puoribor, p: usize) -> Puoribor {
    let tick = game.tick() - game.tick() % 2 + p as u32;
    let walls = [game.walls_remaining(0), game.walls_remaining(1)];
    Puoribor::from_board(&game.board(), walls, tick, game.max_ticks()).unwrap()
}

impl Runner {
    fn settle(&mut self) {
        if let Some((p, walls)) = self.pending.take() {
            self.game = Puoribor::from_parts(0, 200, p.pawns, p.walls, &walls)
                .unwrap_or_else(|e| panic!("vector {}: {e}", self.name));
        }
    }

    fn step(&mut self, line: &str) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (command, args) = (words[0], &words[1..]);
        let name = self.name.clone();
        if command == "wall" {
            let (_, walls) = self.pending.as_mut().expect("`wall` follows `position`");
            walls.push(wall_line(&args.join(" ")));
            return;
        }
        if command != "position" {
            self.settle();
        }
        let game = &self.game.clone();
        match command {
            "start" => self.game = Puoribor::new(),
            "position" => {
                let mut p = PendingPosition {
                    pawns: [(4, 0), (4, 8)],
                    walls: [10, 10],
                };
                for arg in args {
                    let (key, value) = arg.split_once('=').expect("key=value");
                    match key {
                        "p0" => p.pawns[0] = pair(value),
                        "p1" => p.pawns[1] = pair(value),
                        "walls" => p.walls = [pair(value).0, pair(value).1],
                        _ => panic!("unknown position key {key}"),
                    }
                }
                self.pending = Some((p, Vec::new()));
            }
            "play" => {
                let a = action(args);
                if let Err(e) = self.game.apply(a) {
                    panic!("vector {name}: `{line}` refused: {e}\n{game}");
                }
            }
            "turn" => self.game = with_turn(game, args[0].parse().unwrap()),
            "legal" => {
                let a = action(args);
                assert_eq!(game.check(a), Ok(()), "vector {name}: `{line}`\n{game}");
                let mut actions = Vec::new();
                game.legal_actions(&mut actions);
                assert!(actions.contains(&a), "vector {name}: `{line}` not listed");
            }
            "illegal" => {
                let a = action(args);
                assert!(game.check(a).is_err(), "vector {name}: `{line}`\n{game}");
                let mut actions = Vec::new();
                game.legal_actions(&mut actions);
                assert!(!actions.contains(&a), "vector {name}: `{line}` listed");
            }
            "moves" => {
                let expected: BTreeSet<(u8, u8)> = args.iter().map(|a| pair(a)).collect();
                let ours: BTreeSet<(u8, u8)> = game.pawn_moves().collect();
                assert_eq!(ours, expected, "vector {name}: `{line}`\n{game}");
            }
            "count" => {
                let mut actions = Vec::new();
                game.legal_actions(&mut actions);
                let n: usize = args[0].parse().unwrap();
                assert_eq!(actions.len(), n, "vector {name}: `{line}`\n{game}");
                assert_eq!(game.count_legal_actions(), n);
                for part in &args[1..] {
                    let (kind, count) = part.split_once('=').unwrap();
                    let kind = ["moves", "h", "v", "r"]
                        .iter()
                        .position(|&k| k == kind)
                        .expect("moves, h, v or r") as i32;
                    let ours = actions.iter().filter(|a| a.kind == kind).count();
                    assert_eq!(
                        ours,
                        count.parse::<usize>().unwrap(),
                        "vector {name}: `{line}`, {part}\n{game}"
                    );
                }
            }
            "walls" => {
                let rest = args.join(" ");
                let expected: BTreeSet<WallLine> = if rest == "none" {
                    BTreeSet::new()
                } else {
                    rest.split(',').map(wall_line).collect()
                };
                let ours: BTreeSet<WallLine> = game.wall_lines().collect();
                assert_eq!(ours, expected, "vector {name}: `{line}`\n{game}");
            }
            "remaining" => {
                let ours = [game.walls_remaining(0), game.walls_remaining(1)];
                let expected: [u8; 2] = [args[0].parse().unwrap(), args[1].parse().unwrap()];
                assert_eq!(ours, expected, "vector {name}: `{line}`");
            }
            other => panic!("vector {name}: unknown command {other:?}"),
        }
    }
}

#[test]
fn spec_vectors() {
    let text = include_str!("data/puoribor_vectors.txt");
    let mut runner: Option<Runner> = None;
    let mut count = 0;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix("vector ") {
            if let Some(r) = runner.as_mut() {
                r.settle();
            }
            runner = Some(Runner {
                name: name.to_string(),
                game: Puoribor::new(),
                pending: None,
            });
            count += 1;
            continue;
        }
        runner.as_mut().expect("a `vector` line first").step(line);
    }
    assert!(count >= 15, "only {count} vectors read");
}
