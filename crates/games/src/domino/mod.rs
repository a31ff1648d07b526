//! Domino on a torus, as docs/games/domino.md says: the game of the Polish course judge ("Sędzia",
//! WUT ASD) with our decisions of docs/games/domino.md#differences-from-the-original-judges.
//!
//! Two players take turns placing 2×1 dominoes on an odd n×n board whose edges wrap; some cells
//! are blocked from the start. The player to move with no legal placement loses. It is the
//! impartial game Cram, played on a torus with obstacles.
//!
//! # Representation
//!
//! The free cells are one `u64` per row (bit `x` of row `y` is the cell `(x, y)`), which is why
//! boards go up to 63×63. A domino's two cells are then a bit and its neighbour in the same row
//! (rotated by one within the row, for the wrap) or the same bit in the next row (modulo n).
//! All legal placements of a row come out of two `&`s, so counting them is a few popcounts and
//! listing them allocates nothing beyond the caller's buffer. A position holds no heap data but
//! its shared settings: a clone is one `memcpy` and a reference count.
//!
//! # Boards
//!
//! A board is a size and obstacles. [`Settings::generated`] draws both from a board seed as the
//! original judge did (n odd in 13..=51 by [`judge_size`], `(n² + 5) div 10` distinct obstacles,
//! uniform), from a ChaCha stream so that the same seed gives the same board on every machine
//! and version: the two games of a pairing share one board by sharing the seed.

mod record;
mod wire;

pub use record::{ActionRecord, PlaceKind, Snapshot};
pub use wire::{ACK, DominoClient, REPLY_LIMIT, STARTUP_ALLOWANCE, parse_move, parse_obstacles};

use std::fmt;
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::{Game, Illegal, Outcome, PlayerId};

/// Smallest board: an odd size, and 1×1 has no domino at all.
pub const MIN_SIZE: u8 = 3;
/// Largest board: a row is one `u64`.
pub const MAX_SIZE: u8 = 63;
/// Sizes of generated boards: odd, from 13 to 51 (the original judge's range).
pub const GENERATED_SIZES: std::ops::RangeInclusive<u8> = 13..=51;
/// The outcome's reason when the player to move has no legal placement.
pub const NO_MOVES: &str = "no_moves";

const ROWS: usize = MAX_SIZE as usize;

/// A cell `(x, y)`: `x` the column, `y` the row, both from 0.
///
/// Coordinates are `u16` so that an answer naming a cell far off the board is still a cell
/// (an illegal move, not a malformed line).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Cell {
    /// Column, from 0 (`0..size` on the board).
    pub x: u16,
    /// Row, from 0 (`0..size` on the board).
    pub y: u16,
}

impl Cell {
    /// The cell in column `x`, row `y`.
    pub const fn new(x: u16, y: u16) -> Cell {
        Cell { x, y }
    }
}

/// `{x;y}`, as the protocol writes a cell.
impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{};{}}}", self.x, self.y)
    }
}

/// A domino on two cells, in the order its player gave them (the opponent is told that order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Placement {
    /// The first cell, as the player named it.
    pub a: Cell,
    /// The second cell; in a legal placement it is next to `a`, possibly across the wrapping edge.
    pub b: Cell,
}

impl Placement {
    /// A domino on `a` and `b`, in that order.
    pub const fn new(a: Cell, b: Cell) -> Placement {
        Placement { a, b }
    }

    /// The same domino with its cells in the order [`Game::legal_actions`] lists them: the
    /// first cell is the left (or upper) one, seen from the domino, wrap included.
    pub fn canonical(self, size: u8) -> Placement {
        let n = u16::from(size);
        let left_or_up = (self.a.y == self.b.y && (self.a.x + 1) % n == self.b.x)
            || (self.a.x == self.b.x && (self.a.y + 1) % n == self.b.y);
        if left_or_up {
            self
        } else {
            Placement::new(self.b, self.a)
        }
    }
}

/// `{x1;y1},{x2;y2}`, as the protocol writes a move.
impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.a, self.b)
    }
}

/// The token that tells the first player to make the first move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StartToken {
    /// `START`, as the Java judge sends it.
    #[default]
    #[serde(rename = "START")]
    Upper,
    /// `start`, as the C# judge sends it (some bots compare case-sensitively).
    #[serde(rename = "start")]
    Lower,
}

impl StartToken {
    /// The token as sent: `START` or `start`.
    pub fn as_str(self) -> &'static str {
        match self {
            StartToken::Upper => "START",
            StartToken::Lower => "start",
        }
    }

    /// The token a text names, matched case-sensitively; `None` for anything else.
    pub fn parse(text: &str) -> Option<StartToken> {
        match text {
            "START" => Some(StartToken::Upper),
            "start" => Some(StartToken::Lower),
            _ => None,
        }
    }
}

/// The settings of one match: the board, and how it is told to the bots.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// The side of the board: odd, `MIN_SIZE..=MAX_SIZE`.
    pub size: u8,
    /// Blocked cells, distinct, in row-major order (by `y`, then `x`).
    pub obstacles: Vec<Cell>,
    /// Print each obstacle as `{y;x}`, as the Java judge did by mistake (docs/games/domino.md#differences-from-the-original-judges), for bots
    /// written to undo that mistake. Moves are `{x;y}` either way.
    #[serde(default)]
    pub legacy_obstacle_order: bool,
    #[serde(default)]
    /// The spelling of the token that starts the first player.
    pub start_token: StartToken,
    /// The seed the board was drawn from, if it was drawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board_seed: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid Domino settings: {0}")]
/// Why a [`Settings`] was refused.
pub struct SettingsError(pub String);

fn settings_error(text: impl Into<String>) -> SettingsError {
    SettingsError(text.into())
}

/// The number of obstacles of a drawn board: 10% of the cells, rounded half up.
pub const fn obstacle_count(size: u8) -> usize {
    let n = size as usize;
    (n * n + 5) / 10
}

/// Independent ChaCha streams of one board seed: the size is drawn from one and the obstacles
/// from the other, so that a board of a given size is the same whether its size was drawn or
/// given.
const SIZE_STREAM: u64 = 0;
const OBSTACLE_STREAM: u64 = 1;

fn board_rng(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng
}

/// How many numbers the judge draws a board size from.
pub const JUDGE_SIZE_DRAWS: u8 = *GENERATED_SIZES.end() - *GENERATED_SIZES.start();

/// The board size the judge made of a number `s` drawn uniformly in `0..38`: `s` rounded up to
/// even, plus 13. Every odd size from 15 to 49 has two numbers and 13 and 51 one each, so the
/// smallest and largest boards come half as often as the others (docs/games/domino.md).
pub const fn judge_size(s: u8) -> u8 {
    *GENERATED_SIZES.start() + s + s % 2
}

fn check_size(size: u8) -> Result<(), SettingsError> {
    if !(MIN_SIZE..=MAX_SIZE).contains(&size) || size.is_multiple_of(2) {
        return Err(settings_error(format!(
            "the board size must be odd, from {MIN_SIZE} to {MAX_SIZE}; got {size}"
        )));
    }
    Ok(())
}

impl Settings {
    /// A board drawn from `seed` as the original judge drew one: the size by [`judge_size`]
    /// from a number uniform in `0..38`, then [`obstacle_count`] obstacles uniform over the
    /// cells.
    pub fn generated(seed: u64) -> Settings {
        let mut rng = board_rng(seed, SIZE_STREAM);
        let size = judge_size(rng.random_range(0..JUDGE_SIZE_DRAWS));
        Settings::seeded(size, seed).expect("generated sizes are valid")
    }

    /// A board of the given size with [`obstacle_count`] obstacles drawn from `seed`.
    pub fn seeded(size: u8, seed: u64) -> Result<Settings, SettingsError> {
        check_size(size)?;
        let cells = usize::from(size) * usize::from(size);
        // A partial Fisher–Yates shuffle: k distinct cells, each subset equally likely.
        let mut order: Vec<u16> = (0..cells as u16).collect();
        let mut rng = board_rng(seed, OBSTACLE_STREAM);
        let k = obstacle_count(size);
        for i in 0..k {
            let j = rng.random_range(i..cells);
            order.swap(i, j);
        }
        let n = u16::from(size);
        let mut obstacles: Vec<Cell> = order[..k]
            .iter()
            .map(|&i| Cell::new(i % n, i / n))
            .collect();
        sort_row_major(&mut obstacles);
        Ok(Settings {
            size,
            obstacles,
            legacy_obstacle_order: false,
            start_token: StartToken::Upper,
            board_seed: Some(seed),
        })
    }

    /// A board given cell by cell (any order; it is kept in row-major order).
    pub fn custom(size: u8, obstacles: &[Cell]) -> Result<Settings, SettingsError> {
        let mut obstacles = obstacles.to_vec();
        sort_row_major(&mut obstacles);
        let settings = Settings {
            size,
            obstacles,
            legacy_obstacle_order: false,
            start_token: StartToken::Upper,
            board_seed: None,
        };
        settings.validate()?;
        Ok(settings)
    }

    /// Checks the size and that the obstacles are on the board, distinct and in row-major order.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check_size(self.size)?;
        let n = u16::from(self.size);
        for (i, &cell) in self.obstacles.iter().enumerate() {
            if cell.x >= n || cell.y >= n {
                return Err(settings_error(format!(
                    "obstacle {cell} is off the {n}×{n} board"
                )));
            }
            if i > 0 {
                let previous = self.obstacles[i - 1];
                if previous == cell {
                    return Err(settings_error(format!("obstacle {cell} is listed twice")));
                }
                if (previous.y, previous.x) > (cell.y, cell.x) {
                    return Err(settings_error(
                        "obstacles must be in row-major order (by y, then x)",
                    ));
                }
            }
        }
        Ok(())
    }
}

fn sort_row_major(cells: &mut [Cell]) {
    cells.sort_by_key(|c| (c.y, c.x));
}

/// Why the match ended: only ever because the player to move could not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The player to move had no legal placement and lost.
    NoMoves,
}

/// One position of a match. Player 0 moves first.
#[derive(Clone)]
pub struct Domino {
    settings: Arc<Settings>,
    /// Bit `x` of `free[y]`: the cell `(x, y)` is neither blocked nor covered.
    free: [u64; ROWS],
    /// The low `n` bits.
    row_mask: u64,
    n: u8,
    /// Placements played (and the stuck turn that ends the match).
    tick: u32,
    last: Option<Placement>,
    /// The player who had no legal placement.
    loser: Option<u8>,
}

impl fmt::Debug for Domino {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Domino")
            .field("size", &self.n)
            .field("tick", &self.tick)
            .field("last", &self.last)
            .field("loser", &self.loser)
            .field("board", &format_args!("\n{}", self.board_text()))
            .finish()
    }
}

/// Positions are equal when the same cells are free and the same player is on turn.
impl PartialEq for Domino {
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n
            && self.free[..self.n as usize] == other.free[..other.n as usize]
            && self.tick % 2 == other.tick % 2
            && self.loser == other.loser
    }
}

impl Domino {
    /// The empty board of these settings (checked first), player 0 to move.
    pub fn new(settings: Settings) -> Result<Domino, SettingsError> {
        settings.validate()?;
        let n = settings.size;
        let row_mask = (1u64 << n) - 1;
        let mut free = [0u64; ROWS];
        free[..n as usize].fill(row_mask);
        for cell in &settings.obstacles {
            free[cell.y as usize] &= !(1 << cell.x);
        }
        Ok(Domino {
            settings: Arc::new(settings),
            free,
            row_mask,
            n,
            tick: 0,
            last: None,
            loser: None,
        })
    }

    /// The settings the match was created with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The side of the board in cells.
    pub fn size(&self) -> u8 {
        self.n
    }

    /// The player on turn (the one who would be on turn, once the match is over).
    pub fn current(&self) -> PlayerId {
        (self.tick % 2) as usize
    }

    /// The last placement played, which the player on turn is told.
    pub fn last_placement(&self) -> Option<Placement> {
        self.last
    }

    /// The player who lost because it had no legal placement.
    pub fn loser(&self) -> Option<PlayerId> {
        self.loser.map(usize::from)
    }

    /// Whether `cell` is on the board and neither blocked nor covered.
    pub fn is_free(&self, cell: Cell) -> bool {
        cell.x < u16::from(self.n)
            && cell.y < u16::from(self.n)
            && self.free[cell.y as usize] >> cell.x & 1 == 1
    }

    /// The free cells, one row per `u64` (bit `x` of row `y`), `size` rows.
    pub fn free_rows(&self) -> &[u64] {
        &self.free[..self.n as usize]
    }

    /// Number of free cells.
    pub fn free_count(&self) -> u32 {
        self.free_rows().iter().map(|r| r.count_ones()).sum()
    }

    /// Row `y` turned by one cell: bit `x` of the result is bit `x + 1 (mod n)` of the row.
    #[inline]
    fn right_neighbours(&self, row: u64) -> u64 {
        (row >> 1) | ((row & 1) << (self.n - 1))
    }

    /// Placements whose left cell is in row `y`: bit `x` is the horizontal domino at `(x, y)`,
    /// `(x+1, y)`, wrap included.
    #[inline]
    fn horizontal(&self, y: usize) -> u64 {
        self.free[y] & self.right_neighbours(self.free[y])
    }

    /// Placements whose upper cell is in row `y`.
    #[inline]
    fn vertical(&self, y: usize) -> u64 {
        let below = if y + 1 == self.n as usize { 0 } else { y + 1 };
        self.free[y] & self.free[below]
    }

    /// The number of legal placements of the player on turn (the same for both players: the
    /// game is impartial).
    pub fn count_placements(&self) -> u32 {
        (0..self.n as usize)
            .map(|y| self.horizontal(y).count_ones() + self.vertical(y).count_ones())
            .sum()
    }

    /// The free cells that some legal placement covers: what is left to play for.
    pub fn live_rows(&self) -> [u64; ROWS] {
        let n = self.n as usize;
        let mut live = [0u64; ROWS];
        for y in 0..n {
            let h = self.horizontal(y);
            // The right cell of the domino at `x` is `x + 1`, wrapping.
            let h_right = ((h << 1) | (h >> (self.n - 1))) & self.row_mask;
            live[y] |= h | h_right;
            let v = self.vertical(y);
            live[y] |= v;
            live[if y + 1 == n { 0 } else { y + 1 }] |= v;
        }
        live
    }

    /// Plays `placements` one after the other, each checked: for tests and for bots that
    /// rebuild a position.
    pub fn play_all(&mut self, placements: &[Placement]) -> Result<(), Illegal> {
        for &p in placements {
            self.apply(p)?;
        }
        Ok(())
    }

    /// The board as text, row by row from `y = 0`: `#` blocked or covered, `.` free.
    pub fn board_text(&self) -> String {
        let n = self.n as usize;
        let mut text = String::with_capacity(n * (n + 1));
        for y in 0..n {
            for x in 0..n {
                text.push(if self.free[y] >> x & 1 == 1 { '.' } else { '#' });
            }
            text.push('\n');
        }
        text
    }

    fn obstacle(&self, cell: Cell) -> bool {
        self.settings
            .obstacles
            .binary_search_by_key(&(cell.y, cell.x), |c| (c.y, c.x))
            .is_ok()
    }

    fn check_cell(&self, cell: Cell) -> Result<(), Illegal> {
        let n = u16::from(self.n);
        if cell.x >= n || cell.y >= n {
            return Err(Illegal::new(format!(
                "cell {cell} is off the board: coordinates go from 0 to {}",
                n - 1
            )));
        }
        if self.free[cell.y as usize] >> cell.x & 1 == 0 {
            let what = if self.obstacle(cell) {
                "an obstacle"
            } else {
                "already covered by a domino"
            };
            return Err(Illegal::new(format!("cell {cell} is {what}")));
        }
        Ok(())
    }

    /// Calls `emit` with every legal placement, row by row: the horizontal ones of a row, then
    /// the vertical ones whose upper cell is in it.
    #[inline]
    pub fn for_each_placement(&self, mut emit: impl FnMut(Placement)) {
        let n = self.n as u16;
        for y in 0..self.n as usize {
            let (y16, below) = (y as u16, (y as u16 + 1) % n);
            let mut h = self.horizontal(y);
            while h != 0 {
                let x = h.trailing_zeros() as u16;
                h &= h - 1;
                emit(Placement::new(
                    Cell::new(x, y16),
                    Cell::new((x + 1) % n, y16),
                ));
            }
            let mut v = self.vertical(y);
            while v != 0 {
                let x = v.trailing_zeros() as u16;
                v &= v - 1;
                emit(Placement::new(Cell::new(x, y16), Cell::new(x, below)));
            }
        }
    }

    /// The `k`-th placement in [`Game::legal_actions`] order, without listing them: a random
    /// playout needs one placement, not all of them.
    pub fn nth_placement(&self, mut k: u32) -> Option<Placement> {
        let n = self.n as u16;
        for y in 0..self.n as usize {
            for (mut bits, vertical) in [(self.horizontal(y), false), (self.vertical(y), true)] {
                let count = bits.count_ones();
                if k >= count {
                    k -= count;
                    continue;
                }
                for _ in 0..k {
                    bits &= bits - 1;
                }
                let (x, y) = (bits.trailing_zeros() as u16, y as u16);
                let b = if vertical {
                    Cell::new(x, (y + 1) % n)
                } else {
                    Cell::new((x + 1) % n, y)
                };
                return Some(Placement::new(Cell::new(x, y), b));
            }
        }
        None
    }
}

impl Game for Domino {
    type Action = Placement;
    const NAME: &'static str = "domino";

    fn num_players(&self) -> usize {
        2
    }

    fn to_move(&self) -> Option<PlayerId> {
        match self.loser {
            Some(_) => None,
            None => Some(self.current()),
        }
    }

    fn tick(&self) -> u32 {
        self.tick
    }

    fn legal_actions(&self, out: &mut Vec<Placement>) {
        out.clear();
        if self.loser.is_none() {
            self.for_each_placement(|p| out.push(p));
        }
    }

    fn check(&self, p: Placement) -> Result<(), Illegal> {
        if self.loser.is_some() {
            return Err(Illegal::new("the match is over"));
        }
        self.check_cell(p.a)?;
        self.check_cell(p.b)?;
        if p.a == p.b {
            return Err(Illegal::new(format!(
                "both cells are {}: a domino covers two cells",
                p.a
            )));
        }
        let n = u16::from(self.n);
        let apart = |u: u16, v: u16| (u + n - v) % n;
        let (dx, dy) = (apart(p.a.x, p.b.x), apart(p.a.y, p.b.y));
        let step = |d: u16| d == 1 || d == n - 1;
        let side_by_side = (dy == 0 && step(dx)) || (dx == 0 && step(dy));
        if !side_by_side {
            let why = if step(dx) && step(dy) {
                "are diagonal neighbours"
            } else {
                "are not side by side"
            };
            return Err(Illegal::new(format!(
                "cells {} and {} {why}: a domino covers two cells in one row or one column \
                 (the edges wrap)",
                p.a, p.b
            )));
        }
        Ok(())
    }

    fn apply_unchecked(&mut self, p: Placement) {
        self.free[p.a.y as usize] &= !(1u64 << p.a.x);
        self.free[p.b.y as usize] &= !(1u64 << p.b.x);
        self.tick += 1;
        self.last = Some(p);
    }

    fn is_stuck(&self) -> bool {
        self.loser.is_none()
            && (0..self.n as usize).all(|y| self.horizontal(y) | self.vertical(y) == 0)
    }

    fn apply_stuck(&mut self) {
        self.loser = Some((self.tick % 2) as u8);
        self.tick += 1;
    }

    fn outcome(&self) -> Option<Outcome> {
        let loser = self.loser? as usize;
        Some(Outcome {
            scores: (0..2).map(|p| if p == loser { 0.0 } else { 1.0 }).collect(),
            placement: (0..2).map(|p| if p == loser { 2 } else { 1 }).collect(),
            reason: NO_MOVES,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec_board() -> Domino {
        let obstacles = [Cell::new(0, 1), Cell::new(2, 2), Cell::new(2, 3)];
        Domino::new(Settings::custom(5, &obstacles).unwrap()).unwrap()
    }

    #[test]
    fn counts_agree_with_the_list() {
        let game = spec_board();
        let mut actions = Vec::new();
        game.legal_actions(&mut actions);
        assert_eq!(actions.len() as u32, game.count_placements());
        for (k, &p) in actions.iter().enumerate() {
            assert_eq!(game.nth_placement(k as u32), Some(p));
            assert_eq!(p.canonical(5), p);
            assert_eq!(Placement::new(p.b, p.a).canonical(5), p);
        }
        assert_eq!(game.nth_placement(actions.len() as u32), None);
    }

    #[test]
    fn a_clone_holds_no_heap_data_but_the_shared_settings() {
        let game = spec_board();
        let copy = game.clone();
        assert!(Arc::ptr_eq(&game.settings, &copy.settings));
    }

    #[test]
    fn live_cells_leave_out_isolated_ones() {
        // Free: (1,0) and (2,1) only; neither has a free neighbour.
        let all: Vec<Cell> = (0..3)
            .flat_map(|y| (0..3).map(move |x| Cell::new(x, y)))
            .filter(|&c| c != Cell::new(1, 0) && c != Cell::new(2, 1))
            .collect();
        let game = Domino::new(Settings::custom(3, &all).unwrap()).unwrap();
        assert_eq!(game.free_count(), 2);
        assert!(game.live_rows().iter().all(|&r| r == 0));
        assert!(game.is_stuck());
    }
}
