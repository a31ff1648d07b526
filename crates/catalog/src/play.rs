//! The one way a match is played to a replay: check the seats, build the game with their
//! names, open them, run the match, write the replay. `arbiter play`, the tournament pool and
//! the game server's tables all come through [`play_to_replay`].

use std::path::{Path, PathBuf};

use arbiter_referee::{
    BuiltinSeat, MatchConfig, MatchReport, RefereeError, Seat, SeatError, SeatSpec, run_match,
};
use arbiter_replay::{ReplayError, ReplayWriter};
use arbiter_sandbox::Sandbox;

use crate::{CatalogGame, InvalidSettings, SessionGame, TableSetup, robot_list};

/// One seat of a match, before it is opened.
pub enum SeatPlan<G> {
    /// A command line, a player folder or `builtin:NAME`, as `--bot` takes them.
    Spec(SeatSpec),
    /// A robot of the game sitting under another name (the game server's `robot_3`).
    Robot {
        /// The seat's name, as the other players are told it.
        name: String,
        /// The robot's name among the game's robots.
        robot: String,
    },
    /// A seat already open (a client connected to the game server).
    Open(Box<dyn Seat<G>>),
}

impl<G: CatalogGame> SeatPlan<G> {
    /// The seat's name, known before it is opened.
    fn name(&self) -> String {
        match self {
            SeatPlan::Spec(spec) => spec.name(),
            SeatPlan::Robot { name, .. } => name.clone(),
            SeatPlan::Open(seat) => seat.name().to_owned(),
        }
    }

    /// The robot the seat asks for, if it is one.
    fn robot(&self) -> Option<&str> {
        match self {
            SeatPlan::Spec(SeatSpec::Builtin { name }) => Some(name),
            SeatPlan::Robot { robot, .. } => Some(robot),
            _ => None,
        }
    }
}

/// How the robots of a match get their seeds from the match seed. Each rule is kept as it
/// was when the paths were separate, so that every replay recorded before stays the one the
/// same seed plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RobotSeeds {
    /// `arbiter play` and tournaments: seat `s` gets `(seed + s + 1) · φ·2⁶⁴`, spread over
    /// the whole range so that two seats never play alike.
    Spread,
    /// The game server: seat `s` gets `seed · 31 + s`, the seed being the game's id.
    Table,
}

impl RobotSeeds {
    /// The seed of the robot in seat `seat` of a match seeded `seed`.
    pub fn seed(self, seed: u64, seat: usize) -> u64 {
        match self {
            RobotSeeds::Spread => seed
                .wrapping_add(seat as u64 + 1)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15),
            RobotSeeds::Table => seed.wrapping_mul(31).wrapping_add(seat as u64),
        }
    }
}

/// Everything one match needs.
pub struct MatchPlan<'a, G: CatalogGame> {
    /// Where the match starts.
    pub start: Start<'a, G>,
    /// The seats, in seat order.
    pub seats: Vec<SeatPlan<G>>,
    /// The game of a server session, if the match is one.
    pub session: Option<SessionGame>,
    /// The match seed and time control.
    pub config: MatchConfig,
    /// How robots are seeded.
    pub robot_seeds: RobotSeeds,
    /// Where the replay goes, if anywhere.
    pub replay: Option<&'a Path>,
    /// The sandbox bot programs run in; `None` runs them with the caller's rights.
    pub sandbox: Option<&'a Sandbox>,
}

/// Where a match starts.
pub enum Start<'a, G: CatalogGame> {
    /// The position the settings give, built with the seats' names.
    Settings(&'a G::Settings),
    /// A position built by the caller (from a format the settings cannot say, as an AI
    /// Arena map with pawns where it likes).
    Position(G),
}

/// Why a match could not be played. Bot faults are not errors: they are in the report.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// More or fewer seats than the game has.
    #[error("this match has {players} players but {given} bots were given (one --bot per player)")]
    SeatCount {
        /// Players the game has.
        players: usize,
        /// Seats given.
        given: usize,
    },
    /// A robot the game does not have.
    #[error("there is no robot builtin:{name} for {game}; there are: {robots}")]
    UnknownRobot {
        /// The name asked for.
        name: String,
        /// The game.
        game: &'static str,
        /// The robots there are.
        robots: String,
    },
    /// The settings do not make a game.
    #[error(transparent)]
    Settings(#[from] InvalidSettings),
    /// A seat's program could not be started.
    #[error("cannot start player {index} ({who})")]
    CannotStart {
        /// The seat.
        index: usize,
        /// The program, as the user gave it.
        who: String,
        /// What failed.
        source: SeatError,
    },
    /// The replay could not be created.
    #[error("cannot write replay {}", path.display())]
    Replay {
        /// The replay file.
        path: PathBuf,
        /// What failed.
        source: ReplayError,
    },
    /// The replay could not be finished.
    #[error("finishing the replay")]
    FinishReplay(#[source] ReplayError),
    /// The referee failed (not a bot: Arbiter or the machine).
    #[error(transparent)]
    Referee(#[from] RefereeError),
}

impl PlayError {
    /// The error and its causes, as `a: b: c`, for logs and stored results.
    pub fn chain(&self) -> String {
        let mut text = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            text.push_str(": ");
            text.push_str(&cause.to_string());
            source = cause.source();
        }
        text
    }

    /// Whether a program that could not be started is the machine's doing, not the bot's: out of
    /// processes, memory or file descriptors, or a jail that could not be set up. Every other
    /// error but [`PlayError::CannotStart`] is Arbiter's or the machine's anyway.
    pub fn machine_at_fault(&self) -> bool {
        let PlayError::CannotStart { source, .. } = self else {
            return true;
        };
        match source {
            SeatError::CannotStart { error, .. } => matches!(
                error.raw_os_error(),
                Some(libc::EAGAIN | libc::ENOMEM | libc::EMFILE | libc::ENFILE)
            ),
            SeatError::Sandbox(error) => matches!(error, arbiter_sandbox::SandboxError::Io { .. }),
            _ => false,
        }
    }
}

/// Plays one match to its replay. Nothing is started unless every seat and the settings are
/// right; every seat is closed when this returns.
pub fn play_to_replay<G: CatalogGame>(plan: MatchPlan<'_, G>) -> Result<MatchReport, PlayError> {
    let MatchPlan {
        start,
        seats,
        session,
        config,
        robot_seeds,
        replay,
        sandbox,
    } = plan;
    let players = match &start {
        Start::Settings(settings) => G::seats(settings, seats.len()),
        Start::Position(game) => game.num_players(),
    };
    if seats.len() != players {
        return Err(PlayError::SeatCount {
            players,
            given: seats.len(),
        });
    }
    if let Some(name) = seats
        .iter()
        .filter_map(SeatPlan::robot)
        .find(|name| !G::is_robot(name))
    {
        return Err(PlayError::UnknownRobot {
            name: name.to_owned(),
            game: G::NAME,
            robots: robot_list::<G>(),
        });
    }
    let setup = TableSetup {
        names: seats.iter().map(SeatPlan::name).collect(),
        session,
    };
    let game = match start {
        Start::Settings(settings) => G::build(settings, &setup)?,
        Start::Position(game) => game,
    };
    let seats = open_seats(seats, sandbox, |seat| robot_seeds.seed(config.seed, seat))?;
    let mut writer = match replay {
        Some(path) => Some(
            ReplayWriter::create(path).map_err(|source| PlayError::Replay {
                path: path.to_owned(),
                source,
            })?,
        ),
        None => None,
    };
    let report = run_match(game, seats, &config, writer.as_mut())?;
    if let Some(writer) = writer {
        writer.finish().map_err(PlayError::FinishReplay)?;
    }
    Ok(report)
}

/// Opens the seats in order; a program that cannot start closes those opened before it.
fn open_seats<G: CatalogGame>(
    plans: Vec<SeatPlan<G>>,
    sandbox: Option<&Sandbox>,
    robot_seed: impl Fn(usize) -> u64,
) -> Result<Vec<Box<dyn Seat<G>>>, PlayError> {
    let mut seats: Vec<Box<dyn Seat<G>>> = Vec::with_capacity(plans.len());
    for (index, plan) in plans.into_iter().enumerate() {
        let seed = robot_seed(index);
        let seat = match plan {
            SeatPlan::Open(seat) => seat,
            SeatPlan::Robot { name, robot } => {
                let robot = G::robot(&robot, seed).expect("robot names are checked first");
                Box::new(BuiltinSeat::new(name, robot))
            }
            SeatPlan::Spec(spec) => {
                spec.open(sandbox, |name| G::robot(name, seed))
                    .map_err(|source| PlayError::CannotStart {
                        index,
                        who: describe(&spec),
                        source,
                    })?
            }
        };
        seats.push(seat);
    }
    Ok(seats)
}

/// A seat as the user gave it, for error messages.
fn describe(spec: &SeatSpec) -> String {
    match spec {
        SeatSpec::Builtin { name } => format!("builtin:{name}"),
        // A command comes from an untrusted info.txt: its beginning is enough to recognise it.
        SeatSpec::Folder { dir, command, .. } => {
            format!("{:?} in {}", arbiter_text::quote(command), dir.display())
        }
        SeatSpec::Command { line, .. } => format!("{:?}", arbiter_text::quote(line)),
    }
}
