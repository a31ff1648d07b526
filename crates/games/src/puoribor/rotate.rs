//! The rotation of a 4×4 sub-board (docs/games/puoribor.md#rotation) on bit sets.
//!
//! With local coordinates `a = x − x0`, `b = y − y0`, segments move by `h(a,b) → v(2−b, a)` and
//! `v(a,b) → h(3−b, a)`, midpoints by `HM(a,b) → VM(2−b, a)` and `VM(a,b) → HM(2−b, a)`. In the
//! column-major index a column of one set (fixed `a`, consecutive `b`) is a run of adjacent
//! bits, and it lands on a row of the other set (fixed `y`, consecutive `x`, stride 9) in
//! reverse order. So each column is read with one shift and placed with one table look-up and
//! one shift, instead of bit by bit.

use super::bits::{ANCHORS, H_VALID, N, Set, V_VALID, index, rect};

/// Bit `k` of the index moved to bit `9k`: a run of bits laid out along a row.
const fn spread_table() -> [u64; 32] {
    let mut table = [0u64; 32];
    let mut bits = 0;
    while bits < 32 {
        let mut k = 0;
        while k < 5 {
            if bits >> k & 1 != 0 {
                table[bits] |= 1 << (9 * k);
            }
            k += 1;
        }
        bits += 1;
    }
    table
}

/// `n`-bit values reversed.
const fn reverse_table(n: u32) -> [u8; 32] {
    let mut table = [0u8; 32];
    let mut bits = 0;
    while bits < (1 << n) {
        let mut k = 0;
        while k < n {
            if bits >> k & 1 != 0 {
                table[bits] |= 1 << (n - 1 - k);
            }
            k += 1;
        }
        bits += 1;
    }
    table
}

static SPREAD: [u64; 32] = spread_table();
static REV3: [u8; 32] = reverse_table(3);
static REV4: [u8; 32] = reverse_table(4);
static REV5: [u8; 32] = reverse_table(5);

/// What a rotation anchored at one cell rewrites: `h` segments (`a ∈ 0..=3`, `b ∈ −1..=3`),
/// `v` segments (`a ∈ −1..=3`, `b ∈ 0..=3`) and midpoints (`a, b ∈ −1..=3`), clipped to the
/// board. Indexed by the anchor's index.
struct Regions {
    h: [Set; 81],
    v: [Set; 81],
    mid: [Set; 81],
}

const fn regions() -> Regions {
    let mut r = Regions {
        h: [0; 81],
        v: [0; 81],
        mid: [0; 81],
    };
    let mut x = 0;
    while x < 6 {
        let mut y = 0;
        while y < 6 {
            let i = index(x as usize, y as usize);
            r.h[i] = rect(x, x + 3, y - 1, y + 3);
            r.v[i] = rect(x - 1, x + 3, y, y + 3);
            r.mid[i] = rect(x - 1, x + 3, y - 1, y + 3);
            y += 1;
        }
        x += 1;
    }
    r
}

static REGIONS: Regions = regions();

/// `n` bits of column `x` from row `y` on (`y` may be −1: that row is empty).
#[inline(always)]
fn column(set: Set, x: i32, y: i32, n: u32) -> usize {
    if !(0..N).contains(&x) {
        return 0;
    }
    let mask = (1 << n) - 1;
    let base = (x * N) as u32;
    if y < 0 {
        ((set >> base) << 1) as usize & mask
    } else {
        (set >> (base + y as u32)) as usize & mask
    }
}

/// A row of bits (bit `j` at column `x + j`) on row `y` (`0..9`); columns off the board drop.
#[inline(always)]
fn row(bits: u8, x: i32, y: i32) -> Set {
    let spread = SPREAD[bits as usize] as Set;
    let at = x * N + y;
    let placed = if at >= 0 { spread << at } else { spread >> -at };
    placed & super::bits::BOARD
}

/// Whether the sub-board at `(x0, y0)` holds a segment the rotation would move.
#[inline(always)]
pub(super) fn touches(h: Set, v: Set, x0: usize, y0: usize) -> bool {
    let anchor = index(x0, y0);
    h & REGIONS.h[anchor] != 0 || v & REGIONS.v[anchor] != 0
}

/// The segment sets `(h, v)` after rotating the sub-board at `(x0, y0)`; used for each owner's
/// segments and for all segments at once.
#[inline(always)]
pub(super) fn segments(h: Set, v: Set, x0: usize, y0: usize) -> (Set, Set) {
    let anchor = index(x0, y0);
    let (x0, y0) = (x0 as i32, y0 as i32);
    let mut new_h = h & !REGIONS.h[anchor];
    let mut new_v = v & !REGIONS.v[anchor];
    // h(a, b), b = −1..=3, goes to v(2 − b, a): x from x0 + 3 down to x0 − 1.
    for a in 0..4 {
        let c = column(h, x0 + a, y0 - 1, 5);
        if c != 0 {
            new_v |= row(REV5[c], x0 - 1, y0 + a);
        }
    }
    // v(a, b), b = 0..=3, goes to h(3 − b, a): x from x0 + 3 down to x0, row y0 + a.
    for a in -1..4 {
        let y = y0 + a;
        if !(0..N - 1).contains(&y) {
            // Row −1 is off the board and row 8 is the bottom edge: such segments drop.
            continue;
        }
        let c = column(v, x0 + a, y0, 4);
        if c != 0 {
            new_h |= row(REV4[c], x0, y);
        }
    }
    (new_h & H_VALID, new_v & V_VALID)
}

/// The midpoint sets `(hm, vm)` after rotating the sub-board at `(x0, y0)`. Midpoints of whole
/// walls that cross the sub-board's boundary are deleted: their segments move one by one.
#[inline(always)]
pub(super) fn midpoints(hm: Set, vm: Set, x0: usize, y0: usize) -> (Set, Set) {
    let anchor = index(x0, y0);
    let (x0, y0) = (x0 as i32, y0 as i32);
    let region = REGIONS.mid[anchor];
    let mut new_hm = hm & !region;
    let mut new_vm = vm & !region;
    // HM(a, b), a = 0..=2, b = −1..=3, goes to VM(2 − b, a).
    for a in 0..3 {
        let c = column(hm, x0 + a, y0 - 1, 5);
        if c != 0 {
            new_vm |= row(REV5[c], x0 - 1, y0 + a);
        }
    }
    // VM(a, b), a = −1..=3, b = 0..=2, goes to HM(2 − b, a).
    for a in -1..4 {
        let y = y0 + a;
        if !(0..N - 1).contains(&y) {
            continue;
        }
        let c = column(vm, x0 + a, y0, 3);
        if c != 0 {
            new_hm |= row(REV3[c], x0, y);
        }
    }
    (new_hm & ANCHORS, new_vm & ANCHORS)
}

#[cfg(test)]
mod tests {
    use super::super::bits::{bit, has};
    use super::*;

    /// The rotation rules applied segment by segment, as the spec states them.
    fn slow_segments(h: Set, v: Set, x0: i32, y0: i32) -> (Set, Set) {
        let on = |x: i32, y: i32| (0..9).contains(&x) && (0..9).contains(&y);
        let get = |s: Set, x: i32, y: i32| on(x, y) && has(s, index(x as usize, y as usize));
        let mut new_h = h;
        let mut new_v = v;
        for a in 0..4 {
            for b in -1..4 {
                if on(x0 + a, y0 + b) {
                    new_h &= !bit(index((x0 + a) as usize, (y0 + b) as usize));
                }
            }
        }
        for a in -1..4 {
            for b in 0..4 {
                if on(x0 + a, y0 + b) {
                    new_v &= !bit(index((x0 + a) as usize, (y0 + b) as usize));
                }
            }
        }
        for a in 0..4 {
            for b in -1..4 {
                let (x, y) = (x0 + 2 - b, y0 + a);
                if get(h, x0 + a, y0 + b) && on(x, y) {
                    new_v |= bit(index(x as usize, y as usize));
                }
            }
        }
        for a in -1..4 {
            for b in 0..4 {
                let (x, y) = (x0 + 3 - b, y0 + a);
                if get(v, x0 + a, y0 + b) && on(x, y) {
                    new_h |= bit(index(x as usize, y as usize));
                }
            }
        }
        (new_h & H_VALID, new_v & V_VALID)
    }

    #[test]
    fn column_runs_match_the_segment_by_segment_rule() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..2000 {
            let h = ((next() as Set) << 64 | next() as Set) & H_VALID;
            let v = ((next() as Set) << 64 | next() as Set) & V_VALID;
            for x0 in 0..6 {
                for y0 in 0..6 {
                    assert_eq!(
                        segments(h, v, x0, y0),
                        slow_segments(h, v, x0 as i32, y0 as i32),
                        "anchor ({x0}, {y0})"
                    );
                }
            }
        }
    }
}
