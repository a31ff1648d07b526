//! The exact endgame solver both Domino robots use.
//!
//! Domino on a torus is an impartial game (both players have the same placements), so the
//! exact part is Sprague–Grundy theory: the free cells fall apart into regions that no domino
//! joins, each region has a Grundy value (the smallest value none of its options has), and the
//! player to move wins exactly when the values of the regions XOR to non-zero. A region is
//! solved on a bit set of its cells, memoised, and split again whenever a placement cuts it in
//! two, so many small regions cost no more than their sizes add up to.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

use arbiter_games::domino::{Cell, Domino, Placement};

/// Regions up to this many cells are solved exactly by `parity` (a region is a bit set).
pub const REGION_LIMIT: usize = 32;
/// The largest region any solver takes: a region is a bit set in a `u64`.
pub const MAX_REGION: usize = 64;
/// Positions evaluated at most per move by `parity` before the solver gives up and the
/// heuristic plays: a move stays well inside the 500 ms limit (about 25 ms at worst on one core
/// of a laptop, optimised), and a count, unlike a clock, keeps a seeded match the same on every
/// machine. Played this way, positions of up to about 70 cells left to play for are mostly
/// solved.
pub const NODE_BUDGET: u64 = 400_000;

/// What perfect play makes of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The player to move wins by playing this.
    Win(Placement),
    /// The player to move loses whatever it plays.
    Loss,
}

/// How far one call of the solver may go.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The largest region it solves (at most [`MAX_REGION`]); a bigger one gives up at once.
    pub region_cells: usize,
    /// Positions it evaluates at most.
    pub nodes: u64,
    /// When it gives up, whatever the count (checked every 1,024 positions).
    pub deadline: Option<Instant>,
}

impl Default for Limits {
    /// The limits of `parity`: regions of [`REGION_LIMIT`] cells, [`NODE_BUDGET`] positions.
    fn default() -> Self {
        Limits {
            region_cells: REGION_LIMIT,
            nodes: NODE_BUDGET,
            deadline: None,
        }
    }
}

/// One region of free cells, its cells numbered from 0.
pub struct Region {
    /// Its cells, by number.
    pub cells: Vec<Cell>,
    /// Neighbours of each cell, as a bit set of cell numbers.
    adjacent: Vec<u64>,
    /// Every domino of the region, as the bit set of its two cells.
    pub dominoes: Vec<u64>,
}

/// The most memo slots kept from one region to the next; see [`Solver::forget`].
const KEPT_MEMO: usize = 1 << 16;

/// The exact solver, with a memo of Grundy values that lives for one region.
#[derive(Default)]
pub struct Solver {
    memo: HashMap<u64, u8, BuildHasherDefault<MaskHasher>>,
    nodes: u64,
    limits: Limits,
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
    fn write_u64(&mut self, key: u64) {
        let h = (key ^ key >> 32).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 32);
    }
}

/// The solver ran out of positions or time.
#[derive(Debug)]
pub struct OutOfBudget;

impl Solver {
    /// A solver that keeps to `limits` on every call.
    pub fn new(limits: Limits) -> Solver {
        Solver {
            limits,
            ..Solver::default()
        }
    }

    /// Changes the limits of the calls to come.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// Positions evaluated by the last call of [`Solver::solve`] or [`Solver::count_wins`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Empties the memo for a new region. Clearing a table costs its capacity, not its
    /// entries, and a search clears it for every region of every leaf: a table one big solve
    /// grew to millions of slots made each later clear cost milliseconds, and the robot
    /// overran its clock. Such a table is dropped instead.
    fn forget(&mut self) {
        if self.memo.capacity() > KEPT_MEMO {
            self.memo = HashMap::default();
        } else {
            self.memo.clear();
        }
    }

    /// The verdict of perfect play, or `None` when a region is too big or the budget runs out.
    pub fn solve(&mut self, game: &Domino) -> Option<Verdict> {
        let regions = regions(game, self.limits.region_cells)?;
        self.nodes = 0;
        let mut total = 0;
        for region in &regions {
            self.forget();
            total ^= self.grundy(region, full(region.cells.len())).ok()?;
        }
        if total == 0 {
            return Some(Verdict::Loss);
        }
        // Move in a region to the value that makes the XOR zero; one exists (value > target
        // for the region holding the XOR's top bit). The memo holds one region's values at a
        // time, as cells are numbered per region.
        for region in &regions {
            self.forget();
            let all = full(region.cells.len());
            let value = self.grundy(region, all).ok()?;
            let target = total ^ value;
            if target >= value {
                continue;
            }
            for &d in &region.dominoes {
                if self.split_grundy(region, all & !d).ok()? == target {
                    return Some(Verdict::Win(region.placement(d, game.size())));
                }
            }
        }
        unreachable!("a position with a non-zero Grundy value has a move to zero")
    }

    /// How many placements win for the player to move (0 in a lost position), or `None`
    /// when a region is too big or the budget runs out.
    pub fn count_wins(&mut self, game: &Domino) -> Option<usize> {
        let regions = regions(game, self.limits.region_cells)?;
        self.nodes = 0;
        let mut values = Vec::with_capacity(regions.len());
        for region in &regions {
            self.forget();
            values.push(self.grundy(region, full(region.cells.len())).ok()?);
        }
        let total = values.iter().fold(0, |all, v| all ^ v);
        if total == 0 {
            return Some(0);
        }
        // A winning placement turns its region's value into the one that makes the XOR zero;
        // that value may be above the region's own, as a region's options may be.
        let mut count = 0;
        for (region, &value) in regions.iter().zip(&values) {
            self.forget();
            let all = full(region.cells.len());
            for &d in &region.dominoes {
                if self.split_grundy(region, all & !d).ok()? == total ^ value {
                    count += 1;
                }
            }
        }
        Some(count)
    }

    /// The Grundy value of the cells of `mask`, however many regions they form.
    fn split_grundy(&mut self, region: &Region, mut mask: u64) -> Result<u8, OutOfBudget> {
        let mut value = 0;
        while mask != 0 {
            let part = region.flood(mask);
            mask &= !part;
            value ^= self.grundy(region, part)?;
        }
        Ok(value)
    }

    /// The Grundy value of the cells of `mask`, which are connected.
    fn grundy(&mut self, region: &Region, mask: u64) -> Result<u8, OutOfBudget> {
        if mask.count_ones() < 2 {
            return Ok(0);
        }
        if let Some(&value) = self.memo.get(&mask) {
            return Ok(value);
        }
        self.nodes += 1;
        if self.nodes > self.limits.nodes {
            return Err(OutOfBudget);
        }
        if let Some(deadline) = self.limits.deadline
            && self.nodes.is_multiple_of(1024)
            && Instant::now() >= deadline
        {
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

fn full(cells: usize) -> u64 {
    if cells == 64 {
        u64::MAX
    } else {
        (1 << cells) - 1
    }
}

impl Region {
    /// The cells of `mask` connected to its lowest cell.
    fn flood(&self, mask: u64) -> u64 {
        let mut reached = mask & mask.wrapping_neg();
        let mut frontier = reached;
        while frontier != 0 {
            let i = frontier.trailing_zeros() as usize;
            frontier &= frontier - 1;
            let new = self.adjacent[i] & mask & !reached;
            reached |= new;
            frontier |= new;
        }
        reached
    }

    /// The placement of domino `d` (a bit set of two cells) on a board of side `size`.
    pub fn placement(&self, d: u64, size: u8) -> Placement {
        let (i, j) = (d.trailing_zeros(), 63 - d.leading_zeros());
        Placement::new(self.cells[i as usize], self.cells[j as usize]).canonical(size)
    }
}

/// The regions of the cells that some placement covers (isolated free cells count for
/// nothing), or `None` if one has more than `limit` cells.
fn regions(game: &Domino, limit: usize) -> Option<Vec<Region>> {
    let limit = limit.min(MAX_REGION);
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
                        if cells.len() == limit {
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

/// The four neighbours of `(x, y)` on a torus of side `n`.
pub fn torus_neighbours(n: usize, x: usize, y: usize) -> [(usize, usize); 4] {
    [
        ((x + 1) % n, y),
        ((x + n - 1) % n, y),
        (x, (y + 1) % n),
        (x, (y + n - 1) % n),
    ]
}

fn region(n: usize, cells: &[(usize, usize)]) -> Region {
    let index = |c: (usize, usize)| cells.iter().position(|&d| d == c);
    let mut adjacent = vec![0u64; cells.len()];
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
    use arbiter_games::domino::Settings;

    /// A 25×25 board whose free cells are the `w`×`h` rectangle in its corner.
    fn rectangle(w: u16, h: u16) -> Domino {
        let blocked: Vec<Cell> = (0..25)
            .flat_map(|y| (0..25).map(move |x| Cell::new(x, y)))
            .filter(|c| c.x >= w || c.y >= h)
            .collect();
        Domino::new(Settings::custom(25, &blocked).unwrap()).unwrap()
    }

    #[test]
    fn a_big_solve_leaves_no_big_memo_for_the_clears_after_it() {
        let mut solver = Solver::default();
        solver.set_limits(Limits {
            region_cells: MAX_REGION,
            nodes: 300_000,
            deadline: None,
        });
        // Too big to finish: the memo grows to the whole budget.
        assert_eq!(solver.solve(&rectangle(8, 6)), None);
        assert!(solver.memo.len() > KEPT_MEMO, "{}", solver.memo.len());
        assert!(solver.solve(&rectangle(2, 2)).is_some());
        assert!(
            solver.memo.capacity() <= 2 * KEPT_MEMO,
            "{}",
            solver.memo.capacity()
        );
    }
}
