//! The rules of every game Arbiter referees, as pure state machines.
//!
//! Nothing here does I/O or knows about processes or clocks: a game is a value that is cloned,
//! asked for its legal actions and advanced. The referee, the robots, the replay writer and the
//! benchmarks all drive games through the [`Game`] trait, and talk to bot programs through the
//! game's [`Wire`] codec.

pub mod domino;
pub mod labyrinth;
pub mod perft;
pub mod playout;
pub mod puoribor;
pub mod quoridor;
pub mod record;

pub use record::Recorded;

use std::fmt;
use std::time::Duration;

/// Index of a seat in a match, `0..num_players`.
pub type PlayerId = usize;

/// Why an action was refused, in words a bot author understands
/// (for example "wall crosses an existing wall").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Illegal(pub String);

impl Illegal {
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
    type Action: Copy + Eq + fmt::Debug + Send + Sync + 'static;

    /// A short lowercase name used on the command line and in replays (`quoridor`).
    const NAME: &'static str;

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
    /// when [`Game::is_stuck`] holds.
    fn apply_stuck(&mut self);

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

/// What the referee does with a faulty answer (malformed, illegal, late or missing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultPolicy {
    /// The referee plays [`Wire::fault_action`] for the bot and the match goes on (Quoridor).
    PlayForBot,
    /// The faulty bot loses the match at once.
    Forfeit,
}

/// How a bot's thinking time is limited: a game's default, which a match may override.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TimeControl {
    /// A bank that starts at `initial`, gains `increment` before every request and loses the
    /// time each answer takes; unused time carries over. A bank at zero is a timeout (Quoridor).
    Bank {
        initial: Duration,
        increment: Duration,
    },
    /// Every reply must come within `limit`; a bot's first reply gets `first_extra` more for
    /// its start-up (Puoribor, Domino).
    PerReply {
        limit: Duration,
        first_extra: Duration,
    },
}

/// What the referee does with the lines a bot sends beyond the one line that answers a request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExtraLines {
    /// They are dropped and noted in the replay: an answer is one line (Quoridor).
    #[default]
    Discard,
    /// They are kept and read as the answers to the next requests, as a judge that reads one
    /// line per request does (Domino).
    NextReply,
}

/// A faulty answer, as the referee hands it to [`Wire::fault_action_for`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Faulty<A> {
    /// The answer could not be read as an action.
    Malformed,
    /// The answer was read, but the rules refuse it.
    Illegal(A),
    /// No answer came in time.
    Timeout,
    /// The bot is gone (exited, crashed, disconnected): its turns are played for it.
    Offline,
}

/// The text protocol a game speaks with bot programs, one message per turn.
///
/// Messages are built into a caller's `String` so that a referee can reuse one buffer. An empty
/// message is not sent at all (Domino sends nothing when a match ends).
pub trait Wire: Recorded {
    /// The time limit of the game's original contest.
    fn time_control(&self) -> TimeControl;

    /// How many start messages each player gets before the first turn.
    fn start_rounds(&self) -> usize {
        1
    }

    /// Start message `round` (from 0) for `player`. Round by round, each player gets its message
    /// in turn order from the player who moves first.
    fn start_message(&self, round: usize, player: PlayerId, out: &mut String);

    /// The line a bot must answer each start message with, if any (Domino: `ok`). Such an
    /// answer is timed like a move.
    fn start_ack(&self) -> Option<&'static str> {
        None
    }

    /// Whether `line` acknowledges a start message; by default [`Wire::start_ack`], compared
    /// without case and surrounding whitespace.
    fn check_ack(&self, line: &str) -> Result<(), String> {
        match self.start_ack() {
            Some(ack) if !line.trim().eq_ignore_ascii_case(ack) => Err(format!(
                "expected `{ack}` to acknowledge the start message, got `{}`",
                shorten(line, 80)
            )),
            _ => Ok(()),
        }
    }

    /// Sent to the player on turn; the bot answers with one line (or one block, see
    /// [`Wire::answer_end`]).
    fn turn_message(&self, player: PlayerId, out: &mut String);

    /// Sent at the start of every turn to each player not on turn, who does not answer it
    /// (Labyrinth tells everyone the state before each turn). Empty: nothing is sent.
    fn watch_message(&self, _player: PlayerId, _out: &mut String) {}

    /// How an answer ends: `None` for one line; `Some(end)` for lines up to a line holding just
    /// `end`, read as one answer with its lines joined by `\n` and `end` left out (Labyrinth's
    /// blocks end with `.`). With blocks, nothing a bot sent before a request answers it: the
    /// late answer to a turn that timed out is dropped with everything else sent early.
    fn answer_end(&self) -> Option<&'static str> {
        None
    }

    /// Names the players as the seats are named, before the start messages (Labyrinth sends
    /// every player the list of names).
    fn set_player_names(&mut self, _names: &[String]) {}

    /// Ends the match at once because no player that needs a connection is left (only robots
    /// play on). Returns whether the game ends that way; by default the match plays on.
    fn abandon(&mut self) -> bool {
        false
    }
    /// Sent to a player whose match is over (Quoridor: `-1`).
    fn end_message(&self, player: PlayerId, out: &mut String);
    /// Parses one answer line (without its line end); the error is the fault text.
    fn parse_action(&self, line: &str) -> Result<Self::Action, String>;
    /// The answer line a bot would send for `action` (without line end).
    fn format_action(&self, action: Self::Action, out: &mut String);
    /// What the referee does when a bot's answer is faulty.
    fn fault_policy(&self) -> FaultPolicy;
    /// What the referee does with lines beyond an answer.
    fn extra_lines(&self) -> ExtraLines {
        ExtraLines::Discard
    }
    /// The action played for a faulty bot under [`FaultPolicy::PlayForBot`]; `None` lets the
    /// referee pick any legal action.
    fn fault_action(&self, rng: &mut dyn rand::RngCore) -> Option<Self::Action>;
    /// The action played for a faulty bot, knowing what was wrong: games whose rules say what a
    /// faulty answer does (Labyrinth keeps a valid push whose GOTO is refused, and voids the turn
    /// otherwise) decide here. By default [`Wire::fault_action`].
    fn fault_action_for(
        &self,
        _fault: Faulty<Self::Action>,
        rng: &mut dyn rand::RngCore,
    ) -> Option<Self::Action> {
        self.fault_action(rng)
    }
}

/// A player that chooses actions in process: the built-in robots, and anything a researcher
/// plugs into the referee. The same robot also runs as a process speaking the wire protocol.
pub trait Robot<G: Game>: Send {
    /// Chooses an action for the player on turn in `game`, which has at least one legal action.
    fn choose(&mut self, game: &G) -> G::Action;
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
