//! Differential test against the original environment (`fights` 0.9.0, env `("puoribor", 3)`):
//! random games played there are replayed here, comparing the whole legal-action mask before
//! every step and the board, walls and `done` after it.
//!
//! The test makes a virtual environment and installs `fights` from PyPI; without network it
//! prints a notice and passes. `PUORIBOR_FIGHTS_GAMES` sets the number of games (default 300).

#[path = "common/fights_venv.rs"]
mod fights_venv;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use arbiter_games::Game;
use arbiter_games::puoribor::{Action, Puoribor};

fn digits<const N: usize>(values: impl IntoIterator<Item = u8>) -> String {
    let text: String = values.into_iter().map(|v| char::from(b'0' + v)).collect();
    assert_eq!(text.len(), N);
    text
}

fn board_digits(game: &Puoribor) -> String {
    digits::<486>(game.board().into_iter().flatten().flatten())
}

fn describe_mask_difference(game: &Puoribor, theirs: &str) -> String {
    let ours = digits::<324>(game.legal_mask_flat());
    let mut out = String::new();
    for (i, (a, b)) in ours.bytes().zip(theirs.bytes()).enumerate() {
        if a != b {
            let action = Action::from_index(i);
            let verdict = if b == b'1' {
                "legal upstream"
            } else {
                "illegal upstream"
            };
            out.push_str(&format!(
                "  [{action}] {verdict}, ours: {:?}\n",
                game.check(action)
            ));
        }
    }
    out
}

/// Replays one helper's output; returns (games, plies).
fn replay(output: impl BufRead, source: &str) -> (usize, usize) {
    let mut game = Puoribor::new();
    let (mut games, mut plies) = (0, 0);
    let mut history: Vec<Action> = Vec::new();
    for line in output.lines() {
        let line = line.expect("reading the helper's output");
        let (tag, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        macro_rules! context {
            () => {
                format!(
                    "{source}, game {games}, after {:?}\n{game}\n{game:?}",
                    history.iter().map(|a| a.to_array()).collect::<Vec<_>>()
                )
            };
        }
        match tag {
            "game" => {
                game = Puoribor::new();
                history.clear();
                games += 1;
            }
            "mask" => {
                let ours = digits::<324>(game.legal_mask_flat());
                assert!(
                    ours == rest,
                    "legal actions differ:\n{}{}",
                    describe_mask_difference(&game, rest),
                    context!()
                );
                let mut actions = Vec::new();
                game.legal_actions(&mut actions);
                assert_eq!(actions.len(), rest.bytes().filter(|&b| b == b'1').count());
            }
            "step" => {
                let n: Vec<i32> = rest.split(' ').map(|t| t.parse().unwrap()).collect();
                let action = Action::new(n[0], n[1], n[2]);
                if let Err(e) = game.apply(action) {
                    panic!(
                        "upstream played {action}, which we refuse: {e}\n{}",
                        context!()
                    );
                }
                history.push(action);
                plies += 1;
            }
            "board" => assert!(
                board_digits(&game) == rest,
                "boards differ after the last step:\nours   {}\ntheirs {rest}\n{}",
                board_digits(&game),
                context!()
            ),
            "walls" => {
                let ours = format!("{} {}", game.walls_remaining(0), game.walls_remaining(1));
                assert_eq!(ours, rest, "walls remaining differ\n{}", context!());
            }
            "done" => assert_eq!(game.done(), rest == "1", "done differs\n{}", context!()),
            "end" => {}
            other => panic!("unexpected helper line {other:?}"),
        }
    }
    (games, plies)
}

#[test]
fn random_games_agree_with_the_original_environment() {
    let Some(python) = fights_venv::fights_python() else {
        return;
    };
    let games: usize = std::env::var("PUORIBOR_FIGHTS_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let helper = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/fights_random_games.py");
    // The original is slow (a few hundred plies per second): two helpers share the games.
    let workers = 2.min(games.max(1));
    let children: Vec<_> = (0..workers)
        .map(|w| {
            let share = games / workers + usize::from(w < games % workers);
            Command::new(&python)
                .arg(&helper)
                .arg(share.to_string())
                .arg((1000 + w).to_string())
                .stdout(Stdio::piped())
                .spawn()
                .expect("starting the Python helper")
        })
        .collect();
    let mut total = (0, 0);
    std::thread::scope(|scope| {
        let handles: Vec<_> = children
            .into_iter()
            .enumerate()
            .map(|(w, mut child)| {
                scope.spawn(move || {
                    let out = BufReader::new(child.stdout.take().unwrap());
                    let counts = replay(out, &format!("helper {w} (seed {})", 1000 + w));
                    assert!(child.wait().unwrap().success(), "the Python helper failed");
                    counts
                })
            })
            .collect();
        for handle in handles {
            let (g, p) = handle
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            total.0 += g;
            total.1 += p;
        }
    });
    assert_eq!(total.0, games, "every game was played");
    eprintln!(
        "compared {} games, {} plies with fights 0.9.0",
        total.0, total.1
    );
}
