//! A seat: one player's connection to the referee, whatever is behind it.

use std::fmt;
use std::time::Instant;

use arbiter_games::{TimeControl, Wire};
use arbiter_sandbox::Limit;
use serde::Serialize;

pub use arbiter_replay::PlayerKind as SeatKind;

/// One player's connection: a bot process, a robot in process, or (later) a network client.
///
/// Faults are values ([`Reply`], [`Down`]), never errors or panics: a seat never fails the match.
pub trait Seat<G: Wire>: Send {
    /// The player's name in replays and standings.
    fn name(&self) -> &str;

    /// What is behind the seat: a robot in process, a process, a network client.
    fn kind(&self) -> SeatKind;

    /// The command line behind a process seat, for the replay header.
    fn command(&self) -> Option<&str> {
        None
    }

    /// Sends a message that needs no answer (the start and end messages). Never blocks for long:
    /// what the bot does not read yet is kept and sent before the next message.
    fn send(&mut self, text: &str) -> Result<(), Down>;

    /// Sends `message` and waits until `deadline` for the answer, framed and sorted as the
    /// game's protocol says ([`Wire::PROTOCOL`], [`crate::AnswerSorter`]). Robots in process
    /// ignore the text and answer `ask` directly.
    ///
    /// Lines the bot sent that are not the answer (a late answer to an earlier request, extra
    /// lines after an answer) are appended to `discarded`, so the referee can record them.
    fn request(
        &mut self,
        ask: Ask<'_, G>,
        message: &str,
        deadline: Instant,
        discarded: &mut Vec<Discarded>,
    ) -> Reply;

    /// What the bot wrote to its log (stderr) since the last call, capped (see [`LOG_CAP`]).
    fn take_log(&mut self) -> String;

    /// CPU time all the bot's processes have used so far, where it is measured (bots in a
    /// sandbox); the referee takes the difference over each turn.
    fn cpu_time(&self) -> Option<std::time::Duration> {
        None
    }

    /// The bot's turn is over: until [`Seat::thaw`] it gets no CPU, and what is sent to it
    /// meanwhile waits for it (a bot in a sandbox that freezes; other seats ignore this).
    fn freeze(&mut self) {}

    /// Lets the bot run again after [`Seat::freeze`]: called before its next request, and
    /// before the seat is closed. A request or a close thaws a frozen bot anyway; calling
    /// this first keeps thawing out of the time of the turn.
    fn thaw(&mut self) {}

    /// Ends the connection: lets the bot exit on its own until `deadline`, then kills whatever
    /// is left of it. Idempotent: later calls return the same information.
    fn close(&mut self, deadline: Instant) -> ExitInfo;
}

/// What a request asks, for seats that do not read the text (robots in process).
pub enum Ask<'a, G> {
    /// An action in this position, under the match's time control.
    Turn(&'a G, TimeControl),
    /// This acknowledgement of a start message.
    Ack(&'static str),
}

/// Characters of log kept per tick, as the public judge did.
pub const LOG_CAP: usize = 2000;
/// What follows a log cut at [`LOG_CAP`] characters, byte for byte as the public judge wrote it.
pub const LOG_TRIMMED: &str = "...\n[[bot log trimmed to 2KB]]";

/// Cuts a log written in one piece (a robot's) as a process's stderr is cut.
pub(crate) fn cap_log(log: &mut String) {
    if let Some((end, _)) = log.char_indices().nth(LOG_CAP) {
        log.truncate(end);
        log.push_str(LOG_TRIMMED);
    }
}
/// Longest answer line kept; the rest of a longer line is dropped and the answer is malformed.
pub const MAX_LINE: usize = 65536;

/// The outcome of one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// The answer.
    Answer(Line),
    /// No answer by the deadline. A process seat then owes that answer: the next line the bot
    /// sends is taken as the late answer and discarded, never as the answer to the next request.
    Timeout,
    /// The bot is gone for good.
    Down(Down),
}

/// One line a bot sent, without its line end.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The line, cut at [`MAX_LINE`] bytes.
    pub text: String,
    /// When the referee read it.
    pub at: Instant,
    /// The line was longer than [`MAX_LINE`] bytes; `text` holds its beginning only.
    pub overlong: bool,
}

#[derive(Debug, Clone, PartialEq)]
/// A line that answered nothing, and why.
pub struct Discarded {
    /// The line.
    pub line: Line,
    /// Why it answered nothing.
    pub why: DiscardReason,
    /// A block that never got its terminator ([`arbiter_games::Framing::Block`]): begun before
    /// a request was written and dropped then, the lines after it making a block of their own.
    pub unfinished: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
/// Why a line answered nothing.
pub enum DiscardReason {
    /// The answer to a request that had already timed out.
    Late,
    /// A line after the answer (or sent unasked), under [`arbiter_games::ExtraLines::Discard`].
    Extra,
}

/// Why a bot is gone: it gets no more messages for the rest of the match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Down {
    /// The bot's process ended.
    #[allow(missing_docs)] // the fields' names say what they hold
    Exited { exit: ExitInfo },
    /// The bot closed its standard output (its process may still run; the referee kills it).
    ClosedOutput,
    /// Writing to the bot failed.
    #[allow(missing_docs)] // the fields' names say what they hold
    WriteFailed { error: String },
    /// The connection was lost (network seats).
    #[allow(missing_docs)] // the fields' names say what they hold
    Disconnected { error: String },
}

impl fmt::Display for Down {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Down::Exited { exit } => write!(f, "bot {exit}"),
            Down::ClosedOutput => write!(f, "bot closed its standard output"),
            Down::WriteFailed { error } => write!(f, "writing to the bot failed: {error}"),
            Down::Disconnected { error } => write!(f, "bot disconnected: {error}"),
        }
    }
}

/// How a seat ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ExitInfo {
    /// Exit code, if the process exited by itself.
    pub code: Option<i32>,
    /// Signal that ended the process, if one did.
    pub signal: Option<i32>,
    /// The referee had to kill the process (it had not exited by the end of the grace period).
    pub killed: bool,
    /// The sandbox limit the bot ran into, which ended it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub killed_for: Option<Limit>,
}

impl ExitInfo {
    /// A process that exited with `code`.
    pub fn code(code: i32) -> ExitInfo {
        ExitInfo {
            code: Some(code),
            ..ExitInfo::default()
        }
    }

    /// A process ended by `signal`.
    pub fn signal(signal: i32) -> ExitInfo {
        ExitInfo {
            signal: Some(signal),
            ..ExitInfo::default()
        }
    }
}

impl fmt::Display for ExitInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(limit) = self.killed_for {
            return write!(f, "was killed for going over {}", limit.describe());
        }
        match (self.killed, self.code, self.signal) {
            (true, _, _) => write!(f, "did not exit in time and was killed"),
            (false, Some(code), _) => write!(f, "exited with code {code}"),
            (false, None, Some(signal)) => write!(f, "was killed by {}", signal_name(signal)),
            (false, None, None) => write!(f, "ended"),
        }
    }
}

fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => return format!("signal {signal}"),
    };
    format!("signal {signal} ({name})")
}
