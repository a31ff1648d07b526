//! Tiles, pushes and walking: the board mechanics of docs/games/labyrinth.md#board-and-tiles and docs/games/labyrinth.md#turns-and-the-end, as free
//! functions over a plain tile array so that a server, an importer or a robot can use them on a
//! board of their own.

use std::fmt;

/// Most cells a board has (20 × 20).
pub const MAX_CELLS: usize = 400;
/// Words of a [`Reach`] bit set.
const WORDS: usize = MAX_CELLS.div_ceil(64);

/// Open side bits of a tile.
pub const NORTH: u8 = 1;
/// Open side bit: towards `x - 1`.
pub const WEST: u8 = 2;
/// Open side bit: towards `y + 1`.
pub const SOUTH: u8 = 4;
/// Open side bit: towards `x + 1`.
pub const EAST: u8 = 8;

/// A tile turned a quarter: north → west → south → east → north, as docs/games/labyrinth.md#board-and-tiles defines it.
pub const fn rot(t: u8) -> u8 {
    ((t << 1) | (t >> 3)) & 15
}

/// Whether `a` and `b` are the same tile up to rotation (docs/games/labyrinth.md#board-and-tiles `class`): a push may insert any
/// rotation of the extra tile.
pub const fn same_class(a: u8, b: u8) -> bool {
    let a = a & 15;
    b == a || b == rot(a) || b == rot(rot(a)) || b == rot(rot(rot(a)))
}

/// The distinct rotations of `t`, ascending: the tiles a push may insert when `t` is the extra
/// (one for 15, two for 5 and 10, four otherwise). Returns the array and how many are used.
pub fn class_of(t: u8) -> ([u8; 4], usize) {
    let mut out = [0u8; 4];
    let mut n = 0;
    let mut r = t & 15;
    for _ in 0..4 {
        if !out[..n].contains(&r) {
            out[n] = r;
            n += 1;
        }
        r = rot(r);
    }
    out[..n].sort_unstable();
    (out, n)
}

/// `PUSH c p k t` as a bot sends it. Numbers are kept as sent (capped at 255) so that an out of
/// range push is refused by the rules (BAD_PUSH) rather than unreadable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Push {
    /// 0: a row, 1: a column.
    pub c: u8,
    /// 1: towards +x / +y (the tile enters at 0), 0: towards 0 (the tile enters at the far end).
    pub p: u8,
    /// The row (c = 0) or column (c = 1).
    pub k: u8,
    /// The tile inserted.
    pub t: u8,
}

impl Push {
    /// A push from its four numbers, in protocol order.
    pub const fn new(c: u8, p: u8, k: u8, t: u8) -> Push {
        Push { c, p, k, t }
    }
}

impl fmt::Display for Push {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PUSH {} {} {} {}", self.c, self.p, self.k, self.t)
    }
}

/// Pushes a line of `tiles` (`width` × `height`, index `y * width + x`) as docs/games/labyrinth.md#push says and returns
/// the tile that fell out. The push must have `c`, `p`, `k` in range (see
/// [`super::Level::push_code`]); nothing else is checked.
pub fn push_tiles(tiles: &mut [u8], width: usize, height: usize, push: Push) -> u8 {
    let k = push.k as usize;
    if push.c == 0 {
        let row = &mut tiles[k * width..(k + 1) * width];
        if push.p == 1 {
            let fallen = row[width - 1];
            row.copy_within(0..width - 1, 1);
            row[0] = push.t;
            fallen
        } else {
            let fallen = row[0];
            row.copy_within(1..width, 0);
            row[width - 1] = push.t;
            fallen
        }
    } else if push.p == 1 {
        let fallen = tiles[(height - 1) * width + k];
        for y in (1..height).rev() {
            tiles[y * width + k] = tiles[(y - 1) * width + k];
        }
        tiles[k] = push.t;
        fallen
    } else {
        let fallen = tiles[k];
        for y in 0..height - 1 {
            tiles[y * width + k] = tiles[(y + 1) * width + k];
        }
        tiles[(height - 1) * width + k] = push.t;
        fallen
    }
}

/// Where a princess or a display on `(x, y)` is after `push`: moved with its tile along the
/// pushed line, from the falling cell to the inserted cell (cyclic); unchanged off the line.
pub fn pushed_cell(width: usize, height: usize, push: Push, x: usize, y: usize) -> (usize, usize) {
    let k = push.k as usize;
    match (push.c, push.p) {
        (0, 1) if y == k => ((x + 1) % width, y),
        (0, _) if y == k => ((x + width - 1) % width, y),
        (1, 1) if x == k => (x, (y + 1) % height),
        (1, _) if x == k => (x, (y + height - 1) % height),
        _ => (x, y),
    }
}

/// A set of cells, indexed `y * width + x`: the cells a princess can walk to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    words: [u64; WORDS],
}

impl Default for Reach {
    fn default() -> Self {
        Reach { words: [0; WORDS] }
    }
}

impl Reach {
    /// Whether the cell at `index` is in the set.
    pub fn contains(&self, index: usize) -> bool {
        index < MAX_CELLS && self.words[index / 64] >> (index % 64) & 1 == 1
    }

    /// Adds the cell at `index` (below [`MAX_CELLS`]).
    pub fn insert(&mut self, index: usize) {
        self.words[index / 64] |= 1 << (index % 64);
    }

    /// Number of cells in the set.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set holds no cell.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// Calls `f` with every cell index in the set, ascending: [`Reach::iter`] without the
    /// iterator, for loops that list thousands of cells.
    #[inline(always)]
    pub fn for_each(&self, mut f: impl FnMut(usize)) {
        for (i, &word) in self.words.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                f(i * 64 + w.trailing_zeros() as usize);
                w &= w - 1;
            }
        }
    }

    /// The cell indices in the set, ascending (by y, then x).
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &word)| {
            let mut w = word;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let bit = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(i * 64 + bit)
            })
        })
    }
}

impl fmt::Debug for Reach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// The cells reachable from cell `from` (index `y * width + x`) by walking through open sides
/// that face each other, without wrapping around the border (docs/games/labyrinth.md#board-and-tiles). `from` is always in it.
pub fn reach(tiles: &[u8], width: usize, height: usize, from: usize) -> Reach {
    // Stack entries carry the column beside the index (`i | x << 16`): the border checks need
    // no division, which dominated the walk.
    const SHIFT: u32 = 16;
    let cells = width * height;
    let mut seen = Reach::default();
    let mut stack = [0u32; MAX_CELLS];
    let mut top = 0;
    seen.insert(from);
    stack[top] = (from | (from % width) << SHIFT) as u32;
    top += 1;
    while top > 0 {
        top -= 1;
        let entry = stack[top] as usize;
        let (i, x) = (entry & ((1 << SHIFT) - 1), entry >> SHIFT);
        let t = tiles[i];
        let mut visit = |j: usize, jx: usize, side: u8| {
            if tiles[j] & side != 0 && !seen.contains(j) {
                seen.insert(j);
                stack[top] = (j | jx << SHIFT) as u32;
                top += 1;
            }
        };
        if t & NORTH != 0 && i >= width {
            visit(i - width, x, SOUTH);
        }
        if t & WEST != 0 && x > 0 {
            visit(i - 1, x - 1, EAST);
        }
        if t & SOUTH != 0 && i + width < cells {
            visit(i + width, x, NORTH);
        }
        if t & EAST != 0 && x + 1 < width {
            visit(i + 1, x + 1, WEST);
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_the_five_of_the_spec() {
        assert_eq!(class_of(1), ([1, 2, 4, 8], 4));
        assert_eq!(class_of(6), ([3, 6, 9, 12], 4));
        assert_eq!(class_of(13), ([7, 11, 13, 14], 4));
        assert_eq!(class_of(10).1, 2);
        assert_eq!(class_of(10).0[..2], [5, 10]);
        assert_eq!(class_of(15).1, 1);
        assert!(same_class(3, 12) && !same_class(3, 5));
    }
}
