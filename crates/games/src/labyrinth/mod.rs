//! Labyrinth, the game of the GRAPHISOFT ITech Challenge 2017 final, as docs/games/labyrinth.md
//! says: 1 to 10 princesses on a board of sliding tiles race to their own list of displays.
//!
//! A turn is a push of a row or column with the player's extra tile, then an optional walk
//! (GOTO) to any cell the princess can reach. The board mechanics are free functions in
//! [`board`] over a plain tile array; the game state keeps the tiles, and the level (which never
//! changes) behind an `Arc`, so a clone is one small copy. Reachability is a flood fill into a
//! fixed-size bit set, and a push moves tiles in place: playing a turn does not allocate.
//!
//! A faulty answer has a prescribed effect (docs/games/labyrinth.md#turns-and-the-end, docs/games/labyrinth.md#faults-and-message-codes): an invalid push voids the turn, a refused
//! GOTO keeps the push. An [`Action`] can therefore be a void turn or a push whose GOTO was
//! refused, with the MESSAGE code the player reads next turn; see [`Action`].

pub mod board;
pub mod legal_set;
pub mod level;
mod listing;
mod record;
mod wire;

pub use board::{
    MAX_CELLS, Push, Reach, class_of, push_tiles, pushed_cell, reach, rot, same_class,
};
pub use legal_set::LegalSet;
pub use level::{Level, MAX_SEATS, SplitMix64};
pub use record::{ActionRecord, PushRecord, SettingsRecord, Snapshot, TurnKind};
pub use wire::{Init, LabyrinthClient, REPLY_LIMIT, parse_action};

use std::fmt;
use std::sync::Arc;

use crate::{Game, Illegal, Outcome, PlayerId, SessionMode};

/// A cell `(x, y)`: `x` the column from the left, `y` the row from the top.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Cell {
    /// Column, from 0 at the left.
    pub x: u8,
    /// Row, from 0 at the top.
    pub y: u8,
}

impl Cell {
    /// The cell in column `x`, row `y`.
    pub const fn new(x: u8, y: u8) -> Cell {
        Cell { x, y }
    }

    /// Manhattan distance to `other`: steps along x plus steps along y.
    pub fn manhattan(self, other: Cell) -> u32 {
        u32::from(self.x.abs_diff(other.x)) + u32::from(self.y.abs_diff(other.y))
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

/// The MESSAGE code of a turn (docs/games/labyrinth.md#faults-and-message-codes): what a player is told about its previous turn. Replays
/// write it as on the wire ([`Code::as_str`]).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Code {
    #[default]
    /// `OK`: the turn was played as sent.
    Ok,
    /// `TIMEOUT`: no complete reply in time; the turn was void.
    Timeout,
    /// `NO_PUSH`: no `PUSH` line, or one without four numbers; the turn was void.
    NoPush,
    /// `BAD_PUSH`: `c`, `p` or `k` out of range; the turn was void.
    BadPush,
    /// `BAD_TILE`: `t` is not a rotation of the extra tile; the turn was void.
    BadTile,
    /// `BLOCKED_LINE`: the pushed line holds a blocked cell; the turn was void.
    BlockedLine,
    /// `BAD_GOTO`: the GOTO was malformed, off the board or unreachable; the push stood.
    BadGoto,
}

impl Code {
    /// Every code, in declaration order.
    pub const ALL: [Code; 7] = [
        Code::Ok,
        Code::Timeout,
        Code::NoPush,
        Code::BadPush,
        Code::BadTile,
        Code::BlockedLine,
        Code::BadGoto,
    ];

    /// The token sent on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Ok => "OK",
            Code::Timeout => "TIMEOUT",
            Code::NoPush => "NO_PUSH",
            Code::BadPush => "BAD_PUSH",
            Code::BadTile => "BAD_TILE",
            Code::BlockedLine => "BLOCKED_LINE",
            Code::BadGoto => "BAD_GOTO",
        }
    }

    /// The code a wire token names; `None` for anything else.
    pub fn parse(token: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.as_str() == token)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The GOTO part of a reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Goto {
    /// No GOTO line: the princess stays (and does not score).
    None,
    /// `GOTO x y`, numbers kept as sent (capped at 255) so that an off-board cell is refused by
    /// the rules.
    Cell(u8, u8),
    /// A GOTO line that could not be read: refused with BAD_GOTO, the push stands.
    Malformed,
}

/// One turn.
///
/// A bot's reply is a [`Action::Move`]; the other two are what the rules make of a faulty reply
/// ([`crate::Wire::on_fault`]) and are never legal answers: [`Game::check`] refuses
/// them, and [`Game::apply_unchecked`] plays them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
// An explicit tag makes the action eight bytes (seven with the tag folded into the GOTO's), so
// listing the thousands of actions of a ply writes whole words.
#[repr(u8)]
pub enum Action {
    /// A push, then the GOTO if any; legal when both are valid.
    Move {
        /// The push, with the tile inserted.
        push: Push,
        /// Where the princess walks after the push, if anywhere.
        goto: Goto,
    },
    /// A valid push whose GOTO was refused: the push stands, the princess stays, code BAD_GOTO.
    PushOnly(Push),
    /// No push, no GOTO, extra unchanged; the code says why (TIMEOUT also for an offline seat).
    Void(Code),
}

impl Action {
    /// A push and a walk to `(x, y)`.
    pub fn goto(push: Push, x: u8, y: u8) -> Action {
        Action::Move {
            push,
            goto: Goto::Cell(x, y),
        }
    }

    /// The push played, if the turn has one.
    pub fn push(self) -> Option<Push> {
        match self {
            Action::Move { push, .. } | Action::PushOnly(push) => Some(push),
            Action::Void(_) => None,
        }
    }
}

/// How a match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    AllDisplays,
    TickLimit,
    Abandoned,
}

impl End {
    fn reason(self) -> &'static str {
        match self {
            End::AllDisplays => "all_displays",
            End::TickLimit => "tick_limit",
            End::Abandoned => "abandoned",
        }
    }
}

/// Settings of a game beyond its level: what the protocol tells the players about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// `ID i` of the init block.
    pub game_id: u64,
    /// `LEVEL X` of the init block.
    pub level_number: u64,
    /// Player names for `PLAYERS`, one token each.
    pub names: Vec<String>,
    /// Alone, the end message is the one-game session end (`SCORE`, `NEXTSTART 0 -1 0`,
    /// `END`), for bots playing alone over pipes; served, the server writes its own after-game
    /// blocks and the end message is empty.
    pub session: SessionMode,
}

/// Everything a Labyrinth match is built from, checked once by [`Labyrinth::from_setup`].
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    /// The board, its displays, targets and starts.
    pub level: Level,
    /// `LEVEL X` of the init block.
    pub level_number: u64,
    /// `ID i` of the init block.
    pub game_id: u64,
    /// One name per player, in seat order: the number of names is the number of players. A
    /// name is sent as one token of `PLAYERS` (characters that are not visible ASCII become
    /// `_`).
    pub names: Vec<String>,
    /// Whether the match stands alone or is one of a server's session.
    pub session: SessionMode,
}

impl Setup {
    /// A match standing alone on `level` (LEVEL the level's seed, ID 1) between `players`
    /// named `player_<seat>`.
    pub fn new(level: Level, players: usize) -> Setup {
        Setup {
            level_number: level.seed.unwrap_or(0),
            level,
            game_id: 1,
            names: (0..players).map(|s| format!("player_{s}")).collect(),
            session: SessionMode::Alone,
        }
    }

    /// Level `number` of the contest: generated from seed `number`, LEVEL `number` on the wire.
    pub fn generated(number: u64, players: usize) -> Setup {
        let mut setup = Setup::new(Level::generate(number), players);
        setup.level_number = number;
        setup
    }
}

/// A setup that is not a playable match: what was wrong, and the setup handed back.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{reason}")]
pub struct SetupError {
    /// What was wrong.
    pub reason: Illegal,
    /// The setup, unchanged.
    pub setup: Box<Setup>,
}

impl From<SetupError> for Illegal {
    fn from(e: SetupError) -> Illegal {
        e.reason
    }
}

/// A position of a Labyrinth match.
#[derive(Clone, Debug)]
pub struct Labyrinth {
    level: Arc<Level>,
    settings: Arc<Settings>,
    players: usize,
    tiles: Vec<u8>,
    /// Cell index of each seat's princess.
    positions: [u16; MAX_SEATS],
    extras: [u8; MAX_SEATS],
    scores: [u32; MAX_SEATS],
    codes: [Code; MAX_SEATS],
    /// Index into the seat's TARGETS of its current target (every one before it is inactive).
    next_target: [u8; MAX_SEATS],
    /// Cell index of each display; meaningless once inactive.
    display_cells: Vec<u16>,
    /// Active displays, bit i for display i (L ≤ 100).
    active: u128,
    /// Turns taken.
    turns: u32,
    end: Option<End>,
}

impl PartialEq for Labyrinth {
    fn eq(&self, other: &Self) -> bool {
        self.level == other.level
            && self.players == other.players
            && self.tiles == other.tiles
            && self.positions == other.positions
            && self.extras == other.extras
            && self.scores == other.scores
            && self.codes == other.codes
            && self.active == other.active
            && self.turns == other.turns
            && self.end == other.end
            && self.active_displays().eq(other.active_displays())
    }
}

impl Labyrinth {
    /// A match standing alone of `players` (1 to 10) on `level`, named `player_<seat>` (see
    /// [`Setup::new`]).
    pub fn new(level: Level, players: usize) -> Result<Labyrinth, Illegal> {
        Ok(Labyrinth::from_setup(Setup::new(level, players))?)
    }

    /// Level `number` of the contest: generated from seed `number`, LEVEL `number` on the wire.
    pub fn generated(number: u64, players: usize) -> Result<Labyrinth, Illegal> {
        Ok(Labyrinth::from_setup(Setup::generated(number, players))?)
    }

    /// The match `setup` describes: seat s starts where the level's seat s does. Refuses 0 or
    /// more than 10 players, a level with too few seats or displays for them, or too few rounds
    /// (docs/games/labyrinth.md#board-and-tiles: c ≤ L, L/c ≤ T).
    pub fn from_setup(setup: Setup) -> Result<Labyrinth, SetupError> {
        match check_setup(&setup) {
            Ok(()) => Ok(Labyrinth::build(setup)),
            Err(reason) => Err(SetupError {
                reason,
                setup: Box::new(setup),
            }),
        }
    }

    fn build(setup: Setup) -> Labyrinth {
        let Setup {
            level,
            level_number,
            game_id,
            names,
            session,
        } = setup;
        let players = names.len();
        let width = level.width;
        let mut positions = [0u16; MAX_SEATS];
        for (s, start) in level.starts.iter().take(players).enumerate() {
            positions[s] = (start.y as usize * width + start.x as usize) as u16;
        }
        let display_cells = level
            .displays
            .iter()
            .map(|d| (d.y as usize * width + d.x as usize) as u16)
            .collect();
        let l = level.displays.len();
        let active = if l == 128 {
            u128::MAX
        } else {
            (1u128 << l) - 1
        };
        let names = names
            .iter()
            .enumerate()
            .map(|(s, name)| name_token(s, name))
            .collect();
        Labyrinth {
            tiles: level.tiles.clone(),
            settings: Arc::new(Settings {
                game_id,
                level_number,
                names,
                session,
            }),
            level: Arc::new(level),
            players,
            positions,
            extras: [15; MAX_SEATS],
            scores: [0; MAX_SEATS],
            codes: [Code::Ok; MAX_SEATS],
            next_target: [0; MAX_SEATS],
            display_cells,
            active,
            turns: 0,
            end: None,
        }
    }

    /// The level the match is played on.
    pub fn level(&self) -> &Level {
        &self.level
    }

    /// The match's settings: game id, level number, names, session mode.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// N, the number of columns.
    pub fn width(&self) -> usize {
        self.level.width
    }

    /// M, the number of rows.
    pub fn height(&self) -> usize {
        self.level.height
    }

    /// The names sent in `PLAYERS`.
    pub fn names(&self) -> &[String] {
        &self.settings.names
    }

    /// The current tiles, index `y * width + x`.
    pub fn tiles(&self) -> &[u8] {
        &self.tiles
    }

    /// The current tile at `(x, y)`.
    pub fn tile(&self, x: usize, y: usize) -> u8 {
        self.tiles[y * self.level.width + x]
    }

    fn cell_of(&self, index: u16) -> Cell {
        let w = self.level.width;
        Cell::new((index as usize % w) as u8, (index as usize / w) as u8)
    }

    fn index_of(&self, cell: Cell) -> usize {
        cell.y as usize * self.level.width + cell.x as usize
    }

    /// The cell of seat `s`'s princess.
    pub fn position(&self, s: PlayerId) -> Cell {
        self.cell_of(self.positions[s])
    }

    /// Every seat's princess, by seat.
    pub fn positions(&self) -> Vec<Cell> {
        (0..self.players).map(|s| self.position(s)).collect()
    }

    /// Seat `s`'s extra tile.
    pub fn extra(&self, s: PlayerId) -> u8 {
        self.extras[s]
    }

    /// Every seat's extra tile, by seat.
    pub fn extras(&self) -> &[u8] {
        &self.extras[..self.players]
    }

    /// Seat `s`'s points.
    pub fn score(&self, s: PlayerId) -> u32 {
        self.scores[s]
    }

    /// Every seat's points, by seat.
    pub fn scores(&self) -> &[u32] {
        &self.scores[..self.players]
    }

    /// The MESSAGE code of seat `s`'s last turn (OK before its first).
    pub fn code(&self, s: PlayerId) -> Code {
        self.codes[s]
    }

    /// Every seat's MESSAGE code, by seat.
    pub fn codes(&self) -> &[Code] {
        &self.codes[..self.players]
    }

    /// Whether display `d` is still active.
    pub fn is_active(&self, d: usize) -> bool {
        d < 128 && self.active >> d & 1 == 1
    }

    /// The active displays with their cells, ascending by index.
    pub fn active_displays(&self) -> impl Iterator<Item = (usize, Cell)> + '_ {
        (0..self.display_cells.len())
            .filter(|&d| self.is_active(d))
            .map(|d| (d, self.cell_of(self.display_cells[d])))
    }

    /// The cell of display `d` (meaningful while it is active).
    pub fn display_cell(&self, d: usize) -> Cell {
        self.cell_of(self.display_cells[d])
    }

    /// Seat `s`'s current target: the first active display of its TARGETS.
    pub fn current_target(&self, s: PlayerId) -> Option<usize> {
        self.level.targets[s][self.next_target[s] as usize..]
            .iter()
            .map(|&d| d as usize)
            .find(|&d| self.is_active(d))
    }

    /// The target after the current one, if any: what a player walks to next once it scores.
    pub fn following_target(&self, s: PlayerId) -> Option<usize> {
        let current = self.current_target(s)?;
        self.level.targets[s][self.next_target[s] as usize..]
            .iter()
            .map(|&d| d as usize)
            .filter(|&d| self.is_active(d))
            .find(|&d| d != current)
    }

    /// TICK: the round, `0..max_tick`.
    pub fn round(&self) -> u32 {
        self.turns / self.players as u32
    }

    /// The seat whose turn it is (or would be, once the match is over).
    pub fn seat_on_turn(&self) -> PlayerId {
        self.turns as usize % self.players
    }

    /// Whether the match has ended.
    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    /// The cells seat `s`'s princess can walk to now.
    pub fn reach_of(&self, s: PlayerId) -> Reach {
        reach(
            &self.tiles,
            self.level.width,
            self.level.height,
            self.positions[s] as usize,
        )
    }

    /// Whether `push` is valid for the seat on turn, and if not, its code.
    pub fn push_code(&self, push: Push) -> Result<(), Code> {
        self.level.push_code(push, self.extras[self.seat_on_turn()])
    }

    /// Every valid push for the seat on turn, in the order of the robot rule (docs/games/labyrinth.md#sessions-on-the-game-server): c, p, k
    /// ascending, then t ascending in the class of the extra tile.
    pub fn valid_pushes(&self, out: &mut Vec<Push>) {
        out.clear();
        let (tiles, count) = class_of(self.extras[self.seat_on_turn()]);
        for c in 0..2u8 {
            let lines = if c == 0 {
                self.level.height
            } else {
                self.level.width
            };
            for p in 0..2u8 {
                for k in 0..lines {
                    let blocked = if c == 0 {
                        self.level.row_blocked(k)
                    } else {
                        self.level.column_blocked(k)
                    };
                    if blocked {
                        continue;
                    }
                    for &t in &tiles[..count] {
                        out.push(Push::new(c, p, k as u8, t));
                    }
                }
            }
        }
    }

    /// Fills `set` with the legal actions of the seat on turn: the actions
    /// [`Game::legal_actions`] lists, in the same order, as each valid push with the cells
    /// reachable after it. Empty when the match is over.
    pub fn legal_set(&self, set: &mut LegalSet) {
        if self.end.is_some() {
            set.clear();
            return;
        }
        let s = self.seat_on_turn();
        let at = self.positions[s] as usize;
        listing::list(&self.tiles, &self.level, at, self.extras[s], set);
    }

    /// Plays `push` for the seat on turn, assumed valid: the line moves, princesses and active
    /// displays on it move with their tiles, the fallen tile becomes the seat's extra.
    pub fn apply_push(&mut self, push: Push) {
        let (w, h) = (self.level.width, self.level.height);
        let fallen = push_tiles(&mut self.tiles, w, h, push);
        self.extras[self.seat_on_turn()] = fallen;
        // Every princess and active display is placed every turn: rows by a multiplication,
        // many times faster than a division.
        let reciprocal = reciprocal(w);
        let moved = |i: u16| {
            let y = row_of(usize::from(i), reciprocal);
            let (x, y) = pushed_cell(w, h, push, usize::from(i) - y * w, y);
            (y * w + x) as u16
        };
        for s in 0..self.players {
            self.positions[s] = moved(self.positions[s]);
        }
        let mut active = self.active;
        while active != 0 {
            let d = active.trailing_zeros() as usize;
            active &= active - 1;
            self.display_cells[d] = moved(self.display_cells[d]);
        }
    }

    /// What the rules make of `action` for the seat on turn: `Ok` when it is a legal move, else
    /// the code and why, in words a bot author understands.
    fn judge(&self, action: Action) -> Result<(), (Code, String)> {
        let (push, goto) = match action {
            Action::Move { push, goto } => (push, goto),
            Action::PushOnly(_) | Action::Void(_) => {
                return Err((
                    Code::NoPush,
                    "a void turn or a refused GOTO is what the rules make of a faulty reply, \
                     not a reply"
                        .to_owned(),
                ));
            }
        };
        let s = self.seat_on_turn();
        let extra = self.extras[s];
        if let Err(code) = self.push_code(push) {
            let why = match code {
                Code::BadPush => format!(
                    "{push}: c and p must be 0 or 1, and k a row 0..{} (c = 0) or a column \
                     0..{} (c = 1)",
                    self.level.height - 1,
                    self.level.width - 1
                ),
                Code::BadTile => {
                    let (class, n) = class_of(extra);
                    format!(
                        "{push}: your extra tile is {extra}, so t must be one of {:?} (a rotation \
                         of it)",
                        &class[..n]
                    )
                }
                _ => format!(
                    "{push}: {} {} holds a BLOCKED cell and cannot be pushed",
                    if push.c == 0 { "row" } else { "column" },
                    push.k
                ),
            };
            return Err((code, why));
        }
        match goto {
            Goto::None => Ok(()),
            Goto::Malformed => Err((
                Code::BadGoto,
                "the GOTO line must be `GOTO x y` with two numbers".to_owned(),
            )),
            Goto::Cell(x, y) => {
                let (w, h) = (self.level.width, self.level.height);
                if x as usize >= w || y as usize >= h {
                    return Err((
                        Code::BadGoto,
                        format!("GOTO {x} {y} is off the {w}×{h} board"),
                    ));
                }
                let mut tiles = [0u8; MAX_CELLS];
                let tiles = &mut tiles[..w * h];
                tiles.copy_from_slice(&self.tiles);
                push_tiles(tiles, w, h, push);
                let i = self.positions[s] as usize;
                let (px, py) = pushed_cell(w, h, push, i % w, i / w);
                if reach(tiles, w, h, py * w + px).contains(y as usize * w + x as usize) {
                    Ok(())
                } else {
                    Err((
                        Code::BadGoto,
                        format!(
                            "GOTO {x} {y}: after the push your princess is at ({px}, {py}) and \
                             cannot walk there"
                        ),
                    ))
                }
            }
        }
    }

    /// The action the rules play for a reply that was refused: a push that is valid stands with
    /// its GOTO refused, anything else voids the turn with its code.
    pub fn refused(&self, action: Action) -> Action {
        match action {
            Action::Move { push, .. } | Action::PushOnly(push) => match self.push_code(push) {
                Ok(()) => Action::PushOnly(push),
                Err(code) => Action::Void(code),
            },
            Action::Void(code) => Action::Void(code),
        }
    }

    fn finish_turn(&mut self) {
        self.turns += 1;
        if self.active == 0 {
            self.end = Some(End::AllDisplays);
        } else if self.turns >= self.level.max_tick * self.players as u32 {
            self.end = Some(End::TickLimit);
        }
    }

    /// Moves seat `s`'s target pointer past displays used by anyone.
    fn advance_targets(&mut self) {
        for s in 0..self.players {
            let order = &self.level.targets[s];
            let mut i = self.next_target[s] as usize;
            while i < order.len() && !self.is_active(order[i] as usize) {
                i += 1;
            }
            self.next_target[s] = i as u8;
        }
    }
}

/// What [`row_of`] multiplies by for a board `width` wide.
const fn reciprocal(width: usize) -> usize {
    (1 << 16) / width + 1
}

/// The row of cell index `i` on a board `width` wide, `i / width`, with `reciprocal` from
/// [`reciprocal`] for that width. Exact for `i` below `2^16 / width` (3,276 on a 20-wide board
/// of 400 cells): the product's error, below `i / 2^16`, stays under the `1 / width` that the
/// fraction of `i / width` leaves before the next whole number.
const fn row_of(i: usize, reciprocal: usize) -> usize {
    (i * reciprocal) >> 16
}

/// Why `setup` is not a playable match, if it is not.
fn check_setup(setup: &Setup) -> Result<(), Illegal> {
    let (level, players) = (&setup.level, setup.names.len());
    if !(1..=MAX_SEATS).contains(&players) {
        return Err(Illegal::new(format!(
            "{players} players: Labyrinth has 1 to {MAX_SEATS}"
        )));
    }
    if level.seats() < players {
        return Err(Illegal::new(format!(
            "the level has {} seats, not enough for {players} players",
            level.seats()
        )));
    }
    let l = level.displays.len();
    if l < players {
        return Err(Illegal::new(format!(
            "the level has {l} displays, fewer than the {players} players"
        )));
    }
    if (level.max_tick as usize) * players < l {
        return Err(Illegal::new(format!(
            "MAXTICK {} is less than L/c = {l}/{players}",
            level.max_tick
        )));
    }
    Ok(())
}

/// Seat `s`'s name as one token of the `PLAYERS` line: characters that are not visible ASCII
/// become `_`; an empty name is `player_<s>`.
fn name_token(s: PlayerId, name: &str) -> String {
    let token: String = name
        .chars()
        .map(|c| if c.is_ascii_graphic() { c } else { '_' })
        .collect();
    if token.is_empty() {
        format!("player_{s}")
    } else {
        token
    }
}

impl Game for Labyrinth {
    type Action = Action;

    const NAME: &'static str = "labyrinth";

    fn num_players(&self) -> usize {
        self.players
    }

    fn to_move(&self) -> Option<PlayerId> {
        match self.end {
            Some(_) => None,
            None => Some(self.seat_on_turn()),
        }
    }

    fn tick(&self) -> u32 {
        self.turns
    }

    /// Every valid push (in the robot rule's order) with a GOTO to each cell the princess can
    /// reach after it (ascending by y, then x). A reply without GOTO is legal too but left out:
    /// it is GOTO to the own cell without the chance to score, and would only double the list.
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.end.is_some() {
            return;
        }
        thread_local! {
            // Kept between calls: listing into a fresh set would allocate every ply.
            static SET: std::cell::RefCell<LegalSet> = std::cell::RefCell::new(LegalSet::new());
        }
        SET.with_borrow_mut(|set| {
            self.legal_set(set);
            set.actions(out);
        });
    }

    fn check(&self, action: Action) -> Result<(), Illegal> {
        if self.end.is_some() {
            return Err(Illegal::new("the match is over"));
        }
        self.judge(action)
            .map_err(|(code, why)| Illegal(format!("{code}: {why}")))
    }

    /// Plays a turn. A [`Action::Move`] is trusted to be legal; the other two play what the
    /// rules make of a faulty reply.
    fn apply_unchecked(&mut self, action: Action) {
        if self.end.is_some() {
            return;
        }
        let s = self.seat_on_turn();
        match action {
            Action::Void(code) => self.codes[s] = code,
            Action::PushOnly(push) => {
                self.apply_push(push);
                self.codes[s] = Code::BadGoto;
            }
            Action::Move { push, goto } => {
                self.apply_push(push);
                self.codes[s] = Code::Ok;
                if let Goto::Cell(x, y) = goto {
                    let to = self.index_of(Cell::new(x, y)) as u16;
                    self.positions[s] = to;
                    if let Some(d) = self.current_target(s)
                        && self.display_cells[d] == to
                    {
                        self.scores[s] += 1;
                        self.active &= !(1u128 << d);
                        self.advance_targets();
                    }
                }
            }
        }
        self.finish_turn();
    }

    /// Never: some row or column can always be pushed (blocked cells are at least 2 apart and
    /// fewer than the lines), and the own cell is always reachable.
    fn is_stuck(&self) -> bool {
        false
    }

    /// docs/games/labyrinth.md#disconnects: a match with no connected player left ends at once.
    fn abandon(&mut self) {
        if self.end.is_none() {
            self.end = Some(End::Abandoned);
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        let end = self.end?;
        let scores = self.scores();
        Some(Outcome {
            scores: scores.iter().map(|&s| f64::from(s)).collect(),
            placement: scores
                .iter()
                .map(|&mine| 1 + scores.iter().filter(|&&other| other > mine).count() as u32)
                .collect(),
            reason: end.reason(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_by_a_multiplication_are_rows_by_a_division() {
        for width in 1..=20 {
            for i in 0..width * 20 {
                assert_eq!(row_of(i, reciprocal(width)), i / width, "{i} on {width}");
            }
        }
    }
}
