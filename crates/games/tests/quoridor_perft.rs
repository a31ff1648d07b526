//! Perft vectors from `tests/data/quoridor_perft.txt`, one generic reader for all of them.

use arbiter_games::perft::perft;
use arbiter_games::quoridor::{Quoridor, Settings};

struct Vector {
    line: String,
    slow: bool,
    players: u8,
    board: u8,
    walls: u8,
    depth: u32,
    count: u64,
}

fn vectors() -> Vec<Vector> {
    let text = include_str!("data/quoridor_perft.txt");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| {
            let (slow, rest) = match line.strip_prefix("slow ") {
                Some(rest) => (true, rest),
                None => (false, line),
            };
            let bad = || panic!("malformed perft line: {line}");
            let t: Vec<&str> = rest.split_whitespace().collect();
            let [players, board, walls, "depth", depth, "=", count] = t[..] else {
                bad()
            };
            let (b1, b2) = board.split_once('x').unwrap_or_else(|| bad());
            assert_eq!(b1, b2, "square boards only: {line}");
            Vector {
                line: line.to_string(),
                slow,
                players: players
                    .strip_suffix('p')
                    .unwrap_or_else(|| bad())
                    .parse()
                    .unwrap(),
                board: b1.parse().unwrap(),
                walls: walls
                    .strip_suffix("walls")
                    .unwrap_or_else(|| bad())
                    .parse()
                    .unwrap(),
                depth: depth.parse().unwrap(),
                count: count.parse().unwrap(),
            }
        })
        .collect()
}

fn run(slow: bool) {
    let mut ran = 0;
    for v in vectors().into_iter().filter(|v| v.slow == slow) {
        let settings = Settings::standard(v.players, v.board)
            .unwrap()
            .with_walls_each(v.walls);
        let game = Quoridor::new(settings).unwrap();
        assert_eq!(perft(&game, v.depth), v.count, "{}", v.line);
        ran += 1;
    }
    assert!(ran > 0, "no perft vectors");
}

#[test]
fn perft_vectors() {
    run(false);
}

#[test]
#[ignore = "a few seconds in release; run with --ignored"]
fn perft_vectors_slow() {
    run(true);
}
