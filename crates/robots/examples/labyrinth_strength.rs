//! Labyrinth robots against each other in process, for comparing a robot's variants quickly:
//! the games `scripts/robot-strength.py` plays through `arbiter play`, without the pipes and
//! the clock, so that a search runs to the depth its node budget allows whatever else the
//! machine does.
//!
//! ```text
//! cargo run --release -p arbiter-robots --example labyrinth_strength -- \
//!     [--levels 1-50] [--subject searcher/nodes=1000000000] [--opponent lookahead]
//! ```
//!
//! Each generated level is played twice, the seats swapped, two games at a time; one line per
//! game as it ends, then the totals and the ratio of the subject's points to the opponent's.

use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use arbiter_games::Game;
use arbiter_games::labyrinth::Labyrinth;
use arbiter_robots::Robots;

/// What to play.
struct Plan {
    levels: (u64, u64),
    /// Robot specs, subject first.
    robots: [String; 2],
}

fn main() -> ExitCode {
    match parse(std::env::args().skip(1)).and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("labyrinth_strength: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Plan, String> {
    let mut plan = Plan {
        levels: (1, 20),
        robots: ["searcher/nodes=1000000000".into(), "lookahead".into()],
    };
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--levels" => plan.levels = levels(&value)?,
            "--subject" => plan.robots[0] = value,
            "--opponent" => plan.robots[1] = value,
            _ => {
                return Err(format!(
                    "unknown flag {flag} (--levels, --subject, --opponent)"
                ));
            }
        }
    }
    for name in &plan.robots {
        Labyrinth::robot(name, 1).ok_or(format!("no Labyrinth robot {name:?}"))?;
    }
    Ok(plan)
}

/// `A-B`, the first and last level.
fn levels(text: &str) -> Result<(u64, u64), String> {
    let bad = || format!("--levels {text:?}: expected FIRST-LAST, such as 1-50");
    let (a, b) = text.split_once('-').ok_or_else(bad)?;
    let (a, b) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
    if a == 0 || a > b {
        return Err(bad());
    }
    Ok((a, b))
}

fn run(plan: Plan) -> Result<(), String> {
    let games: Vec<(u64, usize)> = (plan.levels.0..=plan.levels.1)
        .flat_map(|level| [(level, 0), (level, 1)])
        .collect();
    let next = AtomicUsize::new(0);
    let points = Mutex::new([0u64; 2]);
    let failure = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                while let Some(&(level, shift)) = games.get(next.fetch_add(1, Ordering::Relaxed)) {
                    match play(level, &plan.robots, shift) {
                        Ok(p) => {
                            println!(
                                "level {level}, subject in seat {shift}: {} to {}",
                                p[0], p[1]
                            );
                            let mut total = points.lock().unwrap();
                            total[0] += p[0];
                            total[1] += p[1];
                        }
                        Err(e) => *failure.lock().unwrap() = Some(e),
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap() {
        return Err(e);
    }
    let [a, b] = points.into_inner().unwrap();
    let [subject, opponent] = &plan.robots;
    let ratio = a as f64 / b.max(1) as f64;
    println!(
        "{subject} {a}, {opponent} {b}: {ratio:.3} times, {} games",
        games.len()
    );
    Ok(())
}

/// One game on generated level `level`, the subject in seat `shift`: the points of the subject
/// and of the opponent.
fn play(level: u64, robots: &[String; 2], shift: usize) -> Result<[u64; 2], String> {
    let mut game = Labyrinth::generated(level, 2).map_err(|e| format!("level {level}: {e}"))?;
    let mut seats: Vec<_> = (0..2)
        .map(|seat| Labyrinth::robot(&robots[(seat + shift) % 2], level))
        .collect::<Option<_>>()
        .ok_or("a robot went missing")?;
    while let Some(seat) = game.to_move() {
        let action = seats[seat].choose(&game);
        seats[seat].take_log();
        game.apply(action)
            .map_err(|e| format!("level {level}: a robot's action was refused: {e:?}"))?;
    }
    let mut points = [0; 2];
    for seat in 0..2 {
        points[(seat + shift) % 2] += u64::from(game.score(seat));
    }
    Ok(points)
}
