//! The games Arbiter plays, in one list, and the one function that plays a match to a replay.
//!
//! Every front end — the command line, tournaments (resume included), the TCP game server and
//! the web server — learns which games there are from here, and nowhere else.
//!
//! # The shape, and why
//!
//! A game is a type: its engine ([`arbiter_games::Wire`]), its robots
//! ([`arbiter_robots::Robots`]) and a [`CatalogGame`] impl that names its typed settings
//! (a `clap::Args` + serde struct), its protocol family and its viewer renderer, and builds a
//! start position complete from those settings and a [`TableSetup`] (who sits at the table).
//!
//! The list of games is a type too: [`Games`], a chain of [`With`] links ending in [`Nil`].
//! A front end that must do something for "the game named `name`" writes a [`Visit`] — one
//! generic method, `visit::<G>()` — and hands it to [`Catalog::visit`], which walks the chain
//! and calls it with the right type. So:
//!
//! - the front ends are generic code written once, type-checked against every game (no
//!   `match` over names, no macro repeated in every caller);
//! - the list is one line per game, and adding a game cannot miss a front end: a game without
//!   everything the front ends need does not compile into the chain;
//! - a test can play a game that exists only in the test, through the very code the command
//!   line runs, by handing that code `With<TestGame, Games>` instead of [`Games`].
//!
//! A runtime registry of boxed trait objects was the other candidate; it needs every
//! operation of every front end erased into one object-safe trait (with settings as untyped
//! values crossing it), which is the hand-kept list this crate exists to remove.
//!
//! [`GameInfo`] is the same list as plain data (names, robots, renderer, the settings' flags)
//! for what needs no engine: help texts, the web server's list, error messages.

#![warn(missing_docs)]

pub mod domino;
pub mod labyrinth;
mod play;
pub mod puoribor;
pub mod quoridor;
mod sandbox_flags;
mod time;

use std::marker::PhantomData;

use arbiter_games::WireClient;
use arbiter_robots::Robots;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use play::{MatchPlan, PlayError, RobotSeeds, SeatPlan, Start, play_to_replay};
pub use sandbox_flags::SandboxFlags;
pub use time::TimeLimits;

/// Every game this build of Arbiter plays, in the order help texts list them. Adding a game
/// is one more link here (see docs/architecture.md, "Adding a game").
pub type Games = With<
    arbiter_games::quoridor::Quoridor,
    With<
        arbiter_games::puoribor::Puoribor,
        With<arbiter_games::domino::Domino, With<arbiter_games::labyrinth::Labyrinth, Nil>>,
    >,
>;

/// What Arbiter needs of a game beyond its rules and its wire protocol.
pub trait CatalogGame: WireClient + Robots {
    /// The game's settings: its own flags on the command line (`arbiter play GAME --help`
    /// lists these and no other game's), stored as they are (serde) by tournaments. Field
    /// names are the stored keys: renaming one breaks resuming old tournaments.
    type Settings: clap::Args
        + Serialize
        + DeserializeOwned
        + Clone
        + Default
        + std::fmt::Debug
        + Send
        + Sync
        + 'static;

    /// One line saying what the game is, for help texts.
    const ABOUT: &'static str;

    /// The viewer's renderer of the game's replays (a module of viewer/js/games/).
    const RENDERER: &'static str;

    /// How the game server plays the game with connected bots.
    const HOSTING: Hosting = Hosting::OneMatch;

    /// How many seats a match has with these settings, when `offered` players are at hand
    /// (a game with a variable number of seats may take one per player given).
    fn seats(settings: &Self::Settings, offered: usize) -> usize;

    /// The start position of a match: built complete from the settings and the table.
    fn build(settings: &Self::Settings, setup: &TableSetup) -> Result<Self, InvalidSettings>;

    /// The start position of `arbiter bench`: by default the match's with numbered seats; a game
    /// may pick the setting of its published reference figures instead.
    fn bench_start(settings: &Self::Settings) -> Result<Self, InvalidSettings> {
        Self::build(settings, &TableSetup::numbered(Self::seats(settings, 0)))
    }

    /// The seed the game draws its board from, if it draws one (Domino): `arbiter play` fills
    /// it with the match seed, a tournament with one seed per pairing.
    fn board_seed(_settings: &mut Self::Settings) -> Option<&mut Option<u64>> {
        None
    }

    /// Whether these settings draw the board from [`CatalogGame::board_seed`] (rather than
    /// give it whole), so that a tournament draws one per pairing.
    fn draws_board(_settings: &Self::Settings) -> bool {
        false
    }
}

/// How the game server plays a game with the bots connected to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hosting {
    /// One match per connection in the game's own protocol, then the bot is disconnected
    /// (games whose bots exit at the end of a match).
    OneMatch,
    /// A client stays for game after game and is told its totals after each (Labyrinth).
    Session,
}

/// Who sits at the table of a match, and which game of a server session it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableSetup {
    /// The seats' names, in seat order: their number is the number of players.
    pub names: Vec<String>,
    /// The game of a session on the game server, if the match is one.
    pub session: Option<SessionGame>,
}

impl TableSetup {
    /// A table of `players` seats named `player_0`, `player_1`, ... (bench, perft).
    pub fn numbered(players: usize) -> TableSetup {
        TableSetup {
            names: (0..players).map(|p| format!("player_{p}")).collect(),
            session: None,
        }
    }
}

/// A game of a session on the game server: its id and level on the wire, and no end message
/// of its own (the server writes the after-game block).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionGame {
    /// The game's id in the session.
    pub id: u64,
    /// The level the session is at (1 to 5).
    pub level: u32,
}

/// Settings that do not make a game (a board size out of range, an unreadable level file).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidSettings(pub String);

impl InvalidSettings {
    /// The error of anything that prints as a message.
    pub fn from_display(error: impl std::fmt::Display) -> InvalidSettings {
        InvalidSettings(error.to_string())
    }
}

/// Work a front end does for one game, whichever it is: see [`Catalog::visit`].
pub trait Visit {
    /// What the work gives.
    type Output;
    /// Does the work for game `G`.
    fn visit<G: CatalogGame>(self) -> Self::Output;
}

/// A list of games: [`Games`], or a test's list with a game of its own in front.
pub trait Catalog {
    /// Appends the games of the list, in order, to `out`.
    fn collect(out: &mut Vec<GameInfo>);

    /// Calls `visitor` with the game named `name`; gives the visitor back if there is none.
    fn visit<V: Visit>(name: &str, visitor: V) -> Result<V::Output, V>;

    /// The games of the list, in order.
    fn games() -> Vec<GameInfo> {
        let mut out = Vec::new();
        Self::collect(&mut out);
        out
    }

    /// The game named `name`, if the list has it.
    fn info(name: &str) -> Option<GameInfo> {
        Self::games().into_iter().find(|g| g.name == name)
    }
}

/// The end of a list of games.
pub struct Nil;

/// The list `Rest` with game `G` in front.
pub struct With<G, Rest>(PhantomData<fn() -> (G, Rest)>);

impl Catalog for Nil {
    fn collect(_: &mut Vec<GameInfo>) {}

    fn visit<V: Visit>(_: &str, visitor: V) -> Result<V::Output, V> {
        Err(visitor)
    }
}

impl<G: CatalogGame, Rest: Catalog> Catalog for With<G, Rest> {
    fn collect(out: &mut Vec<GameInfo>) {
        out.push(GameInfo::of::<G>());
        Rest::collect(out);
    }

    fn visit<V: Visit>(name: &str, visitor: V) -> Result<V::Output, V> {
        if name == G::NAME {
            Ok(visitor.visit::<G>())
        } else {
            Rest::visit(name, visitor)
        }
    }
}

/// A game of the catalog as plain data: what needs no engine.
#[derive(Clone, Copy, Debug)]
pub struct GameInfo {
    /// The name on the command line and in replays.
    pub name: &'static str,
    /// One line saying what the game is.
    pub about: &'static str,
    /// The viewer's renderer of its replays.
    pub renderer: &'static str,
    /// Its robots, weakest first.
    pub robots: &'static [&'static str],
    /// How the game server plays it.
    pub hosting: Hosting,
    /// Adds the game's settings flags to a command.
    pub settings: fn(clap::Command) -> clap::Command,
}

impl GameInfo {
    /// The entry of game `G`.
    pub fn of<G: CatalogGame>() -> GameInfo {
        GameInfo {
            name: G::NAME,
            about: G::ABOUT,
            renderer: G::RENDERER,
            robots: G::ROBOTS,
            hosting: G::HOSTING,
            settings: <G::Settings as clap::Args>::augment_args,
        }
    }

    /// The long names of the game's settings flags (`players`, `board`, ...), in order.
    pub fn flags(&self) -> Vec<String> {
        (self.settings)(clap::Command::new(self.name))
            .get_arguments()
            .filter_map(|a| a.get_long().map(str::to_owned))
            .collect()
    }
}

/// The robot names of `G` as `builtin:NAME`, for error messages.
pub fn robot_list<G: Robots>() -> String {
    G::ROBOTS
        .iter()
        .map(|r| format!("builtin:{r}"))
        .collect::<Vec<_>>()
        .join(", ")
}
