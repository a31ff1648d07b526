//! The `.log` file of the Java judge (spec §3, "Log"), for users who keep its replay viewer.
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

use super::Placement;

/// What the judge wrote about a match, ready to be printed with `Display`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgeLog {
    pub size: u8,
    /// The obstacle line exactly as the bots were sent it.
    pub obstacles: String,
    /// The aliases of the first and the second player.
    pub players: [String; 2],
    /// Acknowledgements accepted, in the order they were asked for (at most 4).
    pub acks: usize,
    pub moves: Vec<Placement>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domino::Cell;

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
}
