//! Labyrinth robots: `random`; `greedy`, the robot rule of docs/games/labyrinth.md#sessions-on-the-game-server that fills
//! empty seats on the server; `lookahead`, which also plans its next turn; and `searcher`,
//! which plans several of its turns with a beam search ([`search`]).
//!
//! The deterministic robots use only what a bot is told: a bot is never told the other seats'
//! targets (`searcher` guesses the other seat's from where it walks, [`opponent`]), and a robot
//! running as a process must play the same as in process.

pub mod opponent;
pub mod search;

pub use search::Searcher;

use arbiter_games::Robot;
use arbiter_games::labyrinth::{
    Action, Cell, Labyrinth, MAX_CELLS, Push, class_of, push_tiles, pushed_cell, reach,
};

use crate::{Budget, RandomRobot, Robots};

impl Robots for Labyrinth {
    const ROBOTS: &'static [&'static str] = &["random", "greedy", "lookahead", "searcher"];

    fn robot(name: &str, seed: u64) -> Option<Box<dyn Robot<Self>>> {
        match Budget::split(name)? {
            ("random", Budget::Clock) => Some(Box::new(RandomRobot::<Labyrinth>::new(seed))),
            ("greedy", Budget::Clock) => Some(Box::new(Greedy)),
            ("lookahead", Budget::Clock) => Some(Box::new(Lookahead::default())),
            ("searcher", budget) => Some(Box::new(Searcher::new(budget))),
            _ => None,
        }
    }
}

/// The valid pushes with `extra` in the order of docs/games/labyrinth.md#sessions-on-the-game-server: c, p, k ascending, t ascending in the class
/// of the extra tile.
pub fn pushes_with(game: &Labyrinth, extra: u8, out: &mut Vec<Push>) {
    out.clear();
    let level = game.level();
    let (class, n) = class_of(extra);
    for c in 0..2u8 {
        let lines = if c == 0 { level.height } else { level.width };
        for p in 0..2u8 {
            for k in 0..lines {
                for &t in &class[..n] {
                    let push = Push::new(c, p, k as u8, t);
                    if level.push_code(push, extra).is_ok() {
                        out.push(push);
                    }
                }
            }
        }
    }
}

/// A board to try pushes on: the tiles, a princess and the cell of its target.
#[derive(Clone, Copy)]
struct Sim {
    width: usize,
    height: usize,
    tiles: [u8; MAX_CELLS],
    at: usize,
    target: Option<usize>,
    /// The cell of the target after this one, when a plan looks that far.
    next: Option<usize>,
}

impl Sim {
    fn of(game: &Labyrinth, seat: usize, target: Option<usize>) -> Sim {
        let (width, height) = (game.width(), game.height());
        let mut tiles = [0u8; MAX_CELLS];
        tiles[..width * height].copy_from_slice(game.tiles());
        let cell = |c: Cell| c.y as usize * width + c.x as usize;
        Sim {
            width,
            height,
            tiles,
            at: cell(game.position(seat)),
            target: target.map(|d| cell(game.display_cell(d))),
            next: None,
        }
    }

    fn moved(&self, push: Push, i: usize) -> usize {
        let (x, y) = pushed_cell(
            self.width,
            self.height,
            push,
            i % self.width,
            i / self.width,
        );
        y * self.width + x
    }

    /// The board after `push`, and the tile that fell out.
    fn pushed(&self, push: Push) -> (Sim, u8) {
        let mut next = *self;
        let cells = self.width * self.height;
        let fallen = push_tiles(&mut next.tiles[..cells], self.width, self.height, push);
        next.at = self.moved(push, self.at);
        next.target = self.target.map(|t| self.moved(push, t));
        next.next = self.next.map(|t| self.moved(push, t));
        (next, fallen)
    }

    fn manhattan(&self, a: usize, b: usize) -> u32 {
        let w = self.width;
        ((a % w).abs_diff(b % w) + (a / w).abs_diff(b / w)) as u32
    }

    /// The cells the princess can walk to, each with its distance to the target (0 without one).
    fn walks(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        let cells = self.width * self.height;
        let r = reach(&self.tiles[..cells], self.width, self.height, self.at);
        let list: Vec<usize> = r.iter().collect();
        list.into_iter()
            .map(move |c| (c, self.target.map_or(0, |t| self.manhattan(c, t))))
    }

    fn goto(&self, push: Push, cell: usize) -> Action {
        Action::goto(push, (cell % self.width) as u8, (cell / self.width) as u8)
    }
}

/// The robot rule of docs/games/labyrinth.md#sessions-on-the-game-server: of all valid pushes (in its order), the one after which the princess
/// can walk closest (Manhattan) to its target, the first on ties; it walks to the cell of that
/// distance with the smallest y, then x.
pub struct Greedy;

/// What [`Greedy`] plays in `game` for the seat on turn.
pub fn greedy_action(game: &Labyrinth) -> Action {
    let seat = game.seat_on_turn();
    let sim = Sim::of(game, seat, game.current_target(seat));
    let mut pushes = Vec::new();
    pushes_with(game, game.extra(seat), &mut pushes);
    let turn = greedy_turn(&sim, &pushes, || Ok::<(), std::convert::Infallible>(()));
    let Ok(Some((_, push, cell))) = turn else {
        panic!("a Labyrinth board always has a valid push");
    };
    sim.pushed(push).0.goto(push, cell)
}

/// [`Greedy`]'s turn for the princess of `sim` among `pushes` (in their order): the distance
/// left to her target, the push and the cell. `check` is asked before each push is tried, and
/// its error ends the search.
fn greedy_turn<E>(
    sim: &Sim,
    pushes: &[Push],
    mut check: impl FnMut() -> Result<(), E>,
) -> Result<Option<(u32, Push, usize)>, E> {
    let mut best: Option<(u32, Push, usize)> = None;
    for &push in pushes {
        check()?;
        let (after, _) = sim.pushed(push);
        // Cells come by y then x, so the first of the smallest distance is the one docs/games/labyrinth.md#sessions-on-the-game-server names.
        if let Some((cell, d)) = after.walks().min_by_key(|&(_, d)| d)
            && best.is_none_or(|(b, _, _)| d < b)
        {
            best = Some((d, push, cell));
        }
    }
    Ok(best)
}

impl Robot<Labyrinth> for Greedy {
    fn choose(&mut self, game: &Labyrinth) -> Action {
        greedy_action(game)
    }
}

/// Plans two of its own turns: it scores now when it can, choosing among the scoring moves the
/// one that leaves the next target closest for its next turn; otherwise it tries the cells
/// nearest its target and keeps the one from which its next turn can get closest, counting how
/// many of its next pushes would score (an opponent's push moves one line, so a position that
/// many pushes turn into a score survives most of them).
#[derive(Default)]
pub struct Lookahead {
    pushes: Vec<Push>,
    next_pushes: Vec<Push>,
}

/// Candidate cells tried per move when it cannot score now.
const CANDIDATES: usize = 24;

/// How good a position is for its next turn: the distance it can get to the target, then more
/// scoring pushes, better.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct NextTurn {
    distance: u32,
    fewer_scoring: i32,
}

impl Lookahead {
    /// The best next turn from `sim` with `extra` in hand.
    fn next_turn(&mut self, game: &Labyrinth, sim: &Sim, extra: u8) -> NextTurn {
        pushes_with(game, extra, &mut self.next_pushes);
        let mut best = u32::MAX;
        let mut scoring = 0;
        for &push in &self.next_pushes {
            let (after, _) = sim.pushed(push);
            let d = after.walks().map(|(_, d)| d).min().unwrap_or(u32::MAX);
            if d == 0 {
                scoring += 1;
            }
            best = best.min(d);
        }
        NextTurn {
            distance: best,
            fewer_scoring: -scoring,
        }
    }
}

impl Robot<Labyrinth> for Lookahead {
    fn choose(&mut self, game: &Labyrinth) -> Action {
        let seat = game.seat_on_turn();
        let Some(target) = game.current_target(seat) else {
            return greedy_action(game);
        };
        let following = game.following_target(seat);
        let sim = Sim::of(game, seat, Some(target));
        let mut pushes = std::mem::take(&mut self.pushes);
        pushes_with(game, game.extra(seat), &mut pushes);

        // Moves that score now, with the board each leaves.
        let mut scoring: Vec<(Push, Sim, u8)> = Vec::new();
        // Otherwise: (distance now, push, cell) of the cells nearest the target.
        let mut near: Vec<(u32, Push, usize)> = Vec::new();
        // The nearest cell after each push.
        let mut per_push: Vec<(u32, Push, usize)> = Vec::new();
        for &push in &pushes {
            let (after, fallen) = sim.pushed(push);
            let mut nearest: Option<(u32, Push, usize)> = None;
            for (cell, d) in after.walks() {
                if d == 0 {
                    scoring.push((push, after, fallen));
                } else if scoring.is_empty() {
                    near.push((d, push, cell));
                    if nearest.is_none_or(|(b, _, _)| d < b) {
                        nearest = Some((d, push, cell));
                    }
                }
            }
            per_push.extend(nearest);
        }
        self.pushes = pushes;

        if !scoring.is_empty() {
            let Some(next) = following else {
                // The last target: any scoring move ends its list.
                let (push, after, _) = scoring[0];
                return after.goto(push, after.target.expect("a target"));
            };
            let next_cell = game.display_cell(next);
            let mut best: Option<(NextTurn, Action)> = None;
            for &(push, after, fallen) in &scoring {
                let goal = after.target.expect("a target");
                let mut then = after;
                then.at = goal;
                let c = next_cell.y as usize * sim.width + next_cell.x as usize;
                then.target = Some(sim.moved(push, c));
                let value = self.next_turn(game, &then, fallen);
                if best.is_none_or(|(b, _)| value < b) {
                    best = Some((value, after.goto(push, goal)));
                }
            }
            return best.expect("a scoring move").1;
        }

        // The cells nearest the target, and the nearest cell after each push: a push that
        // does not bring the princess closer may still set up the next turn.
        near.sort_by_key(|&(d, _, _)| d);
        let mut candidates: Vec<(u32, Push, usize)> =
            near.iter().take(CANDIDATES).copied().collect();
        for first in per_push {
            if !candidates.contains(&first) {
                candidates.push(first);
            }
        }
        let mut best: Option<((NextTurn, u32), Action)> = None;
        for (d, push, cell) in candidates {
            let (after, fallen) = sim.pushed(push);
            let mut then = after;
            then.at = cell;
            let value = (self.next_turn(game, &then, fallen), d);
            if best.is_none_or(|(b, _)| value < b) {
                best = Some((value, after.goto(push, cell)));
            }
        }
        best.map(|(_, action)| action)
            .unwrap_or_else(|| greedy_action(game))
    }
}
