//! Replays as the arena serves them: the `.jsonl.gz` a check (or a game) wrote, read within a
//! cap, with what a viewer may not see left out, answered in the JSON the replay viewer reads
//! (`{"header", "ticks", "result", "complete", "lines"}`, as `/api/replay` answers).
//!
//! What is left out is a seat's stderr (the `log` of each tick's bot entry), which also holds
//! the bot's `#draw` lines: it may tell a team's ideas. Moves, messages and faults stay.

use std::io::{BufRead, BufReader, Read};

use flate2::read::MultiGzDecoder;
use serde_json::{Map, Value, json};

use crate::error::{AppError, AppResult};

/// The most text read from one stored replay, once decompressed: checks are short games.
pub const MAX_REPLAY_BYTES: u64 = 256 << 20;

/// Which seats' logs a viewer may see, by seat number; a seat past the end is hidden.
pub type Visible = [bool];

/// `line` of a replay with the logs of the seats not `visible` emptied; any other line as it
/// is. A line that is not JSON is refused.
pub fn redact_line(line: &str, visible: &Visible) -> AppResult<Value> {
    let mut record: Value = serde_json::from_str(line)
        .map_err(|e| AppError::Internal(format!("a stored replay line is not JSON: {e}")))?;
    redact_record(&mut record, visible);
    Ok(record)
}

/// Empties the log of every seat not `visible` in a tick record.
fn redact_record(record: &mut Value, visible: &Visible) {
    if record.get("type").and_then(Value::as_str) != Some("tick") {
        return;
    }
    let Some(bots) = record.get_mut("bots").and_then(Value::as_array_mut) else {
        return;
    };
    for (seat, bot) in bots.iter_mut().enumerate() {
        if !visible.get(seat).copied().unwrap_or(false)
            && let Some(log) = bot.get_mut("log")
        {
            *log = Value::String(String::new());
        }
    }
}

/// The seats of a replay's header: whether each is a program (`process` or `tcp`) rather
/// than a robot in process, whose log tells nothing of anyone.
pub fn program_seats(header: &Value) -> Vec<bool> {
    header
        .get("players")
        .and_then(Value::as_array)
        .map(|players| {
            players
                .iter()
                .map(|p| p.get("kind").and_then(Value::as_str) != Some("builtin"))
                .collect()
        })
        .unwrap_or_default()
}

/// The seats whose logs stay in a replay of several teams' programs: a robot's always (its
/// log tells nothing of anyone), a program's where `allowed` (by seat number, as
/// [`crate::access::visible_seats`] decides) says so.
pub fn visible_programs(header: &Value, allowed: &[bool]) -> Vec<bool> {
    program_seats(header)
        .iter()
        .enumerate()
        .map(|(seat, program)| !program || allowed.get(seat).copied().unwrap_or(false))
        .collect()
}

/// A whole replay (`jsonl_gz`: gzip or plain text) as the viewer's JSON; `visible` says, from
/// the header, which seats' logs stay.
pub fn replay_json(jsonl_gz: &[u8], visible: impl FnOnce(&Value) -> Vec<bool>) -> AppResult<Value> {
    let reader: Box<dyn Read + '_> = if jsonl_gz.starts_with(&[0x1f, 0x8b]) {
        Box::new(MultiGzDecoder::new(jsonl_gz))
    } else {
        Box::new(jsonl_gz)
    };
    let damaged = |e: std::io::Error| AppError::Internal(format!("a stored replay: {e}"));
    let mut lines = BufReader::new(reader.take(MAX_REPLAY_BYTES)).lines();
    let header = loop {
        match lines.next() {
            None => return Err(AppError::NotFound("the replay is empty".to_owned())),
            Some(line) => {
                let line = line.map_err(damaged)?;
                if !line.trim().is_empty() {
                    break redact_line(&line, &[])?;
                }
            }
        }
    };
    let visible = visible(&header);
    let (mut ticks, mut result, mut count) = (Vec::new(), Value::Null, 1usize);
    for line in lines {
        let line = line.map_err(damaged)?;
        count += 1;
        if line.trim().is_empty() {
            continue;
        }
        let record = redact_line(&line, &visible)?;
        match record.get("type").and_then(Value::as_str) {
            Some("tick") => ticks.push(record),
            Some("result") => result = record,
            _ => {}
        }
    }
    let mut out = Map::new();
    out.insert("header".to_owned(), header);
    out.insert("ticks".to_owned(), Value::Array(ticks));
    out.insert("complete".to_owned(), json!(!result.is_null()));
    out.insert("result".to_owned(), result);
    out.insert("lines".to_owned(), json!(count));
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as the referee writes them (docs/replay-format.md): a program in seat 0 that
    /// logs and draws, a robot in seat 1.
    const HEADER: &str = r#"{"type":"header","format":{"major":1,"minor":0},"game":"quoridor","settings":{"players":2},"seed":7,"players":[{"name":"v1","kind":"process","command":"./run"},{"name":"random","kind":"builtin","command":null}]}"#;
    const TICK: &str = r##"{"type":"tick","tick":1,"player":0,"action":{"kind":"move","x":4,"y":1},"state":{"tick":1},"bots":[{"received":[{"at_ms":0,"text":"1\n"}],"sent":[{"at_ms":3,"text":"4 1"}],"error":null,"log":"thinking hard\n#draw cell 4 4 red\n","offline":false,"time_ms":3,"bank_ms":997},{"received":[],"sent":[],"error":null,"log":"robot says\n","offline":false,"time_ms":null,"bank_ms":1000}]}"##;
    const RESULT: &str = r#"{"type":"result","ticks":2,"reason":"goal","scores":[1.0,0.0],"placement":[1,2],"bots":[{"name":"v1","errors":0,"timeouts":0,"crashed":false},{"name":"random","errors":0,"timeouts":0,"crashed":false}]}"#;

    fn gz(text: &str) -> Vec<u8> {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(text.as_bytes()).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn a_hidden_seat_loses_its_stderr_and_draw_lines_and_keeps_its_moves() {
        let tick = redact_line(TICK, &[false, true]).unwrap();
        assert_eq!(tick["bots"][0]["log"], "");
        assert_eq!(tick["bots"][0]["sent"][0]["text"], "4 1");
        assert_eq!(tick["bots"][0]["received"][0]["text"], "1\n");
        assert_eq!(tick["bots"][1]["log"], "robot says\n");
        assert!(!tick.to_string().contains("#draw"));
        assert!(!tick.to_string().contains("thinking"));
    }

    #[test]
    fn a_visible_seat_and_other_records_are_unchanged() {
        let tick = redact_line(TICK, &[true, true]).unwrap();
        assert_eq!(tick, serde_json::from_str::<Value>(TICK).unwrap());
        for line in [HEADER, RESULT] {
            let record = redact_line(line, &[]).unwrap();
            assert_eq!(record, serde_json::from_str::<Value>(line).unwrap());
        }
    }

    #[test]
    fn a_whole_replay_is_answered_as_the_viewer_reads_it_with_program_seats_hidden() {
        let text = format!("{HEADER}\n{TICK}\n\n{RESULT}\n");
        let hide_programs = |h: &Value| {
            program_seats(h)
                .iter()
                .map(|program| !program)
                .collect::<Vec<_>>()
        };
        for bytes in [gz(&text), text.clone().into_bytes()] {
            let replay = replay_json(&bytes, hide_programs).unwrap();
            assert_eq!(replay["header"]["game"], "quoridor");
            assert_eq!(replay["ticks"].as_array().unwrap().len(), 1);
            assert_eq!(replay["ticks"][0]["bots"][0]["log"], "");
            assert_eq!(replay["ticks"][0]["bots"][1]["log"], "robot says\n");
            assert_eq!(replay["result"]["reason"], "goal");
            assert_eq!(replay["complete"], true);
            assert_eq!(replay["lines"], 4);
        }
        let whole = replay_json(text.as_bytes(), |h| vec![true; program_seats(h).len()]).unwrap();
        assert!(whole.to_string().contains("#draw cell 4 4 red"));
    }

    #[test]
    fn a_match_replay_keeps_the_logs_of_the_allowed_programs_and_of_robots() {
        let header: Value = serde_json::from_str(HEADER).unwrap();
        assert_eq!(visible_programs(&header, &[false, false]), [false, true]);
        assert_eq!(visible_programs(&header, &[true]), [true, true]);
        let replay = replay_json(format!("{HEADER}\n{TICK}\n").as_bytes(), |h| {
            visible_programs(h, &[false, false])
        })
        .unwrap();
        assert_eq!(replay["ticks"][0]["bots"][0]["log"], "");
        assert_eq!(replay["ticks"][0]["bots"][1]["log"], "robot says\n");
    }

    #[test]
    fn an_empty_or_damaged_replay_is_an_error_not_a_panic() {
        assert_eq!(
            replay_json(b"", |_| vec![]).unwrap_err().kind(),
            "not_found"
        );
        assert_eq!(
            replay_json(b"{nope\n", |_| vec![]).unwrap_err().kind(),
            "internal"
        );
        let mut cut = gz(&format!("{HEADER}\n{TICK}\n"));
        cut.truncate(cut.len() - 10);
        assert!(replay_json(&cut, |_| vec![]).is_err());
    }
}
