//! The `.log` file of the Polish Domino judge ("Sędzia"), written from an Arbiter replay of
//! Domino for users who keep the judge's replay viewer (docs/games/domino.md describes the
//! judge). Export only: the log does not say how a match ended, nor the coordinate order the
//! obstacles were sent in, so it cannot be read back into a replay.
//!
//! ```text
//! Size 15
//! Obstacles {0;1},{2;2},{2;3}
//! Player1 "alias"
//! Player2 "alias"
//! Communication
//! OK            one line per acknowledgement accepted (4 in a match that starts)
//! Moves:        written before the first move only
//! {0;0},{0;1}   one line per placement
//! ERROR         a wrong acknowledgement, or a malformed or illegal move
//! ```
//!
//! A fault the judge could not see in the answer (a timeout, a crash) ends the log with nothing,
//! as the judge's did. One difference: the judge did not log a last move that filled the board,
//! we log every move played.

use std::fmt::{self, Write as _};

use arbiter_games::Wire;
use arbiter_games::domino::{Cell, Domino, Placement, Settings, SettingsError};
use arbiter_replay::{BotTick, Replay};
use serde_json::Value;

/// What the judge wrote about a match, ready to be printed with `Display`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgeLog {
    /// The board's size.
    pub size: u8,
    /// The obstacle line exactly as the bots were sent it.
    pub obstacles: String,
    /// The aliases of the first and the second player.
    pub players: [String; 2],
    /// Acknowledgements accepted, in the order they were asked for (at most 4).
    pub acks: usize,
    /// The placements played, in order.
    pub moves: Vec<Placement>,
    /// How the log ends.
    pub end: JudgeLogEnd,
}

/// How the log ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JudgeLogEnd {
    /// The last move was legal (the match ended by the rules, or by a silent fault).
    Clean,
    /// An `ERROR` line: the last answer (acknowledgement or move) was wrong.
    Error,
}

/// Why a replay cannot be written as the judge's log.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The replay is of another game.
    #[error("a replay of {game}: the judge's log is for domino only")]
    NotDomino {
        /// The replay's game.
        game: String,
    },
    /// The header's settings are not Domino settings.
    #[error("the replay's Domino settings: {error}")]
    Settings {
        /// What serde found.
        error: serde_json::Error,
    },
    /// The header's settings break a rule of Domino.
    #[error("the replay's Domino settings: {0}")]
    Rules(SettingsError),
    /// A tick's action is a placement without its two cells.
    #[error("tick {tick}: a placement without its two cells: {action}")]
    Placement {
        /// The tick.
        tick: u32,
        /// The action as recorded.
        action: Value,
    },
}

impl fmt::Display for JudgeLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Size {}", self.size)?;
        writeln!(f, "Obstacles {}", self.obstacles)?;
        for (i, alias) in self.players.iter().enumerate() {
            writeln!(f, "Player{} \"{alias}\"", i + 1)?;
        }
        writeln!(f, "Communication")?;
        for _ in 0..self.acks.min(4) {
            writeln!(f, "OK")?;
        }
        if !self.moves.is_empty() {
            writeln!(f, "Moves:")?;
        }
        let mut line = String::new();
        for p in &self.moves {
            line.clear();
            write!(line, "{p}")?;
            writeln!(f, "{line}")?;
        }
        if self.end == JudgeLogEnd::Error {
            writeln!(f, "ERROR")?;
        }
        Ok(())
    }
}

/// The judge's log of the Domino match of `replay`.
pub fn export(replay: &Replay) -> Result<JudgeLog, ExportError> {
    let header = &replay.header;
    if header.game != "domino" {
        return Err(ExportError::NotDomino {
            game: header.game.clone(),
        });
    }
    let settings: Settings = serde_json::from_value(header.settings.clone())
        .map_err(|error| ExportError::Settings { error })?;
    let game = Domino::new(settings).map_err(ExportError::Rules)?;
    let mut obstacles = String::new();
    game.write_obstacles(&mut obstacles);
    let alias = |p: usize| {
        header
            .players
            .get(p)
            .map(|p| p.name.clone())
            .unwrap_or_default()
    };
    let acks = replay
        .ticks
        .first()
        .map_or(0, |start| start.bots.iter().map(accepted_acks).sum());
    let moves = replay
        .ticks
        .iter()
        .skip(1)
        .filter(|t| t.action["kind"] == "place")
        .map(|t| {
            placement(&t.action).ok_or_else(|| ExportError::Placement {
                tick: t.tick,
                action: t.action.clone(),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    // The judge wrote ERROR when it could see the answer was wrong, and nothing on a timeout.
    let wrong_answer = replay
        .result
        .as_ref()
        .is_some_and(|r| r.reason == "malformed" || r.reason == "illegal");
    Ok(JudgeLog {
        size: game.size(),
        obstacles,
        players: [alias(0), alias(1)],
        acks,
        moves,
        end: if wrong_answer {
            JudgeLogEnd::Error
        } else {
            JudgeLogEnd::Clean
        },
    })
}

/// The acknowledgements of one bot at tick 0 the judge would have written OK for: those that
/// pass, except one that answers the request its bot was faulted on (it came too late).
fn accepted_acks(bot: &BotTick) -> usize {
    let ok = |text: &str| Domino::PROTOCOL.start.check_ack(text).is_ok();
    let passed = bot.sent.iter().filter(|m| ok(&m.text)).count();
    let answered_all = bot.sent.len() >= bot.received.len();
    let late = bot.error.is_some() && answered_all && bot.sent.last().is_some_and(|m| ok(&m.text));
    passed - usize::from(late)
}

/// A placement from a replay's action: `{"kind": "place", "cells": [[x1, y1], [x2, y2]]}`.
fn placement(action: &Value) -> Option<Placement> {
    let cell = |i: usize| -> Option<Cell> {
        let c = action["cells"].get(i)?;
        Some(Cell::new(
            u16::try_from(c.get(0)?.as_u64()?).ok()?,
            u16::try_from(c.get(1)?.as_u64()?).ok()?,
        ))
    };
    Some(Placement::new(cell(0)?, cell(1)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_replay::{Header, MatchResult, Message, Player, PlayerKind, Tick};
    use serde_json::json;

    #[test]
    fn a_match_of_the_spec_example() {
        let log = JudgeLog {
            size: 3,
            obstacles: "{1;1}".into(),
            players: ["gracz1".into(), "gracz2".into()],
            acks: 4,
            moves: vec![
                Placement::new(Cell::new(0, 0), Cell::new(0, 1)),
                Placement::new(Cell::new(2, 0), Cell::new(2, 2)),
            ],
            end: JudgeLogEnd::Error,
        };
        assert_eq!(
            log.to_string(),
            "Size 3\nObstacles {1;1}\nPlayer1 \"gracz1\"\nPlayer2 \"gracz2\"\nCommunication\n\
             OK\nOK\nOK\nOK\nMoves:\n{0;0},{0;1}\n{2;0},{2;2}\nERROR\n"
        );
    }

    #[test]
    fn a_wrong_first_acknowledgement() {
        let log = JudgeLog {
            size: 15,
            obstacles: String::new(),
            players: ["a".into(), "b".into()],
            acks: 0,
            moves: vec![],
            end: JudgeLogEnd::Error,
        };
        assert_eq!(
            log.to_string(),
            "Size 15\nObstacles \nPlayer1 \"a\"\nPlayer2 \"b\"\nCommunication\nERROR\n"
        );
    }

    fn replay(game: &str, settings: Value, moves: &[Value]) -> Replay {
        let player = |name: &str| Player {
            name: name.into(),
            kind: PlayerKind::Builtin,
            command: None,
        };
        let acks = |n: usize| BotTick {
            sent: (0..n)
                .map(|_| Message {
                    at_ms: 0.0,
                    text: "ok".into(),
                })
                .collect(),
            ..BotTick::default()
        };
        let tick = |tick: u32, action: Value, bots: Vec<BotTick>| Tick {
            tick,
            player: (tick > 0).then_some(0),
            action,
            state: Value::Null,
            bots,
        };
        let mut ticks = vec![tick(0, Tick::start_action(), vec![acks(2), acks(2)])];
        for (i, action) in moves.iter().enumerate() {
            ticks.push(tick(i as u32 + 1, action.clone(), vec![]));
        }
        Replay {
            header: Header::new(game, settings, 0, vec![player("p1"), player("p2")]),
            ticks,
            result: Some(MatchResult {
                ticks: moves.len() as u32,
                reason: "illegal".into(),
                scores: vec![1.0, 0.0],
                placement: vec![1, 2],
                bots: vec![],
            }),
        }
    }

    fn settings() -> Value {
        let settings = Settings::custom(3, &[Cell::new(1, 1)]).unwrap();
        serde_json::to_value(settings).unwrap()
    }

    #[test]
    fn a_replay_becomes_the_judges_log() {
        let place = json!({"kind": "place", "cells": [[0, 0], [0, 1]]});
        let log = export(&replay("domino", settings(), &[place])).unwrap();
        assert_eq!(
            log.to_string(),
            "Size 3\nObstacles {1;1}\nPlayer1 \"p1\"\nPlayer2 \"p2\"\nCommunication\n\
             OK\nOK\nOK\nOK\nMoves:\n{0;0},{0;1}\nERROR\n"
        );
    }

    #[test]
    fn wrong_replays_are_errors_not_panics() {
        let error = export(&replay("quoridor", settings(), &[])).unwrap_err();
        assert!(matches!(error, ExportError::NotDomino { .. }), "{error}");
        let error = export(&replay("domino", json!({"size": "big"}), &[])).unwrap_err();
        assert!(matches!(error, ExportError::Settings { .. }), "{error}");
        let half = json!({"kind": "place", "cells": [[0, 0]]});
        let error = export(&replay("domino", settings(), &[half])).unwrap_err();
        assert_eq!(
            error.to_string(),
            "tick 1: a placement without its two cells: {\"cells\":[[0,0]],\"kind\":\"place\"}"
        );
    }
}
