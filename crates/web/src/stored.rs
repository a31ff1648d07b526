//! Where a replay is read from: its file, or the store, which keeps the replays of matches and
//! game-server games played on any machine (with PostgreSQL) as chunks of the file's bytes.
//!
//! A replay in the store is read through the same [`Tail`] as a file: its chunks are pushed
//! into the tail a few at a time, when the tail has read all it was given, so memory stays
//! bounded whatever the replay's size.

use std::path::{Path, PathBuf};

use arbiter_store::{ReplayKey, ReplayStore};

use crate::error::{AppError, AppResult};
use crate::tail::Tail;

/// How many chunks (each at most [`arbiter_store::MAX_CHUNK`] bytes) one fetch brings.
const FETCH: u32 = 4;

/// A replay to read.
#[derive(Clone, Debug)]
pub enum ReplayAt {
    /// A file on this machine.
    File(PathBuf),
    /// A replay kept in the store.
    Stored(ReplayKey),
}

/// What brings the bytes of a replay kept in the store to its tail.
pub struct Feed {
    store: ReplayStore,
    key: ReplayKey,
    /// The number of the next chunk to fetch.
    next: i64,
}

/// What asking for more of a replay brought.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fed {
    /// Bytes were pushed into the tail.
    More,
    /// Nothing new yet: the replay is still being written (always, for a file: its tail reads
    /// it itself).
    NothingYet,
    /// The replay is complete and all of it was pushed.
    Over,
    /// The replay is gone from the store: a newer claim of its match replaced it, or its game
    /// server started it again.
    Replaced,
}

/// Opens the tail of `at`, reading at most `cap` bytes of text; for a replay in the store,
/// with what feeds it.
pub fn open(
    at: &ReplayAt,
    store: Option<&ReplayStore>,
    cap: u64,
) -> AppResult<(Tail, Option<Feed>)> {
    match at {
        ReplayAt::File(path) => Ok((Tail::open(path, cap)?, None)),
        ReplayAt::Stored(key) => {
            let store = store.ok_or_else(|| {
                AppError::Internal("a stored replay without a replay store".to_owned())
            })?;
            let feed = Feed {
                store: store.clone(),
                key: key.clone(),
                next: 0,
            };
            Ok((Tail::pushed(&name(key), cap), Some(feed)))
        }
    }
}

/// The name a stored replay goes by in messages: the file name a worker or the game server
/// gives it.
fn name(key: &ReplayKey) -> PathBuf {
    match key {
        ReplayKey::Match(m) => {
            Path::new(&format!("t{}", m.tournament)).join(format!("m{:05}.jsonl.gz", m.match_id))
        }
        ReplayKey::ServerGame(g) => PathBuf::from(format!("{}-{}.jsonl.gz", g.game, g.id)),
    }
}

/// Pushes the next chunks of the replay into `tail`, if it is one of the store's.
pub async fn more(feed: &mut Option<Feed>, tail: &mut Tail) -> AppResult<Fed> {
    let Some(feed) = feed else {
        return Ok(Fed::NothingYet);
    };
    let Some(replay) = feed.store.replay(&feed.key).await? else {
        return Ok(Fed::Replaced);
    };
    if replay.chunks <= feed.next {
        return Ok(if replay.complete {
            Fed::Over
        } else {
            Fed::NothingYet
        });
    }
    let chunks = feed.store.chunks(&feed.key, feed.next, FETCH).await?;
    let Some(last) = chunks.last() else {
        // Dropped between the two questions.
        return Ok(Fed::Replaced);
    };
    feed.next = last.seq + 1;
    for chunk in &chunks {
        tail.push(&chunk.bytes);
    }
    Ok(Fed::More)
}
