//! The games the command line knows, and how their settings come from flags.
//!
//! Adding a game: a variant of [`GameName`], an arm in [`dispatch!`], and a [`CliGame`] impl.

use anyhow::{Result, bail};
use arbiter_bots::Robots;
use arbiter_games::WireClient;
use arbiter_games::quoridor::{Quoridor, Settings};
use clap::{Args, ValueEnum};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GameName {
    Quoridor,
    Puoribor,
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
}

/// What the command line needs of a game beyond its rules.
pub trait CliGame: WireClient + Robots {
    /// The start position a match is played from.
    fn from_flags(flags: &GameFlags) -> Result<Self>;

    /// The start position of `arbiter bench`: the setting of the published reference figures.
    fn bench_start(flags: &GameFlags) -> Result<Self> {
        Self::from_flags(flags)
    }
}

impl CliGame for Quoridor {
    fn from_flags(flags: &GameFlags) -> Result<Self> {
        Ok(Quoridor::new(quoridor_settings(flags)?)?)
    }

    fn bench_start(flags: &GameFlags) -> Result<Self> {
        let mut flags = flags.clone();
        // OpenSpiel's Quoridor ends a 9×9 game at 4·9·9 = 324 moves; compare like with like.
        flags.max_ticks.get_or_insert(324);
        Self::from_flags(&flags)
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
    fn from_flags(flags: &GameFlags) -> Result<Self> {
        let name = "puoribor (9×9, 2 players, 10 walls each, player 0 first)";
        refuse_flag(name, "players", &flags.players.filter(|&p| p != 2))?;
        refuse_flag(name, "board", &flags.board.filter(|&b| b != 9))?;
        refuse_flag(name, "walls", &flags.walls.filter(|&w| w != 10))?;
        refuse_flag(name, "start-player", &flags.start_player.filter(|&s| s != 0))?;
        let max_ticks = flags
            .max_ticks
            .unwrap_or(arbiter_games::puoribor::DEFAULT_MAX_TICKS);
        if max_ticks == 0 {
            bail!("--max-ticks must be at least 1");
        }
        Ok(arbiter_games::puoribor::Puoribor::with_max_ticks(max_ticks))
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
