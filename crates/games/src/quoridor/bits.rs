//! Fixed-size bit sets over the cells of the largest board, and the per-size masks.
//!
//! Cells and wall anchors share one index space, `y * M + x`, with stride `M` (no padding column):
//! anchor `(x, y)` has the index of its top-left cell. Shifting by 1 or by `M` moves a whole set one
//! column or one row; whatever wraps into the last column or row lands on cells that the masks
//! treat as board edge, so the shifts need no per-row masking.
//!
//! The state stores `[u64; WORDS]`; the hot code works on the first `N` words only, with `N` a
//! const generic chosen from the board size (2 words for 9×9), so the loops unroll.

use std::ops::{BitAnd, BitOr, BitOrAssign, Not};

pub(super) const WORDS: usize = 10;
pub(super) type Words = [u64; WORDS];

/// Words a board of side `m` needs.
pub(super) const fn words_for(m: u8) -> usize {
    let cells = m as usize * m as usize;
    cells.div_ceil(64)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Bits<const N: usize>(pub [u64; N]);

impl<const N: usize> Bits<N> {
    pub const ZERO: Self = Bits([0; N]);

    #[inline(always)]
    pub fn load(words: &Words) -> Self {
        let mut out = [0; N];
        out.copy_from_slice(&words[..N]);
        Bits(out)
    }

    #[inline(always)]
    pub fn single(i: usize) -> Self {
        let mut out = Self::ZERO;
        out.set(i);
        out
    }

    #[inline(always)]
    pub fn set(&mut self, i: usize) {
        self.0[i >> 6] |= 1 << (i & 63);
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> bool {
        self.0[i >> 6] >> (i & 63) & 1 != 0
    }

    #[inline(always)]
    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    #[inline(always)]
    pub fn intersects(&self, other: Self) -> bool {
        !(*self & other).is_zero()
    }

    #[inline(always)]
    pub fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// `self & !other`.
    #[inline(always)]
    pub fn andn(self, other: Self) -> Self {
        let mut out = self.0;
        for (o, b) in out.iter_mut().zip(other.0) {
            *o &= !b;
        }
        Bits(out)
    }

    /// Moves every bit `s` places up (`0 < s < 64`).
    #[inline(always)]
    #[allow(clippy::needless_range_loop)] // each word reads its neighbour
    pub fn shl(self, s: u32) -> Self {
        let mut out = [0; N];
        for i in 0..N {
            out[i] = self.0[i] << s;
            if i > 0 {
                out[i] |= self.0[i - 1] >> (64 - s);
            }
        }
        Bits(out)
    }

    /// Moves every bit `s` places down (`0 < s < 64`).
    #[inline(always)]
    #[allow(clippy::needless_range_loop)] // each word reads its neighbour
    pub fn shr(self, s: u32) -> Self {
        let mut out = [0; N];
        for i in 0..N {
            out[i] = self.0[i] >> s;
            if i + 1 < N {
                out[i] |= self.0[i + 1] << (64 - s);
            }
        }
        Bits(out)
    }

    /// Calls `f` with the index of every set bit, lowest first.
    #[inline(always)]
    pub fn for_each(self, mut f: impl FnMut(usize)) {
        for (wi, mut w) in self.0.into_iter().enumerate() {
            while w != 0 {
                f(wi * 64 + w.trailing_zeros() as usize);
                w &= w - 1;
            }
        }
    }

    /// The index of the lowest set bit, if any.
    #[inline(always)]
    pub fn first(self) -> Option<usize> {
        let wi = self.0.iter().position(|&w| w != 0)?;
        Some(wi * 64 + self.0[wi].trailing_zeros() as usize)
    }

    /// Whether exactly one bit is set.
    #[inline(always)]
    pub fn is_single(self) -> bool {
        let mut ones = 0u32;
        for w in self.0 {
            // 0 for an empty word, 1 for a word with one bit, 2 for more.
            ones += u32::from(w != 0) + u32::from(w & w.wrapping_sub(1) != 0);
        }
        ones == 1
    }

    /// The index of the `k`-th set bit (0-based), if there are that many.
    pub fn nth(self, mut k: u32) -> Option<usize> {
        for (wi, mut w) in self.0.into_iter().enumerate() {
            let c = w.count_ones();
            if k >= c {
                k -= c;
                continue;
            }
            for _ in 0..k {
                w &= w - 1;
            }
            return Some(wi * 64 + w.trailing_zeros() as usize);
        }
        None
    }
}

impl<const N: usize> BitAnd for Bits<N> {
    type Output = Self;
    #[inline(always)]
    fn bitand(self, other: Self) -> Self {
        let mut out = self.0;
        for (o, b) in out.iter_mut().zip(other.0) {
            *o &= b;
        }
        Bits(out)
    }
}

impl<const N: usize> BitOr for Bits<N> {
    type Output = Self;
    #[inline(always)]
    fn bitor(self, other: Self) -> Self {
        let mut out = self.0;
        for (o, b) in out.iter_mut().zip(other.0) {
            *o |= b;
        }
        Bits(out)
    }
}

impl<const N: usize> BitOrAssign for Bits<N> {
    #[inline(always)]
    fn bitor_assign(&mut self, other: Self) {
        *self = *self | other;
    }
}

/// Complement within the `N` words: only meaningful when and-ed with a set inside the board.
impl<const N: usize> Not for Bits<N> {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        let mut out = self.0;
        for o in out.iter_mut() {
            *o = !*o;
        }
        Bits(out)
    }
}

#[inline(always)]
pub(super) fn words_get(words: &Words, i: usize) -> bool {
    words[i >> 6] >> (i & 63) & 1 != 0
}

pub(super) fn words_set(words: &mut Words, i: usize) {
    words[i >> 6] |= 1 << (i & 63);
}

/// The fixed sets of one board size.
pub(super) struct Masks {
    /// Anchors where a wall fits: `x, y <= M-2`.
    pub anchors: Words,
    pub col_first: Words,
    pub col_last: Words,
    pub row_first: Words,
    pub row_last: Words,
}

const fn build_masks(m: usize) -> Masks {
    let mut masks = Masks {
        anchors: [0; WORDS],
        col_first: [0; WORDS],
        col_last: [0; WORDS],
        row_first: [0; WORDS],
        row_last: [0; WORDS],
    };
    let mut y = 0;
    while y < m {
        let mut x = 0;
        while x < m {
            let i = y * m + x;
            let (w, b) = (i >> 6, 1u64 << (i & 63));
            if x + 1 < m && y + 1 < m {
                masks.anchors[w] |= b;
            }
            if x == 0 {
                masks.col_first[w] |= b;
            }
            if x + 1 == m {
                masks.col_last[w] |= b;
            }
            if y == 0 {
                masks.row_first[w] |= b;
            }
            if y + 1 == m {
                masks.row_last[w] |= b;
            }
            x += 1;
        }
        y += 1;
    }
    masks
}

const fn build_all() -> [Masks; 11] {
    [
        build_masks(5),
        build_masks(7),
        build_masks(9),
        build_masks(11),
        build_masks(13),
        build_masks(15),
        build_masks(17),
        build_masks(19),
        build_masks(21),
        build_masks(23),
        build_masks(25),
    ]
}

static MASKS: [Masks; 11] = build_all();

/// The masks of an odd board side `5..=25`.
#[inline(always)]
pub(super) fn masks(m: u8) -> &'static Masks {
    &MASKS[(m as usize - 5) / 2]
}

/// Calls `$f::<N>($args)` with `N` the number of words of the board.
macro_rules! with_words {
    ($nw:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $nw {
            1 => $f::<1>($($arg),*),
            2 => $f::<2>($($arg),*),
            3 => $f::<3>($($arg),*),
            4 => $f::<4>($($arg),*),
            5 => $f::<5>($($arg),*),
            6 => $f::<6>($($arg),*),
            7 => $f::<7>($($arg),*),
            9 => $f::<9>($($arg),*),
            _ => $f::<10>($($arg),*),
        }
    };
}
pub(super) use with_words;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_counts_cover_every_board() {
        for m in (5..=25).step_by(2) {
            let n = words_for(m);
            assert!(n * 64 >= m as usize * m as usize);
            assert!(n <= WORDS);
            assert_ne!(n, 8, "with_words has no arm for 8 words");
        }
    }

    #[test]
    fn shifts_cross_words() {
        let mut b = Bits::<3>::ZERO;
        b.set(63);
        b.set(127);
        assert_eq!(b.shl(1), Bits([0, 1, 1]));
        assert_eq!(Bits::<3>([0, 1, 1]).shr(1), b);
        let s = Bits::<2>::single(60).shl(9);
        assert!(s.get(69) && s.count() == 1);
        assert_eq!(b.nth(1), Some(127));
        assert_eq!(b.nth(2), None);
        assert_eq!(b.first(), Some(63));
        assert_eq!(Bits::<3>::ZERO.first(), None);
        assert!(!b.is_single() && Bits::<3>::single(130).is_single());
        assert!(!Bits::<3>::ZERO.is_single() && !Bits::<1>([6]).is_single());
    }

    #[test]
    fn masks_of_nine() {
        let m = masks(9);
        assert_eq!(Bits::<2>::load(&m.anchors).count(), 64);
        assert!(Bits::<2>::load(&m.col_last).get(8));
        assert!(Bits::<2>::load(&m.row_last).get(80));
        assert_eq!(Bits::<2>::load(&m.row_first).count(), 9);
    }
}
