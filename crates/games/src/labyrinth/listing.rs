//! The legal-action listing: every valid push with every cell the princess can walk to after it
//! (docs/games/labyrinth.md#walk), in the order [`super::Labyrinth::valid_pushes`] gives the
//! pushes and ascending cells after each.
//!
//! A ply lists over a thousand actions, and random playouts and searches spend most of their
//! time here, so the listing shares work between pushes:
//!
//! - The board is copied once into a [`Grid`]: rows of 32 cells with closed cells all around
//!   the board, so that a walk needs no border checks and a cell's column and row are bit fields
//!   of its index. A push moves only its own line of the grid, which is put back afterwards.
//! - A walk reads only the cells it reaches and their neighbours: a push on a line clear of all
//!   of them leaves the princess the cells of the unpushed board, found once.
//! - The pushes of a line crossing those cells differ only in the tile inserted: the line is
//!   walked once with the inserted cell closed, and each rotation adds the cells the inserted
//!   tile joins to that walk.
//! - A line beside them (none of them on it, some next to it) leaves them all reachable: the
//!   walk grows only where a pushed tile meets one of them open towards it, from there.

use super::Level;
use super::board::{EAST, MAX_CELLS, NORTH, Push, SOUTH, WEST, class_of, pushed_cell};
use super::legal_set::{Cells, GRID, LegalSet, STRIDE, grid_index};

/// Places of the tile and mark arrays: the grid rounded up to a power of two, so that an index
/// masked with `SPAN - 1` needs no bounds check in the walk.
const SPAN: usize = GRID.next_power_of_two();
/// Places of the walk's queue: every cell of a board and one spare, rounded up likewise.
const QUEUE: usize = (MAX_CELLS + 1).next_power_of_two();
/// Most rows or columns a board has.
const MAX_SIDE: usize = 20;

/// The four sides with the step to the neighbour across each and the side facing back.
const SIDES: [(u8, isize, u8); 4] = [
    (NORTH, -(STRIDE as isize), SOUTH),
    (WEST, -1, EAST),
    (SOUTH, STRIDE as isize, NORTH),
    (EAST, 1, WEST),
];

/// The sides of a walk's cells open towards each line, as bit sets along the line: a push of a
/// line without a cell of the walk joins new cells to it only where they meet one of these.
struct Faces {
    /// `from_above[k]`: the columns `x` whose cell `(x, k - 1)` is walked and open south.
    from_above: [u32; MAX_SIDE],
    /// `from_below[k]`: the columns `x` whose cell `(x, k + 1)` is walked and open north.
    from_below: [u32; MAX_SIDE],
    /// `from_left[k]`: the rows `y` whose cell `(k - 1, y)` is walked and open east.
    from_left: [u32; MAX_SIDE],
    /// `from_right[k]`: the rows `y` whose cell `(k + 1, y)` is walked and open west.
    from_right: [u32; MAX_SIDE],
}

impl Faces {
    fn new(grid: &Grid, cells: &Cells) -> Faces {
        let mut faces = Faces {
            from_above: [0; MAX_SIDE],
            from_below: [0; MAX_SIDE],
            from_left: [0; MAX_SIDE],
            from_right: [0; MAX_SIDE],
        };
        cells.for_each(|i| {
            let (x, y) = (i % STRIDE, i / STRIDE - 1);
            let t = grid.tiles[i];
            let face = |open: u8, lines: &mut [u32; MAX_SIDE], line: Option<usize>, bit| {
                if let Some(k) = line.filter(|&k| k < MAX_SIDE && t & open != 0) {
                    lines[k] |= 1u32 << bit;
                }
            };
            face(SOUTH, &mut faces.from_above, Some(y + 1), x);
            face(NORTH, &mut faces.from_below, y.checked_sub(1), x);
            face(EAST, &mut faces.from_left, Some(x + 1), y);
            face(WEST, &mut faces.from_right, x.checked_sub(1), y);
        });
        faces
    }
}

/// A board copied into rows of [`STRIDE`] cells, with a closed cell (tile 0) on every side of
/// the board: cell `(x, y)` is at `(y + 1) * STRIDE + x`.
struct Grid {
    tiles: [u8; SPAN],
    width: usize,
    height: usize,
    /// The cells a walk has met, in the order met (one spare place: every cell met and a
    /// neighbour written past them).
    queue: [u16; QUEUE],
    /// `stamp` on the cells the current walk has met.
    marks: [u16; SPAN],
    /// The current walk's number.
    stamp: u16,
}

impl Grid {
    fn new(tiles: &[u8], width: usize, height: usize) -> Grid {
        let mut grid = Grid {
            tiles: [0; SPAN],
            width,
            height,
            queue: [0; QUEUE],
            marks: [0; SPAN],
            stamp: 0,
        };
        for y in 0..height {
            grid.restore_row(tiles, y);
        }
        grid
    }

    fn index(x: usize, y: usize) -> usize {
        grid_index(x, y)
    }

    fn restore_row(&mut self, tiles: &[u8], y: usize) {
        let w = self.width;
        let at = Grid::index(0, y);
        self.tiles[at..at + w].copy_from_slice(&tiles[y * w..(y + 1) * w]);
    }

    fn restore_column(&mut self, tiles: &[u8], x: usize) {
        for y in 0..self.height {
            self.tiles[Grid::index(x, y)] = tiles[y * self.width + x];
        }
    }

    /// Puts line `c`, `k` back as it is in `tiles`, undoing [`Grid::push_closed`].
    fn restore(&mut self, tiles: &[u8], c: u8, k: usize) {
        if c == 0 {
            self.restore_row(tiles, k)
        } else {
            self.restore_column(tiles, k)
        }
    }

    /// Pushes line `c`, `k` towards `p` with a closed cell entering; returns where it entered.
    fn push_closed(&mut self, c: u8, p: u8, k: usize) -> usize {
        let (w, h) = (self.width, self.height);
        let entered = match (c, p) {
            (0, 1) => {
                let at = Grid::index(0, k);
                self.tiles.copy_within(at..at + w - 1, at + 1);
                at
            }
            (0, _) => {
                let at = Grid::index(0, k);
                self.tiles.copy_within(at + 1..at + w, at);
                at + w - 1
            }
            (_, 1) => {
                for y in (1..h).rev() {
                    self.tiles[Grid::index(k, y)] = self.tiles[Grid::index(k, y - 1)];
                }
                Grid::index(k, 0)
            }
            _ => {
                for y in 0..h - 1 {
                    self.tiles[Grid::index(k, y)] = self.tiles[Grid::index(k, y + 1)];
                }
                Grid::index(k, h - 1)
            }
        };
        self.tiles[entered] = 0;
        entered
    }

    /// Whether the tile at `i`, open towards `side` (one of [`SIDES`]), meets an open side there.
    fn joins(&self, i: usize, (side, step, back): (u8, isize, u8)) -> bool {
        let j = i.wrapping_add_signed(step);
        (self.tiles[i & (SPAN - 1)] & side != 0) & (self.tiles[j & (SPAN - 1)] & back != 0)
    }

    /// The cells reachable from `from` through open sides facing each other.
    fn walk(&mut self, from: usize) -> Cells {
        self.queue[0] = from as u16;
        self.walk_on(&Cells::EMPTY, 1)
    }

    /// `seen` with the cells reachable from the first `starts` cells of the queue and not
    /// through a cell of `seen`.
    fn walk_on(&mut self, seen: &Cells, starts: usize) -> Cells {
        if self.stamp == u16::MAX {
            self.marks = [0; SPAN];
            self.stamp = 0;
        }
        self.stamp += 1;
        let stamp = self.stamp;
        seen.for_each(|i| self.marks[i & (SPAN - 1)] = stamp);
        for &i in &self.queue[..starts] {
            self.marks[i as usize] = stamp;
        }
        // Without branches on the tiles, which a random board makes unpredictable: every
        // neighbour is written to the queue, and kept (the end moved past it) when it joins.
        // Marks rather than a bit set tell the cells met, so that each side's test waits for
        // no other's.
        let (mut head, mut end) = (0, starts);
        while head < end {
            let i = self.queue[head & (QUEUE - 1)] as usize;
            head += 1;
            for side in SIDES {
                let j = i.wrapping_add_signed(side.1) & (SPAN - 1);
                let new = self.joins(i, side) & (self.marks[j] != stamp);
                self.marks[j] = if new { stamp } else { self.marks[j] };
                self.queue[end & (QUEUE - 1)] = j as u16;
                end += usize::from(new);
            }
        }
        let mut cells = *seen;
        for &i in &self.queue[..end] {
            cells.insert(i as usize);
        }
        cells
    }

    /// The open sides of line `c`, `k` towards its neighbouring lines, as bit sets along it:
    /// north and south for a row, west and east for a column.
    fn sides_across(&self, c: u8, k: usize) -> (u32, u32) {
        let (mut before, mut after) = (0, 0);
        let (cells, across) = if c == 0 {
            (self.width, (NORTH, SOUTH))
        } else {
            (self.height, (WEST, EAST))
        };
        for n in 0..cells {
            let t = self.tiles[if c == 0 {
                Grid::index(n, k)
            } else {
                Grid::index(k, n)
            }];
            before |= u32::from(t & across.0 != 0) << n;
            after |= u32::from(t & across.1 != 0) << n;
        }
        (before, after)
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
/// and the GOTO lists being written.
struct Listing<'a> {
    tiles: &'a [u8],
    grid: Grid,
    /// The princess's cell, index `y * width + x`.
    at: usize,
    /// The rotations of the extra tile, ascending.
    rotations: &'a [u8],
    still: Cells,
    /// The index of `still` in `out`.
    still_id: u16,
    faces: Faces,
    out: &'a mut LegalSet,
}

/// Fills `out` with every valid push for a princess on cell index `at` (`y * width + x`) with
/// `extra` as the extra tile, each with the cells reachable after it, in the order of
/// [`super::Labyrinth::valid_pushes`].
pub(super) fn list(tiles: &[u8], level: &Level, at: usize, extra: u8, out: &mut LegalSet) {
    let (w, h) = (level.width, level.height);
    let (rotations, count) = class_of(extra);
    let mut grid = Grid::new(tiles, w, h);
    let still = grid.walk(Grid::index(at % w, at / w));
    out.clear();
    let still_id = out.add_cells(&still);
    let mut listing = Listing {
        tiles,
        faces: Faces::new(&grid, &still),
        grid,
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
        let (c, k) = (line.c, line.k);
        let len = if c == 0 {
            self.grid.width
        } else {
            self.grid.height
        };
        let (before, after) = self.grid.sides_across(c, k);
        let faces = &self.faces;
        let (from_before, from_after) = if c == 0 {
            (faces.from_above[k], faces.from_below[k])
        } else {
            (faces.from_left[k], faces.from_right[k])
        };
        let (open_before, open_after) = if c == 0 { (NORTH, SOUTH) } else { (WEST, EAST) };
        for &t in self.rotations {
            let push = line.push(t);
            let meets = from_before & line.shifted(before, len, t & open_before != 0)
                | from_after & line.shifted(after, len, t & open_after != 0);
            if meets == 0 {
                self.out.add_push(push, self.still_id);
                continue;
            }
            let entered = self.grid.push_closed(c, line.p, k);
            self.grid.tiles[entered] = t;
            let mut starts = 0;
            for n in (0..len).filter(|n| meets >> n & 1 == 1) {
                let i = if c == 0 {
                    Grid::index(n, k)
                } else {
                    Grid::index(k, n)
                };
                self.grid.queue[starts] = i as u16;
                starts += 1;
            }
            let cells = self.grid.walk_on(&self.still, starts);
            self.grid.restore(self.tiles, c, k);
            let id = self.out.add_cells(&cells);
            self.out.add_push(push, id);
        }
    }

    /// The pushes of a line across the walk, one per rotation: the line walked once with the
    /// inserted cell closed, and for each rotation the cells the inserted tile joins to that
    /// walk.
    fn across(&mut self, line: Line) {
        let grid = &mut self.grid;
        let (w, h) = (grid.width, grid.height);
        let Line { c, p, k } = line;
        let entered = grid.push_closed(c, p, k);
        let (px, py) = pushed_cell(w, h, line.push(0), self.at % w, self.at / w);
        let princess = Grid::index(px, py);
        // The princess rode out of the board and in again: she stands on the inserted tile.
        let on_entered = princess == entered;
        let base = if on_entered {
            Cells::EMPTY
        } else {
            grid.walk(princess)
        };
        let base_id = self.out.add_cells(&base);
        // The cells reached from each neighbour of the inserted cell, walked when first needed.
        let mut around: [Option<Cells>; 4] = [None; 4];
        for &t in self.rotations {
            let push = line.push(t);
            grid.tiles[entered] = t;
            let joined: [bool; 4] = std::array::from_fn(|d| grid.joins(entered, SIDES[d]));
            let neighbour = |d: usize| entered.wrapping_add_signed(SIDES[d].1);
            let reaches_entered =
                on_entered || (0..4).any(|d| joined[d] && base.contains(neighbour(d)));
            grid.tiles[entered] = 0;
            if !reaches_entered {
                self.out.add_push(push, base_id);
                continue;
            }
            let mut cells = base;
            cells.insert(entered);
            for d in (0..4).filter(|&d| joined[d]) {
                let j = neighbour(d);
                if !base.contains(j) {
                    cells.union(around[d].get_or_insert_with(|| grid.walk(j)));
                }
            }
            let id = self.out.add_cells(&cells);
            self.out.add_push(push, id);
        }
        grid.restore(self.tiles, c, k);
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
