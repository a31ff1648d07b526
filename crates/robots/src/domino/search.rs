//! The `solver` robot: an alpha-beta search over the moves ahead whose leaves are solved
//! exactly whenever the free cells have fallen apart into regions small enough (the solver of
//! [`super::exact`], taking regions twice as large as `parity` does), and otherwise valued by
//! mobility, the count of placements the player to move has.
//!
//! Why: the game is decided in the endgame, when the free cells split into regions; the
//! player that first sees the exact verdict wins every won position from there on. Searching
//! a few moves ahead with exact leaves reaches such positions earlier than solving the root
//! alone. In a lost position it plays the move that leaves its opponent the fewest winning
//! replies, so an opponent that does not solve the position is likely to go wrong.

use std::fmt::Write as _;
use std::time::Instant;

use arbiter_games::domino::{Domino, Placement};
use arbiter_games::{Clock, Game, Robot};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;

use super::Degrees;
use super::exact::{Limits, MAX_REGION, OutOfBudget, Solver, Verdict};
use crate::{Budget, game_clock, thinking_deadline};

/// A won position's value; heuristic values stay far below it.
const WIN: i32 = 1_000_000;
/// Moves searched at each inner node, the best by the greedy order (the root tries them all).
const INNER_WIDTH: usize = 8;
/// Positions the exact solver may evaluate at one leaf.
const LEAF_NODES: u64 = 20_000;
/// The share of a move's budget the exact solve of the root may take.
const ROOT_SHARE: f64 = 0.5;
/// The share of the reply's time left it thinks for: the rest covers a loaded machine and the
/// pipe.
const TIME_SHARE: f64 = 0.4;
/// Candidates tried in a lost position, the best by the greedy order.
const LOST_CANDIDATES: usize = 64;

/// Searches ahead with exact leaves; see the module docs.
pub struct SolverRobot {
    rng: SmallRng,
    budget: Budget,
    solver: Solver,
    /// Nodes spent on this move, search and solver together.
    spent: u64,
    /// The node count of this move's budget (unbounded by the clock).
    limit: u64,
    /// When this move's thinking stops under [`Budget::Clock`].
    deadline: Option<Instant>,
    log: String,
}

impl SolverRobot {
    /// The solver robot, breaking ties by `seed` and thinking within `budget`.
    pub fn new(seed: u64, budget: Budget) -> SolverRobot {
        SolverRobot {
            rng: SmallRng::seed_from_u64(seed),
            budget,
            solver: Solver::default(),
            spent: 0,
            limit: u64::MAX,
            deadline: None,
            log: String::new(),
        }
    }

    /// Starts a move's accounts under `clock`.
    fn start(&mut self, clock: &Clock) {
        self.spent = 0;
        self.log.clear();
        match self.budget {
            Budget::Nodes(n) => {
                self.limit = n;
                self.deadline = None;
            }
            Budget::Clock => {
                self.limit = u64::MAX;
                self.deadline = Some(thinking_deadline(clock, TIME_SHARE));
            }
        }
    }

    /// Counts one search node; fails when the move's budget is spent. Not
    /// [`Budget::exhausted`], which reads the clock every 1,024 nodes: a node here may be a
    /// leaf solve of up to [`LEAF_NODES`] positions, so the clock is read at every node (a
    /// clock read is a few nanoseconds, a leaf microseconds). Read every 256 nodes, 256 leaves
    /// after the deadline overran Domino's 500 ms reply limit.
    fn tick(&mut self) -> Result<(), OutOfBudget> {
        self.spent += 1;
        let late = || self.deadline.is_some_and(|d| Instant::now() >= d);
        if self.spent >= self.limit || late() {
            return Err(OutOfBudget);
        }
        Ok(())
    }

    /// Solves `game` exactly with at most `nodes` positions of what is left of the budget.
    fn exact(&mut self, game: &Domino, nodes: u64) -> Option<Verdict> {
        let left = self.limit.saturating_sub(self.spent);
        self.solver.set_limits(Limits {
            region_cells: MAX_REGION,
            nodes: nodes.min(left),
            deadline: self.deadline,
        });
        let verdict = self.solver.solve(game);
        self.spent += self.solver.nodes();
        verdict
    }

    /// The legal placements, those that remove the most placements first (ties in a seeded
    /// random order), at most `width` of them.
    fn ordered(&mut self, game: &Domino, width: usize) -> Vec<Placement> {
        let degrees = Degrees::of(game);
        let mut moves: Vec<(u8, Placement)> = Vec::new();
        game.for_each_placement(|p| moves.push((degrees.get(p.a) + degrees.get(p.b), p)));
        moves.shuffle(&mut self.rng);
        moves.sort_by_key(|&(removed, _)| std::cmp::Reverse(removed));
        moves.truncate(width);
        moves.into_iter().map(|(_, p)| p).collect()
    }

    /// The value of `game` for the player to move: exact when the solver settles it, else
    /// its mobility.
    fn leaf(&mut self, game: &Domino) -> i32 {
        let placements = game.count_placements();
        if placements == 0 {
            return -WIN;
        }
        match self.exact(game, LEAF_NODES) {
            Some(Verdict::Win(_)) => WIN,
            Some(Verdict::Loss) => -WIN,
            None => placements as i32,
        }
    }

    fn negamax(
        &mut self,
        game: &Domino,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> Result<i32, OutOfBudget> {
        self.tick()?;
        if depth == 0 {
            return Ok(self.leaf(game));
        }
        let moves = self.ordered(game, INNER_WIDTH);
        if moves.is_empty() {
            return Ok(-WIN);
        }
        let mut best = -WIN - 1;
        for p in moves {
            let mut child = game.clone();
            child.apply_unchecked(p);
            let value = -self.negamax(&child, depth - 1, -beta, -alpha)?;
            best = best.max(value);
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        Ok(best)
    }

    /// Iterative deepening from the root until the budget is spent: the best move of the
    /// deepest search completed (or a proven win found on the way), with its value and depth.
    fn search(&mut self, game: &Domino) -> (Placement, i32, u32) {
        let mut moves = self.ordered(game, usize::MAX);
        let mut best = (moves[0], 0, 0);
        for depth in 1.. {
            let mut alpha = -WIN - 1;
            let mut found = None;
            for (i, &p) in moves.iter().enumerate() {
                let mut child = game.clone();
                child.apply_unchecked(p);
                let Ok(value) = self.negamax(&child, depth - 1, -WIN - 1, -alpha) else {
                    return best;
                };
                let value = -value;
                if value > alpha {
                    alpha = value;
                    found = Some(i);
                }
                if value >= WIN {
                    return (p, value, depth);
                }
            }
            let i = found.expect("a root with placements has a best one");
            // The best move first at the next depth: it sets alpha early.
            moves[..=i].rotate_right(1);
            best = (moves[0], alpha, depth);
            if alpha <= -WIN || depth as usize >= moves.len() * 2 {
                return best;
            }
        }
        unreachable!("the loop returns")
    }

    /// In a lost position: the placement that leaves the opponent the smallest share of
    /// winning replies, so that an opponent who does not solve the position likely errs.
    fn lost_move(&mut self, game: &Domino) -> Placement {
        let candidates = self.ordered(game, LOST_CANDIDATES);
        let mut best = (f64::INFINITY, candidates[0]);
        for p in candidates {
            let mut child = game.clone();
            child.apply_unchecked(p);
            let replies = child.count_placements();
            if replies == 0 {
                return p;
            }
            let left = self.limit.saturating_sub(self.spent);
            if left == 0 || self.deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            self.solver.set_limits(Limits {
                region_cells: MAX_REGION,
                nodes: left,
                deadline: self.deadline,
            });
            let wins = self.solver.count_wins(&child);
            self.spent += self.solver.nodes();
            let Some(wins) = wins else { break };
            let share = wins as f64 / f64::from(replies);
            if share < best.0 {
                best = (share, p);
            }
        }
        let _ = writeln!(
            self.log,
            "lost against perfect play: {} leaves {:.0}% winning replies",
            best.1,
            best.0 * 100.0
        );
        best.1
    }

    /// Draws the chosen placement's two cells.
    fn draw(&mut self, p: Placement, color: &str) {
        for c in [p.a, p.b] {
            let _ = writeln!(self.log, "#draw cell {} {} {color}", c.x, c.y);
        }
    }
}

impl Robot<Domino> for SolverRobot {
    fn choose(&mut self, game: &Domino) -> Placement {
        self.choose_in_time(game, &game_clock::<Domino>())
    }

    fn choose_in_time(&mut self, game: &Domino, clock: &Clock) -> Placement {
        self.start(clock);
        let root_nodes = match self.budget {
            Budget::Nodes(n) => (n as f64 * ROOT_SHARE) as u64,
            Budget::Clock => u64::MAX,
        };
        let root = if self.budget == Budget::Clock {
            // By the clock, the root solve may take half of the thinking time.
            let deadline = self.deadline;
            let half = Instant::now() + clock.left().mul_f64(TIME_SHARE * ROOT_SHARE);
            self.deadline = Some(half);
            let verdict = self.exact(game, root_nodes);
            self.deadline = deadline;
            verdict
        } else {
            self.exact(game, root_nodes)
        };
        let (p, color) = match root {
            Some(Verdict::Win(p)) => {
                let _ = writeln!(self.log, "exact: won, playing {p}");
                (p, "green")
            }
            Some(Verdict::Loss) => (self.lost_move(game), "red"),
            None => {
                let (p, value, depth) = self.search(game);
                let verdict = match value {
                    v if v >= WIN => "won".to_owned(),
                    v if v <= -WIN => "lost".to_owned(),
                    v => format!("mobility {v}"),
                };
                let _ = writeln!(
                    self.log,
                    "depth {depth}: {verdict}, playing {p} ({} nodes)",
                    self.spent
                );
                (p, "yellow")
            }
        };
        self.draw(p, color);
        p
    }

    fn take_log(&mut self) -> String {
        std::mem::take(&mut self.log)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Robots;
    use arbiter_games::domino::Settings;
    use rand::Rng;
    use rand_chacha::ChaCha8Rng;

    fn solver(seed: u64, nodes: u64) -> SolverRobot {
        SolverRobot::new(seed, Budget::Nodes(nodes))
    }

    #[test]
    fn a_passed_deadline_stops_the_search_at_its_next_node() {
        // Each node may be a leaf solve: a robot that read the clock every 256 nodes overran
        // Domino's reply limit by hundreds of leaves.
        let mut robot = SolverRobot::new(1, Budget::Clock);
        robot.deadline = Some(Instant::now());
        assert!(robot.tick().is_err());
        robot.deadline = Some(Instant::now() + std::time::Duration::from_secs(60));
        assert!(robot.tick().is_ok());
    }

    /// Plays a whole match on `settings`; the moves, and the seat that won.
    fn play(
        settings: &Settings,
        robots: &mut [Box<dyn Robot<Domino>>; 2],
    ) -> (Vec<Placement>, usize) {
        let mut game = Domino::new(settings.clone()).unwrap();
        let mut moves = Vec::new();
        while let Some(p) = game.to_move() {
            if game.is_stuck() {
                game.apply_stuck();
                continue;
            }
            let action = robots[p].choose(&game);
            robots[p].take_log();
            game.apply(action).unwrap();
            moves.push(action);
        }
        (
            moves,
            1 - game.loser().expect("a Domino match ends by a loss"),
        )
    }

    #[test]
    fn it_plays_legal_moves_in_random_positions() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut robot = solver(1, 3_000);
        let mut actions = Vec::new();
        for round in 0..40 {
            let n = [5, 9, 13, 17][round % 4];
            let mut game = Domino::new(Settings::seeded(n, round as u64).unwrap()).unwrap();
            let plies = rng.random_range(0..u32::from(n) * u32::from(n) / 2);
            for _ in 0..plies {
                game.legal_actions(&mut actions);
                if actions.is_empty() {
                    break;
                }
                game.apply_unchecked(actions[rng.random_range(0..actions.len())]);
            }
            if game.is_stuck() {
                continue;
            }
            let p = robot.choose(&game);
            assert_eq!(game.check(p), Ok(()), "{game:?}");
            assert!(robot.take_log().contains("#draw cell"));
        }
    }

    #[test]
    fn under_a_node_budget_it_plays_the_same_match_every_time() {
        let settings = Settings::seeded(13, 2).unwrap();
        let matches: Vec<_> = (0..2)
            .map(|_| {
                let mut robots: [Box<dyn Robot<Domino>>; 2] = [
                    Box::new(solver(7, 5_000)),
                    Domino::robot("parity", 7).unwrap(),
                ];
                play(&settings, &mut robots)
            })
            .collect();
        assert_eq!(matches[0], matches[1]);
    }

    #[test]
    fn it_beats_parity_on_the_same_boards_from_both_seats() {
        let mut wins = 0;
        for board in 0..3 {
            let settings = Settings::seeded(13, board).unwrap();
            for seat in 0..2 {
                let mut robots: [Box<dyn Robot<Domino>>; 2] = [
                    Domino::robot("solver/nodes=20000", board).unwrap(),
                    Domino::robot("parity", board).unwrap(),
                ];
                robots.swap(0, seat);
                wins += usize::from(play(&settings, &mut robots).1 == seat);
            }
        }
        assert!(wins >= 5, "the solver won {wins} of 6");
    }
}
