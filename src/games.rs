//! The games the command line knows, and how their settings come from flags.

use anyhow::{Result, bail};
use arbiter_games::quoridor::{Quoridor, Settings};
use clap::{Args, ValueEnum};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GameName {
    Quoridor,
}

/// Settings flags shared by the commands that start a game; each game reads those it has.
#[derive(Args, Clone, Debug, Default)]
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

pub fn quoridor_settings(flags: &GameFlags, default_players: u8) -> Result<Settings> {
    let mut settings = Settings::standard(
        flags.players.unwrap_or(default_players),
        flags.board.unwrap_or(9),
    )?;
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

pub fn new_quoridor(flags: &GameFlags, default_players: u8) -> Result<Quoridor> {
    let settings = quoridor_settings(flags, default_players)?;
    Ok(Quoridor::new(settings)?)
}

/// Refuses a flag the game does not have, rather than ignoring it silently.
#[allow(dead_code)]
pub fn refuse_flag(game: GameName, flag: &str, given: bool) -> Result<()> {
    if given {
        bail!("--{flag} does not apply to {game:?}");
    }
    Ok(())
}
