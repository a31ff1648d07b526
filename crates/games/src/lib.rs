//! The rules of every game Arbiter referees, as pure state machines.
//!
//! Nothing here does I/O or knows about processes or clocks: a game is a value that is cloned,
//! asked for its legal actions and advanced. The referee, the robots, the replay writer and the
//! benchmarks all drive games through the [`Game`] trait, and talk to bot programs through the
//! game's [`Wire`] codec.

#![warn(missing_docs)]

pub mod domino;
pub mod labyrinth;
pub mod perft;
pub mod playout;
pub mod puoribor;
pub mod quoridor;
pub mod record;

pub use record::Recorded;

use std::fmt;
use std::time::{Duration, Instant};

/// Index of a seat in a match, `0..num_players`.
pub type PlayerId = usize;

/// Why an action was refused, in words a bot author understands
/// (for example "wall crosses an existing wall").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Illegal(pub String);

impl Illegal {
    /// Wraps a reason, given as any string type.
    pub fn new(reason: impl Into<String>) -> Self {
        Illegal(reason.into())
    }
}

/// The end of a match: what each player scored, where it placed, and why it ended.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// Points per player, indexed by player id.
    pub scores: Vec<f64>,
    /// Place per player, indexed by player id: 1 is best; equal places are ties.
    pub placement: Vec<u32>,
    /// A short machine-readable reason, such as `goal` or `tick_limit`.
    pub reason: &'static str,
}

/// A game's rules. A value of the type is one position of one match.
///
/// The required core is small on purpose (as in chess libraries such as shakmaty): everything a
/// referee, a robot or a search needs is built from `to_move`, `legal_actions`, `check` and
/// `apply_unchecked`.
pub trait Game: Clone + Send + Sync + 'static {
    /// What a player does on its turn: a move read from its answer, or what the rules make
    /// of a faulty one.
    type Action: Copy + Eq + fmt::Debug + Send + Sync + 'static;

    /// A short lowercase name used on the command line and in replays (`quoridor`).
    const NAME: &'static str;

    /// How many seats the match has, eliminated players included.
    fn num_players(&self) -> usize;

    /// The player who must act now; `None` once the match is over.
    fn to_move(&self) -> Option<PlayerId>;

    /// Number of turns taken so far (the initial position is tick 0).
    fn tick(&self) -> u32;

    /// Appends every legal action of the player on turn to `out` (which is cleared first).
    fn legal_actions(&self, out: &mut Vec<Self::Action>);

    /// Whether `action` is legal for the player on turn, and if not, why.
    fn check(&self, action: Self::Action) -> Result<(), Illegal>;

    /// Plays an action already known to be legal.
    fn apply_unchecked(&mut self, action: Self::Action);

    /// Whether the player on turn has no legal action at all. Games where that can happen decide
    /// what it means in [`Game::apply_stuck`].
    fn is_stuck(&self) -> bool {
        let mut actions = Vec::new();
        self.legal_actions(&mut actions);
        actions.is_empty()
    }

    /// Takes the turn of a player that has no legal action (Quoridor eliminates it). Only called
    /// when [`Game::is_stuck`] holds; games where a player always has an action keep this
    /// default, which says so if it is ever reached.
    fn apply_stuck(&mut self) {
        unreachable!("{}: a player always has a legal action", Self::NAME)
    }

    /// Ends the match at once, as it stands: every connected player has left and the protocol
    /// says a deserted match ends ([`Deserted::End`]). Only games that say so implement it.
    fn abandon(&mut self) {}

    /// The result once the match is over.
    fn outcome(&self) -> Option<Outcome>;

    /// Checks then plays an action.
    fn apply(&mut self, action: Self::Action) -> Result<(), Illegal> {
        self.check(action)?;
        self.apply_unchecked(action);
        Ok(())
    }
}

/// `text` cut to at most `max` characters, marked with `…` where it was cut: fault messages
/// quote what a bot sent without letting a huge line through.
pub fn shorten(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]).into(),
        None => text.into(),
    }
}

/// How a bot's thinking time is limited: a game's default, which a match may override.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TimeControl {
    /// A bank that starts at `initial`, gains `increment` before every request and loses the
    /// time each answer takes; unused time carries over. A bank at zero is a timeout (Quoridor).
    Bank {
        /// The bank each player starts with.
        initial: Duration,
        /// Time added to the bank before every request.
        increment: Duration,
    },
    /// Every reply must come within `limit`; a bot's first reply gets `first_extra` more for
    /// its start-up (Puoribor, Domino).
    PerReply {
        /// The most time one reply may take.
        limit: Duration,
        /// Extra time allowed for a bot's first reply only.
        first_extra: Duration,
    },
}

impl TimeControl {
    /// The time a request may take: under a bank, `bank` credited with the increment; under
    /// a per-reply limit, the limit, with the start-up extra for a bot's first request.
    pub fn allow(self, bank: &mut Duration, first_request: bool) -> Duration {
        match self {
            TimeControl::Bank { increment, .. } => {
                *bank += increment;
                *bank
            }
            TimeControl::PerReply { limit, first_extra } if first_request => limit + first_extra,
            TimeControl::PerReply { limit, .. } => limit,
        }
    }
}

/// How one answer is cut out of what a bot sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// An answer is one line (Quoridor, Puoribor, Domino).
    Line,
    /// An answer is the lines up to a line holding just `terminator`, read as one answer with
    /// its lines joined by `\n` and the terminator left out (Labyrinth's blocks end with `.`).
    Block {
        /// The line that ends a block, not part of the answer (`.` for Labyrinth).
        terminator: &'static str,
    },
}

/// What the referee does with the lines a bot sends beyond the one answer a request asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExtraLines {
    /// They are dropped and noted in the replay: an answer is one line (Quoridor).
    #[default]
    Discard,
    /// They are kept and read as the answers to the next requests, as a judge that reads one
    /// line per request does (Domino).
    NextReply,
}

/// The start messages each player gets before the first turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartRounds {
    /// How many start messages each player gets; round by round, each player gets its message
    /// in turn order from the player who moves first.
    pub rounds: usize,
    /// The line a bot must answer each start message with, if any (Domino: `ok`). Such an
    /// answer is timed like a move; a wrong one is a malformed answer.
    pub ack: Option<&'static str>,
}

impl StartRounds {
    /// One start message, answered by nothing.
    pub const ONE: StartRounds = StartRounds {
        rounds: 1,
        ack: None,
    };

    /// Whether `line` acknowledges a start message: the acknowledgement compared without case
    /// and surrounding whitespace (anything does when none is asked).
    pub fn check_ack(&self, line: &str) -> Result<(), String> {
        match self.ack {
            Some(ack) if !line.trim().eq_ignore_ascii_case(ack) => Err(format!(
                "expected `{ack}` to acknowledge the start message, got `{}`",
                shorten(line, 80)
            )),
            _ => Ok(()),
        }
    }
}

/// Who is told what at the start of a turn besides the player on turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Watchers {
    /// Nobody: only the player on turn gets a message.
    Silent,
    /// Every other player still connected gets [`Wire::watch_message`] and does not answer it
    /// (Labyrinth tells everyone the state before each turn).
    ToldEveryTurn,
}

/// What happens when every player that needs a connection has left (only robots in process
/// are still playing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deserted {
    /// The match plays on to its end.
    PlayOn,
    /// The match ends at once ([`Game::abandon`]), as it stands (Labyrinth).
    End,
}

/// A game's protocol with bot programs as data: what the referee and every seat read to know
/// how answers are framed and sorted, how a match starts, who is told what, and the time
/// control. The messages themselves are built by the game's [`Wire`] methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Protocol {
    /// How an answer ends.
    pub framing: Framing,
    /// What lines beyond an answer mean.
    pub extra_lines: ExtraLines,
    /// The start messages and their acknowledgements.
    pub start: StartRounds,
    /// Who else is told of each turn.
    pub watchers: Watchers,
    /// What happens when every connected player has left.
    pub deserted: Deserted,
    /// The time limit of the game's original contest.
    pub time: TimeControl,
}

impl Protocol {
    /// The plainest protocol, under `time`: an answer is one line and extra lines are
    /// dropped, one start message answered by nothing, nobody told of others' turns, and a
    /// deserted match plays on. Games change what differs with struct update syntax.
    pub const fn lines(time: TimeControl) -> Protocol {
        Protocol {
            framing: Framing::Line,
            extra_lines: ExtraLines::Discard,
            start: StartRounds::ONE,
            watchers: Watchers::Silent,
            deserted: Deserted::PlayOn,
            time,
        }
    }
}

/// What went wrong with a bot's answer, from the seat to the replay. `A` is the game's action,
/// carried by an answer the rules refused; where no game is at hand it is `()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault<A = ()> {
    /// Not of the protocol's form (also a wrong acknowledgement).
    Malformed,
    /// Well formed, but against the rules: the action the bot answered.
    Illegal(A),
    /// No answer came in time.
    Timeout,
    /// The bot is gone: it exited, crashed, closed its output or its connection, or could not
    /// be written to. Its turns are played for it, if the match goes on.
    Crash,
}

impl<A> Fault<A> {
    /// The same fault without the action an illegal answer carried.
    pub fn without_action(&self) -> Fault {
        match self {
            Fault::Malformed => Fault::Malformed,
            Fault::Illegal(_) => Fault::Illegal(()),
            Fault::Timeout => Fault::Timeout,
            Fault::Crash => Fault::Crash,
        }
    }

    /// The fault's name in replays and reports, and the outcome's reason when it loses the
    /// match.
    pub fn as_str(&self) -> &'static str {
        match self {
            Fault::Malformed => "malformed",
            Fault::Illegal(_) => "illegal",
            Fault::Timeout => "timeout",
            Fault::Crash => "crash",
        }
    }
}

impl<A> serde::Serialize for Fault<A> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// What a fault does, as the game's rules say ([`Wire::on_fault`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultAction<A> {
    /// The faulty bot loses the match at once.
    Forfeit,
    /// This action is played for the bot and the match goes on.
    Play(A),
    /// The referee plays any legal action for the bot, drawn from the match's seed.
    PlayAny,
}

impl<A> FaultAction<A> {
    /// The action the rules prescribe, if they prescribe one.
    pub fn played(self) -> Option<A> {
        match self {
            FaultAction::Play(action) => Some(action),
            FaultAction::Forfeit | FaultAction::PlayAny => None,
        }
    }
}

/// The text protocol a game speaks with bot programs: [`Wire::PROTOCOL`] says how, the
/// methods build and read the messages.
///
/// Messages are built into a caller's `String` so that a referee can reuse one buffer. An empty
/// message is not sent at all (Domino sends nothing when a match ends).
pub trait Wire: Recorded {
    /// How the game's protocol runs: framing, extra lines, start rounds, watchers, time.
    const PROTOCOL: Protocol;

    /// Start message `round` (from 0, below [`StartRounds::rounds`]) for `player`.
    fn start_message(&self, round: usize, player: PlayerId, out: &mut String);

    /// Sent to the player on turn; the bot answers with one answer ([`Protocol::framing`]).
    fn turn_message(&self, player: PlayerId, out: &mut String);

    /// Sent at the start of every turn to each player not on turn, under
    /// [`Watchers::ToldEveryTurn`]. Empty: nothing is sent.
    fn watch_message(&self, _player: PlayerId, _out: &mut String) {}

    /// Sent to a player whose match is over (Quoridor: `-1`).
    fn end_message(&self, player: PlayerId, out: &mut String);
    /// Parses one answer (without its line end or terminator); the error is the fault text.
    fn parse_action(&self, line: &str) -> Result<Self::Action, String>;
    /// The answer a bot would send for `action` (without line end or terminator).
    fn format_action(&self, action: Self::Action, out: &mut String);
    /// What a fault of the player on turn does: the game's rules decide from what was wrong
    /// (Labyrinth keeps a valid push whose GOTO is refused, and voids the turn otherwise).
    /// Also asked of faults outside a turn (start messages, watch messages), where only
    /// [`FaultAction::Forfeit`] matters.
    fn on_fault(
        &self,
        fault: Fault<Self::Action>,
        rng: &mut dyn rand::RngCore,
    ) -> FaultAction<Self::Action>;
}

/// Whether a match stands alone or is one of a server's session of games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SessionMode {
    /// One match, its bots started for it: the end message closes the whole session.
    #[default]
    Alone,
    /// One game of a server's session: the server writes its own after-game messages.
    Served,
}

/// A player that chooses actions in process: the built-in robots, and anything a researcher
/// plugs into the referee. The same robot also runs as a process speaking the wire protocol.
pub trait Robot<G: Game>: Send {
    /// Chooses an action for the player on turn in `game`, which has at least one legal action.
    fn choose(&mut self, game: &G) -> G::Action;

    /// Chooses under the match's clock. Robots that search spend part of the time `clock`
    /// says is left; the others answer at once, as [`Robot::choose`] does.
    fn choose_in_time(&mut self, game: &G, clock: &Clock) -> G::Action {
        let _ = clock;
        self.choose(game)
    }

    /// What the robot has to say about its last choice, as a bot writes it to stderr (its
    /// plan, its evaluation, `#draw` lines), so that the viewer shows a robot's thinking as
    /// it shows a program's. Empty by default.
    fn take_log(&mut self) -> String {
        String::new()
    }
}

/// What a robot knows of its time for one answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// When the request was made: the referee's clock started then.
    pub started: Instant,
    /// When the referee stops waiting: the whole bank under [`TimeControl::Bank`], the reply's
    /// limit under [`TimeControl::PerReply`].
    pub deadline: Instant,
    /// The match's time control, by which a robot spreads a bank over the turns to come.
    pub control: TimeControl,
}

impl Clock {
    /// The time left until the deadline.
    pub fn left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }
}

/// A bot's own account of its time, kept as the referee keeps it: the wire protocols do not
/// tell a bot its bank, so a robot run as a process (`arbiter bot`) counts for itself from
/// the moment each request is complete. It cannot see the time the request spent in the pipe,
/// so a robot keeps a margin.
#[derive(Clone, Debug)]
pub struct OwnClock {
    control: TimeControl,
    bank: Duration,
    requests: u32,
}

impl OwnClock {
    /// A clock for a match under `control`, before its first request.
    pub fn new(control: TimeControl) -> Self {
        let bank = match control {
            TimeControl::Bank { initial, .. } => initial,
            TimeControl::PerReply { .. } => Duration::ZERO,
        };
        OwnClock {
            control,
            bank,
            requests: 0,
        }
    }

    /// The clock of a request completed at `now` (its bank credited, as the referee does).
    pub fn start(&mut self, now: Instant) -> Clock {
        let allowed = self.control.allow(&mut self.bank, self.requests == 0);
        self.requests += 1;
        Clock {
            started: now,
            deadline: now + allowed,
            control: self.control,
        }
    }

    /// Charges the answer given at `now` to the bank of `clock`'s request.
    pub fn answered(&mut self, clock: &Clock, now: Instant) {
        if let TimeControl::Bank { .. } = self.control {
            self.bank = clock.deadline.saturating_duration_since(now);
        }
    }
}

/// What a bot learns from one line the referee sent it.
pub enum ClientEvent<G> {
    /// More lines are needed.
    Pending,
    /// A turn request is complete: this is the position, and the bot must answer.
    YourTurn(G),
    /// The match is over for this bot; it must exit.
    End,
    /// The bot must answer this line now (it acknowledges a start message) and read on.
    Acknowledge(&'static str),
}

/// The bot side of a game's protocol: rebuilds positions from the referee's messages, so that a
/// robot can run as a separate process (`arbiter bot quoridor runner`).
pub trait WireClient: Wire {
    /// What a bot remembers between lines (the start message, a half-read turn).
    type Client: Default + Send;
    /// Feeds one line (without its line end) received from the referee.
    fn client_feed(client: &mut Self::Client, line: &str) -> Result<ClientEvent<Self>, String>;
    /// Tells the client which action the bot answered with, for protocols that do not send a
    /// bot its own moves back (Domino sends only the opponent's).
    fn client_played(_client: &mut Self::Client, _action: Self::Action) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_own_clock_keeps_the_bank_as_the_referee_does() {
        let ms = Duration::from_millis;
        let mut clock = OwnClock::new(TimeControl::Bank {
            initial: ms(1000),
            increment: ms(30),
        });
        let t0 = Instant::now();
        let first = clock.start(t0);
        assert_eq!(first.deadline - t0, ms(1030));
        clock.answered(&first, t0 + ms(400));
        let second = clock.start(t0 + ms(500));
        assert_eq!(second.deadline - (t0 + ms(500)), ms(660));
    }

    #[test]
    fn an_own_clock_gives_the_start_up_extra_to_the_first_reply_only() {
        let ms = Duration::from_millis;
        let mut clock = OwnClock::new(TimeControl::PerReply {
            limit: ms(1000),
            first_extra: ms(500),
        });
        let t0 = Instant::now();
        let first = clock.start(t0);
        assert_eq!(first.deadline - t0, ms(1500));
        clock.answered(&first, t0 + ms(900));
        assert_eq!(clock.start(t0).deadline - t0, ms(1000));
    }
}
