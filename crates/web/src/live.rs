//! Following a replay as it is written, as server-sent events.
//!
//! Events, each with the line number as its id (so a reconnecting `EventSource` resumes with
//! `Last-Event-ID` where it stopped):
//! - `record`: one line of the replay, as written (a header, tick or result record);
//! - `failure`: the replay cannot be read (a newer format, damage), with a message for people;
//! - `stalled`: the replay has had no result and no new line for [`stalled_after`] (from the
//!   file's last change on): its match was stopped (a runner killed, a file cut short), with a
//!   message for people;
//! - `end`: the result has been sent, or after a `failure` or `stalled`: nothing more will come.
//!
//! A follower is a task, not a thread: it reads what is new on a blocking thread a bounded step
//! at a time, and waits on a timer when nothing is, so a thousand followers cost a thousand
//! small tasks and the blocking threads stay free for the other routes.
//!
//! A replay kept in the store (played on another machine) is followed the same way: the store
//! is asked for new chunks when the tail has read all it was given.

use std::convert::Infallible;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use arbiter_replay::ReplayReader;
use arbiter_store::ReplayStore;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use tokio::sync::mpsc;

use crate::error::{AppError, AppResult};
use crate::record::is_result;
use crate::stored::{self, Fed, ReplayAt};
use crate::tail::Tail;

/// A replay without a result that has not grown for this long is taken as stalled: no one
/// writes it any more. Far above the longest a referee waits for a bot's answer.
pub const STALLED_AFTER: Duration = Duration::from_secs(30);

/// [`STALLED_AFTER`], or the milliseconds `ARBITER_STALLED_AFTER_MS` gives (tests wait less).
pub fn stalled_after() -> Duration {
    static AFTER: LazyLock<Duration> = LazyLock::new(|| {
        std::env::var("ARBITER_STALLED_AFTER_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(STALLED_AFTER, Duration::from_millis)
    });
    *AFTER
}

/// How long ago the replay at `at` last grew, as far as can be told before reading it: a
/// file's last change; a stored replay is taken as fresh.
fn quiet_for(at: &ReplayAt) -> Duration {
    match at {
        ReplayAt::File(path) => std::fs::metadata(path)
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .unwrap_or_default(),
        ReplayAt::Stored(_) => Duration::ZERO,
    }
}

/// How often a file that has not grown is looked at again.
const POLL: Duration = Duration::from_millis(150);

/// How often the store is asked again for a replay that has not grown: its uploader sends
/// every 250 ms, and each follower's question costs the store a query.
const POLL_STORED: Duration = Duration::from_millis(300);

/// The most lines one step reads: a follower catching up on a long replay takes turns with
/// the others.
const STEP_LINES: usize = 64;

/// Streams the lines of the replay `at` after the first `from`, then each new one as it is
/// written, until the result record; at most `cap` bytes of text are read.
pub fn follow(
    at: ReplayAt,
    stored: Option<ReplayStore>,
    from: usize,
    cap: u64,
) -> Sse<impl Stream<Item = Result<Event, Infallible>> + Send + 'static> {
    let (tx, rx) = mpsc::channel::<Event>(STEP_LINES);
    tokio::spawn(follow_into(at, stored, from, cap, tx));
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|event| (Ok(event), rx))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// What one step read.
#[derive(Default)]
struct Step {
    events: Vec<Event>,
    /// The result record was read: nothing more will come.
    ended: bool,
}

async fn follow_into(
    at: ReplayAt,
    stored: Option<ReplayStore>,
    from: usize,
    cap: u64,
    tx: mpsc::Sender<Event>,
) {
    let opened = tokio::task::spawn_blocking(move || {
        let quiet = quiet_for(&at);
        stored::open(&at, stored.as_ref(), cap).map(|opened| (opened, quiet))
    })
    .await;
    let ((mut tail, mut feed), quiet) = match opened {
        Ok(Ok(opened)) => opened,
        Ok(Err(e)) => return fail(&tx, e.public_message()).await,
        Err(e) => return fail(&tx, AppError::from(e).public_message()).await,
    };
    // When the replay last grew, and whether all that was written at the time has been read.
    let mut grew = Instant::now()
        .checked_sub(quiet)
        .unwrap_or_else(Instant::now);
    let mut caught_up = false;
    while !tx.is_closed() {
        let stepped = tokio::task::spawn_blocking(move || {
            let step = step(&mut tail, from);
            (tail, step)
        })
        .await;
        let step = match stepped {
            Ok((back, Ok(step))) => {
                tail = back;
                step
            }
            Ok((_, Err(e))) => return fail(&tx, e.public_message()).await,
            Err(e) => return fail(&tx, AppError::from(e).public_message()).await,
        };
        let idle = step.events.is_empty() && !step.ended;
        // Lines read while catching up on what was written before are not growth.
        if !idle && caught_up {
            grew = Instant::now();
        }
        caught_up |= idle;
        for event in step.events {
            if tx.send(event).await.is_err() {
                return;
            }
        }
        if step.ended {
            let _ = tx.send(Event::default().event("end").data("")).await;
            return;
        }
        if idle && grew.elapsed() >= stalled_after() {
            return stall(&tx, stalled_after()).await;
        }
        if idle {
            match stored::more(&mut feed, &mut tail).await {
                Ok(Fed::More) => {}
                Ok(Fed::NothingYet) if feed.is_some() => tokio::time::sleep(POLL_STORED).await,
                Ok(Fed::NothingYet) => tokio::time::sleep(POLL).await,
                // Complete, yet no result record: the match was cut short.
                Ok(Fed::Over) => {
                    let _ = tx.send(Event::default().event("end").data("")).await;
                    return;
                }
                Ok(Fed::Replaced) => {
                    let message = "this match is being played again: reload to follow it";
                    return fail(&tx, message.to_owned()).await;
                }
                Err(e) => return fail(&tx, e.public_message()).await,
            }
        }
    }
}

/// Tells the follower why the replay cannot be followed, and that nothing more will come.
async fn fail(tx: &mpsc::Sender<Event>, message: String) {
    let _ = tx
        .send(Event::default().event("failure").data(message))
        .await;
    let _ = tx.send(Event::default().event("end").data("")).await;
}

/// Tells the follower that the replay stopped growing without a result, and that nothing more
/// will come.
async fn stall(tx: &mpsc::Sender<Event>, after: Duration) {
    let message = format!(
        "no result and no new tick for {} s: the match was stopped (its runner killed, \
         or the file cut short)",
        after.as_secs_f64()
    );
    let _ = tx
        .send(Event::default().event("stalled").data(message))
        .await;
    let _ = tx.send(Event::default().event("end").data("")).await;
}

/// Reads up to [`STEP_LINES`] new lines, as the events to send (those after line `from`).
fn step(tail: &mut Tail, from: usize) -> AppResult<Step> {
    let mut step = Step::default();
    for _ in 0..STEP_LINES {
        let number = tail.lines_read() + 1;
        let Some(line) = tail.next_line()? else {
            break;
        };
        if number == 1 {
            ReplayReader::new(line.as_bytes())?;
        }
        let is_result = is_result(line);
        if number > from {
            step.events.push(
                Event::default()
                    .event("record")
                    .id(number.to_string())
                    .data(line),
            );
        }
        if is_result {
            step.ended = true;
            break;
        }
    }
    Ok(step)
}
