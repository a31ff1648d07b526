//! Quoridor for 2 or 4 players on any odd board from 5×5 to 25×25, as docs/games/quoridor.md says.
//!
//! The position keeps walls as two bit sets of anchors (horizontal, vertical) and everything
//! else in small fixed arrays, so a clone is one `memcpy` plus a reference count, and playing an
//! action never allocates. Path questions are answered by flood fills on bit sets.
//!
//! Legal walls are found in bulk: overlap and crossing are a few shifts of the wall sets. The
//! path rule is the costly part, and a new wall can only cut the board in two if it closes a loop
//! of walls (with the border as one node): that needs two of its three points (ends and middle)
//! to be connected already, and a blocked edge separates its two cells exactly when the wall
//! closes a loop through it. Floods over wall points find, for every free wall at once, which of
//! its two edges would lie on a loop (see `loop_edges`). Of those walls, only one across a pawn's
//! current shortest path needs a look, and for an edge on a loop two fills, one from each end of
//! the blocked edge, decide whether the pawn's side still holds a goal cell. The shortest paths live in the position from ply to ply: they are searched
//! again only when a pawn leaves its path or a wall cuts it, and not at all once no player has
//! a wall left.

mod bits;
mod record;
mod rows;
mod wire;

pub use record::{ActionRecord, Snapshot};
pub use rows::WallRows;
pub use wire::QuoridorClient;

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::{Game, Illegal, Outcome, PlayerId};
use bits::{Bits, Masks, Words, masks, with_words, words_for, words_get, words_set};

/// Smallest board side.
pub const MIN_BOARD: u8 = 5;
/// Largest board side.
pub const MAX_BOARD: u8 = 25;

/// A cell `(x, y)`: `x` the column from the left, `y` the row from the top.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Cell {
    /// Column, `0..board`, from the left.
    pub x: u8,
    /// Row, `0..board`, from the top.
    pub y: u8,
}

impl Cell {
    /// The cell in column `x`, row `y`.
    pub const fn new(x: u8, y: u8) -> Cell {
        Cell { x, y }
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
/// Which way a wall runs.
pub enum Orientation {
    /// Lies between rows `y` and `y + 1`, along columns `x` and `x + 1` (protocol `v = 0`).
    Horizontal,
    /// Stands between columns `x` and `x + 1`, along rows `y` and `y + 1` (protocol `v = 1`).
    Vertical,
}

impl Orientation {
    /// The protocol's `v`: 1 vertical, 0 horizontal.
    pub fn as_v(self) -> u8 {
        match self {
            Orientation::Horizontal => 0,
            Orientation::Vertical => 1,
        }
    }
}

/// A wall `(x, y, v)`: `(x, y)` is the cell nearest `(0, 0)` that the wall touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Wall {
    /// Column of the anchor cell, `0..=board - 2`.
    pub x: u8,
    /// Row of the anchor cell, `0..=board - 2`.
    pub y: u8,
    /// Whether the wall is horizontal or vertical.
    pub orientation: Orientation,
}

impl Wall {
    /// A horizontal wall below cells `(x, y)` and `(x + 1, y)`.
    pub const fn horizontal(x: u8, y: u8) -> Wall {
        Wall {
            x,
            y,
            orientation: Orientation::Horizontal,
        }
    }
    /// A vertical wall right of cells `(x, y)` and `(x, y + 1)`.
    pub const fn vertical(x: u8, y: u8) -> Wall {
        Wall {
            x,
            y,
            orientation: Orientation::Vertical,
        }
    }
}

impl fmt::Display for Wall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.orientation.as_v())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// One turn: move the pawn or place a wall.
// An explicit tag makes the action four bytes (instead of three with the tag folded into the
// orientation), so listing and picking actions copies whole words.
#[repr(u8)]
pub enum Action {
    /// Move the pawn to this cell (the destination, also for jumps and side-steps).
    Move(Cell),
    /// Place this wall (the player must have one left).
    Wall(Wall),
}

/// Why the match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// A pawn reached its goal edge.
    Goal,
    /// The tick count reached `max_ticks`.
    TickLimit,
    /// Fewer than two players are left on the board.
    LastPlayerLeft,
}

impl EndReason {
    /// The reason as replays and outcomes write it (`goal`, `tick_limit`, `last_player_left`).
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::Goal => "goal",
            EndReason::TickLimit => "tick_limit",
            EndReason::LastPlayerLeft => "last_player_left",
        }
    }
}

/// The settings of one match. Also the map format of the public judge, once converted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// 2 or 4.
    pub players: u8,
    /// Odd, `MIN_BOARD..=MAX_BOARD`.
    pub board: u8,
    /// Walls each player holds at the start, by player id.
    pub walls: Vec<u8>,
    /// Id of the player who moves first, `0..players`.
    pub start_player: u8,
    /// The tick limit (at least 1): the match ends when the tick count reaches it.
    pub max_ticks: u32,
    /// Starting cell of each pawn, by player id.
    pub pawns: Vec<Cell>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid Quoridor settings: {0}")]
/// Why a [`Settings`] or a position given to [`Quoridor::from_position`] was refused.
pub struct SettingsError(pub String);

fn settings_error(text: impl Into<String>) -> SettingsError {
    SettingsError(text.into())
}

fn check_shape(players: u8, board: u8) -> Result<(), SettingsError> {
    if players != 2 && players != 4 {
        return Err(settings_error(format!(
            "players must be 2 or 4, got {players}"
        )));
    }
    if !(MIN_BOARD..=MAX_BOARD).contains(&board) || board & 1 == 0 {
        return Err(settings_error(format!(
            "board must be an odd size from {MIN_BOARD} to {MAX_BOARD}, got {board}"
        )));
    }
    Ok(())
}

/// The edge a player must reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Bottom,
    Left,
    Top,
    Right,
}

fn goal_side(players: usize, player: PlayerId) -> Side {
    const TWO: [Side; 2] = [Side::Bottom, Side::Top];
    const FOUR: [Side; 4] = [Side::Bottom, Side::Left, Side::Top, Side::Right];
    if players == 2 {
        TWO[player]
    } else {
        FOUR[player]
    }
}

fn side_contains(side: Side, m: u8, cell: Cell) -> bool {
    match side {
        Side::Bottom => cell.y == m - 1,
        Side::Left => cell.x == 0,
        Side::Top => cell.y == 0,
        Side::Right => cell.x == m - 1,
    }
}

impl Settings {
    /// The standard setup: pawns in the middle of their home edge, 20 walls split equally,
    /// 100 ticks with 2 players and 200 with 4, player 0 starts.
    pub fn standard(players: u8, board: u8) -> Result<Settings, SettingsError> {
        check_shape(players, board)?;
        let (c, last) = (board / 2, board - 1);
        let pawns = if players == 2 {
            vec![Cell::new(c, 0), Cell::new(c, last)]
        } else {
            vec![
                Cell::new(c, 0),
                Cell::new(last, c),
                Cell::new(c, last),
                Cell::new(0, c),
            ]
        };
        let settings = Settings {
            players,
            board,
            walls: vec![20 / players; players as usize],
            start_player: 0,
            max_ticks: if players == 2 { 100 } else { 200 },
            pawns,
        };
        settings.validate()?;
        Ok(settings)
    }

    /// Gives every player `walls` walls.
    pub fn with_walls_each(mut self, walls: u8) -> Settings {
        self.walls = vec![walls; self.players as usize];
        self
    }

    /// Checks the players and board size, the per-player lists, the start player, the tick
    /// limit and the starting cells.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check_shape(self.players, self.board)?;
        let n = self.players as usize;
        if self.walls.len() != n {
            return Err(settings_error(format!(
                "walls gives {} numbers but there are {n} players",
                self.walls.len()
            )));
        }
        if self.pawns.len() != n {
            return Err(settings_error(format!(
                "pawns gives {} cells but there are {n} players",
                self.pawns.len()
            )));
        }
        if self.start_player as usize >= n {
            return Err(settings_error(format!(
                "start_player is {} but the players are 0..{n}",
                self.start_player
            )));
        }
        if self.max_ticks == 0 {
            return Err(settings_error("max_ticks must be at least 1"));
        }
        for (p, &cell) in self.pawns.iter().enumerate() {
            if cell.x >= self.board || cell.y >= self.board {
                return Err(settings_error(format!(
                    "pawn of player {p} at {cell} is off the {0}×{0} board",
                    self.board
                )));
            }
            if let Some(q) = self.pawns[..p].iter().position(|&other| other == cell) {
                return Err(settings_error(format!(
                    "pawns of players {q} and {p} are both on {cell}"
                )));
            }
            if side_contains(goal_side(n, p), self.board, cell) {
                return Err(settings_error(format!(
                    "pawn of player {p} starts on its own goal at {cell}"
                )));
            }
        }
        Ok(())
    }
}

const NO_PAWN: Cell = Cell::new(u8::MAX, u8::MAX);

/// The most pawn moves a player can have: a step or a jump in each direction, or two
/// side-steps, and at most four distinct diagonal cells.
const MAX_PAWN_MOVES: usize = 8;

/// A 25×25 board has 2·25·24 cell edges and a wall blocks two that no other wall blocks.
const HISTORY_CAP: usize = 600;

const HISTORY_VERTICAL: u16 = 1 << 10;

/// Steps of the four directions: up, right, down, left.
const DIRS: [(i32, i32); 4] = [(0, -1), (1, 0), (0, 1), (-1, 0)];

/// One Quoridor position. Cloning is cheap (no heap data), so searches may copy-make.
///
/// The settings are shared behind an `Arc`: cloning bumps a reference count and copies the rest.
#[derive(Clone)]
pub struct Quoridor {
    settings: Arc<Settings>,
    /// Anchors of horizontal walls.
    h: Words,
    /// Anchors of vertical walls.
    v: Words,
    /// Cells whose lower edge a wall or the board's edge closes: `h | h << 1 | last row`, kept
    /// up to date so that pawn moves and flood fills need not derive it.
    closed_s: Words,
    /// Cells whose right edge a wall or the board's edge closes: `v | v << M | last column`.
    closed_e: Words,
    /// One shortest path per player, kept across plies: a new wall needs a path search only
    /// for the players whose path it crosses (see `legal_wall_sets`).
    paths: [Path; 4],
    tick: u32,
    max_ticks: u32,
    /// `NO_PAWN` once eliminated.
    pawns: [Cell; 4],
    walls_left: [u8; 4],
    /// 0 while on the board, `k` for the `k`-th player eliminated.
    eliminated: [u8; 4],
    m: u8,
    n: u8,
    words: u8,
    current: u8,
    alive: u8,
    eliminated_count: u8,
    end: Option<EndReason>,
    history_len: u16,
    /// Walls in placement order: anchor index, `HISTORY_VERTICAL`, placer in bits 11-12.
    history: [u16; HISTORY_CAP],
}

impl fmt::Debug for Quoridor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pawns: Vec<Option<Cell>> = (0..self.n as usize).map(|p| self.pawn(p)).collect();
        let walls: Vec<String> = self.walls().map(|(w, who)| format!("{w}@{who}")).collect();
        f.debug_struct("Quoridor")
            .field("board", &self.m)
            .field("tick", &self.tick)
            .field("current", &self.current)
            .field("pawns", &pawns)
            .field("walls_left", &&self.walls_left[..self.n as usize])
            .field("walls", &walls)
            .field("end", &self.end)
            .finish()
    }
}

/// Positions are equal when everything that decides the rest of the match is equal (the wall
/// placement order included).
impl PartialEq for Quoridor {
    fn eq(&self, other: &Self) -> bool {
        self.settings == other.settings
            && self.tick == other.tick
            && self.current == other.current
            && self.pawns == other.pawns
            && self.walls_left == other.walls_left
            && self.eliminated == other.eliminated
            && self.end == other.end
            && self.history[..self.history_len as usize]
                == other.history[..other.history_len as usize]
    }
}

/// The anchor of `i` when `magic = ceil(2^16 / m)`: exact for every index below 625.
#[inline(always)]
fn split_index(i: usize, m: usize, magic: usize) -> (u8, u8) {
    let y = (i * magic) >> 16;
    ((i - y * m) as u8, y as u8)
}

#[inline(always)]
fn div_magic(m: usize) -> usize {
    65536usize.div_ceil(m)
}

/// Cells a flood fill may enter from each side: `open_s` has the cells whose lower edge is open,
/// `open_e` those whose right edge is open.
#[derive(Clone, Copy)]
struct Open<const N: usize> {
    s: Bits<N>,
    e: Bits<N>,
    m: u32,
}

impl<const N: usize> Open<N> {
    #[inline(always)]
    fn expand(&self, r: Bits<N>) -> Bits<N> {
        r | (r & self.e).shl(1)
            | (r.shr(1) & self.e)
            | (r & self.s).shl(self.m)
            | (r.shr(self.m) & self.s)
    }

    #[inline(always)]
    fn reaches(&self, start: usize, goal: Bits<N>) -> bool {
        self.reaches_from(Bits::single(start), goal)
    }

    #[inline(always)]
    fn reaches_from(&self, mut r: Bits<N>, goal: Bits<N>) -> bool {
        loop {
            if r.intersects(goal) {
                return true;
            }
            let next = self.expand(r);
            if next == r {
                return false;
            }
            r = next;
        }
    }

    fn distance(&self, start: usize, goal: Bits<N>) -> Option<u32> {
        let mut r = Bits::single(start);
        let mut d = 0;
        loop {
            if r.intersects(goal) {
                return Some(d);
            }
            let next = self.expand(r);
            if next == r {
                return None;
            }
            r = next;
            d += 1;
        }
    }
}

impl Quoridor {
    /// The start position of a match with these settings (checked first).
    pub fn new(settings: Settings) -> Result<Quoridor, SettingsError> {
        settings.validate()?;
        let n = settings.players as usize;
        let m = settings.board;
        let mut pawns = [NO_PAWN; 4];
        let mut walls_left = [0; 4];
        pawns[..n].copy_from_slice(&settings.pawns);
        walls_left[..n].copy_from_slice(&settings.walls);
        let mk = masks(m);
        let mut q = Quoridor {
            h: [0; bits::WORDS],
            v: [0; bits::WORDS],
            closed_s: mk.row_last,
            closed_e: mk.col_last,
            paths: [Path::STALE; 4],
            tick: 0,
            max_ticks: settings.max_ticks,
            pawns,
            walls_left,
            eliminated: [0; 4],
            m,
            n: n as u8,
            words: words_for(m) as u8,
            current: settings.start_player,
            alive: n as u8,
            eliminated_count: 0,
            end: None,
            history_len: 0,
            history: [0; HISTORY_CAP],
            settings: Arc::new(settings),
        };
        q.refresh_paths();
        Ok(q)
    }

    /// A position in the middle of a match: `pawns[p]` is `None` for an eliminated player,
    /// `walls` are in placement order with their placer. Everything is checked: the walls must be
    /// legal among themselves and leave every pawn on the board a path to its goal.
    ///
    /// Players given as eliminated are taken to have left in id order (the protocol does not say
    /// when they left). The end is derived from the position: a pawn on its goal, fewer than two
    /// pawns, or `tick >= max_ticks`.
    pub fn from_position(
        settings: Settings,
        tick: u32,
        current: PlayerId,
        pawns: &[Option<Cell>],
        walls_left: &[u8],
        walls: &[(Wall, PlayerId)],
    ) -> Result<Quoridor, SettingsError> {
        let mut q = Quoridor::new(settings)?;
        let n = q.n as usize;
        let m = q.m;
        if pawns.len() != n {
            return Err(settings_error(format!(
                "{} pawns given but there are {n} players",
                pawns.len()
            )));
        }
        if walls_left.len() != n {
            return Err(settings_error(format!(
                "{} walls-left counts given but there are {n} players",
                walls_left.len()
            )));
        }
        if current >= n {
            return Err(settings_error(format!(
                "current player {current} does not exist ({n} players)"
            )));
        }
        q.alive = 0;
        for (p, &pawn) in pawns.iter().enumerate() {
            match pawn {
                Some(cell) => {
                    if cell.x >= m || cell.y >= m {
                        return Err(settings_error(format!(
                            "pawn of player {p} at {cell} is off the {m}×{m} board"
                        )));
                    }
                    if let Some(other) = pawns[..p].iter().position(|&o| o == Some(cell)) {
                        return Err(settings_error(format!(
                            "pawns of players {other} and {p} are both on {cell}"
                        )));
                    }
                    q.pawns[p] = cell;
                    q.alive += 1;
                }
                None => {
                    q.pawns[p] = NO_PAWN;
                    q.eliminated_count += 1;
                    q.eliminated[p] = q.eliminated_count;
                }
            }
            q.walls_left[p] = walls_left[p];
        }
        if q.alive > 0 && pawns[current].is_none() {
            return Err(settings_error(format!(
                "current player {current} is not on the board"
            )));
        }
        q.current = current as u8;
        for (k, &(wall, who)) in walls.iter().enumerate() {
            if who >= n {
                return Err(settings_error(format!(
                    "wall {wall} was placed by player {who}, who does not exist"
                )));
            }
            let anchor = q
                .wall_fits(wall)
                .map_err(|e| settings_error(format!("wall #{} {wall}: {e}", k + 1)))?;
            q.put_wall(anchor, wall.orientation, who);
        }
        if let Some(p) = with_words!(q.words, first_cut_off(&q, None)) {
            return Err(settings_error(format!(
                "the walls leave player {p} no path to its goal"
            )));
        }
        q.refresh_paths();
        q.tick = tick;
        q.end = if (0..n).any(|p| q.on_goal(p)) {
            Some(EndReason::Goal)
        } else if q.alive < 2 {
            Some(EndReason::LastPlayerLeft)
        } else if tick >= q.max_ticks {
            Some(EndReason::TickLimit)
        } else {
            None
        };
        Ok(q)
    }

    /// The settings the match was created with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }
    /// The side of the board in cells.
    pub fn board_size(&self) -> u8 {
        self.m
    }
    /// The player whose turn it is; still defined after the end.
    pub fn current(&self) -> PlayerId {
        self.current as usize
    }
    /// `None` once the player is eliminated.
    pub fn pawn(&self, player: PlayerId) -> Option<Cell> {
        let cell = self.pawns[player];
        (cell != NO_PAWN).then_some(cell)
    }
    /// Walls `player` can still place.
    pub fn walls_left(&self, player: PlayerId) -> u8 {
        self.walls_left[player]
    }
    /// Walls on the board in the order they were placed, with who placed them.
    pub fn walls(&self) -> impl Iterator<Item = (Wall, PlayerId)> + '_ {
        self.history[..self.history_len as usize].iter().map(|&e| {
            let c = self.cell((e & 0x3ff) as usize);
            let orientation = if e & HISTORY_VERTICAL != 0 {
                Orientation::Vertical
            } else {
                Orientation::Horizontal
            };
            (
                Wall {
                    x: c.x,
                    y: c.y,
                    orientation,
                },
                (e >> 11) as usize & 3,
            )
        })
    }
    /// Number of walls on the board.
    pub fn wall_count(&self) -> usize {
        self.history_len as usize
    }
    /// Whether `player` was eliminated (its pawn has left the board).
    pub fn is_eliminated(&self, player: PlayerId) -> bool {
        self.pawns[player] == NO_PAWN
    }
    /// Shortest-path distance from the player's pawn to its goal, ignoring pawns;
    /// `None` once eliminated.
    pub fn distance(&self, player: PlayerId) -> Option<u32> {
        self.distance_from(player, self.pawn(player)?)
    }
    /// Shortest-path distance from `cell` to `player`'s goal, ignoring pawns.
    pub fn distance_from(&self, player: PlayerId, cell: Cell) -> Option<u32> {
        if cell.x >= self.m || cell.y >= self.m || player >= self.n as usize {
            return None;
        }
        let start = self.index(cell) as usize;
        with_words!(self.words, distance_impl(self, player, start))
    }
    /// One shortest path of the player's pawn to its goal (walls block, pawns do not), from the
    /// pawn's cell to a goal cell, both included; empty once eliminated. The same position
    /// always gives the same path. A wall that lengthens the player's way must cut every
    /// shortest path, so this one too: searches try only the walls across it.
    pub fn shortest_path(&self, player: PlayerId) -> Vec<Cell> {
        match self.pawn(player) {
            Some(pawn) if player < self.n as usize => {
                let start = self.index(pawn) as usize;
                with_words!(self.words, shortest_path_impl(self, player, start))
            }
            _ => Vec::new(),
        }
    }
    /// Whether `cell` is on `player`'s goal edge.
    pub fn is_goal(&self, player: PlayerId, cell: Cell) -> bool {
        side_contains(goal_side(self.n as usize, player), self.m, cell)
    }
    /// The legal pawn moves of the player on turn.
    pub fn pawn_moves(&self, out: &mut Vec<Cell>) {
        out.clear();
        self.for_each_pawn_move(|c| out.push(c));
    }
    /// Whether the player on turn may place `wall`, and if not, why.
    pub fn check_wall(&self, wall: Wall) -> Result<(), Illegal> {
        let me = self.current as usize;
        if self.pawns[me] == NO_PAWN {
            return Err(Illegal::new(format!("player {me} is not on the board")));
        }
        if self.walls_left[me] == 0 {
            return Err(Illegal::new("no walls left"));
        }
        let anchor = self.wall_fits(wall)?;
        if let Some(p) = with_words!(
            self.words,
            first_cut_off(self, Some((anchor, wall.orientation)))
        ) {
            return Err(Illegal::new(format!(
                "wall {wall} blocks every path to the goal of player {p}"
            )));
        }
        Ok(())
    }
    /// Why the match ended; `None` while it goes on.
    pub fn end_reason(&self) -> Option<EndReason> {
        self.end
    }
    /// Number of legal actions of the player on turn; the same as `legal_actions().len()`,
    /// without building the list.
    pub fn count_legal_actions(&self) -> usize {
        let mut moves = 0;
        self.for_each_pawn_move(|_| moves += 1);
        moves + with_words!(self.words, count_walls(self))
    }

    fn index(&self, cell: Cell) -> u16 {
        cell.y as u16 * self.m as u16 + cell.x as u16
    }

    fn cell(&self, i: usize) -> Cell {
        let m = self.m as usize;
        Cell::new((i % m) as u8, (i / m) as u8)
    }

    fn on_goal(&self, player: PlayerId) -> bool {
        self.pawn(player).is_some_and(|c| self.is_goal(player, c))
    }

    /// Bit `d` is set when a pawn on `(x, y)` may cross its edge towards `DIRS[d]` (neither the
    /// board edge nor a wall is in the way).
    #[inline(always)]
    fn open_dirs(&self, x: i32, y: i32) -> u8 {
        let m = self.m as i32;
        let i = y * m + x;
        let s = |i: i32| words_get(&self.closed_s, i as usize);
        let e = |i: i32| words_get(&self.closed_e, i as usize);
        let up = y > 0 && !s(i - m);
        let right = !e(i);
        let down = !s(i);
        let left = x > 0 && !e(i - 1);
        up as u8 | (right as u8) << 1 | (down as u8) << 2 | (left as u8) << 3
    }

    /// The pawns as `x | y << 8`; unused slots hold `NO_PAWN`, which is never a cell.
    #[inline(always)]
    fn pawn_keys(&self) -> [u16; 4] {
        self.pawns.map(|c| u16::from(c.x) | u16::from(c.y) << 8)
    }

    #[inline(always)]
    fn for_each_pawn_move(&self, mut emit: impl FnMut(Cell)) {
        let mut slots = [Cell::new(0, 0); MAX_PAWN_MOVES];
        let count = self.write_pawn_moves(&mut slots, |c| c);
        slots[..count].iter().for_each(|&c| emit(c));
    }

    /// Writes the legal pawn moves of the player on turn (in `legal_actions` order) to the first
    /// slots, each as `make` turns it, and returns how many there are. Slots past the count may
    /// be written too. Usually no pawn stands next to this one and the moves are the open steps:
    /// then every step is written, each to the slot after the open steps before it, so that no
    /// branch depends on the walls around the pawn (noise to the branch predictor in a random
    /// game), and each move is one store the reader of that slot takes straight from.
    #[inline(always)]
    fn write_pawn_moves<T: Copy>(
        &self,
        slots: &mut [T; MAX_PAWN_MOVES],
        make: impl Fn(Cell) -> T,
    ) -> usize {
        let me = self.pawns[self.current as usize];
        if me == NO_PAWN {
            return 0;
        }
        let open = self.open_dirs(me.x as i32, me.y as i32);
        // The four neighbours, as `pawn_keys` writes cells; a step off the board wraps to a key
        // no pawn has, and is closed anyway.
        let mine = u16::from(me.x) | u16::from(me.y) << 8;
        let steps = [
            mine.wrapping_sub(1 << 8),
            mine.wrapping_add(1),
            mine.wrapping_add(1 << 8),
            mine.wrapping_sub(1),
        ];
        let keys = self.pawn_keys();
        let on = |others: &[u16]| {
            steps
                .iter()
                .enumerate()
                .fold(0u8, |acc, (d, &s)| acc | u8::from(others.contains(&s)) << d)
        };
        // With two players only the other pawn can stand in the way.
        let blocked = if self.n == 2 {
            on(&keys[1 - self.current as usize..][..1])
        } else {
            on(&keys)
        };
        if blocked & open != 0 {
            return self.write_pawn_moves_near(slots, make, open);
        }
        let mut count = 0;
        for (d, &step) in steps.iter().enumerate() {
            slots[count] = make(Cell::new(step as u8, (step >> 8) as u8));
            count += usize::from(open >> d & 1);
        }
        count
    }

    /// `write_pawn_moves` when a pawn stands on an open neighbouring cell: jumps and side-steps.
    #[inline(never)]
    fn write_pawn_moves_near<T: Copy>(
        &self,
        slots: &mut [T; MAX_PAWN_MOVES],
        make: impl Fn(Cell) -> T,
        open: u8,
    ) -> usize {
        let me = self.pawns[self.current as usize];
        let (px, py) = (me.x as i32, me.y as i32);
        let at = |x: i32, y: i32| Cell::new(x as u8, y as u8);
        let keys = self.pawn_keys();
        let mut count = 0;
        let mut emit = |c: Cell| {
            slots[count] = make(c);
            count += 1;
        };
        let occupied = |x: i32, y: i32| {
            let k = (x as u16) | (y as u16) << 8;
            (keys[0] == k) | (keys[1] == k) | (keys[2] == k) | (keys[3] == k)
        };
        // Two side-steps from different neighbours can land on the same diagonal cell.
        let mut diagonals = 0u8;
        for (d, &(dx, dy)) in DIRS.iter().enumerate() {
            if open & 1 << d == 0 {
                continue;
            }
            let (nx, ny) = (px + dx, py + dy);
            if !occupied(nx, ny) {
                emit(at(nx, ny));
                continue;
            }
            let beyond = self.open_dirs(nx, ny);
            if beyond & 1 << d != 0 {
                if !occupied(nx + dx, ny + dy) {
                    emit(at(nx + dx, ny + dy));
                }
                continue;
            }
            for side in [(d + 1) % 4, (d + 3) % 4] {
                let (sx, sy) = (nx + DIRS[side].0, ny + DIRS[side].1);
                let diagonal = 1 << ((sx > px) as u8 | ((sy > py) as u8) << 1);
                if beyond & 1 << side != 0 && !occupied(sx, sy) && diagonals & diagonal == 0 {
                    diagonals |= diagonal;
                    emit(at(sx, sy));
                }
            }
        }
        count
    }

    /// Range, overlap and crossing; returns the anchor index.
    fn wall_fits(&self, wall: Wall) -> Result<usize, Illegal> {
        let m = self.m as usize;
        let (x, y) = (wall.x as usize, wall.y as usize);
        if x + 1 >= m || y + 1 >= m {
            return Err(Illegal::new(format!(
                "wall {wall} is outside the board (x and y of a wall go from 0 to {})",
                m - 2
            )));
        }
        let a = y * m + x;
        let (same, other, step) = match wall.orientation {
            Orientation::Horizontal => (&self.h, &self.v, 1),
            Orientation::Vertical => (&self.v, &self.h, m),
        };
        let before = a >= step && words_get(same, a - step);
        if before || words_get(same, a) || words_get(same, a + step) {
            return Err(Illegal::new(format!(
                "wall {wall} overlaps an existing wall"
            )));
        }
        if words_get(other, a) {
            return Err(Illegal::new(format!(
                "wall {wall} crosses an existing wall"
            )));
        }
        Ok(a)
    }

    fn put_wall(&mut self, anchor: usize, orientation: Orientation, who: PlayerId) {
        let mut entry = anchor as u16 | (who as u16) << 11;
        match orientation {
            Orientation::Horizontal => {
                words_set(&mut self.h, anchor);
                words_set(&mut self.closed_s, anchor);
                words_set(&mut self.closed_s, anchor + 1);
            }
            Orientation::Vertical => {
                words_set(&mut self.v, anchor);
                words_set(&mut self.closed_e, anchor);
                words_set(&mut self.closed_e, anchor + self.m as usize);
                entry |= HISTORY_VERTICAL;
            }
        }
        if (self.history_len as usize) < HISTORY_CAP {
            self.history[self.history_len as usize] = entry;
            self.history_len += 1;
        }
    }

    /// Ends the turn of the player on turn: counts the tick, decides the end, passes the turn.
    fn finish_turn(&mut self, reached_goal: bool) {
        self.tick = self.tick.saturating_add(1);
        if self.end.is_none() {
            self.end = if reached_goal {
                Some(EndReason::Goal)
            } else if self.alive < 2 {
                Some(EndReason::LastPlayerLeft)
            } else if self.tick >= self.max_ticks {
                Some(EndReason::TickLimit)
            } else {
                None
            };
        }
        // Counting round without `%`: a division per ply shows in playouts.
        let n = self.n;
        let mut p = self.current;
        for _ in 0..n {
            p = if p + 1 == n { 0 } else { p + 1 };
            if self.pawns[p as usize] != NO_PAWN {
                self.current = p;
                break;
            }
        }
    }

    fn goal_words(&self, player: PlayerId) -> &'static Words {
        let mk = masks(self.m);
        match goal_side(self.n as usize, player) {
            Side::Bottom => &mk.row_last,
            Side::Left => &mk.col_first,
            Side::Top => &mk.row_first,
            Side::Right => &mk.col_last,
        }
    }

    /// The guard of `player`'s path: the kept path when it is current, else a fresh search.
    #[inline(always)]
    fn guard<const N: usize>(&self, player: PlayerId, open: &Open<N>) -> Guard<N> {
        let pawn = self.index(self.pawns[player]) as usize;
        let goal = Bits::load(self.goal_words(player));
        let kept = &self.paths[player];
        let fresh;
        // By reference: a copy of the kept path costs more than reading the words it needs.
        let path = match kept.state {
            PathState::From(from) if from as usize == pawn => kept,
            PathState::Unknown => kept,
            _ => {
                fresh = search_path(open, pawn, goal);
                &fresh
            }
        };
        Guard {
            known: path.state != PathState::Unknown,
            pawn,
            goal,
            s: Bits::load(&path.s),
            e: Bits::load(&path.e),
        }
    }

    /// Paths are only kept while some player can still place a wall.
    fn walls_remain(&self) -> bool {
        self.walls_left[..self.n as usize].iter().any(|&w| w > 0)
    }

    /// Searches every player's path afresh.
    fn refresh_paths(&mut self) {
        for p in 0..self.n as usize {
            self.refresh_path(p);
        }
    }

    fn refresh_path(&mut self, player: PlayerId) {
        self.paths[player] = if self.pawns[player] == NO_PAWN || !self.walls_remain() {
            Path::STALE
        } else {
            with_words!(self.words, search_path_of(self, player))
        };
    }

    /// After `player`'s pawn went from `from` to `to`: a step along its path keeps the rest of
    /// the path, any other move needs a new one.
    fn follow_path(&mut self, player: PlayerId, from: Cell, to: Cell) {
        if self.paths[player].state == PathState::Stale {
            return;
        }
        let (a, b) = (self.index(from) as usize, self.index(to) as usize);
        let m = self.m as usize;
        let path = &mut self.paths[player];
        let (lo, hi) = (a.min(b), a.max(b));
        let edges = match hi - lo {
            1 if from.y == to.y => &mut path.e,
            d if d == m => &mut path.s,
            _ => return self.refresh_path(player),
        };
        if path.state == PathState::From(a as u16) && words_get(edges, lo) {
            edges[lo >> 6] &= !(1 << (lo & 63));
            path.state = PathState::From(b as u16);
        } else {
            self.refresh_path(player);
        }
    }

    /// After a wall went up at `anchor`: the paths it crosses need a new search.
    fn cut_paths(&mut self, anchor: usize, orientation: Orientation) {
        let m = self.m as usize;
        for p in 0..self.n as usize {
            let path = &self.paths[p];
            let cut = match path.state {
                PathState::From(_) => path.crossed_by(anchor, orientation, m),
                PathState::Unknown | PathState::Stale => false,
            };
            if cut || !self.walls_remain() {
                self.refresh_path(p);
            }
        }
    }

    fn open_sets<const N: usize>(&self) -> Open<N> {
        Open {
            s: !Bits::<N>::load(&self.closed_s),
            e: !Bits::<N>::load(&self.closed_e),
            m: self.m as u32,
        }
    }
}

fn distance_impl<const N: usize>(q: &Quoridor, player: PlayerId, start: usize) -> Option<u32> {
    q.open_sets::<N>()
        .distance(start, Bits::load(q.goal_words(player)))
}

fn shortest_path_impl<const N: usize>(q: &Quoridor, player: PlayerId, start: usize) -> Vec<Cell> {
    let open = q.open_sets::<N>();
    let goal = Bits::<N>::load(q.goal_words(player));
    let mut layers = vec![Bits::<N>::single(start)];
    let mut seen = layers[0];
    let mut last = layers[0];
    while !last.intersects(goal) {
        last = open.expand(last).andn(seen);
        if last.is_zero() {
            return Vec::new();
        }
        seen |= last;
        layers.push(last);
    }
    let m = q.m as usize;
    let Some(mut c) = (last & goal).first() else {
        return Vec::new();
    };
    let mut path = vec![q.cell(c)];
    // Walk back from the goal, each time to a cell one step nearer the pawn.
    for before in layers.iter().rev().skip(1) {
        c = if c >= m && before.get(c - m) && open.s.get(c - m) {
            c - m
        } else if open.s.get(c) && before.get(c + m) {
            c + m
        } else if c >= 1 && before.get(c - 1) && open.e.get(c - 1) {
            c - 1
        } else {
            c + 1
        };
        path.push(q.cell(c));
    }
    path.reverse();
    path
}

/// The first player on the board with no path to its goal, with `extra` placed.
fn first_cut_off<const N: usize>(
    q: &Quoridor,
    extra: Option<(usize, Orientation)>,
) -> Option<PlayerId> {
    let mut open = q.open_sets::<N>();
    let m = q.m as usize;
    match extra {
        Some((a, Orientation::Horizontal)) => {
            open.s = open.s.andn(Bits::single(a) | Bits::single(a + 1));
        }
        Some((a, Orientation::Vertical)) => {
            open.e = open.e.andn(Bits::single(a) | Bits::single(a + m));
        }
        None => {}
    }
    (0..q.n as usize).find(|&p| {
        let pawn = q.pawns[p];
        pawn != NO_PAWN && !open.reaches(q.index(pawn) as usize, Bits::load(q.goal_words(p)))
    })
}

/// The anchors of the legal horizontal and vertical walls of the player on turn.
#[inline(always)]
fn legal_wall_sets<const N: usize>(q: &Quoridor) -> (Bits<N>, Bits<N>) {
    let me = q.current as usize;
    if q.walls_left[me] == 0 || q.pawns[me] == NO_PAWN {
        return (Bits::ZERO, Bits::ZERO);
    }
    let m = q.m as u32;
    let mk = masks(q.m);
    let h = Bits::<N>::load(&q.h);
    let v = Bits::<N>::load(&q.v);
    let anchors = Bits::<N>::load(&mk.anchors);
    let mut hfree = anchors.andn(h | h.shl(1) | h.shr(1) | v);
    let mut vfree = anchors.andn(v | v.shl(m) | v.shr(m) | h);
    // On an empty board of side 5 or more, no wall of length 2 touches two border points.
    if h.is_zero() && v.is_zero() {
        return (hfree, vfree);
    }
    let loops = loop_edges(mk, h, v, hfree, vfree, m);
    if loops.is_empty() {
        return (hfree, vfree);
    }
    drop_cutting_walls(q, &loops, &mut hfree, &mut vfree);
    (hfree, vfree)
}

/// For every free wall, which of the two edges it would block lie on a loop of walls, the board's
/// edge counting as one point: bit `a` of `h[0]` for the edge of the horizontal wall at `a`
/// nearer `(0, 0)`, of `h[1]` for the other, `v` likewise. Blocking an edge separates its two
/// cells exactly when it lies on such a loop (a cut of the grid is a loop of its dual), so the
/// walls of no set cut anybody off.
struct LoopEdges<const N: usize> {
    h: [Bits<N>; 2],
    v: [Bits<N>; 2],
}

impl<const N: usize> LoopEdges<N> {
    fn is_empty(&self) -> bool {
        (self.h[0] | self.h[1] | self.v[0] | self.v[1]).is_zero()
    }

    /// Adds the loops through one connected group of wall points: `first`, `middle`, `last`
    /// hold the anchors whose wall has that point in the group, for each orientation.
    #[inline(always)]
    fn add(&mut self, h: [Bits<N>; 3], v: [Bits<N>; 3], hfree: Bits<N>, vfree: Bits<N>) {
        // A wall closes a loop when two of its points are in the group: through its first edge
        // when those are the first and another, through its second when the last and another.
        for (edges, [first, middle, last], free) in
            [(&mut self.h, h, hfree), (&mut self.v, v, vfree)]
        {
            let ends = first & last;
            edges[0] |= free & (ends | (first & middle));
            edges[1] |= free & (ends | (middle & last));
        }
    }
}

/// The loops the free walls `hfree` and `vfree` would close, found by floods over wall points.
#[inline(always)]
fn loop_edges<const N: usize>(
    mk: &Masks,
    h: Bits<N>,
    v: Bits<N>,
    hfree: Bits<N>,
    vfree: Bits<N>,
    m: u32,
) -> LoopEdges<N> {
    // Wall points share the anchor index space: point `(px, py)` with `1 <= px, py <= M-1` has
    // the index of anchor `(px-1, py-1)`. Border points land on the last column and row (and
    // off the set for the top and left edges, which the `first` masks stand in for).
    let col_first = Bits::<N>::load(&mk.col_first);
    let row_first = Bits::<N>::load(&mk.row_first);
    let border = Bits::<N>::load(&mk.col_last) | Bits::load(&mk.row_last);
    let seg_e = h | h.shr(1);
    let seg_s = v | v.shr(m);
    let flood = |mut points: Bits<N>| loop {
        let next = points
            | (points & seg_e).shl(1)
            | (points.shr(1) & seg_e)
            | (points & seg_s).shl(m)
            | (points.shr(m) & seg_s);
        if next == points {
            return points;
        }
        points = next;
    };
    let mut loops = LoopEdges {
        h: [Bits::ZERO; 2],
        v: [Bits::ZERO; 2],
    };
    let linked = flood(border | (h & col_first) | (v & row_first));
    loops.add(
        [linked.shl(1) | col_first, linked, linked.shr(1)],
        [linked.shl(m) | row_first, linked, linked.shr(m)],
        hfree,
        vfree,
    );
    // Off the border, a loop needs a group of two walls or more, and such a group has a point
    // two walls share: the two points of one wall that a free wall might touch lie on the
    // wall's own line, where touching both means overlapping it. So only the groups through a
    // shared point are flooded, one by one.
    let (mut once, mut twice) = (Bits::<N>::ZERO, Bits::<N>::ZERO);
    for points in [h.shr(1), h, h.shl(1), v.shr(m), v, v.shl(m)] {
        twice |= once & points;
        once |= points;
    }
    let mut shared = twice.andn(linked);
    while let Some(seed) = shared.first() {
        let group = flood(Bits::single(seed));
        shared = shared.andn(group);
        loops.add(
            [group.shl(1), group, group.shr(1)],
            [group.shl(m), group, group.shr(m)],
            hfree,
            vfree,
        );
    }
    loops
}

/// Takes out of `hfree` and `vfree` the walls that close a loop of `loops` and would leave a
/// player without a way to its goal.
#[inline(always)]
fn drop_cutting_walls<const N: usize>(
    q: &Quoridor,
    loops: &LoopEdges<N>,
    hfree: &mut Bits<N>,
    vfree: &mut Bits<N>,
) {
    let m = q.m as u32;
    let hflag = loops.h[0] | loops.h[1];
    let vflag = loops.v[0] | loops.v[1];
    let open = q.open_sets::<N>();
    // A flagged wall can only cut off a player if it blocks that player's current shortest
    // path; one path per player spares most of the flood fills.
    let mut guards = [Guard::<N>::NONE; 4];
    let mut active = 0;
    for p in 0..q.n as usize {
        if q.pawns[p] != NO_PAWN {
            guards[active] = q.guard(p, &open);
            active += 1;
        }
    }
    let guards = &guards[..active];
    // Only a wall across some guarded path may cut: the others need no look at all.
    let (mut hcut, mut vcut) = (Bits::<N>::ZERO, Bits::<N>::ZERO);
    for g in guards {
        if !g.known {
            (hcut, vcut) = (hflag, vflag);
            break;
        }
        hcut |= g.s | g.s.shr(1);
        vcut |= g.e | g.e.shr(m);
    }
    let m = m as usize;
    (hflag & hcut).for_each(|a| {
        let edges = Bits::single(a) | Bits::single(a + 1);
        let on_loops = (loops.h[0].get(a), loops.h[1].get(a));
        let mut o = open;
        o.s = o.s.andn(edges);
        if !guards
            .iter()
            .all(|g| g.survives(&o, edges, Bits::ZERO, a, on_loops))
        {
            *hfree = hfree.andn(Bits::single(a));
        }
    });
    (vflag & vcut).for_each(|a| {
        let edges = Bits::single(a) | Bits::single(a + m);
        let on_loops = (loops.v[0].get(a), loops.v[1].get(a));
        let mut o = open;
        o.e = o.e.andn(edges);
        if !guards
            .iter()
            .all(|g| g.survives(&o, Bits::ZERO, edges, a, on_loops))
        {
            *vfree = vfree.andn(Bits::single(a));
        }
    });
}

/// Longest shortest path followed; a longer one (only on big, winding boards) makes every
/// flagged wall get a full flood fill for that player.
const MAX_LAYERS: usize = 96;

/// One shortest path of a player, as the edges it crosses; what `Quoridor` keeps between plies.
#[derive(Clone, Copy)]
struct Path {
    state: PathState,
    /// Cells whose lower edge the path crosses.
    s: Words,
    /// Cells whose right edge the path crosses.
    e: Words,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum PathState {
    /// Not kept up to date (no player has a wall left): searched afresh when asked.
    Stale,
    /// No path within `MAX_LAYERS` steps: every wall that may cut gets a full flood fill.
    Unknown,
    /// A shortest path from the pawn on this cell index.
    From(u16),
}

impl Path {
    const STALE: Path = Path {
        state: PathState::Stale,
        s: [0; bits::WORDS],
        e: [0; bits::WORDS],
    };

    /// Whether the wall at `anchor` blocks an edge the path crosses.
    fn crossed_by(&self, anchor: usize, orientation: Orientation, m: usize) -> bool {
        match orientation {
            Orientation::Horizontal => words_get(&self.s, anchor) || words_get(&self.s, anchor + 1),
            Orientation::Vertical => words_get(&self.e, anchor) || words_get(&self.e, anchor + m),
        }
    }
}

/// A shortest path from `pawn` to `goal` in `open`, by breadth-first search.
fn search_path<const N: usize>(open: &Open<N>, pawn: usize, goal: Bits<N>) -> Path {
    let mut layers = [Bits::<N>::ZERO; MAX_LAYERS];
    let mut seen = Bits::single(pawn);
    layers[0] = seen;
    let mut d = 0;
    while !layers[d].intersects(goal) {
        let next = open.expand(layers[d]).andn(seen);
        if next.is_zero() || d + 1 == MAX_LAYERS {
            return Path {
                state: PathState::Unknown,
                ..Path::STALE
            };
        }
        d += 1;
        layers[d] = next;
        seen |= next;
    }
    let (mut s, mut e) = (Bits::<N>::ZERO, Bits::<N>::ZERO);
    let m = open.m as usize;
    let mut c = (layers[d] & goal).first().expect("the goal was reached");
    // Walk back from the goal, each time to a cell one step nearer the pawn.
    for k in (0..d).rev() {
        let before = layers[k];
        c = if c >= m && before.get(c - m) && open.s.get(c - m) {
            s.set(c - m);
            c - m
        } else if open.s.get(c) && before.get(c + m) {
            s.set(c);
            c + m
        } else if c >= 1 && before.get(c - 1) && open.e.get(c - 1) {
            e.set(c - 1);
            c - 1
        } else {
            e.set(c);
            c + 1
        };
    }
    let mut path = Path {
        state: PathState::From(pawn as u16),
        ..Path::STALE
    };
    path.s[..N].copy_from_slice(&s.0);
    path.e[..N].copy_from_slice(&e.0);
    path
}

fn search_path_of<const N: usize>(q: &Quoridor, player: PlayerId) -> Path {
    let pawn = q.index(q.pawns[player]) as usize;
    search_path(&q.open_sets::<N>(), pawn, Bits::load(q.goal_words(player)))
}

/// One player's pawn and goal, and the edges of one shortest path from the pawn to the goal.
#[derive(Clone, Copy)]
struct Guard<const N: usize> {
    /// The path is known; if not, every wall that may cut gets a full flood fill.
    known: bool,
    pawn: usize,
    goal: Bits<N>,
    /// Cells whose lower edge the path crosses.
    s: Bits<N>,
    /// Cells whose right edge the path crosses.
    e: Bits<N>,
}

impl<const N: usize> Guard<N> {
    const NONE: Self = Guard {
        known: false,
        pawn: 0,
        goal: Bits::ZERO,
        s: Bits::ZERO,
        e: Bits::ZERO,
    };

    /// Whether the player still reaches its goal in `open`: the guarded position plus one wall
    /// at `anchor`, which blocks the lower edges of `blocked_s` and the right edges of
    /// `blocked_e`; `loops` says which of its two edges lie on a loop of walls.
    #[inline(always)]
    fn survives(
        &self,
        open: &Open<N>,
        blocked_s: Bits<N>,
        blocked_e: Bits<N>,
        anchor: usize,
        loops: (bool, bool),
    ) -> bool {
        if !self.known {
            return open.reaches(self.pawn, self.goal);
        }
        let hit_s = self.s & blocked_s;
        let hit_e = self.e & blocked_e;
        // Which edges of the wall the path crosses, told apart without counting bits (this
        // build's target has no population-count instruction).
        let hits = hit_s | hit_e;
        if hits.is_zero() {
            return true;
        }
        if !hits.is_single() {
            return open.reaches(self.pawn, self.goal);
        }
        let m = open.m as usize;
        let (c, c2) = match (hit_s.first(), hit_e.first()) {
            (Some(c), _) => (c, c + m),
            (_, Some(c)) => (c, c + 1),
            _ => return open.reaches(self.pawn, self.goal),
        };
        // An edge off every loop of walls leaves its two cells joined: the path has a detour.
        let on_loop = if c == anchor { loops.0 } else { loops.1 };
        if !on_loop {
            return true;
        }
        // The path still leads from the pawn to one end of the blocked edge and from the other
        // end to the goal: a detour between the two ends saves it. Two fills, one from each end,
        // meet halfway along a detour; when one runs out of cells first, the smaller side of
        // the cut is known whole, and only the pawn's side is still in question.
        let (mut a, mut b) = (Bits::single(c), Bits::single(c2));
        loop {
            let next_a = open.expand(a);
            if next_a.intersects(b) {
                return true;
            }
            if next_a == a {
                return self.settle(open, a, b);
            }
            let next_b = open.expand(b);
            if next_b.intersects(next_a) {
                return true;
            }
            if next_b == b {
                return self.settle(open, b, next_a);
            }
            (a, b) = (next_a, next_b);
        }
    }

    /// `closed` is all the cells one end of a cut edge reaches, `other` some the other reaches.
    fn settle(&self, open: &Open<N>, closed: Bits<N>, other: Bits<N>) -> bool {
        if closed.get(self.pawn) {
            closed.intersects(self.goal)
        } else {
            open.reaches_from(other, self.goal)
        }
    }
}

fn count_walls<const N: usize>(q: &Quoridor) -> usize {
    let (h, v) = legal_wall_sets::<N>(q);
    (h.count() + v.count()) as usize
}

fn any_wall<const N: usize>(q: &Quoridor) -> bool {
    let (h, v) = legal_wall_sets::<N>(q);
    !(h.is_zero() && v.is_zero())
}

/// Anchor cells of the largest board.
const MAX_CELLS: usize = MAX_BOARD as usize * MAX_BOARD as usize;

/// The wall action of every anchor index, horizontal ones first then vertical ones, by board:
/// listing walls is then a table read per wall instead of a division.
static WALL_ACTIONS: [[Action; 2 * MAX_CELLS]; 11] = {
    let mut tables = [[Action::Move(Cell::new(0, 0)); 2 * MAX_CELLS]; 11];
    let mut k = 0;
    while k < 11 {
        let m = MIN_BOARD as usize + 2 * k;
        let mut i = 0;
        while i < m * m {
            let (x, y) = ((i % m) as u8, (i / m) as u8);
            tables[k][i] = Action::Wall(Wall::horizontal(x, y));
            tables[k][MAX_CELLS + i] = Action::Wall(Wall::vertical(x, y));
            i += 1;
        }
        k += 1;
    }
    tables
};

// Kept out of `legal_actions`: its large stack frame would slow every pawn-only ply.
#[inline(never)]
fn push_walls<const N: usize>(q: &Quoridor, out: &mut Vec<Action>) {
    let (h, v) = legal_wall_sets::<N>(q);
    let table = &WALL_ACTIONS[(q.m - MIN_BOARD) as usize / 2];
    let (horizontal, vertical) = table.split_at(MAX_CELLS);
    // No `reserve`: the list is reused from ply to ply and soon holds every wall, and counting
    // the walls first would cost more than the check each push makes.
    h.for_each(|a| out.push(horizontal[a]));
    v.for_each(|a| out.push(vertical[a]));
}

/// The `k`-th legal wall in `legal_actions` order.
fn nth_wall<const N: usize>(q: &Quoridor, k: u32) -> Option<Wall> {
    let (h, v) = legal_wall_sets::<N>(q);
    let m = q.m as usize;
    let magic = div_magic(m);
    let hc = h.count();
    if k < hc {
        let (x, y) = split_index(h.nth(k)?, m, magic);
        Some(Wall::horizontal(x, y))
    } else {
        let (x, y) = split_index(v.nth(k - hc)?, m, magic);
        Some(Wall::vertical(x, y))
    }
}

impl Game for Quoridor {
    type Action = Action;
    const NAME: &'static str = "quoridor";

    fn num_players(&self) -> usize {
        self.n as usize
    }
    fn to_move(&self) -> Option<PlayerId> {
        match self.end {
            Some(_) => None,
            None => Some(self.current as usize),
        }
    }
    fn tick(&self) -> u32 {
        self.tick
    }
    /// Pawn moves (up, right, down, left, with jumps and side-steps in place of the step), then
    /// horizontal walls, then vertical walls, each by row then column.
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        // The moves are written in place: the pick reads one of them back from memory, and
        // each is then a store of its own.
        out.extend_from_slice(&[Action::Move(NO_PAWN); MAX_PAWN_MOVES]);
        let slots: &mut [Action; MAX_PAWN_MOVES] = (&mut out[..MAX_PAWN_MOVES])
            .try_into()
            .expect("as many slots as moves");
        let count = self.write_pawn_moves(slots, Action::Move);
        out.truncate(count);
        if self.walls_left[self.current as usize] > 0 {
            with_words!(self.words, push_walls(self, out));
        }
    }
    fn check(&self, action: Action) -> Result<(), Illegal> {
        match action {
            Action::Wall(wall) => self.check_wall(wall),
            Action::Move(to) => {
                let me = self.current as usize;
                let Some(from) = self.pawn(me) else {
                    return Err(Illegal::new(format!("player {me} is not on the board")));
                };
                if to.x >= self.m || to.y >= self.m {
                    return Err(Illegal::new(format!(
                        "{to} is outside the board, so not a legal pawn move from {from}"
                    )));
                }
                let mut legal = false;
                self.for_each_pawn_move(|c| legal |= c == to);
                if legal {
                    Ok(())
                } else {
                    Err(Illegal::new(format!(
                        "{to} is not a legal pawn move from {from}"
                    )))
                }
            }
        }
    }
    fn apply_unchecked(&mut self, action: Action) {
        let me = self.current as usize;
        match action {
            Action::Move(cell) => {
                let from = self.pawns[me];
                self.pawns[me] = cell;
                self.follow_path(me, from, cell);
                let goal = self.is_goal(me, cell);
                self.finish_turn(goal);
            }
            Action::Wall(wall) => self.apply_wall(wall),
        }
    }
    fn is_stuck(&self) -> bool {
        let mut moves = false;
        self.for_each_pawn_move(|_| moves = true);
        !moves && !with_words!(self.words, any_wall(self))
    }
    fn apply_stuck(&mut self) {
        let me = self.current as usize;
        if self.pawns[me] != NO_PAWN {
            self.pawns[me] = NO_PAWN;
            self.alive -= 1;
            self.eliminated_count += 1;
            self.eliminated[me] = self.eliminated_count;
        }
        self.finish_turn(false);
    }
    fn outcome(&self) -> Option<Outcome> {
        let reason = self.end?;
        let n = self.n as usize;
        let dist: Vec<Option<u32>> = (0..n).map(|p| self.distance(p)).collect();
        let best = dist.iter().flatten().min().copied();
        let winners = dist.iter().filter(|&&d| d.is_some() && d == best).count();
        let scores: Vec<f64> = dist
            .iter()
            .map(|&d| {
                if d.is_some() && d == best {
                    1.0 / winners as f64
                } else {
                    0.0
                }
            })
            .collect();
        // A pawn on the board always has a path; the `u32::MAX` only guards a broken invariant.
        let key = |p: usize| {
            if self.pawns[p] == NO_PAWN {
                (1u8, 0.0, u32::from(u8::MAX - self.eliminated[p]))
            } else {
                (0u8, -scores[p], dist[p].unwrap_or(u32::MAX))
            }
        };
        let placement = (0..n)
            .map(|p| 1 + (0..n).filter(|&q| key(q) < key(p)).count() as u32)
            .collect();
        Some(Outcome {
            scores,
            placement,
            reason: reason.as_str(),
        })
    }
}

impl Quoridor {
    /// The wall half of `apply_unchecked`, kept out of it: its registers would make every pawn
    /// move save and restore them.
    #[inline(never)]
    fn apply_wall(&mut self, wall: Wall) {
        let me = self.current as usize;
        let anchor = wall.y as usize * self.m as usize + wall.x as usize;
        self.put_wall(anchor, wall.orientation, me);
        self.walls_left[me] = self.walls_left[me].saturating_sub(1);
        self.cut_paths(anchor, wall.orientation);
        self.finish_turn(false);
    }

    /// A uniformly random legal pawn move; a uniformly random legal wall if there is none.
    pub fn random_fallback(&self, rng: &mut dyn rand::RngCore) -> Option<Action> {
        use rand::Rng;
        let mut moves = [Cell::new(0, 0); 8];
        let mut count = 0;
        self.for_each_pawn_move(|c| {
            moves[count] = c;
            count += 1;
        });
        if count > 0 {
            return Some(Action::Move(moves[rng.random_range(0..count)]));
        }
        let walls = with_words!(self.words, count_walls(self));
        if walls == 0 {
            return None;
        }
        let k = rng.random_range(0..walls) as u32;
        with_words!(self.words, nth_wall(self, k)).map(Action::Wall)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_split_is_exact_on_every_board() {
        for m in (5..=25usize).step_by(2) {
            let magic = div_magic(m);
            for i in 0..m * m {
                assert_eq!(split_index(i, m, magic), ((i % m) as u8, (i / m) as u8));
            }
        }
    }

    #[test]
    fn clone_holds_no_heap_data_but_the_shared_settings() {
        let q = Quoridor::new(Settings::standard(2, 9).unwrap()).unwrap();
        let c = q.clone();
        assert!(Arc::ptr_eq(&q.settings, &c.settings));
    }
}
