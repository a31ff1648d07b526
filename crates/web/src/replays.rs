//! Replay files: which ones the server shows, how an id names one, and reading one whole or
//! summed up.
//!
//! An id is a file's path relative to the replays folder, with `/` between folders; only
//! `.jsonl` and `.jsonl.gz` files inside the folder can be named, whatever the id says.
//!
//! A file is summed up by reading it once, line by line (memory stays bounded whatever its
//! size, and its text is capped), checking every record on the way; the summary is kept while
//! the file's size and modification time stay the same, so the listing and the replay routes
//! read an unchanged file once.

use std::collections::HashMap;
use std::io::Cursor;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use arbiter_replay::{Header, MatchResult, Replay, ReplayReader, Tick};
use serde::Serialize;

use arbiter_store::{ReplayKey, ReplayStore};

use crate::error::{AppError, AppResult};
use crate::record::{Line, classify};
use crate::stored::{self, Fed, ReplayAt};
use crate::tail::Tail;

/// Where the replays shown come from.
#[derive(Clone, Debug)]
pub enum ReplaySource {
    /// Every replay under a folder (a tournament's, or one `arbiter play --replay` writes to).
    Dir(PathBuf),
    /// One file (`arbiter view`): its id is its file name.
    File(PathBuf),
    /// None: only the tournaments' replays, by match.
    None,
}

/// How deep the listing looks into sub-folders (a tournament keeps its replays in `t1/`, …).
const MAX_DEPTH: usize = 3;

/// What the replay list shows of a file, without reading every tick.
#[derive(Clone, Debug, Serialize)]
pub struct ReplaySummary {
    /// The file's path relative to the replays folder, with `/` between folders.
    pub id: String,
    /// The game's name, from the header.
    pub game: Option<String>,
    /// The players' names, in seat order.
    pub players: Vec<String>,
    /// Tick records so far.
    pub ticks: usize,
    /// Whether the file ends with its result: false while the match is being played (or if it
    /// was cut short).
    pub complete: bool,
    /// Why the match ended (`goal`, `tick_limit`, …), once it has.
    pub reason: Option<String>,
    /// Place per player (1 is best; equal places are ties), once the match has ended.
    pub placement: Option<Vec<u32>>,
    /// Faults of all bots together (malformed and illegal answers, timeouts, crashes).
    pub faults: u32,
    /// File size, in bytes.
    pub size: u64,
    /// Last change, Unix milliseconds.
    pub modified: i64,
    /// Why the file cannot be shown (a newer format, damage), if it cannot.
    pub problem: Option<String>,
}

/// What one reading of a whole file found.
#[derive(Clone, Debug, Default)]
struct Scan {
    header: Option<(String, Vec<String>)>,
    ticks: usize,
    result: Option<MatchResult>,
    /// Why the file cannot be served, if it cannot.
    refusal: Option<AppError>,
}

/// A file's scan, valid while its size and modification time stay the same.
struct Cached {
    size: u64,
    modified: SystemTime,
    scan: Scan,
}

/// The replays the server shows, with a cache of their summaries.
pub struct ReplayFiles {
    source: ReplaySource,
    /// The most text (after decompression) read from one file.
    cap: u64,
    cache: Mutex<HashMap<PathBuf, Cached>>,
}

impl ReplayFiles {
    /// Shows the replays of `source`, reading at most `cap` bytes of text from each.
    pub fn new(source: ReplaySource, cap: u64) -> ReplayFiles {
        ReplayFiles {
            source,
            cap,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The most text (after decompression) read from one file.
    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// Where the replays come from.
    pub fn source(&self) -> &ReplaySource {
        &self.source
    }

    /// Every replay, the most recently changed first.
    pub fn list(&self) -> Vec<ReplaySummary> {
        let files = match &self.source {
            ReplaySource::Dir(dir) => {
                let mut files = Vec::new();
                collect(dir, dir, 0, &mut files);
                files
            }
            ReplaySource::File(path) => vec![(file_name(path), path.clone())],
            ReplaySource::None => Vec::new(),
        };
        let mut list: Vec<ReplaySummary> = files
            .into_iter()
            .filter_map(|(id, path)| self.summary(id, &path))
            .collect();
        list.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.id.cmp(&b.id)));
        list
    }

    fn summary(&self, id: String, path: &Path) -> Option<ReplaySummary> {
        let meta = std::fs::metadata(path).ok()?;
        let modified = meta.modified().unwrap_or(UNIX_EPOCH);
        let scan = self.scan(path, meta.len(), modified);
        Some(ReplaySummary::new(id, &scan, meta.len(), modified))
    }

    /// Whether the file at `path` can be served whole: read once while it stays unchanged.
    pub fn check(&self, path: &Path) -> AppResult<()> {
        let meta = std::fs::metadata(path)
            .map_err(|_| AppError::NotFound("there is no such replay".to_owned()))?;
        let modified = meta.modified().unwrap_or(UNIX_EPOCH);
        match self.scan(path, meta.len(), modified).refusal {
            Some(refusal) => Err(refusal),
            None => Ok(()),
        }
    }

    /// The file's scan, from the cache if it has not changed. The cache is not held while a
    /// file is read, so that one large file does not hold up the others.
    fn scan(&self, path: &Path, size: u64, modified: SystemTime) -> Scan {
        let cache = || self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(cached) = cache().get(path)
            && cached.size == size
            && cached.modified == modified
        {
            return cached.scan.clone();
        }
        let scan = scan(path, self.cap);
        cache().insert(
            path.to_owned(),
            Cached {
                size,
                modified,
                scan: scan.clone(),
            },
        );
        scan
    }

    /// The file an id names.
    pub fn resolve(&self, id: &str) -> AppResult<PathBuf> {
        let not_found = || AppError::NotFound(format!("there is no replay {id:?}"));
        match &self.source {
            ReplaySource::File(path) if id == file_name(path) => Ok(path.clone()),
            ReplaySource::Dir(dir) => {
                let relative = Path::new(id);
                let plain = relative
                    .components()
                    .all(|c| matches!(c, Component::Normal(_)));
                if !plain || !is_replay_name(id) {
                    return Err(not_found());
                }
                let path = dir.join(relative);
                // A symbolic link may not lead out of the folder.
                let real = path.canonicalize().map_err(|_| not_found())?;
                let root = dir.canonicalize().map_err(|_| not_found())?;
                if real.starts_with(root) && real.is_file() {
                    Ok(path)
                } else {
                    Err(not_found())
                }
            }
            _ => Err(not_found()),
        }
    }
}

fn is_replay_name(name: &str) -> bool {
    name.ends_with(".jsonl") || name.ends_with(".jsonl.gz")
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn collect(root: &Path, dir: &Path, depth: usize, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && depth < MAX_DEPTH {
            collect(root, &path, depth + 1, out);
        } else if kind.is_file() && is_replay_name(&file_name(&path)) {
            let Ok(relative) = path.strip_prefix(root) else {
                continue;
            };
            let id = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            out.push((id, path));
        }
    }
}

impl ReplaySummary {
    fn new(id: String, scan: &Scan, size: u64, modified: SystemTime) -> ReplaySummary {
        let (game, players) = scan.header.clone().unzip();
        let result = scan.result.as_ref();
        ReplaySummary {
            id,
            game,
            players: players.unwrap_or_default(),
            ticks: scan.ticks,
            complete: result.is_some(),
            reason: result.map(|r| r.reason.clone()),
            placement: result.map(|r| r.placement.clone()),
            faults: result.map_or(0, |r| {
                r.bots
                    .iter()
                    .map(|b| b.errors + b.timeouts + u32::from(b.crashed))
                    .sum()
            }),
            size,
            modified: modified
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as i64),
            problem: scan.refusal.as_ref().map(AppError::public_message),
        }
    }
}

/// Reads a whole file, a line at a time, as far as it has been written.
fn scan(path: &Path, cap: u64) -> Scan {
    let mut scan = Scan::default();
    if let Err(refusal) = scan_into(path, cap, &mut scan) {
        scan.refusal = Some(refusal);
    }
    scan
}

fn scan_into(path: &Path, cap: u64, scan: &mut Scan) -> AppResult<()> {
    let mut tail = Tail::open(path, cap)?;
    scan_more(&mut tail, scan)?;
    scan.found_header()
}

impl Scan {
    fn found_header(&self) -> AppResult<()> {
        match self.header {
            Some(_) => Ok(()),
            None => Err(AppError::BadReplay("the replay is empty".to_owned())),
        }
    }
}

/// Reads on, from where the last call stopped, as far as the tail goes for now.
fn scan_more(tail: &mut Tail, scan: &mut Scan) -> AppResult<()> {
    if scan.header.is_none() {
        let Some(first) = tail.next_line()? else {
            return Ok(());
        };
        let header = ReplayReader::new(first.as_bytes())?.header().clone();
        scan.header = Some((
            header.game,
            header.players.into_iter().map(|p| p.name).collect(),
        ));
    }
    loop {
        let number = tail.lines_read() + 1;
        let Some(line) = tail.next_line()? else {
            return Ok(());
        };
        match classify(line, number)? {
            Line::Tick => scan.ticks += 1,
            Line::Result(result) => scan.result = Some(*result),
            Line::Other => {}
        }
    }
}

/// Whether the replay `key` kept in `store` can be served whole: it is read through once, as a
/// file is (see [`ReplayFiles::check`]), its chunks fetched a few at a time.
pub async fn check_stored(key: &ReplayKey, store: &ReplayStore, cap: u64) -> AppResult<()> {
    let (mut tail, mut feed) = stored::open(&ReplayAt::Stored(key.clone()), Some(store), cap)?;
    let mut scan = Scan::default();
    loop {
        let scanned;
        (tail, scan, scanned) = tokio::task::spawn_blocking(move || {
            let scanned = scan_more(&mut tail, &mut scan);
            (tail, scan, scanned)
        })
        .await?;
        scanned?;
        if stored::more(&mut feed, &mut tail).await? != Fed::More {
            return scan.found_header();
        }
    }
}

/// A replay read as far as it has been written.
#[derive(Debug)]
pub struct Loaded {
    /// The header and the records read so far.
    pub replay: Replay,
    /// Lines read: a live stream goes on after this one.
    pub lines: usize,
}

/// What `/api/replay` answers.
#[derive(Serialize)]
pub struct ReplayBody<'a> {
    /// The replay's header.
    pub header: &'a Header,
    /// The turns read so far.
    pub ticks: &'a [Tick],
    /// The result, once the match has ended.
    pub result: Option<&'a MatchResult>,
    /// Whether the result is in: if not, the stream goes on from `lines`.
    pub complete: bool,
    /// Lines read so far: the live stream goes on from here.
    pub lines: usize,
}

impl Loaded {
    /// The answer of `/api/replay` for this replay.
    pub fn body(&self) -> ReplayBody<'_> {
        ReplayBody {
            header: &self.replay.header,
            ticks: &self.replay.ticks,
            result: self.replay.result.as_ref(),
            complete: self.replay.result.is_some(),
            lines: self.lines,
        }
    }
}

/// Reads every complete line of a replay (which may still be written) with the replay crate's
/// reader, so that its version check and its tolerance of newer minor versions apply.
pub fn load(path: &Path) -> AppResult<Loaded> {
    let mut tail = Tail::open(path, u64::MAX)?;
    let lines = tail.poll()?;
    let count = lines.len();
    let mut text = lines.join("\n");
    text.push('\n');
    let reader = ReplayReader::new(Cursor::new(text))?;
    let replay = Replay::from_reader(reader)?;
    Ok(Loaded {
        replay,
        lines: count,
    })
}
