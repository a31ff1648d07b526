//! The legal actions of a position, compactly: each valid push with the set of cells the
//! princess can walk to after it. A ply has over a thousand actions but a few hundred pushes and
//! far fewer distinct cell sets (most pushes leave her the same cells), so a random playout or a
//! mask counts and picks actions here without writing them all.

use super::board::Push;
use super::{Action, MAX_CELLS};

/// Cells in a grid row: more than the widest board (20) plus the closed column on its right,
/// which is also the closed cell left of the next row.
pub(super) const STRIDE: usize = 32;
/// Grid rows: the tallest board (20) and a closed row above and below it.
pub(super) const ROWS: usize = 22;
/// Cells of the grid.
pub(super) const GRID: usize = STRIDE * ROWS;
/// Words of a [`Cells`] set.
pub(super) const WORDS: usize = GRID / 64;

/// The grid index of board cell `(x, y)`: rows of [`STRIDE`] cells below a closed row.
pub(super) const fn grid_index(x: usize, y: usize) -> usize {
    (y + 1) * STRIDE + x
}

/// The board cell `(x, y)` of grid index `i`.
const fn board_cell(i: usize) -> (u8, u8) {
    ((i % STRIDE) as u8, (i / STRIDE - 1) as u8)
}

/// A set of grid cells. Ascending grid index is ascending by y, then x, the order of the listed
/// GOTOs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Cells(pub(super) [u64; WORDS]);

impl Cells {
    pub(super) const EMPTY: Cells = Cells([0; WORDS]);

    pub(super) fn contains(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    pub(super) fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    pub(super) fn union(&mut self, other: &Cells) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a |= b;
        }
    }

    fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// The board rows and the board columns holding a cell of the set, as bit sets.
    pub(super) fn lines(&self) -> (u32, u32) {
        let (mut rows, mut columns) = (0u64, 0u32);
        for (i, &word) in self.0.iter().enumerate() {
            // Word i holds grid rows 2i and 2i + 1, board rows 2i - 1 and 2i.
            let halves = [word as u32, (word >> 32) as u32];
            for (half, bits) in halves.into_iter().enumerate() {
                if bits != 0 {
                    rows |= 1 << (2 * i + half);
                    columns |= bits;
                }
            }
        }
        ((rows >> 1) as u32, columns)
    }

    /// Calls `f` with every cell of the set, ascending.
    pub(super) fn for_each(&self, mut f: impl FnMut(usize)) {
        for (i, &word) in self.0.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                f(i * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
    }

    /// The `n`th cell of the set, ascending; `n` below [`Cells::len`].
    fn nth(&self, mut n: u32) -> Option<usize> {
        for (i, &word) in self.0.iter().enumerate() {
            let ones = word.count_ones();
            if n < ones {
                let mut bits = word;
                for _ in 0..n {
                    bits &= bits - 1;
                }
                return Some(i * 64 + bits.trailing_zeros() as usize);
            }
            n -= ones;
        }
        None
    }
}

/// A valid push and the cells reachable after it.
#[derive(Clone, Copy, Debug)]
struct Entry {
    push: Push,
    /// The index of its cells in [`LegalSet::cells`].
    cells: u16,
    /// The actions of the pushes before it and its own: its last action's index plus one.
    end: u32,
}

/// Every legal action of a position as [`crate::Game::legal_actions`] lists them, in the same
/// order, without writing them: each valid push with the cells the princess can walk to after
/// it. [`LegalSet::len`] counts the actions and [`LegalSet::nth`] makes only the one asked for,
/// so picking a uniformly random legal action costs no more than listing the pushes.
///
/// Filled by [`super::Labyrinth::legal_set`]; kept between calls, it does not allocate after
/// the first few.
#[derive(Clone, Debug, Default)]
pub struct LegalSet {
    entries: Vec<Entry>,
    cells: Vec<Cells>,
    /// The number of cells in each of `cells`.
    counts: Vec<u32>,
    /// The actions listed: the last entry's `end`.
    len: u32,
}

impl LegalSet {
    /// An empty set, to be filled by [`super::Labyrinth::legal_set`].
    pub fn new() -> LegalSet {
        LegalSet::default()
    }

    /// The number of legal actions.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether there is no legal action (the match is over).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of valid pushes.
    pub fn pushes(&self) -> usize {
        self.entries.len()
    }

    /// The legal action at `index` of the order [`crate::Game::legal_actions`] lists them in;
    /// `None` from [`LegalSet::len`] on.
    pub fn nth(&self, index: usize) -> Option<Action> {
        let index = u32::try_from(index).ok().filter(|&i| i < self.len)?;
        let at = self.entries.partition_point(|e| e.end <= index);
        let entry = self.entries.get(at)?;
        let start = at
            .checked_sub(1)
            .map_or(0, |before| self.entries[before].end);
        let cell = self.cells[entry.cells as usize].nth(index - start)?;
        let (x, y) = board_cell(cell);
        Some(Action::goto(entry.push, x, y))
    }

    /// Appends every legal action to `out`, in order.
    pub fn actions(&self, out: &mut Vec<Action>) {
        out.reserve(self.len());
        let mut gotos = Vec::with_capacity(MAX_CELLS);
        let mut written = None;
        for entry in &self.entries {
            if written != Some(entry.cells) {
                gotos.clear();
                self.cells[entry.cells as usize].for_each(|i| gotos.push(board_cell(i)));
                written = Some(entry.cells);
            }
            out.extend(gotos.iter().map(|&(x, y)| Action::goto(entry.push, x, y)));
        }
    }

    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.cells.clear();
        self.counts.clear();
        self.len = 0;
    }

    /// Keeps `cells` for pushes to name; returns their index.
    pub(super) fn add_cells(&mut self, cells: &Cells) -> u16 {
        self.cells.push(*cells);
        self.counts.push(cells.len());
        (self.cells.len() - 1) as u16
    }

    /// Adds `push` with the cells of index `cells` (from [`LegalSet::add_cells`]).
    pub(super) fn add_push(&mut self, push: Push, cells: u16) {
        self.len += self.counts[cells as usize];
        self.entries.push(Entry {
            push,
            cells,
            end: self.len,
        });
    }
}
