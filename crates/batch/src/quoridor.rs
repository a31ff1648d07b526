//! Quoridor in a batch, with the action layout and observation planes of the PettingZoo
//! environment (docs/python.md): on an `m` × `m` board, `y·m + x` moves the pawn to `(x, y)`,
//! `m·m + y·(m−1) + x` places the horizontal wall anchored at `(x, y)`, and
//! `m·m + (m−1)² + y·(m−1) + x` the vertical one.

use arbiter_games::quoridor::{Action, Cell, Orientation, Quoridor, Wall, WallRows};
use arbiter_games::{Game, PlayerId};

use crate::BatchGame;
use crate::spread::{spread_bits, spread_rows};

/// The legal actions of the player on turn: its pawn moves and the walls it may place.
#[derive(Clone)]
pub struct QuoridorLegal {
    moves: [Cell; 8],
    move_count: u32,
    walls: WallRows,
    /// The number of walls in `walls`.
    wall_count: u32,
}

impl Default for QuoridorLegal {
    fn default() -> Self {
        QuoridorLegal {
            moves: [Cell::new(0, 0); 8],
            move_count: 0,
            walls: WallRows::default(),
            wall_count: 0,
        }
    }
}

/// Seats from `player`'s point of view: `player` first, then the others in turn order.
fn seats_from(player: PlayerId, n: usize) -> impl Iterator<Item = PlayerId> {
    (player..n).chain(0..player)
}

/// The `k`-th set bit of `bits`, counting from bit 0.
fn nth_bit(mut bits: u32, k: u32) -> u8 {
    for _ in 0..k {
        bits &= bits - 1;
    }
    bits.trailing_zeros() as u8
}

/// The `k`-th wall of `rows`, horizontal ones first, each kind by row then column.
fn nth_wall(rows: &WallRows, m: usize, mut k: u32) -> Option<Action> {
    let kinds = [
        (&rows.horizontal, Orientation::Horizontal),
        (&rows.vertical, Orientation::Vertical),
    ];
    for (kind, orientation) in kinds {
        for (y, &row) in kind[..m - 1].iter().enumerate() {
            let here = row.count_ones();
            if k < here {
                let (x, y) = (nth_bit(row, k), y as u8);
                return Some(Action::Wall(Wall { x, y, orientation }));
            }
            k -= here;
        }
    }
    None
}

fn wall_count(rows: &WallRows, m: usize) -> u32 {
    let ones = |kind: &[u32]| kind[..m - 1].iter().map(|r| r.count_ones()).sum::<u32>();
    ones(&rows.horizontal) + ones(&rows.vertical)
}

impl BatchGame for Quoridor {
    type Legal = QuoridorLegal;

    fn action_count(&self) -> usize {
        let m = self.board_size() as usize;
        m * m + 2 * (m - 1) * (m - 1)
    }

    fn observation_shape(&self) -> [usize; 3] {
        let m = self.board_size() as usize;
        [2 * self.num_players() + 2, m, m]
    }

    fn list_legal(&self, legal: &mut QuoridorLegal) -> u32 {
        legal.move_count = 0;
        legal.wall_count = 0;
        if self.to_move().is_none() {
            return 0;
        }
        let (moves, count) = self.pawn_move_array();
        (legal.moves, legal.move_count) = (moves, count as u32);
        if self.walls_left(self.current()) > 0 {
            legal.walls = self.legal_wall_rows();
            legal.wall_count = wall_count(&legal.walls, self.board_size() as usize);
        }
        legal.move_count + legal.wall_count
    }

    fn nth_legal(&self, legal: &QuoridorLegal, k: u32) -> Action {
        if k < legal.move_count {
            return Action::Move(legal.moves[k as usize]);
        }
        let k = k - legal.move_count;
        nth_wall(&legal.walls, self.board_size() as usize, k)
            .expect("k is below the number of legal actions")
    }

    fn write_mask(&self, legal: &QuoridorLegal, mask: &mut [u8]) {
        let m = self.board_size() as usize;
        // The rows of walls cover the walls' part of the mask whole.
        if legal.wall_count > 0 {
            mask[..m * m].fill(0);
            let vertical = m * m + (m - 1) * (m - 1);
            spread_rows(
                &legal.walls.horizontal[..m - 1],
                m - 1,
                m - 1,
                &mut mask[m * m..],
            );
            spread_rows(
                &legal.walls.vertical[..m - 1],
                m - 1,
                m - 1,
                &mut mask[vertical..],
            );
        } else {
            mask.fill(0);
        }
        for c in &legal.moves[..legal.move_count as usize] {
            mask[c.y as usize * m + c.x as usize] = 1;
        }
    }

    /// Planes `[plane, y, x]`: each seat's pawn (`player` first, then in turn order),
    /// horizontal then vertical wall anchors, then each seat's walls left (the count, on every
    /// cell of its plane), in the same seat order.
    fn write_observation(&self, player: PlayerId, out: &mut [u8]) {
        let m = self.board_size() as usize;
        let cells = m * m;
        let n = self.num_players();
        out[..n * cells].fill(0);
        // The wall planes are the anchor bit sets, written whole; each may spill zeros over
        // the planes after it, written afterwards.
        let [horizontal, vertical] = self.placed_wall_bits();
        spread_bits(horizontal, cells, &mut out[n * cells..]);
        spread_bits(vertical, cells, &mut out[(n + 1) * cells..]);
        for (plane, seat) in seats_from(player, n).enumerate() {
            if let Some(c) = self.pawn(seat) {
                out[plane * cells + c.y as usize * m + c.x as usize] = 1;
            }
            let left = (n + 2 + plane) * cells;
            out[left..left + cells].fill(self.walls_left(seat));
        }
    }

    fn decode(&self, index: usize) -> Option<Action> {
        let m = self.board_size() as usize;
        let walls = (m - 1) * (m - 1);
        let cell = |i: usize, side: usize| ((i % side) as u8, (i / side) as u8);
        if index < m * m {
            let (x, y) = cell(index, m);
            return Some(Action::Move(Cell::new(x, y)));
        }
        let i = index - m * m;
        let (x, y) = cell(i % walls, m - 1);
        let orientation = match i / walls {
            0 => Orientation::Horizontal,
            1 => Orientation::Vertical,
            _ => return None,
        };
        Some(Action::Wall(Wall { x, y, orientation }))
    }

    fn encode(&self, action: Action) -> Option<usize> {
        let m = self.board_size() as usize;
        Some(match action {
            Action::Move(c) => c.y as usize * m + c.x as usize,
            Action::Wall(w) => {
                let kind = usize::from(w.orientation.as_v());
                m * m + (kind * (m - 1) + w.y as usize) * (m - 1) + w.x as usize
            }
        })
    }
}
