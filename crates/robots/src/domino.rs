//! Domino robots: `random`, and `parity`, which plays the placement that leaves the fewest
//! placements to its opponent, and plays perfectly once the cells left to play for are few.
//!
//! Domino on a torus is an impartial game (both players have the same placements), so the
//! exact part is Sprague–Grundy theory: the free cells fall apart into regions that no domino
//! joins, each region has a Grundy value (the smallest value none of its options has), and the
//! player to move wins exactly when the values of the regions XOR to non-zero. A region is
//! solved on a bit set of its cells, memoised, and split again whenever a placement cuts it in
//! two, so many small regions cost no more than their sizes add up to.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use arbiter_games::Robot;
use arbiter_games::domino::{Cell, Domino, Placement};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::{RandomRobot, Robots};

impl Robots for Domino {
    const ROBOTS: &'static [&'static str] = &["random", "parity"];

    fn robot(name: &str, seed: u64) -> Option<Box<dyn Robot<Self>>> {
        match name {
            "random" => Some(Box::new(RandomRobot::<Domino>::new(seed))),
            "parity" => Some(Box::new(Parity::new(seed))),
            _ => None,
        }
    }
}

/// Regions up to this many cells are solved exactly (a region is a bit set in a `u32`).
pub const REGION_LIMIT: usize = 32;
/// Positions evaluated at most per move before the solver gives up and the heuristic plays:
/// a move stays well inside the 500 ms limit (about 25 ms at worst on one core of a laptop,
/// optimised), and a count, unlike a clock, keeps a seeded match the same on every machine.
/// Played this way, positions of up to about 70 cells left to play for are mostly solved.
pub const NODE_BUDGET: usize = 400_000;

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
struct Degrees {
    n: usize,
    count: Vec<u8>,
}

impl Degrees {
    fn of(game: &Domino) -> Degrees {
        let n = game.size() as usize;
        let free = game.free_rows();
        let mut count = vec![0u8; n * n];
        for y in 0..n {
            for x in 0..n {
                if free[y] >> x & 1 == 0 {
                    continue;
                }
                let neighbours = [
                    ((x + 1) % n, y),
                    ((x + n - 1) % n, y),
                    (x, (y + 1) % n),
                    (x, (y + n - 1) % n),
                ];
                count[y * n + x] = neighbours
                    .iter()
                    .filter(|&&(u, v)| free[v] >> u & 1 == 1)
                    .count() as u8;
            }
        }
        Degrees { n, count }
    }

    fn get(&self, c: Cell) -> u8 {
        self.count[c.y as usize * self.n + c.x as usize]
    }
}

/// What perfect play makes of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The player to move wins by playing this.
    Win(Placement),
    /// The player to move loses whatever it plays.
    Loss,
}

/// One region of free cells, its cells numbered from 0.
struct Region {
    cells: Vec<Cell>,
    /// Neighbours of each cell, as a bit set of cell numbers.
    adjacent: Vec<u32>,
    /// Every domino of the region, as the bit set of its two cells.
    dominoes: Vec<u32>,
}

/// The exact endgame solver, with a memo of Grundy values that lives for one move.
#[derive(Default)]
pub struct Solver {
    memo: HashMap<u32, u8, BuildHasherDefault<MaskHasher>>,
    nodes: usize,
}

/// The memo's keys are cell masks, so one multiplication spreads them well enough; the
/// standard hasher, built against adversaries, costs more than the rest of a node.
#[derive(Default)]
struct MaskHasher(u64);

impl Hasher for MaskHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    /// The table picks buckets by the low bits and tags by the high ones: fold the product's
    /// well-mixed high half into the low one.
    fn write_u32(&mut self, key: u32) {
        let h = u64::from(key).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 32);
    }
}

struct OutOfBudget;

impl Solver {
    /// The verdict of perfect play, or `None` when a region is too big or the budget runs out.
    pub fn solve(&mut self, game: &Domino) -> Option<Verdict> {
        let regions = regions(game)?;
        self.nodes = 0;
        let mut total = 0;
        for region in &regions {
            self.memo.clear();
            total ^= self.grundy(region, full(region.cells.len())).ok()?;
        }
        if total == 0 {
            return Some(Verdict::Loss);
        }
        // Move in a region to the value that makes the XOR zero; one exists (value > target
        // for the region holding the XOR's top bit). The memo holds one region's values at a
        // time, as cells are numbered per region.
        for region in &regions {
            self.memo.clear();
            let all = full(region.cells.len());
            let value = self.grundy(region, all).ok()?;
            let target = total ^ value;
            if target >= value {
                continue;
            }
            for &d in &region.dominoes {
                if self.split_grundy(region, all & !d).ok()? == target {
                    let (i, j) = (d.trailing_zeros(), 31 - d.leading_zeros());
                    let p = Placement::new(region.cells[i as usize], region.cells[j as usize]);
                    return Some(Verdict::Win(p.canonical(game.size())));
                }
            }
        }
        unreachable!("a position with a non-zero Grundy value has a move to zero")
    }

    /// The Grundy value of the cells of `mask`, however many regions they form.
    fn split_grundy(&mut self, region: &Region, mut mask: u32) -> Result<u8, OutOfBudget> {
        let mut value = 0;
        while mask != 0 {
            let part = flood(region, mask);
            mask &= !part;
            value ^= self.grundy(region, part)?;
        }
        Ok(value)
    }

    /// The Grundy value of the cells of `mask`, which are connected.
    fn grundy(&mut self, region: &Region, mask: u32) -> Result<u8, OutOfBudget> {
        if mask.count_ones() < 2 {
            return Ok(0);
        }
        if let Some(&value) = self.memo.get(&mask) {
            return Ok(value);
        }
        self.nodes += 1;
        if self.nodes > NODE_BUDGET {
            return Err(OutOfBudget);
        }
        let mut seen = 0u64;
        for &d in &region.dominoes {
            if mask & d == d {
                let value = self.split_grundy(region, mask & !d)?;
                seen |= 1 << value.min(63);
            }
        }
        let value = (!seen).trailing_zeros() as u8;
        self.memo.insert(mask, value);
        Ok(value)
    }
}

fn full(cells: usize) -> u32 {
    if cells == 32 {
        u32::MAX
    } else {
        (1 << cells) - 1
    }
}

/// The cells of `mask` connected to its lowest cell.
fn flood(region: &Region, mask: u32) -> u32 {
    let mut reached = mask & mask.wrapping_neg();
    let mut frontier = reached;
    while frontier != 0 {
        let i = frontier.trailing_zeros() as usize;
        frontier &= frontier - 1;
        let new = region.adjacent[i] & mask & !reached;
        reached |= new;
        frontier |= new;
    }
    reached
}

/// The regions of the cells that some placement covers (isolated free cells count for
/// nothing), or `None` if one has more than [`REGION_LIMIT`] cells.
fn regions(game: &Domino) -> Option<Vec<Region>> {
    let n = game.size() as usize;
    let mut live = game.live_rows();
    let mut regions = Vec::new();
    let mut stack = Vec::new();
    for y in 0..n {
        while live[y] != 0 {
            let x = live[y].trailing_zeros() as usize;
            live[y] &= live[y] - 1;
            let mut cells = vec![(x, y)];
            stack.push((x, y));
            while let Some((x, y)) = stack.pop() {
                for (u, v) in torus_neighbours(n, x, y) {
                    if live[v] >> u & 1 == 1 {
                        live[v] &= !(1 << u);
                        if cells.len() == REGION_LIMIT {
                            return None;
                        }
                        cells.push((u, v));
                        stack.push((u, v));
                    }
                }
            }
            regions.push(region(n, &cells));
        }
    }
    Some(regions)
}

fn torus_neighbours(n: usize, x: usize, y: usize) -> [(usize, usize); 4] {
    [
        ((x + 1) % n, y),
        ((x + n - 1) % n, y),
        (x, (y + 1) % n),
        (x, (y + n - 1) % n),
    ]
}

fn region(n: usize, cells: &[(usize, usize)]) -> Region {
    let index = |c: (usize, usize)| cells.iter().position(|&d| d == c);
    let mut adjacent = vec![0u32; cells.len()];
    let mut dominoes = Vec::new();
    for (i, &(x, y)) in cells.iter().enumerate() {
        for c in torus_neighbours(n, x, y) {
            if let Some(j) = index(c) {
                adjacent[i] |= 1 << j;
                if i < j {
                    dominoes.push(1 << i | 1 << j);
                }
            }
        }
    }
    Region {
        cells: cells
            .iter()
            .map(|&(x, y)| Cell::new(x as u16, y as u16))
            .collect(),
        adjacent,
        dominoes,
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
