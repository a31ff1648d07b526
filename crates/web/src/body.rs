//! `/api/replay`'s answer, written while the file is read: `{"header":…,"ticks":[…],"result":…,
//! "complete":…,"lines":…}`, with each tick as its line in the file. Only a chunk of the answer
//! is in memory at a time, whatever the size of the replay, and reading the file happens on a
//! blocking thread one chunk at a time, so a slow client holds no thread. A replay kept in the
//! store is read the same way, its chunks fetched as the answer needs them.

use arbiter_replay::{MatchResult, ReplayReader};
use arbiter_store::ReplayStore;
use axum::body::{Body, Bytes};
use serde::Serialize;

use crate::error::{AppError, AppResult};
use crate::record::{Line, classify};
use crate::stored::{Fed, Feed, ReplayAt, more};
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
    /// Writes the start of the answer, up to the ticks, from the tail's first line; the header
    /// is checked (a newer format, damage) before anything is sent.
    fn open(tail: Tail, first: &str) -> AppResult<(ReplayBody, Vec<u8>)> {
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

    /// The next chunk of the answer, and whether the tail has no more for now (the answer then
    /// ends with [`ReplayBody::finish`], unless more is pushed into it).
    fn next_chunk(&mut self) -> AppResult<(Vec<u8>, bool)> {
        let mut out = Vec::with_capacity(CHUNK);
        while out.len() < CHUNK {
            let number = self.tail.lines_read() + 1;
            let Some(line) = self.tail.next_line()? else {
                return Ok((out, true));
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
        Ok((out, false))
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

/// The first line of a replay, fetching chunks of a stored one until it has come; the tail
/// comes back with it.
pub async fn first_line(
    mut tail: Tail,
    feed: &mut Option<Feed>,
) -> AppResult<(Tail, Option<String>)> {
    loop {
        let (back, line) = tokio::task::spawn_blocking(move || {
            let line = tail.next_line().map(|l| l.map(str::to_owned));
            (tail, line)
        })
        .await?;
        tail = back;
        if let Some(line) = line? {
            return Ok((tail, Some(line)));
        }
        if more(feed, &mut tail).await? != Fed::More {
            return Ok((tail, None));
        }
    }
}

/// The answer for the replay `at`, read at most `cap` bytes of text far: the header is read
/// before answering (so a refusal is an HTTP error), the rest as the client takes it.
pub async fn replay_body(at: ReplayAt, stored: Option<&ReplayStore>, cap: u64) -> AppResult<Body> {
    let (tail, mut feed) = {
        let stored = stored.cloned();
        tokio::task::spawn_blocking(move || crate::stored::open(&at, stored.as_ref(), cap))
            .await??
    };
    let (tail, first) = first_line(tail, &mut feed).await?;
    let first = first.ok_or_else(|| AppError::BadReplay("the replay is empty".to_owned()))?;
    let (body, start) = ReplayBody::open(tail, &first)?;
    let rest = futures_util::stream::try_unfold((body, feed), |(body, mut feed)| async move {
        next_bytes(body, &mut feed)
            .await
            .map(|next| next.map(|(bytes, body)| (bytes, (body, feed))))
            .map_err(|e| {
                // The status has been sent: the answer can only be cut short.
                eprintln!("arbiter serve: a replay's answer cut short: {e}");
                std::io::Error::other(e.to_string())
            })
    });
    let first = futures_util::stream::once(async move { Ok(Bytes::from(start)) });
    Ok(Body::from_stream(futures_util::StreamExt::chain(
        first, rest,
    )))
}

/// The next bytes of the answer, read on a blocking thread; `None` once it is all sent.
async fn next_bytes(
    mut body: ReplayBody,
    feed: &mut Option<Feed>,
) -> AppResult<Option<(Bytes, ReplayBody)>> {
    if body.done {
        return Ok(None);
    }
    let (mut body, chunk) = tokio::task::spawn_blocking(move || {
        let chunk = body.next_chunk();
        (body, chunk)
    })
    .await?;
    let (mut out, starved) = chunk?;
    // A replay in the store may have more to fetch; a file is served as far as it is written.
    if starved && more(feed, &mut body.tail).await? != Fed::More {
        body.finish(&mut out)?;
    }
    Ok(Some((Bytes::from(out), body)))
}
