//! Sets of cells, segments and midpoints of the 9×9 board as `u128` bit sets.
//!
//! Index `x * 9 + y` (column-major): set bits come out in the `(x, y)` order of the upstream
//! `(4, 9, 9)` action mask, so a legal-action list is sorted for free. A step down (`y + 1`) is
//! a shift by 1 and a step right (`x + 1`) a shift by 9.
//!
//! The same index names a cell, the segment below or right of it (`h(x, y)` blocks
//! `(x, y)–(x, y+1)`, `v(x, y)` blocks `(x, y)–(x+1, y)`), and a midpoint anchored there.

pub(super) type Set = u128;

pub(super) const N: i32 = 9;
pub(super) const CELLS: usize = 81;

#[inline(always)]
pub(super) const fn index(x: usize, y: usize) -> usize {
    x * N as usize + y
}

#[inline(always)]
pub(super) const fn bit(i: usize) -> Set {
    1 << i
}

#[inline(always)]
pub(super) const fn has(set: Set, i: usize) -> bool {
    set >> i & 1 != 0
}

/// `(x, y)` of an index; the division by a constant compiles to a multiply.
#[inline(always)]
pub(super) const fn coords(i: usize) -> (u8, u8) {
    ((i / 9) as u8, (i % 9) as u8)
}

/// The cells `x0..=x1` × `y0..=y1`, clipped to the board.
pub(super) const fn rect(x0: i32, x1: i32, y0: i32, y1: i32) -> Set {
    let mut set = 0;
    let mut x = if x0 < 0 { 0 } else { x0 };
    while x <= x1 && x < N {
        let mut y = if y0 < 0 { 0 } else { y0 };
        while y <= y1 && y < N {
            set |= bit(index(x as usize, y as usize));
            y += 1;
        }
        x += 1;
    }
    set
}

pub(super) const BOARD: Set = rect(0, 8, 0, 8);
/// Where `h` segments exist (not on the bottom edge), and so the cells with a lower edge.
pub(super) const H_VALID: Set = rect(0, 8, 0, 7);
/// Where `v` segments exist (not on the right edge).
pub(super) const V_VALID: Set = rect(0, 7, 0, 8);
/// Anchors of whole walls and of midpoints.
pub(super) const ANCHORS: Set = rect(0, 7, 0, 7);
/// Top-left cells of the 4×4 sub-boards that fit.
pub(super) const ROTATIONS: Set = rect(0, 5, 0, 5);
/// The goal row of each player.
pub(super) const GOALS: [Set; 2] = [rect(0, 8, 8, 8), rect(0, 8, 0, 0)];

/// The cells reachable in one more step from `r`, and `r` itself. `open_s` holds the cells
/// whose lower edge is open, `open_e` those whose right edge is open; both exclude the board's
/// outer edges, so no shift wraps into the next column.
#[inline(always)]
pub(super) fn expand(r: Set, open_s: Set, open_e: Set) -> Set {
    r | (r & open_s) << 1 | (r >> 1 & open_s) | (r & open_e) << 9 | (r >> 9 & open_e)
}

/// Whether a flood from `from` reaches `goal`.
#[inline(always)]
pub(super) fn reaches(mut r: Set, goal: Set, open_s: Set, open_e: Set) -> bool {
    loop {
        if r & goal != 0 {
            return true;
        }
        let next = expand(r, open_s, open_e);
        if next == r {
            return false;
        }
        r = next;
    }
}

/// Calls `f` with every set index, lowest first.
#[inline(always)]
pub(super) fn for_each(set: Set, mut f: impl FnMut(usize)) {
    let (mut lo, mut hi) = (set as u64, (set >> 64) as u64);
    while lo != 0 {
        f(lo.trailing_zeros() as usize);
        lo &= lo - 1;
    }
    while hi != 0 {
        f(64 + hi.trailing_zeros() as usize);
        hi &= hi - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        assert_eq!(BOARD.count_ones(), 81);
        assert_eq!(H_VALID.count_ones(), 72);
        assert_eq!(V_VALID.count_ones(), 72);
        assert_eq!(ANCHORS.count_ones(), 64);
        assert_eq!(ROTATIONS.count_ones(), 36);
        assert!(has(GOALS[0], index(3, 8)) && has(GOALS[1], index(3, 0)));
        assert_eq!(coords(index(7, 2)), (7, 2));
    }

    #[test]
    fn for_each_visits_both_halves_in_order() {
        let mut seen = Vec::new();
        for_each(bit(3) | bit(64) | bit(80), |i| seen.push(i));
        assert_eq!(seen, [3, 64, 80]);
    }
}
