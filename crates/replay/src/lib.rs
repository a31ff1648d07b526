//! The replay format of Arbiter: one match as JSON Lines, one JSON object per line.
//!
//! ```text
//! {"type":"header","format":{"major":1,"minor":0},"game":"quoridor","settings":{…},"seed":7,"players":[…]}
//! {"type":"tick","tick":0,"player":null,"action":{"kind":"start"},"state":{…},"bots":[…]}
//! {"type":"tick","tick":1,"player":0,"action":{"kind":"move",…},"state":{…},"bots":[…]}
//! …
//! {"type":"result","ticks":17,"reason":"goal","scores":[…],"placement":[…],"bots":[…]}
//! ```
//!
//! The format knows no game: settings, positions and actions are whatever the game records. A
//! writer passes the game's own serde types ([`Record`] is generic over them); a reader that knows
//! no game reads them as JSON values (the defaults of the type parameters).
//!
//! Objects a game records have their keys in sorted order, as replays have always been written:
//! a game's per-tick types declare their fields in that order, and the header's settings are
//! sorted when written (see [`Header::settings`]).
//!
//! A file is written line by line and flushed after each one, so a viewer can follow a match
//! while it is played; it may be gzip-compressed (`.gz`), and readers detect that from the
//! content, not the name.
//!
//! Versioning: a reader refuses a file whose major version is newer than its own, and reads a
//! newer minor version, ignoring fields and record types it does not know. A change that old
//! readers can safely ignore bumps the minor version; anything else bumps the major one.

#![warn(missing_docs)]

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

/// The version of the format this crate writes, and the newest major version it reads.
pub const FORMAT: FormatVersion = FormatVersion { major: 1, minor: 0 };

/// A version of the replay format: `major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FormatVersion {
    /// Bumped by a change old readers cannot ignore.
    pub major: u32,
    /// Bumped by a change old readers can safely ignore.
    pub minor: u32,
}

impl std::fmt::Display for FormatVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// One line of a replay, with the game's settings `S`, tick actions `A` and positions `P`.
///
/// A writer uses the game's types (actions as [`TickAction`]); a reader that knows no game
/// reads them as JSON values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Record<S = Value, A = Value, P = Value> {
    /// The first line.
    Header(Header<S>),
    /// One line per turn.
    Tick(Tick<A, P>),
    /// The last line, once the match is over.
    Result(MatchResult),
    /// A record type added by a newer minor version; readers skip it.
    #[serde(other)]
    Unknown,
}

/// The first line: what was played, by whom, and how to replay it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header<S = Value> {
    /// The version of the format the file is written in.
    pub format: FormatVersion,
    /// The game's short name, as on the command line (`quoridor`).
    pub game: String,
    /// The game's settings, as the game records them. Written with the keys of every object in
    /// sorted order, whatever the order of the fields of `S`: the settings types are shared with
    /// the command line and tournaments, and this keeps the header the same if they change.
    #[serde(
        serialize_with = "sorted_keys",
        bound(serialize = "S: Serialize", deserialize = "S: Deserialize<'de>")
    )]
    pub settings: S,
    /// Seed of the match's random generator (faulty bots' moves): the same seed and the same
    /// deterministic bots give the same match.
    pub seed: u64,
    /// One per seat, in player id order.
    pub players: Vec<Player>,
}

/// Writes `value` with the keys of its objects sorted (the order of a [`Value`]'s map).
fn sorted_keys<T: Serialize, W: Serializer>(value: &T, out: W) -> Result<W::Ok, W::Error> {
    serde_json::to_value(value)
        .map_err(serde::ser::Error::custom)?
        .serialize(out)
}

impl<S> Header<S> {
    /// A header in the current format version.
    pub fn new(game: impl Into<String>, settings: S, seed: u64, players: Vec<Player>) -> Self {
        Header {
            format: FORMAT,
            game: game.into(),
            settings,
            seed,
            players,
        }
    }
}

/// A seat of the match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Player {
    /// The name the seat plays under.
    pub name: String,
    /// How the seat is connected.
    pub kind: PlayerKind,
    /// The command line of a process seat; `None` for the others.
    pub command: Option<String>,
}

/// How a player is connected to the referee.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlayerKind {
    /// A program the referee started, speaking the protocol on stdin/stdout.
    Process,
    /// A robot running inside the referee.
    Builtin,
    /// A client connected over the network.
    Tcp,
}

impl PlayerKind {
    /// The kind as written in replays (`process`).
    pub fn as_str(self) -> &'static str {
        match self {
            PlayerKind::Process => "process",
            PlayerKind::Builtin => "builtin",
            PlayerKind::Tcp => "tcp",
        }
    }
}

/// One turn (tick 0: the start of the match), with the game's actions `A` (a writer's
/// [`TickAction`]) and positions `P`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tick<A = Value, P = Value> {
    /// The number of turns taken after this one.
    pub tick: u32,
    /// The player who acted; `None` at tick 0.
    pub player: Option<usize>,
    /// `{"kind":"start"}`, `{"kind":"stuck"}`, `{"kind":"forfeit"}`, or the game's record of the
    /// action played (`{"kind":"move",…}`, `{"kind":"place",…}`), which is the fault action when
    /// the bot faulted.
    pub action: A,
    /// The position after the action, as the game records it.
    pub state: P,
    /// One per player, in player id order.
    pub bots: Vec<BotTick>,
}

impl Tick {
    /// The action of tick 0, as a JSON value.
    pub fn start_action() -> Value {
        Event::Start.into()
    }
    /// The action of a player who had no legal action, as a JSON value.
    pub fn stuck_action() -> Value {
        Event::Stuck.into()
    }
}

/// What a tick records as its action: an event of the match, or the action a player played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TickAction<A> {
    /// A turn that played no action.
    Event(Event),
    /// The game's record of the action played.
    Played(A),
}

/// A tick that played no action, written `{"kind":"start"}` and so on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Event {
    /// Tick 0: the start of the match.
    Start,
    /// The player on turn had no legal action.
    Stuck,
    /// The player on turn forfeited the match.
    Forfeit,
}

impl From<Event> for Value {
    fn from(event: Event) -> Value {
        serde_json::to_value(event).expect("an event is a JSON object")
    }
}

impl<A> From<Event> for TickAction<A> {
    fn from(event: Event) -> Self {
        TickAction::Event(event)
    }
}

/// What one bot saw and did during one tick.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BotTick {
    /// Messages the referee sent to the bot.
    pub received: Vec<Message>,
    /// Lines the bot sent, including those discarded (late or extra lines).
    pub sent: Vec<Message>,
    /// The fault of this tick, in words for the bot's author.
    pub error: Option<String>,
    /// Remarks that are not faults, such as discarded extra lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// What the bot wrote to stderr during the tick, capped.
    pub log: String,
    /// Whether the bot is disconnected (crashed, exited, closed its output): it plays no more.
    pub offline: bool,
    /// Wall-clock time the bot took to answer, for the player on turn.
    pub time_ms: Option<f64>,
    /// CPU time the bot's processes used while it answered, where it is measured (a bot in a
    /// sandbox).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ms: Option<f64>,
    /// CPU time the bot's processes used outside its turns, where it is measured (a bot in a
    /// sandbox): in the tick of a request, since its previous request ended (or since it
    /// started); in the last tick, also since its last request. Next to nothing for a bot frozen
    /// between turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_between_turns_ms: Option<f64>,
    /// Time bank left after the tick.
    pub bank_ms: f64,
}

/// A message between the referee and a bot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Milliseconds since the match started.
    pub at_ms: f64,
    /// The message, line ends included.
    pub text: String,
}

/// The last line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// The number of turns taken.
    pub ticks: u32,
    /// Why the match ended: `goal`, `tick_limit`, `last_player_left`, `forfeit`, …
    pub reason: String,
    /// Points per player, in player id order.
    pub scores: Vec<f64>,
    /// Place per player (1 is best; equal places are ties).
    pub placement: Vec<u32>,
    /// One per player, in player id order.
    pub bots: Vec<BotSummary>,
}

/// How one bot did over the match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BotSummary {
    /// The name the seat played under.
    pub name: String,
    /// Malformed or illegal answers, and going offline.
    pub errors: u32,
    /// Answers that came too late, or not at all.
    pub timeouts: u32,
    /// Whether the bot went offline during the match (exited, crashed, closed its output).
    pub crashed: bool,
}

/// Why a replay could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The file could not be opened.
    #[error("cannot open replay {path}: {source}")]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The file could not be created.
    #[error("cannot create replay {path}: {source}")]
    Create {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Reading failed.
    #[error("reading replay, line {line}: {source}")]
    Read {
        /// The line being read, from 1.
        line: usize,
        /// Why.
        source: io::Error,
    },
    /// Writing failed.
    #[error("writing replay: {0}")]
    Write(#[from] io::Error),
    /// A line is not a record of the format.
    #[error("replay line {line}: {message}")]
    Malformed {
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// The file is in a newer major version of the format.
    #[error("replay format {found} is newer than this arbiter reads ({}.x); upgrade arbiter", FORMAT.major)]
    TooNew {
        /// The version of the file.
        found: FormatVersion,
    },
    /// The file holds no record.
    #[error("the replay is empty")]
    Empty,
}

/// Writes a replay, one record per line, flushing each line so a reader can follow along.
pub struct ReplayWriter<W: Write = Box<dyn Write + Send>> {
    sink: Sink<W>,
    line: Vec<u8>,
}

enum Sink<W: Write> {
    Plain(W),
    // Boxed: the encoder's state is some hundred bytes, depending on flate2's backend.
    Gzip(Box<GzEncoder<W>>),
}

impl ReplayWriter {
    /// Creates the file; gzip-compressed if its name ends in `.gz`.
    pub fn create(path: impl AsRef<Path>) -> Result<ReplayWriter, ReplayError> {
        let path = path.as_ref();
        let file = File::create(path).map_err(|source| ReplayError::Create {
            path: path.to_owned(),
            source,
        })?;
        let out: Box<dyn Write + Send> = Box::new(BufWriter::new(file));
        let gzip = path.extension().is_some_and(|ext| ext == "gz");
        Ok(if gzip {
            ReplayWriter::gzip(out)
        } else {
            ReplayWriter::new(out)
        })
    }
}

impl<W: Write> ReplayWriter<W> {
    /// Writes plain JSON Lines to `out`.
    pub fn new(out: W) -> Self {
        ReplayWriter {
            sink: Sink::Plain(out),
            line: Vec::with_capacity(4096),
        }
    }

    /// Writes gzip-compressed JSON Lines to `out`.
    pub fn gzip(out: W) -> Self {
        ReplayWriter {
            sink: Sink::Gzip(Box::new(GzEncoder::new(out, Compression::default()))),
            line: Vec::with_capacity(4096),
        }
    }

    /// Writes one record as one line, and flushes it.
    pub fn write<S, A, P>(&mut self, record: &Record<S, A, P>) -> Result<(), ReplayError>
    where
        S: Serialize,
        A: Serialize,
        P: Serialize,
    {
        self.line.clear();
        serde_json::to_writer(&mut self.line, record).map_err(io::Error::from)?;
        self.line.push(b'\n');
        match &mut self.sink {
            Sink::Plain(out) => {
                out.write_all(&self.line)?;
                out.flush()?;
            }
            Sink::Gzip(out) => {
                out.write_all(&self.line)?;
                // A sync flush, so that what was written so far can be decompressed by a viewer
                // following the file, at a small cost in compression.
                out.flush()?;
            }
        }
        Ok(())
    }

    /// Ends the stream (for gzip, writes the trailer) and hands back the underlying writer.
    pub fn finish(self) -> Result<W, ReplayError> {
        Ok(match self.sink {
            Sink::Plain(mut out) => {
                out.flush()?;
                out
            }
            Sink::Gzip(encoder) => {
                let mut out = (*encoder).finish()?;
                out.flush()?;
                out
            }
        })
    }
}

/// The longest record line read: a tick holds a few answers of at most 64 KiB each, so a longer
/// line is no replay (a file of zeros, a gzip bomb) and is refused before it fills the memory.
pub const MAX_RECORD_LINE: usize = 16 << 20;

/// Reads a replay record by record. The header is read (and its version checked) on opening.
pub struct ReplayReader<R: BufRead> {
    input: R,
    header: Header,
    line: usize,
    buf: String,
}

impl ReplayReader<Box<dyn BufRead + Send>> {
    /// Opens a replay file, plain or gzip-compressed (told apart by content, not by name).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, ReplayError> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|source| ReplayError::Open {
            path: path.to_owned(),
            source,
        })?;
        ReplayReader::from_reader(file)
    }

    /// Reads a replay from any byte stream, plain or gzip-compressed.
    pub fn from_reader(input: impl Read + Send + 'static) -> Result<Self, ReplayError> {
        let mut input = BufReader::new(input);
        let magic = input
            .fill_buf()
            .map_err(|source| ReplayError::Read { line: 1, source })?;
        let input: Box<dyn BufRead + Send> = if magic.starts_with(&[0x1f, 0x8b]) {
            Box::new(BufReader::new(MultiGzDecoder::new(input)))
        } else {
            Box::new(input)
        };
        ReplayReader::new(input)
    }
}

impl<R: BufRead> ReplayReader<R> {
    /// Reads from plain JSON Lines.
    pub fn new(input: R) -> Result<Self, ReplayError> {
        let mut reader = ReplayReader {
            input,
            header: Header::new("", Value::Null, 0, Vec::new()),
            line: 0,
            buf: String::new(),
        };
        if !reader.next_line()? {
            return Err(ReplayError::Empty);
        }
        reader.header = parse_header(&reader.buf)?;
        Ok(reader)
    }

    /// The header, read on opening.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Reads the next record after the header; `None` at the end. Skips record types of a newer
    /// minor version and blank lines.
    pub fn next_record(&mut self) -> Result<Option<Record>, ReplayError> {
        loop {
            if !self.next_line()? {
                return Ok(None);
            }
            if self.buf.trim().is_empty() {
                continue;
            }
            let record: Record =
                serde_json::from_str(&self.buf).map_err(|e| ReplayError::Malformed {
                    line: self.line,
                    message: e.to_string(),
                })?;
            match record {
                Record::Unknown => continue,
                Record::Header(_) => {
                    return Err(ReplayError::Malformed {
                        line: self.line,
                        message: "a second header".into(),
                    });
                }
                record => return Ok(Some(record)),
            }
        }
    }

    /// Reads the next line into `buf`; false at the end of input.
    fn next_line(&mut self) -> Result<bool, ReplayError> {
        self.buf.clear();
        self.line += 1;
        let line = self.line;
        let most = MAX_RECORD_LINE as u64 + 1;
        match (&mut self.input).take(most).read_line(&mut self.buf) {
            Ok(0) => Ok(false),
            Ok(_) if self.buf.len() > MAX_RECORD_LINE => Err(ReplayError::Malformed {
                line,
                message: format!("longer than {} MiB", MAX_RECORD_LINE >> 20),
            }),
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::InvalidData => Err(ReplayError::Malformed {
                line,
                message: "not UTF-8 text".into(),
            }),
            Err(source) => Err(ReplayError::Read { line, source }),
        }
    }
}

impl<R: BufRead> Iterator for ReplayReader<R> {
    type Item = Result<Record, ReplayError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Parses the first line, checking the version before the rest so that a file from a newer
/// arbiter is refused with a message about versions, not about a field this one doesn't know.
fn parse_header(line: &str) -> Result<Header, ReplayError> {
    let malformed = |message: String| ReplayError::Malformed { line: 1, message };
    let value: Value = serde_json::from_str(line).map_err(|e| malformed(e.to_string()))?;
    if value.get("type").and_then(Value::as_str) != Some("header") {
        return Err(malformed(
            "a replay starts with a header record (\"type\":\"header\")".into(),
        ));
    }
    let format = value
        .get("format")
        .ok_or_else(|| malformed("the header has no format version".into()))?;
    let found: FormatVersion = serde_json::from_value(format.clone())
        .map_err(|e| malformed(format!("format version: {e}")))?;
    if found.major > FORMAT.major {
        return Err(ReplayError::TooNew { found });
    }
    match serde_json::from_value::<Record>(value) {
        Ok(Record::Header(header)) => Ok(header),
        Ok(_) => unreachable!("the type was checked"),
        Err(e) => Err(malformed(e.to_string())),
    }
}

/// A whole replay in memory, with the game's settings `S`, tick actions `A` and positions `P`
/// (JSON values when read).
#[derive(Clone, Debug, PartialEq)]
pub struct Replay<S = Value, A = Value, P = Value> {
    /// The first line.
    pub header: Header<S>,
    /// One per turn, from tick 0.
    pub ticks: Vec<Tick<A, P>>,
    /// `None` if the match was cut short (or is still being written).
    pub result: Option<MatchResult>,
}

impl Replay {
    /// Reads the rest of a replay.
    pub fn from_reader<R: BufRead>(mut reader: ReplayReader<R>) -> Result<Replay, ReplayError> {
        let mut replay = Replay {
            header: reader.header().clone(),
            ticks: Vec::new(),
            result: None,
        };
        while let Some(record) = reader.next_record()? {
            match record {
                Record::Tick(tick) => replay.ticks.push(tick),
                Record::Result(result) => replay.result = Some(result),
                Record::Header(_) | Record::Unknown => {}
            }
        }
        Ok(replay)
    }
}

impl<S: Clone + Serialize, A: Clone + Serialize, P: Clone + Serialize> Replay<S, A, P> {
    /// The records in file order.
    pub fn records(&self) -> impl Iterator<Item = Record<S, A, P>> + '_ {
        std::iter::once(Record::Header(self.header.clone()))
            .chain(self.ticks.iter().cloned().map(Record::Tick))
            .chain(self.result.iter().cloned().map(Record::Result))
    }

    /// Writes the whole replay.
    pub fn write_to<W: Write>(&self, writer: &mut ReplayWriter<W>) -> Result<(), ReplayError> {
        for record in self.records() {
            writer.write(&record)?;
        }
        Ok(())
    }
}

/// Reads a whole replay file, plain or gzip-compressed.
pub fn read_replay(path: impl AsRef<Path>) -> Result<Replay, ReplayError> {
    Replay::from_reader(ReplayReader::open(path)?)
}

/// Things holding wall-clock times, which differ between two runs of the same match.
pub trait StripTiming {
    /// Zeroes every `at_ms`, `time_ms` and `bank_ms` and drops `cpu_ms` and
    /// `cpu_between_turns_ms`, so two runs can be compared.
    fn strip_timing(&mut self);
}

/// Zeroes every wall-clock time in a replay or records, so that two runs of the same match
/// compare equal.
pub fn strip_timing<T: StripTiming + ?Sized>(value: &mut T) {
    value.strip_timing();
}

impl StripTiming for BotTick {
    fn strip_timing(&mut self) {
        for message in self.received.iter_mut().chain(self.sent.iter_mut()) {
            message.at_ms = 0.0;
        }
        self.time_ms = self.time_ms.map(|_| 0.0);
        // Measured only in a sandbox: a run with one and a run without compare equal.
        self.cpu_ms = None;
        self.cpu_between_turns_ms = None;
        self.bank_ms = 0.0;
    }
}

impl<A, P> StripTiming for Tick<A, P> {
    fn strip_timing(&mut self) {
        self.bots.iter_mut().for_each(StripTiming::strip_timing);
    }
}

impl<S, A, P> StripTiming for Record<S, A, P> {
    fn strip_timing(&mut self) {
        if let Record::Tick(tick) = self {
            tick.strip_timing();
        }
    }
}

impl<S, A, P> StripTiming for [Record<S, A, P>] {
    fn strip_timing(&mut self) {
        self.iter_mut().for_each(StripTiming::strip_timing);
    }
}

impl<S, A, P> StripTiming for Vec<Record<S, A, P>> {
    fn strip_timing(&mut self) {
        self.as_mut_slice().strip_timing();
    }
}

impl<S, A, P> StripTiming for Replay<S, A, P> {
    fn strip_timing(&mut self) {
        self.ticks.iter_mut().for_each(StripTiming::strip_timing);
    }
}

#[cfg(test)]
mod tests;
