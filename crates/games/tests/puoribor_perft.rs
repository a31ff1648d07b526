//! Perft vectors from `tests/data/puoribor_perft.txt`, read by one generic runner.

use arbiter_games::perft::perft;
use arbiter_games::puoribor::Puoribor;

fn run(slow: bool) {
    let text = include_str!("data/puoribor_perft.txt");
    let mut ran = 0;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (is_slow, rest) = match line.strip_prefix("slow ") {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        if is_slow != slow {
            continue;
        }
        let t: Vec<&str> = rest.split_whitespace().collect();
        let ["depth", depth, "=", count] = t[..] else {
            panic!("malformed perft line: {line}")
        };
        let (depth, count): (u32, u64) = (depth.parse().unwrap(), count.parse().unwrap());
        assert_eq!(perft(&Puoribor::new(), depth), count, "{line}");
        ran += 1;
    }
    assert!(ran > 0, "no perft vectors");
}

#[test]
fn perft_vectors() {
    run(false);
}

#[test]
#[ignore = "about 15 s in release; run with --ignored"]
fn perft_vectors_slow() {
    run(true);
}
