//! Replays sent to the store as they are written, so that a viewer on any machine can follow a
//! match a worker plays and show it once it is over.
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

use arbiter_store::ReplayKey;
use arbiter_store::blocking::ReplayStore;

use crate::TournamentError;

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
        thread: JoinHandle<Result<u64, TournamentError>>,
    },
    /// It could not even start.
    Failed(TournamentError),
}

impl ReplayUpload {
    /// Empties (creates) the file at `path`, which the match is about to write, and follows it
    /// into the replay `key` of `store` until [`ReplayUpload::finish`]. Emptying it first means
    /// no byte of an older replay left there is ever sent.
    pub fn start(store: Arc<ReplayStore>, key: ReplayKey, path: &Path) -> ReplayUpload {
        let state = Self::spawn(store, key, path).unwrap_or_else(State::Failed);
        ReplayUpload { state }
    }

    fn spawn(
        store: Arc<ReplayStore>,
        key: ReplayKey,
        path: &Path,
    ) -> Result<State, TournamentError> {
        File::create(path).map_err(io_error("creating the replay file", path))?;
        let (finish, finishing) = mpsc::channel();
        let mut uploader = Uploader::new(store, key, path);
        let thread = std::thread::Builder::new()
            .name(format!("replay m{}", key.match_id))
            .spawn(move || uploader.follow(&finishing))
            .map_err(io_error("starting the replay's uploader for", path))?;
        Ok(State::Following { finish, thread })
    }

    /// Sends what the file gained since the last period, marks the replay complete, and waits
    /// for that; the bytes sent in all, or why the replay is not (all) in the store.
    pub fn finish(self) -> Result<u64, TournamentError> {
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

fn join(thread: JoinHandle<Result<u64, TournamentError>>) -> Result<u64, TournamentError> {
    thread.join().unwrap_or_else(|_| {
        Err(TournamentError::Io {
            what: "uploading a replay".into(),
            source: io::Error::other("the uploader panicked"),
        })
    })
}

/// Stores the finished replay file at `path` as the replay `key` of `store`, complete; the
/// bytes sent.
pub fn upload_file(
    store: &ReplayStore,
    key: ReplayKey,
    path: &Path,
) -> Result<u64, TournamentError> {
    let mut uploader = Uploader::new(store, key, path);
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
    fn follow(&mut self, finishing: &mpsc::Receiver<()>) -> Result<u64, TournamentError> {
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
                    self.store.complete(self.key)?;
                    return Ok(self.offset);
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return self.send_new().map(|()| self.offset);
                }
            }
        }
    }

    /// The last sending, tried again a few times if it failed: there is no next period.
    fn retry_last(&mut self, mut sent: Result<(), TournamentError>) -> Result<(), TournamentError> {
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
    fn send_new(&mut self) -> Result<(), TournamentError> {
        if !self.begun {
            self.store.begin(self.key)?;
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
            self.store.begin(self.key)?;
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
            self.store.append(self.key, &piece)?;
            self.offset += piece.len() as u64;
        }
    }
}

fn io_error(what: &str, path: &Path) -> impl FnOnce(io::Error) -> TournamentError {
    let what = format!("{what} {}", path.display());
    move |source| TournamentError::Io { what, source }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;
    use std::time::Instant;

    use arbiter_catalog::TimeLimits;
    use arbiter_catalog::quoridor::QuoridorSettings;
    use arbiter_games::quoridor::Quoridor;
    use arbiter_referee::SeatSpec;
    use arbiter_replay::{Record, ReplayReader, ReplayWriter};
    use arbiter_store::blocking::Store;
    use arbiter_store::{Format, NewMatch, Presence, Tournament, now_ms};
    use flate2::read::MultiGzDecoder;

    use super::*;
    use crate::arena::GameArena;
    use crate::pool::Arena;
    use crate::scratch_dir as scratch;

    /// A tournament with one match in the store at `target`; the match's key, claim 1.
    fn one_match(target: &str) -> ReplayKey {
        let store = Store::open(target, Presence::MayCreate).unwrap();
        let t = Tournament {
            id: 0,
            game: "quoridor".into(),
            format: Format::RoundRobin,
            seed: 3,
            rounds: 1,
            players_per_match: 2,
            settings: serde_json::json!({}),
            created: now_ms(),
            finished: None,
            max_attempts: 3,
            name: None,
        };
        let m = NewMatch {
            id: 1,
            round: 1,
            seats: vec!["builtin:runner".into(), "builtin:blocker".into()],
            seed: 3,
        };
        let tournament = store
            .create(&t, &|_| serde_json::json!({}), &[], &[m], None)
            .unwrap();
        store.close();
        ReplayKey {
            tournament,
            match_id: 1,
            claim: 1,
        }
    }

    /// The replay's bytes as stored so far.
    fn stored_bytes(store: &ReplayStore, key: ReplayKey) -> Vec<u8> {
        store
            .chunks(key, 0, u32::MAX)
            .unwrap()
            .into_iter()
            .flat_map(|c| c.bytes)
            .collect()
    }

    /// The complete lines the bytes of a gzip stream still being written hold.
    fn lines(bytes: &[u8]) -> usize {
        let mut text = Vec::new();
        // A stream without its end yet: what comes before the error is what was written.
        let _ = MultiGzDecoder::new(Cursor::new(bytes)).read_to_end(&mut text);
        text.iter().filter(|&&b| b == b'\n').count()
    }

    /// A real Quoridor match between robots, played through the catalog into a file: its
    /// records.
    fn robots_match(dir: &Path) -> Vec<Record> {
        let arena =
            GameArena::<Quoridor>::new(QuoridorSettings::default(), &TimeLimits::default(), None)
                .unwrap();
        let seats = ["builtin:runner", "builtin:blocker"].map(|s| SeatSpec::parse(s).unwrap());
        let played = dir.join("played.jsonl.gz");
        arena.play(&seats, 3, 1, &played).unwrap();
        let reader = ReplayReader::open(&played).unwrap();
        let header = Record::Header(reader.header().clone());
        let mut records = vec![header];
        records.extend(reader.map(Result::unwrap));
        records
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
    fn a_replay_reaches_the_store_while_its_match_is_written_and_whole_at_the_end() {
        let dir = scratch("growing");
        let target = dir.join("t.db").to_string_lossy().into_owned();
        let key = one_match(&target);
        let records = robots_match(&dir);
        assert!(records.len() > 10, "{} records", records.len());
        let store = Arc::new(ReplayStore::open(&target, Presence::MustExist).unwrap());
        let path = dir.join("m00001.jsonl.gz");
        std::fs::write(&path, b"an older replay's bytes").unwrap();
        let upload = ReplayUpload::start(store.clone(), key, &path);
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            0,
            "emptied at once"
        );
        let mut writer = ReplayWriter::create(&path).unwrap();
        let half = records.len() / 2;
        for record in &records[..half] {
            writer.write(record).unwrap();
        }
        // Half the match is in the store before its end is written.
        assert!(
            eventually(PERIOD * 8, || lines(&stored_bytes(&store, key)) == half),
            "{} lines of {half} stored",
            lines(&stored_bytes(&store, key))
        );
        let live = store.replay(key).unwrap().unwrap();
        assert!(!live.complete);
        for record in &records[half..] {
            writer.write(record).unwrap();
        }
        writer.finish().unwrap();
        let sent = upload.finish().unwrap();
        let file = std::fs::read(&path).unwrap();
        assert_eq!(sent, file.len() as u64);
        let stored = store.replay(key).unwrap().unwrap();
        assert!(stored.complete);
        assert_eq!(stored.size, sent);
        assert_eq!(
            stored_bytes(&store, key),
            file,
            "the same bytes as the file"
        );
        let read: Vec<Record> = {
            let reader = ReplayReader::from_reader(Cursor::new(stored_bytes(&store, key))).unwrap();
            let header = Record::Header(reader.header().clone());
            std::iter::once(header)
                .chain(reader.map(Result::unwrap))
                .collect()
        };
        assert_eq!(read, records);

        // A finished file, sent whole under the next claim, replaces the replay.
        let next = ReplayKey { claim: 2, ..key };
        assert_eq!(upload_file(&store, next, &path).unwrap(), sent);
        assert_eq!(store.newest(key.tournament, 1).unwrap().unwrap().key, next);
        assert_eq!(store.replay(key).unwrap(), None);
        let missing = upload_file(&store, next, &dir.join("none.jsonl.gz")).unwrap_err();
        assert!(missing.to_string().contains("none.jsonl.gz"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_abandoned_upload_stays_incomplete_and_a_failed_start_is_reported_at_finish() {
        let dir = scratch("abandoned");
        let target = dir.join("t.db").to_string_lossy().into_owned();
        let key = one_match(&target);
        let store = Arc::new(ReplayStore::open(&target, Presence::MustExist).unwrap());
        let path = dir.join("m00001.jsonl.gz");
        let upload = ReplayUpload::start(store.clone(), key, &path);
        std::fs::write(&path, b"\x1f\x8b partial").unwrap();
        upload.abandon();
        let stored = store.replay(key).unwrap().unwrap();
        assert!(!stored.complete);
        assert_eq!(stored_bytes(&store, key), b"\x1f\x8b partial");

        let nowhere = dir.join("no-such-folder/m00001.jsonl.gz");
        let error = ReplayUpload::start(store, key, &nowhere)
            .finish()
            .unwrap_err();
        assert!(error.to_string().contains("no-such-folder"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
