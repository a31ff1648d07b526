//! The games the command line knows, and how their settings come from flags.
//!
//! Adding a game: a variant of [`GameName`], an arm in [`dispatch!`], and a [`CliGame`] impl.

use anyhow::{Result, bail};
use arbiter_games::quoridor::{Quoridor, Settings};
use arbiter_games::{Seating, WireClient};
use arbiter_robots::Robots;
use clap::{Args, ValueEnum};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GameName {
    Quoridor,
    Puoribor,
    Domino,
    Labyrinth,
}

/// Runs `$body` with `$G` standing for the game type named by `$name`.
macro_rules! dispatch {
    ($name:expr, $G:ident => $body:expr) => {
        match $name {
            $crate::games::GameName::Quoridor => {
                type $G = arbiter_games::quoridor::Quoridor;
                $body
            }
            $crate::games::GameName::Puoribor => {
                type $G = arbiter_games::puoribor::Puoribor;
                $body
            }
            $crate::games::GameName::Domino => {
                type $G = arbiter_games::domino::Domino;
                $body
            }
            $crate::games::GameName::Labyrinth => {
                type $G = arbiter_games::labyrinth::Labyrinth;
                $body
            }
        }
    };
}
pub(crate) use dispatch;

/// Settings flags shared by the commands that start a game; each game reads those it has and
/// refuses the others.
#[derive(Args, Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct GameFlags {
    /// Number of players (Quoridor: 2 or 4).
    #[arg(long)]
    pub players: Option<u8>,
    /// Board size (Quoridor: odd, 5 to 25; default 9).
    #[arg(long)]
    pub board: Option<u8>,
    /// Walls per player (Quoridor default: 20 split equally).
    #[arg(long)]
    pub walls: Option<u8>,
    /// The tick at which the match ends (Quoridor default: 100 with 2 players, 200 with 4).
    #[arg(long)]
    pub max_ticks: Option<u32>,
    /// The player who moves first.
    #[arg(long)]
    pub start_player: Option<u8>,
    /// Seed of a drawn board (Domino: the size, unless --board gives it, and the obstacles).
    /// `arbiter play` uses the match seed when it is not given.
    #[arg(long)]
    pub board_seed: Option<u64>,
    /// Domino: the obstacles, as `{x;y},{x;y},...` (`-` for none), instead of drawn ones.
    #[arg(long, requires = "board", allow_hyphen_values = true)]
    pub obstacles: Option<String>,
    /// Domino: send each obstacle as `{y;x}`, as the Java judge did (for bots written for it).
    #[arg(long)]
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub legacy_obstacle_order: bool,
    /// Domino: the token that starts the match, `START` (Java judge) or `start` (C# judge).
    #[arg(long, value_parser = ["START", "start"])]
    pub start_token: Option<String>,
    /// Labyrinth: the level number, generated from that seed unless --level-seed or
    /// --level-file gives the level (default 1).
    #[arg(long)]
    pub level: Option<u64>,
    /// Labyrinth: generate the level from this seed instead of the level number.
    #[arg(long, conflicts_with = "level_file")]
    pub level_seed: Option<u64>,
    /// Labyrinth: a hand-made level file (see examples/labyrinth/).
    #[arg(long)]
    pub level_file: Option<std::path::PathBuf>,
}

/// What the command line needs of a game beyond its rules.
pub trait CliGame: WireClient + Robots {
    /// The start position a match between `seating`'s players is played from.
    fn from_flags(flags: &GameFlags, seating: &Seating) -> Result<Self>;

    /// Whether the start position is a board drawn from `--board-seed` (a tournament then
    /// draws one per pairing).
    fn draws_board(_flags: &GameFlags) -> bool {
        false
    }

    /// Lets a game with a variable number of seats take as many players as bots were given,
    /// when --players does not say.
    fn seats_from_bots(_flags: &mut GameFlags, _bots: usize) {}

    /// The start position of `arbiter bench`: the setting of the published reference figures.
    fn bench_start(flags: &GameFlags) -> Result<Self> {
        Self::from_flags(flags, &Seating::default())
    }
}

impl CliGame for Quoridor {
    fn from_flags(flags: &GameFlags, _seating: &Seating) -> Result<Self> {
        Ok(Quoridor::new(quoridor_settings(flags)?)?)
    }

    fn bench_start(flags: &GameFlags) -> Result<Self> {
        let mut flags = flags.clone();
        // OpenSpiel's Quoridor ends a 9×9 game at 4·9·9 = 324 moves; compare like with like.
        flags.max_ticks.get_or_insert(324);
        Self::from_flags(&flags, &Seating::default())
    }
}

fn quoridor_settings(flags: &GameFlags) -> Result<Settings> {
    let mut settings = Settings::standard(flags.players.unwrap_or(2), flags.board.unwrap_or(9))?;
    if let Some(walls) = flags.walls {
        settings = settings.with_walls_each(walls);
    }
    if let Some(max_ticks) = flags.max_ticks {
        settings.max_ticks = max_ticks;
    }
    if let Some(start) = flags.start_player {
        settings.start_player = start;
    }
    settings.validate()?;
    Ok(settings)
}

/// Puoribor is played as its original environment fixes it (9×9, ten walls each, player 0
/// first); only the draw limit can be changed.
impl CliGame for arbiter_games::puoribor::Puoribor {
    fn from_flags(flags: &GameFlags, _seating: &Seating) -> Result<Self> {
        let name = "puoribor (9×9, 2 players, 10 walls each, player 0 first)";
        refuse_flag(name, "players", &flags.players.filter(|&p| p != 2))?;
        refuse_flag(name, "board", &flags.board.filter(|&b| b != 9))?;
        refuse_flag(name, "walls", &flags.walls.filter(|&w| w != 10))?;
        refuse_flag(
            name,
            "start-player",
            &flags.start_player.filter(|&s| s != 0),
        )?;
        let max_ticks = flags
            .max_ticks
            .unwrap_or(arbiter_games::puoribor::DEFAULT_MAX_TICKS);
        if max_ticks == 0 {
            bail!("--max-ticks must be at least 1");
        }
        Ok(arbiter_games::puoribor::Puoribor::with_max_ticks(max_ticks))
    }
}

/// Domino: the board from --board, --obstacles and --board-seed (a board drawn as the original
/// judge drew them when only the seed is given; seed 0 when none is).
impl CliGame for arbiter_games::domino::Domino {
    fn draws_board(flags: &GameFlags) -> bool {
        flags.obstacles.is_none()
    }

    fn from_flags(flags: &GameFlags, _seating: &Seating) -> Result<Self> {
        use arbiter_games::domino::{Domino, Settings, StartToken, parse_obstacles};
        let name = "domino (2 players, player 0 first)";
        refuse_flag(name, "players", &flags.players.filter(|&p| p != 2))?;
        refuse_flag(name, "walls", &flags.walls)?;
        refuse_flag(name, "max-ticks", &flags.max_ticks)?;
        refuse_flag(
            name,
            "start-player",
            &flags.start_player.filter(|&s| s != 0),
        )?;
        let seed = flags.board_seed.unwrap_or(0);
        let mut settings = match (flags.board, &flags.obstacles) {
            (Some(size), Some(list)) => {
                let list = if list.trim() == "-" { "" } else { list };
                let cells = parse_obstacles(list).map_err(anyhow::Error::msg)?;
                Settings::custom(size, &cells)?
            }
            (Some(size), None) => Settings::seeded(size, seed)?,
            (None, _) => Settings::generated(seed),
        };
        settings.legacy_obstacle_order = flags.legacy_obstacle_order;
        if let Some(token) = &flags.start_token {
            settings.start_token = StartToken::parse(token)
                .ok_or_else(|| anyhow::anyhow!("--start-token must be START or start"))?;
        }
        Ok(Domino::new(settings)?)
    }

    fn bench_start(flags: &GameFlags) -> Result<Self> {
        let mut flags = flags.clone();
        // The size of the original judge's example; --board 51 measures the largest board.
        flags.board.get_or_insert(15);
        Self::from_flags(&flags, &Seating::default())
    }
}

/// Labyrinth: 1 to 10 players (--players, else one per --bot, else 2) on the level of --level
/// (generated from its number, default 1), --level-seed or --level-file. --board-seed, which
/// `arbiter play` fills with the match seed, does not choose the level: a level is fixed, as in
/// the contest.
impl CliGame for arbiter_games::labyrinth::Labyrinth {
    fn seats_from_bots(flags: &mut GameFlags, bots: usize) {
        if flags.players.is_none() && (1..=arbiter_games::labyrinth::MAX_SEATS).contains(&bots) {
            flags.players = Some(bots as u8);
        }
    }

    fn from_flags(flags: &GameFlags, seating: &Seating) -> Result<Self> {
        use arbiter_games::labyrinth::{Labyrinth, Level, Setup};
        let name = "labyrinth";
        refuse_flag(name, "board", &flags.board)?;
        refuse_flag(name, "walls", &flags.walls)?;
        refuse_flag(name, "max-ticks", &flags.max_ticks)?;
        refuse_flag(
            name,
            "start-player",
            &flags.start_player.filter(|&s| s != 0),
        )?;
        refuse_flag(name, "obstacles", &flags.obstacles)?;
        refuse_flag(name, "start-token", &flags.start_token)?;
        let players = usize::from(flags.players.unwrap_or(2));
        let number = flags.level.unwrap_or(1);
        let level = match (&flags.level_file, flags.level_seed) {
            (Some(path), _) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| anyhow::anyhow!("--level-file {}: {e}", path.display()))?;
                Level::parse(&text)
                    .map_err(|e| anyhow::anyhow!("--level-file {}: {e}", path.display()))?
            }
            (None, Some(seed)) => Level::generate(seed),
            (None, None) => Level::generate(number),
        };
        let mut setup = Setup::new(level, players);
        setup.level_number = number;
        // Seats of another number are refused where the seats are counted.
        if seating.names.len() == players || seating.names.is_empty() {
            setup = setup.seated(seating);
        }
        Ok(Labyrinth::from_setup(setup)?)
    }

    fn bench_start(flags: &GameFlags) -> Result<Self> {
        let mut flags = flags.clone();
        // A server game has at least four seats, robots filling the empty ones.
        flags.players.get_or_insert(4);
        Self::from_flags(&flags, &Seating::default())
    }
}

/// Refuses a flag a game does not have, rather than ignoring it silently.
#[allow(dead_code)]
pub fn refuse_flag<T>(game: &str, flag: &str, value: &Option<T>) -> Result<()> {
    if value.is_some() {
        bail!("--{flag} does not apply to {game}");
    }
    Ok(())
}
