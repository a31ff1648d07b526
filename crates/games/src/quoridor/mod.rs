//! Quoridor for 2 or 4 players on any odd board from 5×5 to 25×25, as `specs/quoridor.md` says.
//!
//! (Skeleton: the public surface the other crates build on. Bodies marked `todo!` are being
//! implemented.)

mod wire;

use serde::{Deserialize, Serialize};

use crate::{Game, Illegal, Outcome, PlayerId};

pub const MIN_BOARD: u8 = 5;
pub const MAX_BOARD: u8 = 25;

/// A cell `(x, y)`: `x` the column from the left, `y` the row from the top.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Cell {
    pub x: u8,
    pub y: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Orientation {
    Horizontal,
    Vertical,
}

/// A wall `(x, y, v)`: `(x, y)` is the cell nearest `(0, 0)` that the wall touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Wall {
    pub x: u8,
    pub y: u8,
    pub orientation: Orientation,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Move the pawn to this cell (the destination, also for jumps and side-steps).
    Move(Cell),
    Wall(Wall),
}

/// Why the match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    Goal,
    TickLimit,
    LastPlayerLeft,
}

impl EndReason {
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
    pub start_player: u8,
    pub max_ticks: u32,
    /// Starting cell of each pawn, by player id.
    pub pawns: Vec<Cell>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid Quoridor settings: {0}")]
pub struct SettingsError(pub String);

impl Settings {
    /// The standard setup: pawns in the middle of their home edge, 20 walls split equally,
    /// 100 ticks with 2 players and 200 with 4, player 0 starts.
    pub fn standard(players: u8, board: u8) -> Result<Settings, SettingsError> {
        todo!()
    }

    /// Gives every player `walls` walls.
    pub fn with_walls_each(mut self, walls: u8) -> Settings {
        self.walls = vec![walls; self.players as usize];
        self
    }

    pub fn validate(&self) -> Result<(), SettingsError> {
        todo!()
    }
}

/// One Quoridor position. Cloning is cheap (no heap data), so searches may copy-make.
#[derive(Clone, Debug)]
pub struct Quoridor {
    // todo
}

impl Quoridor {
    pub fn new(settings: Settings) -> Result<Quoridor, SettingsError> {
        todo!()
    }
    pub fn settings(&self) -> &Settings {
        todo!()
    }
    pub fn board_size(&self) -> u8 {
        todo!()
    }
    /// The player whose turn it is; still defined after the end.
    pub fn current(&self) -> PlayerId {
        todo!()
    }
    /// `None` once the player is eliminated.
    pub fn pawn(&self, player: PlayerId) -> Option<Cell> {
        todo!()
    }
    pub fn walls_left(&self, player: PlayerId) -> u8 {
        todo!()
    }
    /// Walls on the board in the order they were placed, with who placed them.
    pub fn walls(&self) -> impl Iterator<Item = (Wall, PlayerId)> + '_ {
        todo!();
        #[allow(unreachable_code)]
        std::iter::empty()
    }
    pub fn is_eliminated(&self, player: PlayerId) -> bool {
        todo!()
    }
    /// Shortest-path distance from the player's pawn to its goal, ignoring pawns;
    /// `None` once eliminated.
    pub fn distance(&self, player: PlayerId) -> Option<u32> {
        todo!()
    }
    /// Shortest-path distance from `cell` to `player`'s goal, ignoring pawns.
    pub fn distance_from(&self, player: PlayerId, cell: Cell) -> Option<u32> {
        todo!()
    }
    /// Whether `cell` is on `player`'s goal edge.
    pub fn is_goal(&self, player: PlayerId, cell: Cell) -> bool {
        todo!()
    }
    /// The legal pawn moves of the player on turn.
    pub fn pawn_moves(&self, out: &mut Vec<Cell>) {
        todo!()
    }
    /// Whether the player on turn may place `wall`, and if not, why.
    pub fn check_wall(&self, wall: Wall) -> Result<(), Illegal> {
        todo!()
    }
    pub fn end_reason(&self) -> Option<EndReason> {
        todo!()
    }
}

impl Game for Quoridor {
    type Action = Action;
    const NAME: &'static str = "quoridor";

    fn num_players(&self) -> usize {
        todo!()
    }
    fn to_move(&self) -> Option<PlayerId> {
        todo!()
    }
    fn tick(&self) -> u32 {
        todo!()
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        todo!()
    }
    fn check(&self, action: Action) -> Result<(), Illegal> {
        todo!()
    }
    fn apply_unchecked(&mut self, action: Action) {
        todo!()
    }
    fn apply_stuck(&mut self) {
        todo!()
    }
    fn outcome(&self) -> Option<Outcome> {
        todo!()
    }
}
