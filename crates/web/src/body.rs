//! `/api/replay`'s answer, written while the file is read: `{"header":…,"ticks":[…],"result":…,
//! "complete":…,"lines":…}`, with each tick as its line in the file. Only a chunk of the answer
//! is in memory at a time, whatever the size of the replay, and reading the file happens on a
//! blocking thread one chunk at a time, so a slow client holds no thread.

use std::path::PathBuf;

use arbiter_replay::{MatchResult, ReplayReader};
use axum::body::{Body, Bytes};
use serde::Serialize;

use crate::error::{AppError, AppResult};
use crate::record::{Line, classify};
use crate::tail::Tail;

/// The answer is sent in chunks of about this size.
const CHUNK: usize = 256 << 10;

/// The answer for one replay, as far as it has been written.
struct ReplayBody {
    tail: Tail,
    ticks: usize,
    result: Option<MatchResult>,
    done: bool,
}

impl ReplayBody {
    /// Opens the file and writes the start of the answer, up to the ticks; the header is
    /// checked (a newer format, damage) before anything is sent.
    fn open(path: &std::path::Path, cap: u64) -> AppResult<(ReplayBody, Vec<u8>)> {
        let mut tail = Tail::open(path, cap)?;
        let Some(first) = tail.next_line()? else {
            return Err(AppError::BadReplay("the replay is empty".to_owned()));
        };
        let header = ReplayReader::new(first.as_bytes())?.header().clone();
        let mut start = br#"{"header":"#.to_vec();
        serde_json::to_writer(&mut start, &header).map_err(encoding)?;
        start.extend_from_slice(br#","ticks":["#);
        let body = ReplayBody {
            tail,
            ticks: 0,
            result: None,
            done: false,
        };
        Ok((body, start))
    }

    /// The next chunk of the answer; `None` once it is all sent.
    fn next_chunk(&mut self) -> AppResult<Option<Vec<u8>>> {
        if self.done {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(CHUNK);
        while out.len() < CHUNK {
            let number = self.tail.lines_read() + 1;
            let Some(line) = self.tail.next_line()? else {
                self.finish(&mut out)?;
                break;
            };
            match classify(line, number)? {
                Line::Tick => {
                    if self.ticks > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(line.trim_end().as_bytes());
                    self.ticks += 1;
                }
                Line::Result(result) => self.result = Some(*result),
                Line::Other => {}
            }
        }
        Ok(Some(out))
    }

    /// Writes the end of the answer, after the last tick read.
    fn finish(&mut self, out: &mut Vec<u8>) -> AppResult<()> {
        let end = End {
            result: self.result.as_ref(),
            complete: self.result.is_some(),
            lines: self.tail.lines_read(),
        };
        let end = serde_json::to_vec(&end).map_err(encoding)?;
        // `]` closes the ticks, and the rest of the object follows the `{` of `end`.
        out.extend_from_slice(b"],");
        out.extend_from_slice(&end[1..]);
        self.done = true;
        Ok(())
    }
}

/// The fields after the ticks.
#[derive(Serialize)]
struct End<'a> {
    result: Option<&'a MatchResult>,
    complete: bool,
    lines: usize,
}

fn encoding(error: serde_json::Error) -> AppError {
    AppError::Internal(format!("encoding a replay: {error}"))
}

/// The answer for the replay at `path`, read at most `cap` bytes of text far: the header is
/// read before answering (so a refusal is an HTTP error), the rest as the client takes it.
pub async fn replay_body(path: PathBuf, cap: u64) -> AppResult<Body> {
    let (body, start) = tokio::task::spawn_blocking(move || ReplayBody::open(&path, cap)).await??;
    let rest = futures_util::stream::try_unfold(body, |mut body| async move {
        let (body, chunk) = tokio::task::spawn_blocking(move || {
            let chunk = body.next_chunk();
            (body, chunk)
        })
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))?;
        match chunk {
            Ok(Some(bytes)) => Ok(Some((Bytes::from(bytes), body))),
            Ok(None) => Ok(None),
            Err(e) => {
                // The status has been sent: the answer can only be cut short.
                eprintln!("arbiter serve: a replay's answer cut short: {e}");
                Err(std::io::Error::other(e.to_string()))
            }
        }
    });
    let first = futures_util::stream::once(async move { Ok(Bytes::from(start)) });
    Ok(Body::from_stream(futures_util::StreamExt::chain(
        first, rest,
    )))
}
