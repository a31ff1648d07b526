//! What a Puoribor match writes into a replay (docs/replay-format.md).

use serde::{Deserialize, Serialize};

use super::{Action, Puoribor, SIZE, START_WALLS};
use crate::PlayerId;
use crate::record::{Pair, Recorded};

/// The position after a turn. Fields in sorted key order (see [`Recorded`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The player on turn.
    pub current: PlayerId,
    /// Each player's shortest distance to its goal; `None` if walled off.
    pub distances: [Option<u32>; 2],
    /// Whether the match is over.
    pub done: bool,
    /// Each pawn `[x, y]`.
    pub pawns: [Pair<u8>; 2],
    /// Turns taken.
    pub tick: u32,
    /// Every wall line of the protocol, `[letter, x, y, owner]` (`H`, `V`, `h` or `v`).
    pub walls: Vec<(char, u8, u8, u8)>,
    /// Walls each player still holds.
    pub walls_remaining: [u8; 2],
}

/// An action played, `{"kind", "type", "x", "y"}`: the name for people, the upstream triple for
/// programs. Fields in sorted key order (see [`Recorded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionRecord {
    /// What the action does.
    pub kind: ActionKind,
    /// The upstream action type (see [`Action::MOVE`] and the others).
    #[serde(rename = "type")]
    pub kind_number: i32,
    /// Column.
    pub x: i32,
    /// Row.
    pub y: i32,
}

/// The name of an action's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ActionKind {
    /// [`Action::MOVE`].
    Move,
    /// [`Action::HORIZONTAL`].
    Horizontal,
    /// [`Action::VERTICAL`].
    Vertical,
    /// [`Action::ROTATE`].
    Rotate,
    /// Any other number, which no legal action has.
    Unknown,
}

impl ActionKind {
    /// The kind of an upstream action type.
    pub fn of(kind: i32) -> ActionKind {
        match kind {
            Action::MOVE => ActionKind::Move,
            Action::HORIZONTAL => ActionKind::Horizontal,
            Action::VERTICAL => ActionKind::Vertical,
            Action::ROTATE => ActionKind::Rotate,
            _ => ActionKind::Unknown,
        }
    }
}

/// The settings of a match. Fields in sorted key order (see [`Recorded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingsRecord {
    /// The side of the board.
    pub board: u8,
    /// The tick at which the match ends in a draw.
    pub max_ticks: u32,
    /// Walls each player holds at the start.
    pub walls: u8,
}

impl Recorded for Puoribor {
    type Snapshot = Snapshot;
    type ActionRecord = ActionRecord;
    type SettingsRecord = SettingsRecord;

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            current: self.current(),
            distances: [self.distance(0), self.distance(1)],
            done: self.done(),
            pawns: [self.pawn(0), self.pawn(1)],
            tick: self.tick,
            walls: self
                .wall_lines()
                .map(|w| (w.kind.letter(), w.x, w.y, w.owner))
                .collect(),
            walls_remaining: self.walls,
        }
    }

    fn action_record(&self, action: Action) -> ActionRecord {
        ActionRecord {
            kind: ActionKind::of(action.kind),
            kind_number: action.kind,
            x: action.x,
            y: action.y,
        }
    }

    fn settings_record(&self) -> SettingsRecord {
        SettingsRecord {
            board: SIZE,
            max_ticks: self.max_ticks,
            walls: START_WALLS,
        }
    }
}
