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
/// The grid index of board cell `(x, y)`: rows of [`STRIDE`] cells below a closed row.
pub(super) const fn grid_index(x: usize, y: usize) -> usize {
    (y + 1) * STRIDE + x
}

/// The board cell `(x, y)` of grid index `i`.
const fn board_cell(i: usize) -> (u8, u8) {
    ((i % STRIDE) as u8, (i / STRIDE - 1) as u8)
}

/// The cells of one grid row as bits, bit `x` for column `x`: 1s from one to eight in each byte
/// summed into that byte, so that rows can be added up before the bytes are (a popcount
/// without the instruction, which the x86-64 baseline lacks).
pub(super) const fn byte_counts(row: u32) -> u32 {
    let pairs = row - (row >> 1 & 0x5555_5555);
    let nibbles = (pairs & 0x3333_3333) + (pairs >> 2 & 0x3333_3333);
    (nibbles + (nibbles >> 4)) & 0x0f0f_0f0f
}

/// The total of the four bytes of `bytes` (each a sum of [`byte_counts`], at most 255),
/// which may be more than a byte holds.
pub(super) const fn sum_bytes(bytes: u32) -> u32 {
    let halves = (bytes & 0x00ff_00ff) + (bytes >> 8 & 0x00ff_00ff);
    (halves + (halves >> 16)) & 0xffff
}

/// A set of grid cells as rows of bits: `rows[r]` bit `x` is grid index `r * STRIDE + x`.
/// Ascending grid index is ascending by y, then x, the order of the listed GOTOs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Cells(pub(super) [u32; ROWS]);

impl Cells {
    pub(super) const EMPTY: Cells = Cells([0; ROWS]);

    pub(super) fn contains(&self, i: usize) -> bool {
        self.0[i / STRIDE] >> (i % STRIDE) & 1 == 1
    }

    pub(super) fn insert(&mut self, i: usize) {
        self.0[i / STRIDE] |= 1 << (i % STRIDE);
    }

    pub(super) fn union(&mut self, other: &Cells) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a |= b;
        }
    }

    /// The number of cells (at most 400: the byte sums of 20 rows stay below 256).
    pub(super) fn len(&self) -> u32 {
        sum_bytes(self.0.iter().map(|&row| byte_counts(row)).sum())
    }

    /// The board rows and the board columns holding a cell of the set, as bit sets.
    pub(super) fn lines(&self) -> (u32, u32) {
        let (mut rows, mut columns) = (0u32, 0u32);
        for (r, &bits) in self.0.iter().enumerate().skip(1) {
            rows |= u32::from(bits != 0) << (r - 1);
            columns |= bits;
        }
        (rows, columns)
    }

    /// Calls `f` with every cell of the set, ascending.
    pub(super) fn for_each(&self, mut f: impl FnMut(usize)) {
        for (r, &row) in self.0.iter().enumerate() {
            let mut bits = row;
            while bits != 0 {
                f(r * STRIDE + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
    }

    /// The `n`th cell of the set, ascending; `n` below [`Cells::len`].
    fn nth(&self, mut n: u32) -> Option<usize> {
        for (r, &row) in self.0.iter().enumerate() {
            let ones = sum_bytes(byte_counts(row));
            if n < ones {
                let mut bits = row;
                for _ in 0..n {
                    bits &= bits - 1;
                }
                return Some(r * STRIDE + bits.trailing_zeros() as usize);
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

    /// Keeps `cells` and their number for pushes to name; returns their index.
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
