//! Client logs of the GRAPHISOFT 2017 final, read into replays of Labyrinth
//! (docs/games/labyrinth.md describes the final).
//!
//! A log is what one team's client received during one game: the init block, the turn block
//! sent before every turn of every seat, and the after-game `SCORE` block. The replies are not
//! in it, so each turn is inferred from the block before it and the block after it (pass 1):
//! the push that turns one FIELDS into the next with princesses and displays carried
//! along, then the walk that brings the princess where the next block has it. Pass 2
//! plays the whole game through our engine with those turns and compares every block the engine
//! would have sent with the one in the log: any difference stops the import.
//!
//! Only the logging seat's TARGETS is in the log. The others are rebuilt: the
//! displays a seat scored, in that order, then an order under which the seat's current target is
//! never a cell its walk ended on without scoring. The replay says so in its settings (`import`).

mod infer;
mod parse;
mod replay;
mod targets;

use std::fmt;

use arbiter_replay::Record;

use parse::Block;

/// Where a turn is in the log, for messages: `turn 3 (tick 1, seat 0, log line 42)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The turn, counted from 1 over every seat's turns.
    pub turn: usize,
    /// The round (TICK) it was played in.
    pub tick: u32,
    /// The seat on turn.
    pub seat: usize,
    /// The log line of the TICK of the block sent before it.
    pub line: usize,
}

impl Place {
    fn of(turn: usize, block: &Block) -> Place {
        Place {
            turn: turn + 1,
            tick: block.tick,
            seat: block.player,
            line: block.line,
        }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "turn {} (tick {}, seat {}, log line {})",
            self.turn, self.tick, self.seat, self.line
        )
    }
}

/// Why a log cannot be imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A line the importer does not understand, or a block missing a line it needs.
    #[error("line {line}: {problem}")]
    Line {
        /// The log line (from 1).
        line: usize,
        /// What is wrong there.
        problem: String,
    },
    /// The log has no init block.
    #[error("the log has no init block (ID, PLAYERS, …)")]
    NoInit,
    /// The log has no turn block.
    #[error("the log has no turn block (TICK, FIELDS, …)")]
    NoTurns,
    /// The init block lacks a line.
    #[error("the init block at line {line} has no {keyword}")]
    InitMissing {
        /// The init block's first line.
        line: usize,
        /// The keyword missing.
        keyword: &'static str,
    },
    /// The blocks do not describe the level the init block announces.
    #[error("{0}")]
    Level(String),
    /// No turn our rules allow leads from one block to the next (pass 1).
    #[error("{place}: {problem}")]
    Turn {
        /// Where.
        place: Place,
        /// What does not fit.
        problem: String,
    },
    /// No order of a seat's targets explains what it did.
    #[error("seat {seat}: no order of its targets explains the game: {why}")]
    Targets {
        /// The seat.
        seat: usize,
        /// The turn that cannot be explained.
        why: String,
    },
    /// A block our engine sends differs from the one logged (pass 2).
    #[error("{place}: {difference}")]
    Differs {
        /// The turn before the block, or the first block.
        place: String,
        /// The first line that differs: `<field> differs: ours … log …`.
        difference: String,
    },
    /// The logging seat's final score differs from ours.
    #[error("SCORE differs: ours {ours} log {log} (the logging seat {seat}'s points at the end)")]
    Score {
        /// Our score.
        ours: u32,
        /// The log's.
        log: u32,
        /// The logging seat.
        seat: usize,
    },
}

/// The replay of the game in the log `text`, checked turn by turn with our rules. `source` is
/// the log's file name, recorded in the replay's settings.
pub fn import(text: &str, source: &str) -> Result<Vec<Record>, ImportError> {
    let log = parse::parse(text)?;
    let inferred = infer::infer_all(&log)?;
    replay::rebuild(&log, &inferred, source)
}
