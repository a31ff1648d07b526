//! Every test vector of docs/games/labyrinth.md#test-vectors, kept in `data/labyrinth_vectors.txt`.

use std::collections::BTreeSet;

use arbiter_games::labyrinth::{Cell, Code, Labyrinth, Level, SplitMix64};
use arbiter_games::{Fault, Game, Wire};
use rand::SeedableRng;

const VECTORS: &str = include_str!("data/labyrinth_vectors.txt");

fn board_level(name: &str) -> Level {
    let path = format!(
        "{}/tests/data/labyrinth_{name}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Level::parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn numbers(text: &str) -> Vec<u64> {
    text.split_ascii_whitespace()
        .map(|w| {
            w.parse()
                .unwrap_or_else(|_| panic!("`{w}` is not a number"))
        })
        .collect()
}

fn cells(text: &str) -> Vec<Cell> {
    numbers(text)
        .chunks(2)
        .map(|c| Cell::new(c[0] as u8, c[1] as u8))
        .collect()
}

fn reply(text: &str) -> String {
    text.replace('|', "\n")
}

#[test]
fn every_vector_of_the_spec() {
    let mut game: Option<Labyrinth> = None;
    let mut checked = 0;
    for (number, raw) in VECTORS.lines().enumerate() {
        let line = raw.split(" # ").next().unwrap().trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = format!("line {}: {raw}", number + 1);
        let (lhs, rhs) = match line.split_once(" = ") {
            Some((l, r)) => (l.trim(), r.trim()),
            None => (line, ""),
        };
        let (command, arg) = lhs.split_once(' ').unwrap_or((lhs, ""));
        let g = || game.as_ref().unwrap_or_else(|| panic!("{at}: no game yet"));
        let seat = || {
            arg.parse::<usize>()
                .unwrap_or_else(|_| panic!("{at}: seat"))
        };
        match command {
            "splitmix" => {
                let mut rng = SplitMix64::new(arg.parse().unwrap());
                for hex in rhs.split_ascii_whitespace() {
                    assert_eq!(format!("{:016x}", rng.next_u64()), hex, "{at}");
                }
            }
            "generate" => game = Some(Labyrinth::generated(arg.parse().unwrap(), 10).unwrap()),
            "level" => {
                let (name, players) = arg.split_once(' ').expect("NAME PLAYERS");
                game = Some(Labyrinth::new(board_level(name), players.parse().unwrap()).unwrap());
            }
            "size" => {
                let v = numbers(rhs);
                assert_eq!(
                    [g().width() as u64, g().height() as u64],
                    [v[0], v[1]],
                    "{at}"
                );
            }
            "fields-start" => {
                let v: Vec<u8> = numbers(rhs).into_iter().map(|t| t as u8).collect();
                assert_eq!(&g().tiles()[..v.len()], &v[..], "{at}");
            }
            "tile-sum" => {
                let sum: u64 = g().tiles().iter().map(|&t| u64::from(t)).sum();
                assert_eq!(sum, numbers(rhs)[0], "{at}");
            }
            "tile-weighted" => {
                let sum: u64 = g()
                    .tiles()
                    .iter()
                    .enumerate()
                    .map(|(i, &t)| (i as u64 + 1) * u64::from(t))
                    .sum();
                assert_eq!(sum, numbers(rhs)[0], "{at}");
            }
            "blocked" => assert_eq!(g().level().blocked, cells(rhs), "{at}"),
            "displays" => assert_eq!(g().level().displays.len() as u64, numbers(rhs)[0], "{at}"),
            "maxtick" => assert_eq!(u64::from(g().level().max_tick), numbers(rhs)[0], "{at}"),
            "display" => {
                let d = seat();
                assert!(g().is_active(d), "{at}: display {d} is not active");
                assert_eq!(vec![g().display_cell(d)], cells(rhs), "{at}");
            }
            "inactive" => assert!(!g().is_active(seat()), "{at}"),
            "targets" => {
                let want: Vec<u8> = numbers(rhs).into_iter().map(|d| d as u8).collect();
                assert_eq!(
                    &g().level().targets[seat()][..want.len()],
                    &want[..],
                    "{at}"
                );
            }
            "start" => assert_eq!(vec![g().level().starts[seat()]], cells(rhs), "{at}"),
            "position" => assert_eq!(vec![g().position(seat())], cells(rhs), "{at}"),
            "reach" => {
                let from = cells(arg)[0];
                let w = g().width();
                let got: BTreeSet<usize> = arbiter_games::labyrinth::reach(
                    g().tiles(),
                    w,
                    g().height(),
                    from.y as usize * w + from.x as usize,
                )
                .iter()
                .collect();
                let want: BTreeSet<usize> = cells(rhs)
                    .into_iter()
                    .map(|c| c.y as usize * w + c.x as usize)
                    .collect();
                assert_eq!(got, want, "{at}");
            }
            "row" | "column" => {
                let k = seat();
                let (w, h) = (g().width(), g().height());
                let got: Vec<u64> = if command == "row" {
                    (0..w).map(|x| u64::from(g().tile(x, k))).collect()
                } else {
                    (0..h).map(|y| u64::from(g().tile(k, y))).collect()
                };
                assert_eq!(got, numbers(rhs), "{at}");
            }
            "extra" => assert_eq!(u64::from(g().extra(seat())), numbers(rhs)[0], "{at}"),
            "score" => assert_eq!(u64::from(g().score(seat())), numbers(rhs)[0], "{at}"),
            "code" => assert_eq!(g().code(seat()).as_str(), rhs, "{at}"),
            "play" => {
                let action = g()
                    .parse_action(&reply(arg))
                    .unwrap_or_else(|e| panic!("{at}: {e}"));
                game.as_mut()
                    .unwrap()
                    .apply(action)
                    .unwrap_or_else(|e| panic!("{at}: {e}"));
            }
            "fault" => {
                let fault = match arg {
                    "malformed" => Fault::Malformed,
                    "timeout" => Fault::Timeout,
                    "offline" => Fault::Crash,
                    other => panic!("{at}: no fault {other}"),
                };
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
                let action = g()
                    .on_fault(fault, &mut rng)
                    .played()
                    .expect("a prescribed action");
                game.as_mut().unwrap().apply_unchecked(action);
            }
            "illegal" => {
                let action = g()
                    .parse_action(&reply(arg))
                    .unwrap_or_else(|e| panic!("{at}: {e}"));
                let error = g().check(action).expect_err(&at);
                let code = Code::parse(rhs).unwrap_or_else(|| panic!("{at}: no code {rhs}"));
                assert!(error.0.starts_with(&format!("{code}: ")), "{at}: {error}");
                assert!(
                    error.0.len() > code.as_str().len() + 10,
                    "{at}: explained: {error}"
                );
            }
            other => panic!("{at}: unknown command {other}"),
        }
        checked += 1;
    }
    assert!(checked > 60, "only {checked} vectors checked");
}
