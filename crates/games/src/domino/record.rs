//! What a Domino match writes into a replay (docs/replay-format.md).

use serde::{Deserialize, Serialize};

use super::{Domino, Placement, Settings};
use crate::PlayerId;
use crate::record::{Pair, Recorded};

/// The two cells of a placement, `[[x, y], [x, y]]`.
pub type Cells = [Pair<u16>; 2];

fn cells(p: Placement) -> Cells {
    [(p.a.x, p.a.y), (p.b.x, p.b.y)]
}

/// The position after a turn, as counts only: the board at any tick is the settings' obstacles
/// plus the placements of the ticks before it, and writing it out every tick would make a 51×51
/// replay megabytes long. Fields in sorted key order (see [`Recorded`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The player on turn.
    pub current: PlayerId,
    /// Free cells left.
    pub free: u32,
    /// The last placement.
    pub last: Option<Cells>,
    /// The player who had no legal placement, once the match is over.
    pub loser: Option<u8>,
    /// Legal placements for the player on turn; 0 once the match is over.
    pub placements: u32,
    /// Turns taken.
    pub tick: u32,
}

/// A placement played, `{"cells": [[x, y], [x, y]], "kind": "place"}`. Fields in sorted key
/// order (see [`Recorded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionRecord {
    /// The two cells covered.
    pub cells: Cells,
    /// Always `place`.
    pub kind: PlaceKind,
}

/// The one kind of Domino action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlaceKind {
    /// A domino placed.
    Place,
}

impl Recorded for Domino {
    type Snapshot = Snapshot;
    type ActionRecord = ActionRecord;
    type SettingsRecord = Settings;

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            current: self.current(),
            free: self.free_count(),
            last: self.last.map(cells),
            loser: self.loser,
            placements: if self.loser.is_some() {
                0
            } else {
                self.count_placements()
            },
            tick: self.tick,
        }
    }

    fn action_record(&self, placement: Placement) -> ActionRecord {
        ActionRecord {
            cells: cells(placement),
            kind: PlaceKind::Place,
        }
    }

    fn settings_record(&self) -> Settings {
        Settings::clone(&self.settings)
    }
}
