//! Replays sent to the store as they are written, so that a viewer on any machine can follow a
//! match a worker plays, or a game server's game, and show it once it is over.
//!
//! The match still writes its replay to a local file (the same bytes, gzip flushed line by
//! line); a [`ReplayUpload`] follows that file on a thread of its own and appends what it gains
//! to the store every [`PERIOD`], then the rest and "complete" at [`ReplayUpload::finish`].
//! Trouble with the store is retried at the next period and reported by `finish`: the match
//! itself goes on whatever the store does.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::StoreError;
use crate::blocking::ReplayStore;
use crate::replays::ReplayKey;

/// How often a replay being written is sent: what a live viewer lags behind, at most.
pub const PERIOD: Duration = Duration::from_millis(250);

/// How many times the last bytes of a replay are tried before its upload fails.
const FINAL_TRIES: usize = 3;

/// The most bytes read from the file and appended at once.
const PIECE: usize = 1 << 20;

/// A replay file followed into the store while its match is played.
pub struct ReplayUpload {
    state: State,
}

enum State {
    Following {
        /// A message: finish. Dropped without one: stop without marking the replay complete.
        finish: mpsc::Sender<()>,
        thread: JoinHandle<Result<u64, StoreError>>,
    },
    /// It could not even start.
    Failed(StoreError),
}

impl ReplayUpload {
    /// Empties (creates) the file at `path`, which the match is about to write, and follows it
    /// into the replay `key` of `store` until [`ReplayUpload::finish`]. Emptying it first means
    /// no byte of an older replay left there is ever sent.
    pub fn start(store: Arc<ReplayStore>, key: ReplayKey, path: &Path) -> ReplayUpload {
        let state = Self::spawn(store, key, path).unwrap_or_else(State::Failed);
        ReplayUpload { state }
    }

    fn spawn(store: Arc<ReplayStore>, key: ReplayKey, path: &Path) -> Result<State, StoreError> {
        File::create(path).map_err(io_error("creating the replay file", path))?;
        let (finish, finishing) = mpsc::channel();
        let mut uploader = Uploader::new(store, key, path);
        let thread = std::thread::Builder::new()
            .name("replay upload".into())
            .spawn(move || uploader.follow(&finishing))
            .map_err(io_error("starting the replay's uploader for", path))?;
        Ok(State::Following { finish, thread })
    }

    /// Sends what the file gained since the last period, marks the replay complete, and waits
    /// for that; the bytes sent in all, or why the replay is not (all) in the store.
    pub fn finish(self) -> Result<u64, StoreError> {
        match self.state {
            State::Following { finish, thread } => {
                // The thread may have ended already: its answer says how.
                let _ = finish.send(());
                join(thread)
            }
            State::Failed(error) => Err(error),
        }
    }

    /// Stops following without marking the replay complete (the match was not played to its
    /// end: it will be played again, under a new claim whose replay replaces this one).
    pub fn abandon(self) {
        if let State::Following { finish, thread } = self.state {
            drop(finish);
            let _ = join(thread);
        }
    }
}

fn join(thread: JoinHandle<Result<u64, StoreError>>) -> Result<u64, StoreError> {
    thread.join().unwrap_or_else(|_| {
        Err(StoreError::io("uploading a replay")(io::Error::other(
            "the uploader panicked",
        )))
    })
}

/// Stores the finished replay file at `path` as the replay `key` of `store`, complete; the
/// bytes sent.
pub fn upload_file(store: &ReplayStore, key: &ReplayKey, path: &Path) -> Result<u64, StoreError> {
    let mut uploader = Uploader::new(store, key.clone(), path);
    uploader.send_new()?;
    if uploader.file.is_none() {
        return Err(io_error("reading the replay file", path)(
            io::ErrorKind::NotFound.into(),
        ));
    }
    store.complete(key)?;
    Ok(uploader.offset)
}

/// What has been sent of one file.
struct Uploader<S> {
    store: S,
    key: ReplayKey,
    path: PathBuf,
    /// Open once the match has created it.
    file: Option<File>,
    /// Bytes of the file in the store.
    offset: u64,
    begun: bool,
}

impl<S: std::ops::Deref<Target = ReplayStore>> Uploader<S> {
    fn new(store: S, key: ReplayKey, path: &Path) -> Self {
        Uploader {
            store,
            key,
            path: path.to_owned(),
            file: None,
            offset: 0,
            begun: false,
        }
    }

    /// Sends what is new every period until told to finish (then marks the replay complete) or
    /// dropped (then stops as it is). The last error, if the last try failed too.
    fn follow(&mut self, finishing: &mpsc::Receiver<()>) -> Result<u64, StoreError> {
        loop {
            // At once on starting, so that the replay is known to viewers from the start.
            let sent = self.send_new();
            match finishing.recv_timeout(PERIOD) {
                Err(RecvTimeoutError::Timeout) => {
                    // Retried at the next period: a connection that dropped comes back.
                    if let Err(error) = sent {
                        eprintln!("arbiter: {error} (retrying)");
                    }
                }
                Ok(()) => {
                    let sent = self.send_new();
                    self.retry_last(sent)?;
                    if self.file.is_none() {
                        return Err(io_error("reading the replay file", &self.path)(
                            io::ErrorKind::NotFound.into(),
                        ));
                    }
                    self.store.complete(&self.key)?;
                    return Ok(self.offset);
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return self.send_new().map(|()| self.offset);
                }
            }
        }
    }

    /// The last sending, tried again a few times if it failed: there is no next period.
    fn retry_last(&mut self, mut sent: Result<(), StoreError>) -> Result<(), StoreError> {
        for _ in 1..FINAL_TRIES {
            if sent.is_ok() {
                break;
            }
            std::thread::sleep(PERIOD);
            sent = self.send_new();
        }
        sent
    }

    /// Appends to the store what the file holds past what was sent.
    fn send_new(&mut self) -> Result<(), StoreError> {
        if !self.begun {
            self.store.begin(&self.key)?;
            self.begun = true;
        }
        if self.file.is_none() {
            match File::open(&self.path) {
                Ok(file) => self.file = Some(file),
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(io_error("opening the replay file", &self.path)(e)),
            }
        }
        let path = self.path.clone();
        let file = self.file.as_mut().expect("opened above");
        let length = file
            .metadata()
            .map_err(io_error("reading the replay file", &path))?
            .len();
        if length < self.offset {
            // Written again from its start (the match restarted): so is its replay.
            self.store.begin(&self.key)?;
            self.offset = 0;
        }
        file.seek(SeekFrom::Start(self.offset))
            .map_err(io_error("reading the replay file", &path))?;
        let mut piece = Vec::with_capacity(PIECE);
        loop {
            piece.clear();
            (&mut *file)
                .take(PIECE as u64)
                .read_to_end(&mut piece)
                .map_err(io_error("reading the replay file", &path))?;
            if piece.is_empty() {
                return Ok(());
            }
            self.store.append(&self.key, &piece)?;
            self.offset += piece.len() as u64;
        }
    }
}

fn io_error(what: &str, path: &Path) -> impl FnOnce(io::Error) -> StoreError {
    StoreError::io(format!("{what} {}", path.display()))
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::time::Instant;

    use super::*;
    use crate::tournaments::tests::scratch;
    use crate::{Presence, ServerReplay, blocking};

    /// A new store at a scratch place, its replays, and the folder for the replay files.
    fn replays(name: &str) -> (Arc<ReplayStore>, PathBuf) {
        let target = scratch(name);
        let dir = Path::new(&target).parent().unwrap().to_owned();
        std::fs::create_dir_all(&dir).unwrap();
        blocking::Store::open(&target, Presence::MayCreate)
            .unwrap()
            .close();
        let store = ReplayStore::open(&target, Presence::MustExist).unwrap();
        (Arc::new(store), dir)
    }

    fn game(id: i64) -> ReplayKey {
        ReplayKey::from(ServerReplay {
            game: "labyrinth".into(),
            id,
        })
    }

    /// The replay's bytes as stored so far.
    fn stored_bytes(store: &ReplayStore, key: &ReplayKey) -> Vec<u8> {
        let chunks = store.chunks(key, 0, u32::MAX).unwrap();
        chunks.into_iter().flat_map(|c| c.bytes).collect()
    }

    /// Tries `check` until it holds or `within` passes.
    fn eventually(within: Duration, mut check: impl FnMut() -> bool) -> bool {
        let start = Instant::now();
        while start.elapsed() < within {
            if check() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    #[test]
    fn a_file_reaches_the_store_while_it_is_written_and_whole_at_the_end() {
        let (store, dir) = replays("upload-growing");
        let path = dir.join("labyrinth-1.jsonl.gz");
        std::fs::write(&path, b"an older replay's bytes").unwrap();
        let key = game(1);
        let upload = ReplayUpload::start(store.clone(), key.clone(), &path);
        let emptied = std::fs::metadata(&path).unwrap().len();
        assert_eq!(emptied, 0, "emptied at once");
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(b"first half, ").unwrap();
        let half_in = eventually(PERIOD * 8, || stored_bytes(&store, &key) == b"first half, ");
        assert!(half_in, "{:?}", stored_bytes(&store, &key));
        assert!(!store.replay(&key).unwrap().unwrap().complete);
        let large: Vec<u8> = (0..PIECE * 2 + 7).map(|i| (i % 251) as u8).collect();
        file.write_all(&large).unwrap();
        drop(file);
        let sent = upload.finish().unwrap();
        let written = std::fs::read(&path).unwrap();
        assert_eq!(sent, written.len() as u64);
        let stored = store.replay(&key).unwrap().unwrap();
        assert!(stored.complete);
        assert_eq!(
            stored_bytes(&store, &key),
            written,
            "the same bytes as the file"
        );

        // A finished file sent whole starts its replay again.
        assert_eq!(upload_file(&store, &key, &path).unwrap(), sent);
        assert_eq!(stored_bytes(&store, &key), written);
        let missing = upload_file(&store, &game(2), &dir.join("none.jsonl.gz")).unwrap_err();
        assert!(missing.to_string().contains("none.jsonl.gz"), "{missing}");
    }

    #[test]
    fn an_abandoned_upload_stays_incomplete_and_a_failed_start_is_reported_at_finish() {
        let (store, dir) = replays("upload-abandoned");
        let path = dir.join("labyrinth-1.jsonl.gz");
        let key = game(1);
        let upload = ReplayUpload::start(store.clone(), key.clone(), &path);
        std::fs::write(&path, b"\x1f\x8b partial").unwrap();
        upload.abandon();
        let stored = store.replay(&key).unwrap().unwrap();
        assert!(!stored.complete);
        assert_eq!(stored_bytes(&store, &key), b"\x1f\x8b partial");

        let nowhere = dir.join("no-such-folder/labyrinth-2.jsonl.gz");
        let error = ReplayUpload::start(store, game(2), &nowhere)
            .finish()
            .unwrap_err();
        assert!(error.to_string().contains("no-such-folder"), "{error}");
    }
}
