//! Puoribor, as docs/games/puoribor.md says: the rules of version 3 of the `fights` Python
//! environment (`("puoribor", 3)`), its line protocol, and its board layout.
//!
//! Puoribor is Quoridor on a 9×9 board with one more action: rotating a 4×4 sub-board by 90°
//! clockwise, which moves the walls on it (splitting the whole walls that cross its edge) and
//! costs two of the player's ten walls. Walls are unit *segments* with an owner; *midpoints*
//! mark which pairs of segments form a whole wall, and only midpoints decide whether a new wall
//! crosses an old one.
//!
//! # As a library for self-play
//!
//! A [`Puoribor`] value is one position. It holds no heap data (144 bytes), so a search
//! copies it and plays on the copy (copy-make); [`Puoribor::hash`] is a Zobrist hash kept up
//! to date by every action, for transposition tables. Actions are the upstream `[type, x, y]`
//! triples ([`Action`]); [`Puoribor::legal_mask`] gives the upstream `(4, 9, 9)` mask indexed
//! `[type][x][y]`, and [`Action::index`] the matching flat index for a policy head.
//!
//! ```
//! use arbiter_games::Game;
//! use arbiter_games::puoribor::{Action, Puoribor};
//!
//! let mut game = Puoribor::new();
//! let mut actions = Vec::new();
//! let mut seed = 7u64;
//! while game.to_move().is_some() {
//!     game.legal_actions(&mut actions);
//!     let mask = game.legal_mask();
//!     assert_eq!(actions.len(), mask.iter().flatten().flatten().filter(|&&m| m).count());
//!     // Any generator will do; a tiny linear congruential one keeps the example short.
//!     seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
//!     let action: Action = actions[(seed >> 33) as usize % actions.len()];
//!     assert!(mask[action.kind as usize][action.x as usize][action.y as usize]);
//!     let before = game.clone(); // copy-make: `before` is the position to search from again
//!     game.apply(action).expect("a listed action is legal");
//!     assert_ne!(before.hash(), game.hash());
//! }
//! let outcome = game.outcome().unwrap();
//! assert!(["goal", "tick_limit"].contains(&outcome.reason));
//! assert_eq!(outcome.scores.iter().sum::<f64>(), 1.0);
//! ```
//!
//! # Representation
//!
//! Every set (segments of each owner and orientation, midpoints) is a `u128` over the 81 cells,
//! indexed column-major (`x * 9 + y`), so that set bits come out in upstream mask order. Path
//! questions are flood fills on these sets. Legal walls are found in bulk with a few shifts;
//! the path rule then needs a flood fill only for the walls (and rotations) that cut the
//! current shortest path of one of the players.

mod bits;
mod record;
mod rotate;
mod wire;

pub use record::{ActionKind, ActionRecord, SettingsRecord, Snapshot};
pub use wire::{PuoriborClient, WallLine, WallLineKind};

use std::fmt;

use crate::{Game, Illegal, Outcome, PlayerId};
use bits::{
    ANCHORS, BOARD, CELLS, GOALS, H_VALID, ROTATIONS, Set, V_VALID, bit, coords, expand, for_each,
    has, index, reaches,
};

/// The side of the board.
pub const SIZE: u8 = 9;
/// Walls each player holds at the start.
pub const START_WALLS: u8 = 10;
/// Actions after which a match without a winner is a draw (docs/games/puoribor.md#the-end).
pub const DEFAULT_MAX_TICKS: u32 = 200;

/// An upstream action `[type, x, y]`.
///
/// Any integers are representable, so that a well-formed but impossible answer such as
/// `0 -1 3` is an *illegal* action (as the spec says), not a malformed line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Action {
    /// [`Action::MOVE`], [`Action::HORIZONTAL`], [`Action::VERTICAL`] or [`Action::ROTATE`].
    pub kind: i32,
    /// Column, growing to the right (`0..9` on the board).
    pub x: i32,
    /// Row, growing downwards (`0..9` on the board).
    pub y: i32,
}

impl Action {
    /// Move the pawn to `(x, y)` (the destination, also for jumps).
    pub const MOVE: i32 = 0;
    /// A horizontal wall whose left segment is `h(x, y)`.
    pub const HORIZONTAL: i32 = 1;
    /// A vertical wall whose top segment is `v(x, y)`.
    pub const VERTICAL: i32 = 2;
    /// Rotate the 4×4 sub-board whose top-left cell is `(x, y)`.
    pub const ROTATE: i32 = 3;

    /// An action from its upstream `type x y`.
    pub const fn new(kind: i32, x: i32, y: i32) -> Action {
        Action { kind, x, y }
    }
    /// Move the pawn to `(x, y)`.
    pub const fn step(x: i32, y: i32) -> Action {
        Action::new(Action::MOVE, x, y)
    }
    /// Place the horizontal wall anchored at `(x, y)` (segments `h(x, y)`, `h(x + 1, y)`).
    pub const fn horizontal(x: i32, y: i32) -> Action {
        Action::new(Action::HORIZONTAL, x, y)
    }
    /// Place the vertical wall anchored at `(x, y)` (segments `v(x, y)`, `v(x, y + 1)`).
    pub const fn vertical(x: i32, y: i32) -> Action {
        Action::new(Action::VERTICAL, x, y)
    }
    /// Rotate the 4×4 sub-board whose top-left cell is `(x, y)`.
    pub const fn rotate(x: i32, y: i32) -> Action {
        Action::new(Action::ROTATE, x, y)
    }

    /// The index in the flattened `(4, 9, 9)` mask, `kind * 81 + x * 9 + y`; `None` for an
    /// action outside the mask.
    pub fn index(self) -> Option<usize> {
        let ok =
            (0..4).contains(&self.kind) && (0..9).contains(&self.x) && (0..9).contains(&self.y);
        ok.then(|| (self.kind * 81 + self.x * 9 + self.y) as usize)
    }

    /// The action at a flat mask index (`0..324`).
    pub fn from_index(index: usize) -> Action {
        assert!(index < 324, "mask index {index} is not below 4·9·9");
        let i = index as i32;
        Action::new(i / 81, i / 9 % 9, i % 9)
    }

    /// The action's `[type, x, y]`.
    pub fn to_array(self) -> [i32; 3] {
        [self.kind, self.x, self.y]
    }
}

impl From<[i32; 3]> for Action {
    fn from([kind, x, y]: [i32; 3]) -> Action {
        Action::new(kind, x, y)
    }
}

impl fmt::Display for Action {
    /// The protocol's answer line, `type x y`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.kind, self.x, self.y)
    }
}

/// Why a match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The player's pawn reached its goal row.
    Goal {
        /// The player whose pawn reached its goal row.
        winner: PlayerId,
    },
    /// `max_ticks` actions were played without a winner: a draw.
    TickLimit,
}

/// One Puoribor position: pawns, walls, whose turn it is, and the hash.
///
/// Cloning copies 144 bytes; nothing is allocated while playing.
#[derive(Clone, PartialEq, Eq)]
pub struct Puoribor {
    /// `h` segments by owner.
    h: [Set; 2],
    /// `v` segments by owner.
    v: [Set; 2],
    /// Midpoints of whole horizontal walls.
    hm: Set,
    /// Midpoints of whole vertical walls.
    vm: Set,
    hash: u64,
    tick: u32,
    max_ticks: u32,
    /// Cell index of each pawn.
    pawns: [u8; 2],
    walls: [u8; 2],
    end: Option<End>,
}

/// What can go wrong building a position from parts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid Puoribor position: {0}")]
pub struct PositionError(pub String);

fn position_error(text: impl Into<String>) -> PositionError {
    PositionError(text.into())
}

impl Default for Puoribor {
    fn default() -> Self {
        Puoribor::new()
    }
}

impl fmt::Debug for Puoribor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let walls: Vec<String> = self
            .wall_lines()
            .map(|w| format!("{} {} {} {}", w.kind.letter(), w.x, w.y, w.owner))
            .collect();
        f.debug_struct("Puoribor")
            .field("tick", &self.tick)
            .field("pawns", &[self.pawn(0), self.pawn(1)])
            .field("walls_remaining", &self.walls)
            .field("walls", &walls)
            .field("end", &self.end)
            .finish()
    }
}

/// The board as the upstream `__str__` draws it, in ASCII: `0`/`1` pawns, `#` walls, `+` where a
/// midpoint is.
impl fmt::Display for Puoribor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (h, v) = (self.h_all(), self.v_all());
        writeln!(f, "+{}", "---+".repeat(9))?;
        for y in 0..9 {
            let mut cells = String::from("|");
            let mut below = String::from("+");
            for x in 0..9 {
                let i = index(x, y);
                cells.push_str(match self.pawns {
                    [p, _] if p as usize == i => " 0 ",
                    [_, p] if p as usize == i => " 1 ",
                    _ => "   ",
                });
                cells.push(if x == 8 || has(v, i) { '|' } else { ' ' });
                below.push_str(if y == 8 || has(h, i) { "---" } else { "   " });
                let mid = x < 8 && y < 8 && has(self.hm | self.vm, i);
                below.push(if mid || x == 8 || y == 8 { '+' } else { ' ' });
            }
            writeln!(f, "{cells}")?;
            writeln!(f, "{below}")?;
        }
        Ok(())
    }
}

/// Zobrist keys, from a fixed seed so that hashes are the same in every run and build.
struct Keys {
    pawn: [[u64; CELLS]; 2],
    h: [[u64; CELLS]; 2],
    v: [[u64; CELLS]; 2],
    hm: [u64; CELLS],
    vm: [u64; CELLS],
    walls: [[u64; START_WALLS as usize + 1]; 2],
    /// Player 1 to move.
    side: u64,
}

const fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const fn keys() -> Keys {
    let mut s = 0x5075_6f72_6962_6f72; // "Puoribor"
    let mut k = Keys {
        pawn: [[0; CELLS]; 2],
        h: [[0; CELLS]; 2],
        v: [[0; CELLS]; 2],
        hm: [0; CELLS],
        vm: [0; CELLS],
        walls: [[0; START_WALLS as usize + 1]; 2],
        side: 0,
    };
    let mut i = 0;
    while i < CELLS {
        let mut p = 0;
        while p < 2 {
            k.pawn[p][i] = splitmix(&mut s);
            k.h[p][i] = splitmix(&mut s);
            k.v[p][i] = splitmix(&mut s);
            p += 1;
        }
        k.hm[i] = splitmix(&mut s);
        k.vm[i] = splitmix(&mut s);
        i += 1;
    }
    let mut w = 0;
    while w <= START_WALLS as usize {
        k.walls[0][w] = splitmix(&mut s);
        k.walls[1][w] = splitmix(&mut s);
        w += 1;
    }
    k.side = splitmix(&mut s);
    k
}

static KEYS: Keys = keys();

/// The keys of every index in `set`, xor-ed.
#[inline(always)]
fn keys_of(set: Set, keys: &[u64; CELLS]) -> u64 {
    let mut hash = 0;
    for_each(set, |i| hash ^= keys[i]);
    hash
}

/// Walls remaining are at most 10 in any position this engine builds; larger counts (from a
/// hand-made position) share the last key.
#[inline(always)]
fn walls_key(player: usize, walls: u8) -> u64 {
    KEYS.walls[player][(walls as usize).min(START_WALLS as usize)]
}

/// Steps of the four directions as index offsets, with the edge each crosses: down (`y + 1`),
/// up, right (`x + 1`), left.
#[derive(Clone, Copy)]
enum Dir {
    Down,
    Up,
    Right,
    Left,
}

const DIRS: [Dir; 4] = [Dir::Down, Dir::Up, Dir::Right, Dir::Left];

impl Dir {
    /// The cell one step from `i`, if on the board.
    #[inline(always)]
    fn step(self, i: usize) -> Option<usize> {
        let (x, y) = coords(i);
        match self {
            Dir::Down => (y < 8).then(|| i + 1),
            Dir::Up => (y > 0).then(|| i - 1),
            Dir::Right => (x < 8).then(|| i + 9),
            Dir::Left => (x > 0).then(|| i - 9),
        }
    }

    /// Whether the edge from `i` in this direction is free of walls (`i` and its neighbour on
    /// the board).
    #[inline(always)]
    fn open(self, i: usize, h: Set, v: Set) -> bool {
        match self {
            Dir::Down => !has(h, i),
            Dir::Up => !has(h, i - 1),
            Dir::Right => !has(v, i),
            Dir::Left => !has(v, i - 9),
        }
    }

    fn perpendicular(self) -> [Dir; 2] {
        match self {
            Dir::Down | Dir::Up => [Dir::Right, Dir::Left],
            Dir::Right | Dir::Left => [Dir::Down, Dir::Up],
        }
    }
}

/// The edges one shortest path of a player crosses, by the direction it crosses them, to spare
/// the path rule most flood fills: an action that blocks none of them leaves that path, so that
/// player, intact; a wall that blocks one of them needs only a detour around it.
#[derive(Clone, Copy)]
struct Guard {
    pawn: Set,
    goal: Set,
    /// Cells whose lower edge the path crosses going down (`c → c + 1`).
    down: Set,
    /// Cells whose lower edge the path crosses going up (`c + 1 → c`).
    up: Set,
    /// Cells whose right edge the path crosses going right (`c → c + 9`).
    right: Set,
    /// Cells whose right edge the path crosses going left (`c + 9 → c`).
    left: Set,
}

impl Guard {
    fn new(pawn: usize, goal: Set, open_s: Set, open_e: Set) -> Guard {
        let mut guard = Guard {
            pawn: bit(pawn),
            goal,
            down: 0,
            up: 0,
            right: 0,
            left: 0,
        };
        let mut layers = [0 as Set; CELLS];
        let mut seen = bit(pawn);
        layers[0] = seen;
        let mut d = 0;
        while layers[d] & goal == 0 {
            let next = expand(layers[d], open_s, open_e) & !seen;
            if next == 0 {
                // No path: every check must flood (and will find none).
                guard.down = BOARD;
                guard.right = BOARD;
                return guard;
            }
            d += 1;
            layers[d] = next;
            seen |= next;
        }
        let mut c = (layers[d] & goal).trailing_zeros() as usize;
        // Walk back from the goal, each time to a cell one step nearer the pawn.
        for k in (0..d).rev() {
            let before = layers[k];
            c = if !c.is_multiple_of(9) && has(before & open_s, c - 1) {
                guard.down |= bit(c - 1);
                c - 1
            } else if has(before, c + 1) && has(open_s, c) {
                guard.up |= bit(c);
                c + 1
            } else if c >= 9 && has(before & open_e, c - 9) {
                guard.right |= bit(c - 9);
                c - 9
            } else {
                guard.left |= bit(c);
                c + 9
            };
        }
        guard
    }

    /// Cells whose lower edge the path crosses, either way.
    #[inline(always)]
    fn s(&self) -> Set {
        self.down | self.up
    }

    /// Cells whose right edge the path crosses, either way.
    #[inline(always)]
    fn e(&self) -> Set {
        self.right | self.left
    }

    /// Whether the player still reaches its goal once the segments `h`, `v` are on the board
    /// (the guarded position's segments rearranged by a rotation).
    #[inline(always)]
    fn survives(&self, h: Set, v: Set) -> bool {
        if h & self.s() == 0 && v & self.e() == 0 {
            return true;
        }
        reaches(self.pawn, self.goal, H_VALID & !h, V_VALID & !v)
    }

    /// Whether the player still reaches its goal once one wall is added to the guarded
    /// position: the wall's edges are `new_s` (lower edges) and `new_e` (right edges), and `h`,
    /// `v` are the segments with the wall.
    #[inline(always)]
    fn survives_wall(&self, h: Set, v: Set, new_s: Set, new_e: Set) -> bool {
        let (down, up) = (new_s & self.down, new_s & self.up);
        let (right, left) = (new_e & self.right, new_e & self.left);
        let cut = down | up | right | left;
        if cut == 0 {
            return true;
        }
        let (open_s, open_e) = (H_VALID & !h, V_VALID & !v);
        if cut & (cut - 1) != 0 {
            return reaches(self.pawn, self.goal, open_s, open_e);
        }
        // One edge u → w of the path is cut; the path still leads from the pawn to u and from
        // w to the goal, so a way around from u to w (or to the goal) is all it takes.
        let c = cut.trailing_zeros() as usize;
        let (u, w) = if down != 0 {
            (c, c + 1)
        } else if up != 0 {
            (c + 1, c)
        } else if right != 0 {
            (c, c + 9)
        } else {
            (c + 9, c)
        };
        reaches(bit(u), bit(w) | self.goal, open_s, open_e)
    }
}

/// The legal actions of the player on turn as four sets of anchors, in mask order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Legal {
    moves: Set,
    h: Set,
    v: Set,
    rotations: Set,
}

impl Legal {
    fn sets(&self) -> [Set; 4] {
        [self.moves, self.h, self.v, self.rotations]
    }
    fn count(&self) -> usize {
        self.sets().iter().map(|s| s.count_ones() as usize).sum()
    }
}

impl Puoribor {
    /// The start: pawns at `(4, 0)` and `(4, 8)`, ten walls each, player 0 to move, a draw
    /// after 200 actions.
    pub fn new() -> Puoribor {
        Puoribor::with_max_ticks(DEFAULT_MAX_TICKS)
    }

    /// The start, with a draw after `max_ticks` actions instead of 200 (upstream has no limit:
    /// `u32::MAX`).
    pub fn with_max_ticks(max_ticks: u32) -> Puoribor {
        let mut game = Puoribor {
            h: [0; 2],
            v: [0; 2],
            hm: 0,
            vm: 0,
            hash: 0,
            tick: 0,
            max_ticks,
            pawns: [index(4, 0) as u8, index(4, 8) as u8],
            walls: [START_WALLS; 2],
            end: None,
        };
        game.hash = game.full_hash();
        game.end = game.derive_end();
        game
    }

    /// A position in the middle of a match, from what the protocol tells a bot (or what a
    /// test sets up): the tick (`tick % 2` is on turn), pawns, walls remaining, and every wall
    /// as protocol lines (whole walls and unit segments, owners 0 or 1).
    ///
    /// Checked: everything is on the board, no two pieces overlap, no two whole walls cross,
    /// both players have a path to their goal. The end is derived (a pawn on its goal, or
    /// `tick >= max_ticks`).
    pub fn from_parts(
        tick: u32,
        max_ticks: u32,
        pawns: [(u8, u8); 2],
        walls_remaining: [u8; 2],
        walls: &[WallLine],
    ) -> Result<Puoribor, PositionError> {
        let mut game = Puoribor::with_max_ticks(max_ticks);
        game.tick = tick;
        game.walls = walls_remaining;
        for (p, &(x, y)) in pawns.iter().enumerate() {
            if x >= SIZE || y >= SIZE {
                return Err(position_error(format!(
                    "pawn of player {p} at ({x}, {y}) is off the board"
                )));
            }
            game.pawns[p] = index(x as usize, y as usize) as u8;
        }
        if game.pawns[0] == game.pawns[1] {
            return Err(position_error("both pawns are on the same cell"));
        }
        for w in walls {
            game.add_wall_line(w).map_err(|e| {
                position_error(format!(
                    "{} {} {} {}: {e}",
                    w.kind.letter(),
                    w.x,
                    w.y,
                    w.owner
                ))
            })?;
        }
        if game.hm & game.vm != 0 {
            let (x, y) = coords((game.hm & game.vm).trailing_zeros() as usize);
            return Err(position_error(format!(
                "a horizontal and a vertical whole wall cross at ({x}, {y})"
            )));
        }
        let (h, v) = (game.h_all(), game.v_all());
        for p in 0..2 {
            if !game.has_path(p, h, v) {
                return Err(position_error(format!(
                    "the walls leave player {p} no path to its goal"
                )));
            }
        }
        game.hash = game.full_hash();
        game.end = game.derive_end();
        Ok(game)
    }

    fn add_wall_line(&mut self, w: &WallLine) -> Result<(), String> {
        let owner = usize::from(w.owner);
        if owner > 1 {
            return Err("the owner must be 0 or 1".into());
        }
        let (x, y) = (w.x as usize, w.y as usize);
        let valid = match w.kind {
            WallLineKind::Horizontal | WallLineKind::Vertical => x < 8 && y < 8,
            WallLineKind::UnitHorizontal => x < 9 && y < 8,
            WallLineKind::UnitVertical => x < 8 && y < 9,
        };
        // Checked before any bit is made: a coordinate off the board is a shift past the set.
        if !valid {
            return Err("off the board".into());
        }
        let span = match w.kind {
            WallLineKind::Horizontal => bit(index(x, y)) | bit(index(x + 1, y)),
            WallLineKind::Vertical => bit(index(x, y)) | bit(index(x, y + 1)),
            WallLineKind::UnitHorizontal | WallLineKind::UnitVertical => bit(index(x, y)),
        };
        let horizontal = matches!(
            w.kind,
            WallLineKind::Horizontal | WallLineKind::UnitHorizontal
        );
        let taken = if horizontal {
            self.h_all()
        } else {
            self.v_all()
        };
        if taken & span != 0 {
            return Err("overlaps another wall".into());
        }
        if horizontal {
            self.h[owner] |= span;
        } else {
            self.v[owner] |= span;
        }
        match w.kind {
            WallLineKind::Horizontal => self.hm |= bit(index(x, y)),
            WallLineKind::Vertical => self.vm |= bit(index(x, y)),
            _ => {}
        }
        Ok(())
    }

    /// The upstream board `[channel][x][y]`: pawn of player 0, pawn of player 1, `h` and `v`
    /// segments labelled with their owner's id + 1, `HM` and `VM` midpoints as 0/1.
    pub fn board(&self) -> [[[u8; 9]; 9]; 6] {
        let mut board = [[[0u8; 9]; 9]; 6];
        for i in 0..CELLS {
            let (x, y) = coords(i);
            let cell = |c: usize| (c, x as usize, y as usize);
            let mut put = |(c, x, y): (usize, usize, usize), value: u8| board[c][x][y] = value;
            for p in 0..2 {
                if self.pawns[p] as usize == i {
                    put(cell(p), 1);
                }
                if has(self.h[p], i) {
                    put(cell(2), p as u8 + 1);
                }
                if has(self.v[p], i) {
                    put(cell(3), p as u8 + 1);
                }
            }
            if has(self.hm, i) {
                put(cell(4), 1);
            }
            if has(self.vm, i) {
                put(cell(5), 1);
            }
        }
        board
    }

    /// A position from an upstream board (`[channel][x][y]`, as in its logs), with the walls
    /// remaining and the tick (`tick % 2` is on turn). Checked like [`Puoribor::from_parts`],
    /// and each midpoint must sit on two segments of one owner that no other midpoint covers.
    pub fn from_board(
        board: &[[[u8; 9]; 9]; 6],
        walls_remaining: [u8; 2],
        tick: u32,
        max_ticks: u32,
    ) -> Result<Puoribor, PositionError> {
        let mut pawns = [None, None];
        let (mut h, mut v, mut hm, mut vm) = ([0 as Set; 3], [0 as Set; 3], 0, 0);
        for i in 0..CELLS {
            let (x, y) = coords(i);
            let label = |c: usize| board[c][x as usize][y as usize];
            for (p, pawn) in pawns.iter_mut().enumerate() {
                match label(p) {
                    0 => {}
                    1 if pawn.is_none() => *pawn = Some((x, y)),
                    1 => return Err(position_error(format!("player {p} has two pawns"))),
                    other => {
                        return Err(position_error(format!(
                            "channel {p} holds {other} at ({x}, {y}); pawns are 0 or 1"
                        )));
                    }
                }
            }
            for (c, set) in [(2, &mut h), (3, &mut v)] {
                let l = label(c) as usize;
                if l > 2 {
                    return Err(position_error(format!(
                        "channel {c} holds {l} at ({x}, {y}); owners are labelled 1 or 2"
                    )));
                }
                set[l] |= bit(i);
            }
            for (c, set) in [(4, &mut hm), (5, &mut vm)] {
                match label(c) {
                    0 => {}
                    1 => *set |= bit(i),
                    other => {
                        return Err(position_error(format!(
                            "channel {c} holds {other} at ({x}, {y}); midpoints are 0 or 1"
                        )));
                    }
                }
            }
        }
        let [Some(p0), Some(p1)] = pawns else {
            return Err(position_error("a pawn is missing"));
        };
        let (h1, h2, v1, v2) = (h[1], h[2], v[1], v[2]);
        if (h1 | h2) & !H_VALID != 0 || (v1 | v2) & !V_VALID != 0 || (hm | vm) & !ANCHORS != 0 {
            return Err(position_error("a wall lies on the board's outer edge"));
        }
        // Each midpoint sits on two segments of one owner, each segment in one whole wall.
        if hm & !((h1 & h1 >> 9) | (h2 & h2 >> 9)) != 0
            || vm & !((v1 & v1 >> 1) | (v2 & v2 >> 1)) != 0
        {
            return Err(position_error(
                "a midpoint does not sit on two segments of one owner",
            ));
        }
        if hm & (hm >> 9) != 0 || vm & (vm >> 1) != 0 {
            return Err(position_error("two whole walls share a segment"));
        }
        let mut lines = Vec::new();
        for (owner, (hs, vs)) in [(h1, v1), (h2, v2)].into_iter().enumerate() {
            let mut push = |set: Set, kind: WallLineKind| {
                for_each(set, |i| {
                    let (x, y) = coords(i);
                    lines.push(WallLine {
                        kind,
                        x,
                        y,
                        owner: owner as u8,
                    });
                })
            };
            push(hm & hs, WallLineKind::Horizontal);
            push(vm & vs, WallLineKind::Vertical);
            push(hs & !(hm | hm << 9), WallLineKind::UnitHorizontal);
            push(vs & !(vm | vm << 1), WallLineKind::UnitVertical);
        }
        Puoribor::from_parts(tick, max_ticks, [p0, p1], walls_remaining, &lines)
    }

    /// The player on turn (still defined once the match is over).
    pub fn current(&self) -> PlayerId {
        (self.tick & 1) as usize
    }
    /// The cell `(x, y)` of a player's pawn.
    pub fn pawn(&self, player: PlayerId) -> (u8, u8) {
        coords(self.pawns[player] as usize)
    }
    /// Walls `player` can still place (a rotation costs two).
    pub fn walls_remaining(&self, player: PlayerId) -> u8 {
        self.walls[player]
    }
    /// The tick at which the match ends in a draw.
    pub fn max_ticks(&self) -> u32 {
        self.max_ticks
    }
    /// Why the match ended; `None` while it goes on.
    pub fn end(&self) -> Option<End> {
        self.end
    }
    /// Whether a pawn is on its goal row (upstream's `done`).
    pub fn done(&self) -> bool {
        self.winner_on_goal().is_some()
    }

    /// A Zobrist hash of everything that decides the rest of the match except the tick count:
    /// pawns, segments with their owners, midpoints, walls remaining, the player on turn.
    /// Equal positions reached in different orders hash equal.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Every wall as the protocol sends it: whole walls `H`, `V`, then unit segments `h`, `v`,
    /// each by `x` then `y`.
    pub fn wall_lines(&self) -> impl Iterator<Item = WallLine> + '_ {
        let h1 = self.h[1];
        let v1 = self.v[1];
        let (h, v) = (self.h_all(), self.v_all());
        let unit_h = h & !self.hm & !(self.hm << 9);
        let unit_v = v & !self.vm & !(self.vm << 1);
        [
            (self.hm, WallLineKind::Horizontal, h1),
            (self.vm, WallLineKind::Vertical, v1),
            (unit_h, WallLineKind::UnitHorizontal, h1),
            (unit_v, WallLineKind::UnitVertical, v1),
        ]
        .into_iter()
        .flat_map(|(set, kind, owned_by_1)| {
            let mut lines = Vec::with_capacity(set.count_ones() as usize);
            for_each(set, |i| {
                let (x, y) = coords(i);
                lines.push(WallLine {
                    kind,
                    x,
                    y,
                    owner: u8::from(has(owned_by_1, i)),
                });
            });
            lines
        })
    }

    /// Number of wall lines the protocol sends.
    pub fn wall_line_count(&self) -> usize {
        let (h, v) = (self.h_all(), self.v_all());
        let unit_h = h & !self.hm & !(self.hm << 9);
        let unit_v = v & !self.vm & !(self.vm << 1);
        (self.hm.count_ones() + self.vm.count_ones() + unit_h.count_ones() + unit_v.count_ones())
            as usize
    }

    /// The length of a shortest path from the player's pawn to its goal row (walls block,
    /// pawns do not); `None` if there is none, which the rules never allow.
    pub fn distance(&self, player: PlayerId) -> Option<u32> {
        let (x, y) = self.pawn(player);
        self.distance_from(player, x, y)
    }

    /// The length of a shortest path from `(x, y)` to the player's goal row.
    pub fn distance_from(&self, player: PlayerId, x: u8, y: u8) -> Option<u32> {
        if x >= SIZE || y >= SIZE {
            return None;
        }
        let (open_s, open_e) = self.open();
        let goal = GOALS[player];
        let mut r = bit(index(x as usize, y as usize));
        let mut d = 0;
        loop {
            if r & goal != 0 {
                return Some(d);
            }
            let next = expand(r, open_s, open_e);
            if next == r {
                return None;
            }
            r = next;
            d += 1;
        }
    }

    /// For every cell `[x][y]`, the length of a shortest path to the player's goal row
    /// (`u8::MAX` where there is none): one breadth-first search serves every pawn move.
    pub fn distances(&self, player: PlayerId) -> [[u8; 9]; 9] {
        let (open_s, open_e) = self.open();
        let mut out = [[u8::MAX; 9]; 9];
        let mut layer = GOALS[player];
        let mut seen = layer;
        let mut d = 0u8;
        while layer != 0 {
            for_each(layer, |i| {
                let (x, y) = coords(i);
                out[x as usize][y as usize] = d;
            });
            layer = expand(layer, open_s, open_e) & !seen;
            seen |= layer;
            d += 1;
        }
        out
    }

    /// One shortest path of the player's pawn to its goal row (walls block, pawns do not), as
    /// cells `(x, y)` from the pawn's to a goal cell, both included. The same position always
    /// gives the same path. A wall or rotation that lengthens the player's way must cut every
    /// shortest path, so this one too: searches try only the actions across it.
    pub fn shortest_path(&self, player: PlayerId) -> Vec<(u8, u8)> {
        let (open_s, open_e) = self.open();
        let goal = GOALS[player];
        let mut last = bit(self.pawns[player] as usize);
        let mut layers = vec![last];
        let mut seen = last;
        while last & goal == 0 {
            last = expand(last, open_s, open_e) & !seen;
            if last == 0 {
                return Vec::new();
            }
            seen |= last;
            layers.push(last);
        }
        let mut c = (last & goal).trailing_zeros() as usize;
        let mut path = vec![coords(c)];
        // Walk back from the goal, each time to a cell one step nearer the pawn. Cells are
        // column-major: `c ± 1` is the cell below or above, `c ± 9` right or left.
        for &before in layers.iter().rev().skip(1) {
            c = if c >= 1 && has(before, c - 1) && has(open_s, c - 1) {
                c - 1
            } else if has(open_s, c) && has(before, c + 1) {
                c + 1
            } else if c >= 9 && has(before, c - 9) && has(open_e, c - 9) {
                c - 9
            } else {
                c + 9
            };
            path.push(coords(c));
        }
        path.reverse();
        path
    }

    /// The legal pawn moves of the player on turn, as destination cells `(x, y)`.
    pub fn pawn_moves(&self) -> impl Iterator<Item = (u8, u8)> + use<> {
        let mut cells = Vec::with_capacity(5);
        for_each(self.move_set(), |i| cells.push(coords(i)));
        cells.into_iter()
    }

    /// The upstream legal-action mask `[type][x][y]` of the player on turn (all false once the
    /// match is over).
    pub fn legal_mask(&self) -> [[[bool; 9]; 9]; 4] {
        let mut mask = [[[false; 9]; 9]; 4];
        if self.end.is_none() {
            for (kind, set) in self.legal().sets().into_iter().enumerate() {
                for_each(set, |i| {
                    let (x, y) = coords(i);
                    mask[kind][x as usize][y as usize] = true;
                });
            }
        }
        mask
    }

    /// [`Puoribor::legal_mask`] flattened to `kind * 81 + x * 9 + y`, 0 or 1 (the layout of
    /// upstream's `legal_actions(...).flatten()`).
    pub fn legal_mask_flat(&self) -> [u8; 324] {
        let mut mask = [0u8; 324];
        if self.end.is_none() {
            for (kind, set) in self.legal().sets().into_iter().enumerate() {
                for_each(set, |i| mask[kind * 81 + i] = 1);
            }
        }
        mask
    }

    /// Number of legal actions of the player on turn, without building the list.
    pub fn count_legal_actions(&self) -> usize {
        if self.end.is_some() {
            return 0;
        }
        self.legal().count()
    }

    #[inline(always)]
    fn h_all(&self) -> Set {
        self.h[0] | self.h[1]
    }

    #[inline(always)]
    fn v_all(&self) -> Set {
        self.v[0] | self.v[1]
    }

    /// Cells with an open lower edge, cells with an open right edge.
    #[inline(always)]
    fn open(&self) -> (Set, Set) {
        (H_VALID & !self.h_all(), V_VALID & !self.v_all())
    }

    fn has_path(&self, player: PlayerId, h: Set, v: Set) -> bool {
        reaches(
            bit(self.pawns[player] as usize),
            GOALS[player],
            H_VALID & !h,
            V_VALID & !v,
        )
    }

    fn winner_on_goal(&self) -> Option<PlayerId> {
        (0..2).find(|&p| has(GOALS[p], self.pawns[p] as usize))
    }

    fn derive_end(&self) -> Option<End> {
        if let Some(winner) = self.winner_on_goal() {
            Some(End::Goal { winner })
        } else if self.tick >= self.max_ticks {
            Some(End::TickLimit)
        } else {
            None
        }
    }

    fn full_hash(&self) -> u64 {
        let mut hash = 0;
        for p in 0..2 {
            hash ^= KEYS.pawn[p][self.pawns[p] as usize];
            hash ^= keys_of(self.h[p], &KEYS.h[p]);
            hash ^= keys_of(self.v[p], &KEYS.v[p]);
            hash ^= walls_key(p, self.walls[p]);
        }
        hash ^= keys_of(self.hm, &KEYS.hm) ^ keys_of(self.vm, &KEYS.vm);
        if self.current() == 1 {
            hash ^= KEYS.side;
        }
        hash
    }

    /// Destinations of the pawn moves of the player on turn (docs/games/puoribor.md#pawn-moves).
    #[inline]
    fn move_set(&self) -> Set {
        let me = self.current();
        let c = self.pawns[me] as usize;
        let o = self.pawns[1 - me] as usize;
        let (h, v) = (self.h_all(), self.v_all());
        let mut moves = 0;
        for dir in DIRS {
            let Some(n) = dir.step(c) else { continue };
            if !dir.open(c, h, v) {
                continue;
            }
            if n != o {
                moves |= bit(n);
                continue;
            }
            match dir.step(o) {
                Some(j) if dir.open(o, h, v) => moves |= bit(j),
                // The straight jump is off the board or walled: side-steps around the pawn.
                _ => {
                    for side in dir.perpendicular() {
                        if let Some(t) = side.step(o)
                            && side.open(o, h, v)
                        {
                            moves |= bit(t);
                        }
                    }
                }
            }
        }
        moves
    }

    /// Every legal action of the player on turn, as sets.
    fn legal(&self) -> Legal {
        let me = self.current();
        let mut legal = Legal {
            moves: self.move_set(),
            ..Legal::default()
        };
        let walls = self.walls[me];
        if walls == 0 {
            return legal;
        }
        let (h, v) = (self.h_all(), self.v_all());
        // Free of segments where the wall goes, and not crossing a whole wall at its middle.
        let mut hfree = ANCHORS & !h & !(h >> 9) & !self.vm;
        let mut vfree = ANCHORS & !v & !(v >> 1) & !self.hm;
        let (open_s, open_e) = (H_VALID & !h, V_VALID & !v);
        let guards = [0, 1].map(|p| Guard::new(self.pawns[p] as usize, GOALS[p], open_s, open_e));
        // Only walls that cut a guarded path need a flood fill.
        let cut_h = guards[0].s() | guards[1].s();
        let cut_v = guards[0].e() | guards[1].e();
        for_each(hfree & (cut_h | cut_h >> 9), |a| {
            let edges = bit(a) | bit(a + 9);
            if !guards
                .iter()
                .all(|g| g.survives_wall(h | edges, v, edges, 0))
            {
                hfree &= !bit(a);
            }
        });
        for_each(vfree & (cut_v | cut_v >> 1), |a| {
            let edges = bit(a) | bit(a + 1);
            if !guards
                .iter()
                .all(|g| g.survives_wall(h, v | edges, 0, edges))
            {
                vfree &= !bit(a);
            }
        });
        legal.h = hfree;
        legal.v = vfree;
        if walls >= 2 {
            for_each(ROTATIONS, |a| {
                let (x0, y0) = coords(a);
                let (x0, y0) = (x0 as usize, y0 as usize);
                // A sub-board without segments turns into itself.
                if !rotate::touches(h, v, x0, y0) {
                    legal.rotations |= bit(a);
                    return;
                }
                let (nh, nv) = rotate::segments(h, v, x0, y0);
                if guards.iter().all(|g| g.survives(nh, nv)) {
                    legal.rotations |= bit(a);
                }
            });
        }
        legal
    }

    fn check_move(&self, x: usize, y: usize) -> Result<(), Illegal> {
        let me = self.current();
        let (cx, cy) = self.pawn(me);
        let (ox, oy) = self.pawn(1 - me);
        if has(self.move_set(), index(x, y)) {
            return Ok(());
        }
        let (dx, dy) = (x as i32 - cx as i32, y as i32 - cy as i32);
        let reason = if (x as u8, y as u8) == (ox, oy) {
            "the opponent's pawn is there".to_string()
        } else if dx == 0 && dy == 0 {
            "the pawn is already there".to_string()
        } else if dx.abs() + dy.abs() > 2 {
            "a pawn moves at most two cells (one step, or a jump over the opponent)".to_string()
        } else if dx.abs() + dy.abs() == 1 {
            "a wall is in the way".to_string()
        } else if dx == 0 || dy == 0 {
            if (cx as i32 + dx / 2, cy as i32 + dy / 2) != (ox as i32, oy as i32) {
                "a two-cell move must jump over the opponent's pawn".to_string()
            } else {
                "a wall is in the way of the jump".to_string()
            }
        } else if (cx as i32 + dx, cy as i32) != (ox as i32, oy as i32)
            && (cx as i32, cy as i32 + dy) != (ox as i32, oy as i32)
        {
            "a diagonal move must go around the opponent's pawn next to yours".to_string()
        } else {
            "a diagonal jump needs the straight jump to be walled or off the board, and no wall \
             between your pawn and the opponent's or beside the target"
                .to_string()
        };
        Err(Illegal::new(format!(
            "cannot move from ({cx}, {cy}) to ({x}, {y}): {reason}"
        )))
    }

    fn check_wall(&self, horizontal: bool, x: usize, y: usize) -> Result<(), Illegal> {
        let me = self.current();
        let name = if horizontal { "horizontal" } else { "vertical" };
        if self.walls[me] == 0 {
            return Err(Illegal::new(format!(
                "cannot place a {name} wall: player {me} has no walls left"
            )));
        }
        if x > 7 || y > 7 {
            return Err(Illegal::new(format!(
                "a {name} wall at ({x}, {y}) would stick out of the board: x and y go up to 7"
            )));
        }
        let a = index(x, y);
        let (mut h, mut v) = (self.h_all(), self.v_all());
        if horizontal {
            let span = bit(a) | bit(a + 9);
            if h & span != 0 {
                return Err(Illegal::new(format!(
                    "a horizontal wall at ({x}, {y}) overlaps a wall already there"
                )));
            }
            if has(self.vm, a) {
                return Err(Illegal::new(format!(
                    "a horizontal wall at ({x}, {y}) crosses a vertical wall"
                )));
            }
            h |= span;
        } else {
            let span = bit(a) | bit(a + 1);
            if v & span != 0 {
                return Err(Illegal::new(format!(
                    "a vertical wall at ({x}, {y}) overlaps a wall already there"
                )));
            }
            if has(self.hm, a) {
                return Err(Illegal::new(format!(
                    "a vertical wall at ({x}, {y}) crosses a horizontal wall"
                )));
            }
            v |= span;
        }
        self.check_paths(h, v, &format!("a {name} wall at ({x}, {y})"))
    }

    fn check_rotation(&self, x: usize, y: usize) -> Result<(), Illegal> {
        let me = self.current();
        if x > 5 || y > 5 {
            return Err(Illegal::new(format!(
                "the 4×4 sub-board at ({x}, {y}) does not fit on the board: x and y go up to 5"
            )));
        }
        if self.walls[me] < 2 {
            return Err(Illegal::new(format!(
                "a rotation costs 2 walls and player {me} has {}",
                self.walls[me]
            )));
        }
        let (h, v) = rotate::segments(self.h_all(), self.v_all(), x, y);
        self.check_paths(h, v, &format!("rotating the sub-board at ({x}, {y})"))
    }

    fn check_paths(&self, h: Set, v: Set, what: &str) -> Result<(), Illegal> {
        for p in 0..2 {
            if !self.has_path(p, h, v) {
                return Err(Illegal::new(format!(
                    "{what} would leave player {p} no path to its goal row"
                )));
            }
        }
        Ok(())
    }

    fn place(&mut self, horizontal: bool, x: usize, y: usize) {
        let me = self.current();
        let a = index(x, y);
        if horizontal {
            self.h[me] |= bit(a) | bit(a + 9);
            self.hm |= bit(a);
            self.hash ^= KEYS.h[me][a] ^ KEYS.h[me][a + 9] ^ KEYS.hm[a];
        } else {
            self.v[me] |= bit(a) | bit(a + 1);
            self.vm |= bit(a);
            self.hash ^= KEYS.v[me][a] ^ KEYS.v[me][a + 1] ^ KEYS.vm[a];
        }
        self.spend(me, 1);
    }

    fn rotate(&mut self, x: usize, y: usize) {
        let me = self.current();
        let mut hash = self.hash;
        let (mut h, mut v) = (self.h, self.v);
        for p in 0..2 {
            (h[p], v[p]) = rotate::segments(self.h[p], self.v[p], x, y);
            hash ^= keys_of(h[p] ^ self.h[p], &KEYS.h[p]) ^ keys_of(v[p] ^ self.v[p], &KEYS.v[p]);
        }
        let (hm, vm) = rotate::midpoints(self.hm, self.vm, x, y);
        hash ^= keys_of(hm ^ self.hm, &KEYS.hm) ^ keys_of(vm ^ self.vm, &KEYS.vm);
        (self.h, self.v, self.hm, self.vm, self.hash) = (h, v, hm, vm, hash);
        self.spend(me, 2);
    }

    fn spend(&mut self, player: PlayerId, walls: u8) {
        self.hash ^= walls_key(player, self.walls[player]);
        self.walls[player] -= walls;
        self.hash ^= walls_key(player, self.walls[player]);
    }
}

impl Game for Puoribor {
    type Action = Action;
    const NAME: &'static str = "puoribor";

    fn num_players(&self) -> usize {
        2
    }

    fn to_move(&self) -> Option<PlayerId> {
        match self.end {
            Some(_) => None,
            None => Some(self.current()),
        }
    }

    fn tick(&self) -> u32 {
        self.tick
    }

    /// In upstream mask order: type, then `x`, then `y`.
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.end.is_some() {
            return;
        }
        let legal = self.legal();
        out.reserve(legal.count());
        for (kind, set) in legal.sets().into_iter().enumerate() {
            for_each(set, |i| {
                let (x, y) = coords(i);
                out.push(Action::new(kind as i32, x as i32, y as i32));
            });
        }
    }

    fn check(&self, action: Action) -> Result<(), Illegal> {
        if self.end.is_some() {
            return Err(Illegal::new("the match is over"));
        }
        let Action { kind, x, y } = action;
        if !(0..4).contains(&kind) {
            return Err(Illegal::new(format!(
                "the action type must be 0 (move), 1 (horizontal wall), 2 (vertical wall) or \
                 3 (rotation), got {kind}"
            )));
        }
        if !(0..9).contains(&x) || !(0..9).contains(&y) {
            return Err(Illegal::new(format!(
                "({x}, {y}) is off the board: x and y go from 0 to 8"
            )));
        }
        let (x, y) = (x as usize, y as usize);
        match kind {
            Action::MOVE => self.check_move(x, y),
            Action::HORIZONTAL => self.check_wall(true, x, y),
            Action::VERTICAL => self.check_wall(false, x, y),
            _ => self.check_rotation(x, y),
        }
    }

    fn apply_unchecked(&mut self, action: Action) {
        let me = self.current();
        let (x, y) = (action.x as usize, action.y as usize);
        match action.kind {
            Action::MOVE => {
                let to = index(x, y);
                self.hash ^= KEYS.pawn[me][self.pawns[me] as usize] ^ KEYS.pawn[me][to];
                self.pawns[me] = to as u8;
            }
            Action::HORIZONTAL => self.place(true, x, y),
            Action::VERTICAL => self.place(false, x, y),
            _ => self.rotate(x, y),
        }
        self.tick += 1;
        self.hash ^= KEYS.side;
        self.end = self.derive_end();
    }

    /// Never: both players always have a path to their goal, and a player with a path has a
    /// pawn move (its only open neighbour can be the opponent only if the two pawns wall each
    /// other in, which would cut one of them off its goal).
    fn is_stuck(&self) -> bool {
        false
    }

    fn outcome(&self) -> Option<Outcome> {
        let (scores, placement, reason) = match self.end? {
            End::Goal { winner } => (win(winner), places(winner), "goal"),
            End::TickLimit => (vec![0.5, 0.5], vec![1, 1], "tick_limit"),
        };
        Some(Outcome {
            scores,
            placement,
            reason,
        })
    }
}

fn win(winner: PlayerId) -> Vec<f64> {
    (0..2)
        .map(|p| if p == winner { 1.0 } else { 0.0 })
        .collect()
}

fn places(winner: PlayerId) -> Vec<u32> {
    (0..2).map(|p| if p == winner { 1 } else { 2 }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clone_is_small_and_flat() {
        assert!(std::mem::size_of::<Puoribor>() <= 144);
    }

    #[test]
    fn hash_is_the_full_hash_after_every_action() {
        let mut game = Puoribor::new();
        let mut actions = Vec::new();
        let mut seed = 1u64;
        while game.to_move().is_some() {
            game.legal_actions(&mut actions);
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            let a = actions[(seed >> 33) as usize % actions.len()];
            game.apply_unchecked(a);
            assert_eq!(game.hash, game.full_hash());
        }
    }
}
