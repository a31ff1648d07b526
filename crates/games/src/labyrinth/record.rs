//! What a Labyrinth match writes into a replay (docs/replay-format.md).

use serde::{Deserialize, Serialize};

use super::{Action, Cell, Code, Goto, Labyrinth, Push};
use crate::record::{Pair, Recorded};
use crate::{Game, PlayerId};

fn pair(c: Cell) -> Pair<u8> {
    (c.x, c.y)
}

/// The position after a turn. Fields in sorted key order (see [`Recorded`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The MESSAGE code of each seat's last turn.
    pub codes: Vec<Code>,
    /// The active displays, `[display, x, y]`, ascending by display.
    pub displays: Vec<(usize, u8, u8)>,
    /// Each seat's extra tile.
    pub extras: Vec<u8>,
    /// The tiles of the board, row by row.
    pub fields: Vec<u8>,
    /// Each seat's princess `[x, y]`.
    pub positions: Vec<Pair<u8>>,
    /// The round, `0..max_tick`.
    pub round: u32,
    /// Each seat's points.
    pub scores: Vec<u32>,
    /// Each seat's current target display; `None` when it has none left.
    pub targets: Vec<Option<usize>>,
    /// The seat on turn; `None` once the match is over.
    pub to_move: Option<PlayerId>,
}

/// A turn played, `{"code", "goto", "kind": "turn", "push"}`. Fields in sorted key order (see
/// [`Recorded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionRecord {
    /// The MESSAGE code the turn earns.
    pub code: Code,
    /// The cell walked to, if any.
    pub goto: Option<Pair<u8>>,
    /// Always `turn`.
    pub kind: TurnKind,
    /// The push, unless the turn is void.
    pub push: Option<PushRecord>,
}

/// The one kind of Labyrinth action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TurnKind {
    /// A turn: a push, then a walk.
    Turn,
}

/// `PUSH c p k t`, fields in sorted key order (see [`Recorded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushRecord {
    /// 0: a row, 1: a column.
    pub c: u8,
    /// The row or column.
    pub k: u8,
    /// 1: towards +x / +y, 0: towards 0.
    pub p: u8,
    /// The tile inserted.
    pub t: u8,
}

impl From<Push> for PushRecord {
    fn from(p: Push) -> PushRecord {
        PushRecord {
            c: p.c,
            k: p.k,
            p: p.p,
            t: p.t,
        }
    }
}

/// The settings of a match: the level as played and what the protocol tells about it. Fields
/// in sorted key order (see [`Recorded`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingsRecord {
    /// Cells no princess may enter, `[x, y]`.
    pub blocked: Vec<Pair<u8>>,
    /// The cell of each display, `[x, y]`.
    pub displays: Vec<Pair<u8>>,
    /// `ID i` of the init block.
    pub game_id: u64,
    /// Rows of the board.
    pub height: usize,
    /// `LEVEL X` of the init block.
    pub level: u64,
    /// Rounds of the match.
    pub max_tick: u32,
    /// The seed the level was generated from; `None` for a hand-made level.
    pub seed: Option<u64>,
    /// Each seat's starting cell, `[x, y]`.
    pub starts: Vec<Pair<u8>>,
    /// Each seat's target displays, in order.
    pub targets: Vec<Vec<u8>>,
    /// The tiles of the board at the start, row by row.
    pub tiles: Vec<u8>,
    /// Columns of the board.
    pub width: usize,
}

impl Recorded for Labyrinth {
    type Snapshot = Snapshot;
    type ActionRecord = ActionRecord;
    type SettingsRecord = SettingsRecord;

    fn snapshot(&self) -> Snapshot {
        let seats = 0..self.players;
        Snapshot {
            codes: self.codes().to_vec(),
            displays: self.active_displays().map(|(d, c)| (d, c.x, c.y)).collect(),
            extras: self.extras().to_vec(),
            fields: self.tiles.clone(),
            positions: seats.clone().map(|s| pair(self.position(s))).collect(),
            round: self.round(),
            scores: self.scores().to_vec(),
            targets: seats.map(|s| self.current_target(s)).collect(),
            to_move: self.to_move(),
        }
    }

    fn action_record(&self, action: Action) -> ActionRecord {
        let (push, goto, code) = match action {
            Action::Move { push, goto } => {
                let goto = match goto {
                    Goto::Cell(x, y) => Some((x, y)),
                    Goto::None | Goto::Malformed => None,
                };
                (Some(push), goto, Code::Ok)
            }
            Action::PushOnly(push) => (Some(push), None, Code::BadGoto),
            Action::Void(code) => (None, None, code),
        };
        ActionRecord {
            code,
            goto,
            kind: TurnKind::Turn,
            push: push.map(PushRecord::from),
        }
    }

    fn settings_record(&self) -> SettingsRecord {
        let level = &self.level;
        let seats = ..self.players;
        SettingsRecord {
            blocked: level.blocked.iter().copied().map(pair).collect(),
            displays: level.displays.iter().copied().map(pair).collect(),
            game_id: self.settings.game_id,
            height: level.height,
            level: self.settings.level_number,
            max_tick: level.max_tick,
            seed: level.seed,
            starts: level.starts[seats].iter().copied().map(pair).collect(),
            targets: level.targets[seats].to_vec(),
            tiles: level.tiles.clone(),
            width: level.width,
        }
    }
}
