//! Following a replay as it is written, as server-sent events.
//!
//! Events, each with the line number as its id (so a reconnecting `EventSource` resumes with
//! `Last-Event-ID` where it stopped):
//! - `record`: one line of the replay, as written (a header, tick or result record);
//! - `failure`: the replay cannot be read (a newer format, damage), with a message for people;
//! - `end`: the result has been sent, or after a `failure`: nothing more will come.

use std::convert::Infallible;
use std::path::PathBuf;
use std::time::Duration;

use arbiter_replay::ReplayReader;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use serde::Deserialize;
use tokio::sync::mpsc;

use crate::error::AppError;
use crate::tail::Tail;

/// How often a file that has not grown is looked at again.
const POLL: Duration = Duration::from_millis(150);

/// Streams the lines of `path` after the first `from`, then each new one as it is written,
/// until the result record.
pub fn follow(
    path: PathBuf,
    from: usize,
) -> Sse<impl Stream<Item = Result<Event, Infallible>> + Send + 'static> {
    let (tx, rx) = mpsc::channel::<Event>(64);
    // File reads block; a blocking thread per follower is cheap next to a match being played.
    tokio::task::spawn_blocking(move || tail_into(path, from, &tx));
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|event| (Ok(event), rx))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

#[derive(Deserialize)]
struct RecordType {
    #[serde(rename = "type")]
    kind: String,
}

fn tail_into(path: PathBuf, from: usize, tx: &mpsc::Sender<Event>) {
    let fail = |message: String| {
        let _ = tx.blocking_send(Event::default().event("failure").data(message));
        let _ = tx.blocking_send(Event::default().event("end").data(""));
    };
    let mut tail = match Tail::open(&path) {
        Ok(tail) => tail,
        Err(e) => return fail(AppError::from(e).public_message()),
    };
    loop {
        if tx.is_closed() {
            return;
        }
        let first = tail.lines_read() + 1;
        let lines = match tail.poll() {
            Ok(lines) => lines,
            Err(e) => return fail(AppError::from(e).public_message()),
        };
        if lines.is_empty() {
            std::thread::sleep(POLL);
            continue;
        }
        for (number, line) in (first..).zip(&lines) {
            if number == 1
                && let Err(e) = ReplayReader::new(line.as_bytes())
            {
                return fail(AppError::from(e).public_message());
            }
            let is_result =
                serde_json::from_str::<RecordType>(line).is_ok_and(|r| r.kind == "result");
            if number > from {
                let event = Event::default()
                    .event("record")
                    .id(number.to_string())
                    .data(line);
                if tx.blocking_send(event).is_err() {
                    return;
                }
            }
            if is_result {
                let _ = tx.blocking_send(Event::default().event("end").data(""));
                return;
            }
        }
    }
}
