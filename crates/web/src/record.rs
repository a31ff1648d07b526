//! Telling one replay line after the header from another, checked as the replay crate's reader
//! would check it but without keeping the game's actions and positions.

use arbiter_replay::{MatchResult, ReplayError, Tick};
use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::error::{AppError, AppResult};

/// What a line after the header holds.
pub enum Line {
    /// A tick record.
    Tick,
    /// The result record.
    Result(Box<MatchResult>),
    /// A blank line, or a record type of a newer minor version (skipped, as readers do).
    Other,
}

/// Just enough of a record to know its type without reading the rest.
#[derive(Deserialize)]
struct RecordType {
    #[serde(rename = "type")]
    kind: String,
}

/// Whether a line is the result record, without checking the rest of it.
pub fn is_result(line: &str) -> bool {
    serde_json::from_str::<RecordType>(line).is_ok_and(|r| r.kind == "result")
}

/// How the referee starts every tick line: such a line is checked as a tick straight away.
const TICK_START: &str = r#"{"type":"tick","#;

/// Reads line `number` of a replay (after the header), refusing what is not a record of the
/// format as [`arbiter_replay::ReplayReader`] would.
pub fn classify(line: &str, number: usize) -> AppResult<Line> {
    let malformed = |message: String| {
        AppError::from(ReplayError::Malformed {
            line: number,
            message,
        })
    };
    if line.trim().is_empty() {
        return Ok(Line::Other);
    }
    let kind = if line.starts_with(TICK_START) {
        "tick".to_owned()
    } else {
        serde_json::from_str::<RecordType>(line)
            .map_err(|e| malformed(e.to_string()))?
            .kind
    };
    match kind.as_str() {
        // The game's actions and positions are skipped (but must be JSON).
        "tick" => serde_json::from_str::<Tick<IgnoredAny, IgnoredAny>>(line)
            .map(|_| Line::Tick)
            .map_err(|e| malformed(e.to_string())),
        "result" => serde_json::from_str::<MatchResult>(line)
            .map(|result| Line::Result(Box::new(result)))
            .map_err(|e| malformed(e.to_string())),
        "header" => Err(malformed("a second header".to_owned())),
        _ => Ok(Line::Other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_results_and_newer_records_are_told_apart() {
        let tick = r#"{"type":"tick","tick":0,"player":null,"action":{"kind":"start"},"state":{"a":[1]},"bots":[]}"#;
        assert!(matches!(classify(tick, 2), Ok(Line::Tick)));
        let spaced =
            r#"{ "bots": [], "type": "tick", "tick": 1, "player": 0, "action": 3, "state": null }"#;
        assert!(matches!(classify(spaced, 3), Ok(Line::Tick)));
        let result = r#"{"type":"result","ticks":1,"reason":"goal","scores":[1.0],"placement":[1],"bots":[]}"#;
        assert!(matches!(classify(result, 4), Ok(Line::Result(r)) if r.reason == "goal"));
        assert!(matches!(
            classify(r#"{"type":"chat","text":"hi"}"#, 5),
            Ok(Line::Other)
        ));
        assert!(matches!(classify("  ", 6), Ok(Line::Other)));
    }

    #[test]
    fn damage_is_refused_with_its_line() {
        for (line, needle) in [
            (r#"{"type":"tick","tick":0}"#, "missing field"),
            (
                r#"{"type":"tick","tick":0,"player":null,"action":{"#,
                "line 7",
            ),
            (r#"{"type":"header"}"#, "second header"),
            ("not json", "line 7"),
        ] {
            let error = classify(line, 7).err().expect(line);
            assert_eq!(error.kind(), "bad_replay");
            assert!(error.to_string().contains(needle), "{line}: {error}");
        }
    }
}
