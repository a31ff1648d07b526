//! What a Quoridor match writes into a replay (docs/replay-format.md).

use serde::{Deserialize, Serialize};

use super::{Action, Quoridor, Settings};
use crate::record::{Pair, Recorded};
use crate::{Game, PlayerId};

/// The position after a turn. Fields in sorted key order (see [`Recorded`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The player on turn; still defined after the end.
    pub current: PlayerId,
    /// Each player's shortest distance to its goal; `None` once eliminated.
    pub distances: Vec<Option<u32>>,
    /// Whether each player is eliminated.
    pub eliminated: Vec<bool>,
    /// Each pawn `[x, y]`; `None` once its player is eliminated.
    pub pawns: Vec<Option<Pair<u8>>>,
    /// Turns taken.
    pub tick: u32,
    /// Every wall as `[x, y, v, owner]` (`v`: 1 vertical, 0 horizontal).
    pub walls: Vec<(u8, u8, u8, PlayerId)>,
    /// Walls each player still holds.
    pub walls_left: Vec<u8>,
}

/// An action played: `{"kind": "move", "x", "y"}` or `{"kind": "place", "v", "x", "y"}`.
/// The tag comes first, which is sorted order for both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ActionRecord {
    /// The pawn moves to `(x, y)`.
    Move {
        /// Column.
        x: u8,
        /// Row.
        y: u8,
    },
    /// A wall is placed at `(x, y)`.
    Place {
        /// 1 vertical, 0 horizontal.
        v: u8,
        /// Column.
        x: u8,
        /// Row.
        y: u8,
    },
}

impl Recorded for Quoridor {
    type Snapshot = Snapshot;
    type ActionRecord = ActionRecord;
    type SettingsRecord = Settings;

    fn snapshot(&self) -> Snapshot {
        let players = 0..self.num_players();
        Snapshot {
            current: self.current(),
            distances: players.clone().map(|p| self.distance(p)).collect(),
            eliminated: players.clone().map(|p| self.is_eliminated(p)).collect(),
            pawns: players
                .clone()
                .map(|p| self.pawn(p).map(|c| (c.x, c.y)))
                .collect(),
            tick: self.tick,
            walls: self
                .walls()
                .map(|(w, who)| (w.x, w.y, w.orientation.as_v(), who))
                .collect(),
            walls_left: self.walls_left[..players.len()].to_vec(),
        }
    }

    fn action_record(&self, action: Action) -> ActionRecord {
        match action {
            Action::Move(c) => ActionRecord::Move { x: c.x, y: c.y },
            Action::Wall(w) => ActionRecord::Place {
                v: w.orientation.as_v(),
                x: w.x,
                y: w.y,
            },
        }
    }

    fn settings_record(&self) -> Settings {
        self.settings().clone()
    }
}
