//! Domino robots: `random`; `parity`, which plays the placement that leaves the fewest
//! placements to its opponent, and plays perfectly once the cells left to play for are few;
//! and `solver`, which searches the moves ahead with the same exact solver at its leaves.
//!
//! The exact part, shared by both, is in [`exact`]; the search in [`search`].

pub mod exact;
pub mod search;

pub use exact::{NODE_BUDGET, REGION_LIMIT, Solver, Verdict};
pub use search::SolverRobot;

use arbiter_games::Robot;
use arbiter_games::domino::{Cell, Domino, Placement};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::{Budget, RandomRobot, Robots};

impl Robots for Domino {
    const ROBOTS: &'static [&'static str] = &["random", "parity", "solver"];
    const EMPTY_SEAT: &'static str = "parity";

    fn robot(name: &str, seed: u64) -> Option<Box<dyn Robot<Self>>> {
        match Budget::split(name)? {
            ("random", Budget::Clock) => Some(Box::new(RandomRobot::<Domino>::new(seed))),
            ("parity", Budget::Clock) => Some(Box::new(Parity::new(seed))),
            ("solver", budget) => Some(Box::new(SolverRobot::new(seed, budget))),
            _ => None,
        }
    }
}

/// Leaves the opponent as few placements as it can; perfect once the regions of free cells
/// are small enough to solve (see the module docs). Ties are broken at random, from its seed.
pub struct Parity {
    rng: SmallRng,
    solver: Solver,
    ties: Vec<Placement>,
}

impl Parity {
    /// The parity robot, breaking ties by `seed`.
    pub fn new(seed: u64) -> Parity {
        Parity {
            rng: SmallRng::seed_from_u64(seed),
            solver: Solver::default(),
            ties: Vec::new(),
        }
    }

    /// The placements that leave the fewest placements behind. Covering cells `a` and `b`
    /// removes every placement touching either: `degree(a) + degree(b) - 1` of them.
    fn greedy(&mut self, game: &Domino) -> Placement {
        let degrees = Degrees::of(game);
        let mut best = 0;
        self.ties.clear();
        game.for_each_placement(|p| {
            let removed = degrees.get(p.a) + degrees.get(p.b);
            if removed > best {
                best = removed;
                self.ties.clear();
            }
            if removed == best {
                self.ties.push(p);
            }
        });
        self.ties[self.rng.random_range(0..self.ties.len())]
    }
}

impl Robot<Domino> for Parity {
    fn choose(&mut self, game: &Domino) -> Placement {
        match self.solver.solve(game) {
            Some(Verdict::Win(p)) => p,
            // A lost position against perfect play: keep it complicated and hope.
            Some(Verdict::Loss) | None => self.greedy(game),
        }
    }
}

/// Free neighbours of every cell.
pub(crate) struct Degrees {
    n: usize,
    count: Vec<u8>,
}

impl Degrees {
    pub(crate) fn of(game: &Domino) -> Degrees {
        let n = game.size() as usize;
        let free = game.free_rows();
        let mut count = vec![0u8; n * n];
        for y in 0..n {
            for x in 0..n {
                if free[y] >> x & 1 == 0 {
                    continue;
                }
                count[y * n + x] = exact::torus_neighbours(n, x, y)
                    .iter()
                    .filter(|&&(u, v)| free[v] >> u & 1 == 1)
                    .count() as u8;
            }
        }
        Degrees { n, count }
    }

    pub(crate) fn get(&self, c: Cell) -> u8 {
        self.count[c.y as usize * self.n + c.x as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_games::Game;
    use arbiter_games::domino::Settings;
    use rand_chacha::ChaCha8Rng;

    /// An n×n board where only `free` cells are free.
    fn board(n: u8, free: &[(u16, u16)]) -> Domino {
        let blocked: Vec<Cell> = (0..u16::from(n))
            .flat_map(|y| (0..u16::from(n)).map(move |x| Cell::new(x, y)))
            .filter(|c| !free.contains(&(c.x, c.y)))
            .collect();
        Domino::new(Settings::custom(n, &blocked).unwrap()).unwrap()
    }

    /// Plain negamax, no memo, no regions: the reference the solver is checked against.
    fn wins(game: &Domino) -> bool {
        let mut actions = Vec::new();
        game.legal_actions(&mut actions);
        actions.iter().any(|&p| {
            let mut next = game.clone();
            next.apply_unchecked(p);
            !wins(&next)
        })
    }

    #[test]
    fn a_line_of_four_is_won_by_taking_the_middle() {
        // Cells (0..4, 0) of a 9×9 board: the middle domino leaves two lone cells.
        let game = board(9, &[(0, 0), (1, 0), (2, 0), (3, 0)]);
        let verdict = Solver::default().solve(&game).unwrap();
        assert_eq!(
            verdict,
            Verdict::Win(Placement::new(Cell::new(1, 0), Cell::new(2, 0)))
        );
        // A line of three: either domino leaves one lone cell, so the mover wins too; a
        // square of four is lost (whatever is taken, a domino is left).
        assert!(matches!(
            Solver::default().solve(&board(9, &[(0, 0), (1, 0), (2, 0)])),
            Some(Verdict::Win(_))
        ));
        let square = board(9, &[(0, 0), (1, 0), (0, 1), (1, 1)]);
        assert_eq!(Solver::default().solve(&square), Some(Verdict::Loss));
    }

    #[test]
    fn the_solver_agrees_with_plain_negamax_on_random_endgames() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut robot = Parity::new(1);
        for round in 0..60 {
            let n = [3, 5, 7][round % 3];
            let mut game = Domino::new(Settings::seeded(n, round as u64).unwrap()).unwrap();
            // Random placements until at most 14 cells are left to play for.
            let mut actions = Vec::new();
            loop {
                let live: u32 = game.live_rows().iter().map(|r| r.count_ones()).sum();
                game.legal_actions(&mut actions);
                if live <= 14 || actions.is_empty() {
                    break;
                }
                game.apply_unchecked(actions[rng.random_range(0..actions.len())]);
            }
            let verdict = Solver::default().solve(&game).expect("small enough");
            assert_eq!(matches!(verdict, Verdict::Win(_)), wins(&game), "{game:?}");
            game.legal_actions(&mut actions);
            let winning = actions
                .iter()
                .filter(|&&p| {
                    let mut next = game.clone();
                    next.apply_unchecked(p);
                    !wins(&next)
                })
                .count();
            assert_eq!(Solver::default().count_wins(&game), Some(winning));
            if let Verdict::Win(p) = verdict {
                game.apply(p).unwrap();
                assert!(!wins(&game), "the winning move leaves a lost position");
            }
            if !game.is_stuck() {
                let p = robot.choose(&game);
                assert_eq!(game.check(p), Ok(()));
            }
        }
    }

    #[test]
    fn greedy_takes_the_placement_that_removes_most() {
        // An L: (0,0),(1,0),(1,1). Either domino removes both placements.
        let game = board(9, &[(0, 0), (1, 0), (1, 1), (5, 5), (6, 5)]);
        let mut robot = Parity::new(3);
        let p = robot.greedy(&game);
        assert!(p.a.y < 2 && p.b.y < 2, "{p:?}");
    }

    #[test]
    fn robots_play_whole_matches_with_legal_moves() {
        for seed in 0..4 {
            let settings = Settings::generated(seed);
            let mut game = Domino::new(settings).unwrap();
            let mut robots = [
                Domino::robot("parity", seed).unwrap(),
                Domino::robot("random", seed).unwrap(),
            ];
            while let Some(p) = game.to_move() {
                if game.is_stuck() {
                    game.apply_stuck();
                    continue;
                }
                let action = robots[p].choose(&game);
                game.apply(action).unwrap();
            }
            assert_eq!(game.outcome().unwrap().reason, "no_moves");
        }
    }
}
