//! The legal-action listing: every valid push with every cell the princess can walk to after it
//! (docs/games/labyrinth.md#walk), in the order [`super::Labyrinth::valid_pushes`] gives the
//! pushes and ascending cells after each.
//!
//! A ply lists over a thousand actions, and random playouts and searches spend most of their
//! time here, so the listing shares work between pushes:
//!
//! - The board is kept as rows of bits, one bit a column: for each side, the tiles open towards
//!   it, and which neighbours are joined (open towards each other). A walk is a flood fill of
//!   whole rows: a row's cells spread along the row in a few shifts and masks, and into the rows
//!   above and below through the joins, rather than a cell at a time (each step of which waits
//!   on the one before). A push changes the bits of its line only.
//! - A walk reads only the cells it reaches and their neighbours: a push on a line clear of all
//!   of them leaves the princess the cells of the unpushed board, found once.
//! - The pushes of a line crossing those cells differ only in the tile inserted: the line is
//!   walked once with the inserted cell closed, and each rotation adds the cells the inserted
//!   tile joins to that walk.
//! - A line beside them (none of them on it, some next to it) leaves them all reachable: the
//!   walk grows only where a pushed tile meets one of them open towards it, from there.
//! - The number of cells of each walk is counted once, when the legal set keeps it, without a
//!   popcount instruction (which the x86-64 baseline lacks).

use super::Level;
use super::board::{Push, class_of, pushed_cell};
use super::legal_set::{Cells, LegalSet, ROWS, STRIDE, grid_index};

/// One bit a column of each grid row (a board row `y` is grid row `y + 1`; rows 0 and
/// `height + 1` and up are closed).
type Rows = [u32; ROWS];

/// The sides, as the bit numbers of a tile's open sides and indices of [`Board::open`].
const NORTH: usize = 0;
const WEST: usize = 1;
const SOUTH: usize = 2;
const EAST: usize = 3;

/// The four open-side bits of eight tiles at once: bit `b` of each byte of `word` gathered into
/// one byte, byte `i`'s bit at bit `i`.
fn gather(word: u64, b: usize) -> u32 {
    const LOW: u64 = 0x0101_0101_0101_0101;
    // The product puts bit 8i at bit 56 + i, and every other partial product at a bit of its
    // own below 56 or above 63, so no carry reaches the byte kept.
    const GATHER: u64 = 0x0102_0408_1020_4080;
    ((word >> b & LOW).wrapping_mul(GATHER) >> 56) as u32
}

/// The cells of a row joined along it to `cells`, where bit `x` of `joins` joins cells `x` and
/// `x + 1`.
fn close(cells: u32, joins: u32) -> u32 {
    // Rightwards by a carry: `runs` holds each cell joined to its left neighbour and the cells
    // themselves, and adding the cells carries from each through the rest of its run.
    let runs = joins << 1 | cells;
    let mut cells = ((runs + cells) ^ runs | cells) & runs;
    // Leftwards by doubling: `joins` becomes the cells joined to the 2, 4, 8 and 16 cells to
    // their right (a row has at most 20 cells).
    let mut joins = joins;
    for shift in [1, 2, 4, 8, 16] {
        cells |= cells >> shift & joins;
        joins &= joins >> shift;
    }
    cells
}

/// Where a pushed copy of a board may differ from it: the rows to put back before the next
/// push.
#[derive(Clone, Copy)]
enum Changed {
    Nothing,
    /// A grid row, and the joins above and below it.
    Row(usize),
    /// Any row of the board.
    Board,
}

/// A board as rows of bits.
#[derive(Clone, Copy)]
struct Board {
    /// `open[b][r]`: the cells of grid row `r` whose tile is open towards side `b`.
    open: [Rows; 4],
    /// Bit `x` of row `r`: cells `x` and `x + 1` of the row open towards each other.
    east_joins: Rows,
    /// Bit `x` of row `r`: cell `x` of the row and the cell below it open towards each other.
    south_joins: Rows,
    width: usize,
    height: usize,
}

impl Board {
    fn new(tiles: &[u8], width: usize, height: usize) -> Board {
        let mut board = Board {
            open: [[0; ROWS]; 4],
            east_joins: [0; ROWS],
            south_joins: [0; ROWS],
            width,
            height,
        };
        for (y, row) in tiles.chunks_exact(width).enumerate() {
            for (c, chunk) in row.chunks(8).enumerate() {
                let mut bytes = [0u8; 8];
                bytes[..chunk.len()].copy_from_slice(chunk);
                let word = u64::from_le_bytes(bytes);
                for (b, open) in board.open.iter_mut().enumerate() {
                    open[y + 1] |= gather(word, b) << (8 * c);
                }
            }
        }
        board.join_all();
        board
    }

    fn join_all(&mut self) {
        let [north, west, south, east] = &self.open;
        for r in 0..ROWS {
            self.east_joins[r] = east[r] & west[r] >> 1;
        }
        for r in 0..ROWS - 1 {
            self.south_joins[r] = south[r] & north[r + 1];
        }
    }

    /// The joins of grid row `r` (1 to `height`) after its tiles changed.
    fn join_row(&mut self, r: usize) {
        let [north, west, south, east] = &self.open;
        self.east_joins[r] = east[r] & west[r] >> 1;
        self.south_joins[r - 1] = south[r - 1] & north[r];
        self.south_joins[r] = south[r] & north[r + 1];
    }

    /// Makes `self` `board` with `line` pushed and a closed tile entering; returns the column
    /// and grid row where it entered. `changed` tells the rows where `self` differs from
    /// `board` before, and after.
    fn push_closed(&mut self, board: &Board, line: Line, changed: &mut Changed) -> (usize, usize) {
        let (w, h) = (self.width, self.height.min(ROWS - 2));
        let Line { c, p, k } = line;
        if c == 0 {
            self.restore(board, *changed);
            let r = k + 1;
            *changed = Changed::Row(r);
            let full = (1u32 << w) - 1;
            for open in &mut self.open {
                open[r] = if p == 1 {
                    open[r] << 1 & full
                } else {
                    open[r] >> 1
                };
            }
            self.join_row(r);
            (if p == 1 { 0 } else { w - 1 }, r)
        } else {
            // Every row of the board takes bit `k` from the row before (or after) it, the row
            // below the board stays closed, and no other row around it is ever changed: every
            // row that may differ is rewritten. Loops over every row, without bounds to check.
            *changed = Changed::Board;
            let bit = 1u32 << k;
            for (open, from) in self.open.iter_mut().zip(&board.open) {
                for r in 1..ROWS - 1 {
                    let next = if p == 1 { from[r - 1] } else { from[r + 1] };
                    open[r] = from[r] & !bit | next & bit;
                }
                open[h + 1] = 0;
            }
            self.join_all();
            (k, if p == 1 { 1 } else { h })
        }
    }

    /// Makes `self` `board` again where `changed` says it may differ.
    fn restore(&mut self, board: &Board, changed: Changed) {
        match changed {
            Changed::Nothing => {}
            Changed::Row(r) => {
                for (open, from) in self.open.iter_mut().zip(&board.open) {
                    open[r] = from[r];
                }
                self.east_joins[r] = board.east_joins[r];
                self.south_joins[r - 1] = board.south_joins[r - 1];
                self.south_joins[r] = board.south_joins[r];
            }
            Changed::Board => *self = *board,
        }
    }

    /// Puts tile `t` at column `x` of grid row `r`.
    fn set_tile(&mut self, x: usize, r: usize, t: u8) {
        for (b, open) in self.open.iter_mut().enumerate() {
            open[r] = open[r] & !(1 << x) | u32::from(t >> b & 1) << x;
        }
        self.join_row(r);
    }

    /// Whether tile `t`, entered at column `x` of grid row `r` (closed on the board), joins
    /// each neighbour: north, west, south, east.
    fn joined(&self, x: usize, r: usize, t: u8) -> [bool; 4] {
        let [north, west, south, east] = &self.open;
        let neighbour = [
            south[r - 1] >> x,
            east[r] << 1 >> x,
            north[r + 1] >> x,
            west[r] >> (x + 1),
        ];
        std::array::from_fn(|b| t >> b & 1 == 1 && neighbour[b] & 1 == 1)
    }

    /// Grows `cells` by every cell reachable from them, where every row but `lo..=hi` (grid
    /// rows) is closed already: none of its cells is joined along the row or to the rows
    /// around it to a cell not in `cells`.
    fn flood(&self, cells: &mut Cells, lo: usize, hi: usize) {
        let rows = &mut cells.0;
        let (mut lo, mut hi) = (lo, hi);
        loop {
            (lo, hi) = self.sweep_down(rows, lo, hi);
            if lo > hi {
                return;
            }
            (lo, hi) = self.sweep_up(rows, lo, hi);
            if lo > hi {
                return;
            }
        }
    }

    /// Closes rows `lo..=hi` downwards, each taking the cells joined to the row above it, and
    /// on as long as the row below gains. Returns the rows that would gain from the row below
    /// them (none: the first after the last).
    fn sweep_down(&self, rows: &mut Rows, lo: usize, hi: usize) -> (usize, usize) {
        let (mut up_lo, mut up_hi) = (ROWS, 0);
        let mut r = lo;
        loop {
            let row = close(
                rows[r] | rows[r - 1] & self.south_joins[r - 1],
                self.east_joins[r],
            );
            rows[r] = row;
            if row & self.south_joins[r - 1] & !rows[r - 1] != 0 {
                up_lo = up_lo.min(r - 1);
                up_hi = r - 1;
            }
            if r >= hi && row & self.south_joins[r] & !rows[r + 1] == 0 {
                return (up_lo, up_hi);
            }
            r += 1;
        }
    }

    /// [`Board::sweep_down`] upwards, from `hi`.
    fn sweep_up(&self, rows: &mut Rows, lo: usize, hi: usize) -> (usize, usize) {
        let (mut down_lo, mut down_hi) = (ROWS, 0);
        let mut r = hi;
        loop {
            let row = close(
                rows[r] | rows[r + 1] & self.south_joins[r],
                self.east_joins[r],
            );
            rows[r] = row;
            if row & self.south_joins[r] & !rows[r + 1] != 0 {
                down_lo = r + 1;
                down_hi = down_hi.max(r + 1);
            }
            if r <= lo && row & self.south_joins[r - 1] & !rows[r - 1] == 0 {
                return (down_lo, down_hi);
            }
            r -= 1;
        }
    }

    /// The cells reachable from grid index `from`.
    fn walk(&self, from: usize) -> Cells {
        let mut cells = Cells::EMPTY;
        cells.insert(from);
        self.flood(&mut cells, from / STRIDE, from / STRIDE);
        cells
    }

    /// Bit `y` of each: the tile at `(k, y)` open west, open east; the tile at `(k - 1, y)`
    /// open east and in `cells`; the tile at `(k + 1, y)` open west and in `cells`.
    fn column_sides(&self, cells: &Cells, k: usize) -> [u32; 4] {
        let (west, east) = (&self.open[WEST], &self.open[EAST]);
        let mut sides = [0; 4];
        for y in 0..self.height {
            let r = y + 1;
            let bits = [
                west[r] >> k,
                east[r] >> k,
                (cells.0[r] & east[r]) << 1 >> k,
                (cells.0[r] & west[r]) >> (k + 1),
            ];
            for (side, bit) in sides.iter_mut().zip(bits) {
                *side |= (bit & 1) << y;
            }
        }
        sides
    }
}

/// A pushable line and the direction of its pushes.
#[derive(Clone, Copy)]
struct Line {
    c: u8,
    p: u8,
    k: usize,
}

impl Line {
    fn push(self, t: u8) -> Push {
        Push::new(self.c, self.p, self.k as u8, t)
    }

    /// Bit set `bits` along the line (`len` cells) after the push, with `entered` as the bit
    /// of the inserted tile.
    fn shifted(self, bits: u32, len: usize, entered: bool) -> u32 {
        let full = (1u32 << len) - 1;
        if self.p == 1 {
            (bits << 1 & full) | u32::from(entered)
        } else {
            bits >> 1 | u32::from(entered) << (len - 1)
        }
    }
}

/// What the pushes of one ply share: the board, the cells the princess walks to on it unpushed,
/// and the legal set being filled.
struct Listing<'a> {
    board: Board,
    /// The board with the line being listed pushed.
    pushed: Board,
    /// Where `pushed` differs from `board`.
    changed: Changed,
    /// The princess's cell, index `y * width + x`.
    at: usize,
    /// The rotations of the extra tile, ascending.
    rotations: &'a [u8],
    still: Cells,
    /// The index of `still` in `out`.
    still_id: u16,
    out: &'a mut LegalSet,
}

/// Fills `out` with every valid push for a princess on cell index `at` (`y * width + x`) with
/// `extra` as the extra tile, each with the cells reachable after it, in the order of
/// [`super::Labyrinth::valid_pushes`].
pub(super) fn list(tiles: &[u8], level: &Level, at: usize, extra: u8, out: &mut LegalSet) {
    let (w, h) = (level.width, level.height);
    let (rotations, count) = class_of(extra);
    let board = Board::new(tiles, w, h);
    let still = board.walk(grid_index(at % w, at / w));
    out.clear();
    let still_id = out.add_cells(&still);
    let mut listing = Listing {
        board,
        pushed: board,
        changed: Changed::Nothing,
        at,
        rotations: &rotations[..count],
        still,
        still_id,
        out,
    };
    let (rows, columns) = still.lines();
    let widen = |lines: u32| lines | lines << 1 | lines >> 1;
    for c in 0..2u8 {
        let (lines, walked) = if c == 0 { (h, rows) } else { (w, columns) };
        for p in 0..2u8 {
            for k in 0..lines {
                let blocked = if c == 0 {
                    level.row_blocked(k)
                } else {
                    level.column_blocked(k)
                };
                let line = Line { c, p, k };
                if blocked {
                } else if walked >> k & 1 == 1 {
                    listing.across(line);
                } else if widen(walked) >> k & 1 == 1 {
                    listing.beside(line);
                } else {
                    for &t in listing.rotations {
                        listing.out.add_push(line.push(t), listing.still_id);
                    }
                }
            }
        }
    }
}

impl Listing<'_> {
    /// The pushes of a line beside the walk (no walked cell on it, some next to it): the walk
    /// stays, and grows where a pushed tile meets a walked cell open towards it.
    fn beside(&mut self, line: Line) {
        let (board, still) = (&self.board, &self.still);
        let k = line.k;
        // Along the line: its tiles open towards the walk's side before it and after it, and
        // the walked cells there open towards the line.
        let (len, [before, after, from_before, from_after]) = if line.c == 0 {
            let r = k + 1;
            let open = &board.open;
            let sides = [
                open[NORTH][r],
                open[SOUTH][r],
                still.0[r - 1] & open[SOUTH][r - 1],
                still.0[r + 1] & open[NORTH][r + 1],
            ];
            (board.width, sides)
        } else {
            (board.height, board.column_sides(still, k))
        };
        let (open_before, open_after) = if line.c == 0 {
            (NORTH, SOUTH)
        } else {
            (WEST, EAST)
        };
        for &t in self.rotations {
            let push = line.push(t);
            let meets = from_before & line.shifted(before, len, t >> open_before & 1 == 1)
                | from_after & line.shifted(after, len, t >> open_after & 1 == 1);
            if meets == 0 {
                self.out.add_push(push, self.still_id);
                continue;
            }
            let cells = self.grow(line, t, meets);
            let id = self.out.add_cells(&cells);
            self.out.add_push(push, id);
        }
    }

    /// The walk after pushing `line` with `t` entering, where the cells `meets` along the line
    /// are the ones it meets.
    fn grow(&mut self, line: Line, t: u8, meets: u32) -> Cells {
        let (x, r) = self
            .pushed
            .push_closed(&self.board, line, &mut self.changed);
        self.pushed.set_tile(x, r, t);
        let mut cells = self.still;
        let (lo, hi) = if line.c == 0 {
            cells.0[line.k + 1] |= meets;
            (line.k + 1, line.k + 1)
        } else {
            let mut bits = meets;
            while bits != 0 {
                cells.0[bits.trailing_zeros() as usize + 1] |= 1 << line.k;
                bits &= bits - 1;
            }
            (
                meets.trailing_zeros() as usize + 1,
                32 - meets.leading_zeros() as usize,
            )
        };
        self.pushed.flood(&mut cells, lo, hi);
        cells
    }

    /// The pushes of a line across the walk, one per rotation: the line walked once with the
    /// inserted cell closed, and for each rotation the cells the inserted tile joins to that
    /// walk.
    fn across(&mut self, line: Line) {
        let (w, h) = (self.board.width, self.board.height);
        let (x, r) = self
            .pushed
            .push_closed(&self.board, line, &mut self.changed);
        let entered = r * STRIDE + x;
        let (px, py) = pushed_cell(w, h, line.push(0), self.at % w, self.at / w);
        let princess = grid_index(px, py);
        // The princess rode out of the board and in again: she stands on the inserted tile.
        let on_entered = princess == entered;
        let base = if on_entered {
            Cells::EMPTY
        } else {
            self.pushed.walk(princess)
        };
        let base_id = self.out.add_cells(&base);
        let neighbours = [entered - STRIDE, entered - 1, entered + STRIDE, entered + 1];
        // The cells reached from each neighbour of the inserted cell, walked when first needed.
        let mut around: [Option<Cells>; 4] = [None; 4];
        for &t in self.rotations {
            let push = line.push(t);
            let joined = self.pushed.joined(x, r, t);
            // Without branches on the board: which of them go is as good as random.
            let reaches_entered = on_entered
                | (0..4).fold(false, |reaches, d| {
                    reaches | joined[d] & base.contains(neighbours[d])
                });
            if !reaches_entered {
                self.out.add_push(push, base_id);
                continue;
            }
            let mut cells = base;
            cells.insert(entered);
            for d in (0..4).filter(|&d| joined[d]) {
                let j = neighbours[d];
                if !base.contains(j) {
                    cells.union(around[d].get_or_insert_with(|| self.pushed.walk(j)));
                }
            }
            let id = self.out.add_cells(&cells);
            self.out.add_push(push, id);
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::super::{Action, Cell, Labyrinth, LegalSet, push_tiles, reach};
    use super::*;
    use crate::Game;

    /// The listing without shared work: each valid push played on a copy and walked.
    fn plain(game: &Labyrinth) -> Vec<Action> {
        let (w, h) = (game.width(), game.height());
        let at = game.position(game.seat_on_turn());
        let mut pushes = Vec::new();
        game.valid_pushes(&mut pushes);
        let mut out = Vec::new();
        for push in pushes {
            let mut tiles = game.tiles().to_vec();
            push_tiles(&mut tiles, w, h, push);
            let (x, y) = pushed_cell(w, h, push, at.x.into(), at.y.into());
            for cell in reach(&tiles, w, h, y * w + x).iter() {
                out.push(Action::goto(push, (cell % w) as u8, (cell / w) as u8));
            }
        }
        out
    }

    /// A `width` × `height` board whose tiles are crosses with probability `open` / 8 and
    /// random tiles otherwise, with one blocked cell when it fits and a princess anywhere.
    fn board(width: usize, height: usize, open: u64, rng: &mut impl Rng) -> Level {
        let tiles = (0..width * height)
            .map(|_| {
                if rng.random_range(0..8) < open {
                    15
                } else {
                    rng.random_range(1..16)
                }
            })
            .collect();
        let blocked = if width >= 3 && height >= 3 {
            vec![Cell::new(1, 1)]
        } else {
            vec![]
        };
        let cell = |i: usize| Cell::new((i % width) as u8, (i / width) as u8);
        let displays = (0..3.min(width * height)).map(cell).collect::<Vec<_>>();
        let targets = vec![(0..displays.len() as u8).collect()];
        let start = cell(rng.random_range(0..width * height));
        Level::unchecked(
            width,
            height,
            tiles,
            blocked,
            displays,
            40,
            targets,
            vec![start],
        )
    }

    /// Plays random listed turns of `game`, comparing the listing with the plain one each ply,
    /// and the legal set's count and every action it picks with the listing.
    fn agree_along(mut game: Labyrinth, rng: &mut impl Rng) {
        let mut actions = Vec::new();
        let mut set = LegalSet::new();
        while game.to_move().is_some() {
            game.legal_actions(&mut actions);
            assert_eq!(actions, plain(&game), "{:?}", game.tiles());
            game.legal_set(&mut set);
            assert_eq!(set.len(), actions.len());
            let picked: Vec<Action> = (0..set.len()).filter_map(|i| set.nth(i)).collect();
            assert_eq!(picked, actions);
            assert_eq!(set.nth(set.len()), None);
            game.apply_unchecked(actions[rng.random_range(0..actions.len())]);
        }
    }

    /// `cells` spread along a row one join at a time, until nothing changes.
    fn close_plainly(mut cells: u32, joins: u32) -> u32 {
        loop {
            let next = cells | (cells & joins) << 1 | cells >> 1 & joins;
            if next == cells {
                return cells;
            }
            cells = next;
        }
    }

    #[test]
    fn closes_rows_as_spreading_one_join_at_a_time_does() {
        for joins in 0..1u32 << 7 {
            for cells in 0..1u32 << 8 {
                assert_eq!(close(cells, joins), close_plainly(cells, joins));
            }
        }
        let mut rng = rand::rngs::SmallRng::seed_from_u64(9);
        for _ in 0..10_000 {
            let joins = rng.random_range(0..1u32 << 19);
            let cells = rng.random_range(0..1u32 << 20) & rng.random_range(0..1u32 << 20);
            assert_eq!(close(cells, joins), close_plainly(cells, joins));
        }
    }

    #[test]
    fn a_board_holds_each_tile_side_at_its_bit() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(10);
        for (width, height) in [(2, 2), (7, 3), (8, 5), (9, 20), (20, 20), (17, 1)] {
            let tiles: Vec<u8> = (0..width * height)
                .map(|_| rng.random_range(0..16))
                .collect();
            let board = Board::new(&tiles, width, height);
            for (b, open) in board.open.iter().enumerate() {
                for (r, &row) in open.iter().enumerate() {
                    let expected = (0..width)
                        .filter(|&x| {
                            (1..=height).contains(&r) && tiles[(r - 1) * width + x] >> b & 1 == 1
                        })
                        .fold(0u32, |bits, x| bits | 1 << x);
                    assert_eq!(row, expected, "side {b}, row {r} of {width}x{height}");
                }
            }
        }
    }

    #[test]
    fn lists_what_walking_each_push_lists_on_generated_levels() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        for seed in 1..=5 {
            for players in [1, 4] {
                agree_along(Labyrinth::generated(seed, players).unwrap(), &mut rng);
            }
        }
    }

    #[test]
    fn lists_what_walking_each_push_lists_on_every_size_and_openness() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(8);
        let sizes = [(2, 2), (2, 20), (20, 2), (3, 5), (7, 4), (20, 20), (19, 13)];
        for (width, height) in sizes {
            for open in [0, 2, 4, 7, 8] {
                let level = board(width, height, open, &mut rng);
                agree_along(Labyrinth::new(level, 1).unwrap(), &mut rng);
            }
        }
    }
}
