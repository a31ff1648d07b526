//! Legal actions and walls as fixed-size values, for callers that turn them into arrays (masks
//! and observation planes) without listing the actions one by one: walls as one bit set per
//! anchor row, pawn moves as an array.

use super::bits::{Bits, with_words};
use super::{Cell, MAX_BOARD, MAX_PAWN_MOVES, Quoridor, legal_wall_sets};

/// Rows of wall anchors on the largest board.
const ROWS: usize = MAX_BOARD as usize - 1;

/// A set of walls, one bit set per anchor row: bit `x` of `horizontal[y]` stands for the
/// horizontal wall anchored at `(x, y)`, bit `x` of `vertical[y]` for the vertical one. On a
/// board of side `m` only rows `0..m − 1` and bits `0..m − 1` are used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WallRows {
    /// Horizontal walls by anchor row.
    pub horizontal: [u32; ROWS],
    /// Vertical walls by anchor row.
    pub vertical: [u32; ROWS],
}

impl WallRows {
    /// The number of walls in the set.
    pub fn count(&self) -> u32 {
        let ones = |rows: &[u32; ROWS]| rows.iter().map(|r| r.count_ones()).sum::<u32>();
        ones(&self.horizontal) + ones(&self.vertical)
    }
}

impl Quoridor {
    /// The walls the player on turn may place: the walls of `legal_actions`, none once it has
    /// no walls left or has left the board.
    #[inline]
    pub fn legal_wall_rows(&self) -> WallRows {
        with_words!(self.words, legal_rows(self))
    }

    /// The legal pawn moves of the player on turn, in `legal_actions` order: the first `count`
    /// cells of the array, where `(cells, count)` is what this returns.
    #[inline]
    pub fn pawn_move_array(&self) -> ([Cell; MAX_PAWN_MOVES], usize) {
        let mut cells = [Cell::new(0, 0); MAX_PAWN_MOVES];
        let count = self.write_pawn_moves(&mut cells, |c| c);
        (cells, count)
    }

    /// The anchors of the walls on the board, horizontal then vertical, each as a bit set over
    /// the cells' indices: on a board of side `m`, the wall anchored at `(x, y)` is bit
    /// `i = y·m + x`, bit `i % 64` of word `i / 64`. Bits past the last cell are zero.
    #[inline]
    pub fn placed_wall_bits(&self) -> [&[u64]; 2] {
        let words = self.words as usize;
        [&self.h[..words], &self.v[..words]]
    }
}

fn legal_rows<const N: usize>(q: &Quoridor) -> WallRows {
    let (h, v): (Bits<N>, Bits<N>) = legal_wall_sets(q);
    rows_of(&h.0, &v.0, q.m as usize)
}

/// Anchor sets indexed `y·m + x` (the cells' index space) cut into rows.
#[inline(always)]
fn rows_of(h: &[u64], v: &[u64], m: usize) -> WallRows {
    let mut rows = WallRows::default();
    if m * m <= 128 {
        // Boards up to 11×11 fit in two words: one shift per row.
        let join = |w: &[u64]| u128::from(w[0]) | u128::from(w.get(1).copied().unwrap_or(0)) << 64;
        let (h, v) = (join(h), join(v));
        let mask = (1u128 << (m - 1)) - 1;
        for y in 0..m - 1 {
            rows.horizontal[y] = (h >> (y * m) & mask) as u32;
            rows.vertical[y] = (v >> (y * m) & mask) as u32;
        }
        return rows;
    }
    for y in 0..m - 1 {
        rows.horizontal[y] = row(h, y * m, m - 1);
        rows.vertical[y] = row(v, y * m, m - 1);
    }
    rows
}

/// Bits `start..start + len` of `words` (`len` below 32), the first in bit 0.
#[inline(always)]
fn row(words: &[u64], start: usize, len: usize) -> u32 {
    let (word, shift) = (start / 64, start % 64);
    let mut bits = words[word] >> shift;
    if shift + len > 64 {
        bits |= words[word + 1] << (64 - shift);
    }
    (bits & ((1 << len) - 1)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;
    use crate::quoridor::{Action, Orientation, Settings, Wall};
    use rand::{Rng, SeedableRng};

    fn rows_from(walls: impl Iterator<Item = Wall>) -> WallRows {
        let mut rows = WallRows::default();
        for w in walls {
            let set = match w.orientation {
                Orientation::Horizontal => &mut rows.horizontal,
                Orientation::Vertical => &mut rows.vertical,
            };
            set[w.y as usize] |= 1 << w.x;
        }
        rows
    }

    #[test]
    fn rows_hold_the_walls_of_legal_actions_and_of_the_board() {
        for (players, board) in [(2, 9), (4, 9), (2, 5), (4, 25), (2, 17)] {
            let mut rng = rand::rngs::SmallRng::seed_from_u64(u64::from(board));
            let mut q = Quoridor::new(Settings::standard(players, board).unwrap()).unwrap();
            let mut actions = Vec::new();
            while q.to_move().is_some() {
                q.legal_actions(&mut actions);
                let legal = actions.iter().filter_map(|a| match a {
                    Action::Wall(w) => Some(*w),
                    Action::Move(_) => None,
                });
                assert_eq!(q.legal_wall_rows(), rows_from(legal));
                let (cells, count) = q.pawn_move_array();
                let moves: Vec<Action> = cells[..count].iter().map(|&c| Action::Move(c)).collect();
                assert_eq!(moves, actions[..count]);
                let m = board as usize;
                let [h, v] = q.placed_wall_bits();
                let bit = |words: &[u64], x: usize, y: usize| {
                    words[(y * m + x) / 64] >> ((y * m + x) % 64) & 1
                };
                let placed: Vec<Wall> = (0..m * m)
                    .flat_map(|i| {
                        let (x, y) = (i % m, i / m);
                        let wall = |o: fn(u8, u8) -> Wall| o(x as u8, y as u8);
                        [
                            (bit(h, x, y), wall(Wall::horizontal)),
                            (bit(v, x, y), wall(Wall::vertical)),
                        ]
                    })
                    .filter_map(|(set, w)| (set == 1).then_some(w))
                    .collect();
                let mut expected: Vec<Wall> = q.walls().map(|(w, _)| w).collect();
                expected.sort_by_key(|w| (w.y, w.x, w.orientation.as_v()));
                assert_eq!(placed, expected);
                if actions.is_empty() {
                    q.apply_stuck();
                } else {
                    let a = actions[rng.random_range(0..actions.len())];
                    q.apply(a).unwrap();
                }
            }
        }
    }
}
