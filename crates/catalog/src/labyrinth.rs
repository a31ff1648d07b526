//! Labyrinth's settings: the level (generated from its number or a seed, or a hand-made file)
//! and the number of players.

use std::path::PathBuf;

use arbiter_games::labyrinth::{Labyrinth, Level, MAX_SEATS};
use clap::Args;
use serde::{Deserialize, Serialize};

use crate::{CatalogGame, Hosting, InvalidSettings, TableSetup};

/// The largest level file read: a level of the largest board is a few kilobytes.
pub const MAX_LEVEL_FILE: u64 = 1024 * 1024;

/// Labyrinth's settings flags. A level is fixed, as in the contest: the match seed does not
/// choose it.
#[derive(Args, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LabyrinthSettings {
    /// Number of players, 1 to 10 (default: one per --bot, else 2).
    #[arg(long)]
    pub players: Option<u8>,
    /// The level number, generated from that seed unless --level-seed or --level-file gives
    /// the level (default 1).
    #[arg(long)]
    pub level: Option<u64>,
    /// Generate the level from this seed instead of the level number.
    #[arg(long, conflicts_with = "level_file")]
    pub level_seed: Option<u64>,
    /// A hand-made level file (see examples/labyrinth/).
    #[arg(long)]
    pub level_file: Option<PathBuf>,
}

impl LabyrinthSettings {
    /// The level these flags give, and its number on the wire; a session's level number,
    /// when given, stands for --level.
    fn level(&self, session_level: Option<u64>) -> Result<(Level, u64), InvalidSettings> {
        let number = session_level.or(self.level).unwrap_or(1);
        let level = match (&self.level_file, self.level_seed) {
            (Some(path), _) => {
                let fail = |e: &dyn std::fmt::Display| {
                    InvalidSettings(format!("--level-file {}: {e}", path.display()))
                };
                let text = arbiter_text::read_to_string_capped(path, MAX_LEVEL_FILE)
                    .map_err(|e| fail(&e))?;
                Level::parse(&text).map_err(|e| fail(&e))?
            }
            (None, Some(seed)) => Level::generate(seed),
            (None, None) => Level::generate(number),
        };
        Ok((level, number))
    }
}

impl CatalogGame for Labyrinth {
    type Settings = LabyrinthSettings;
    const ABOUT: &'static str =
        "Labyrinth: push tiles, walk the maze, reach the displays first (1 to 10 players)";
    const RENDERER: &'static str = "labyrinth";
    const HOSTING: Hosting = Hosting::Session;

    fn seats(settings: &LabyrinthSettings, offered: usize) -> usize {
        match settings.players {
            Some(players) => usize::from(players),
            None if (1..=MAX_SEATS).contains(&offered) => offered,
            None => 2,
        }
    }

    fn build(settings: &LabyrinthSettings, setup: &TableSetup) -> Result<Self, InvalidSettings> {
        let session = setup.session;
        let (level, number) = settings.level(session.map(|s| u64::from(s.level)))?;
        let players = match setup.names.len() {
            0 => Self::seats(settings, 0),
            n => n,
        };
        let mut start = arbiter_games::labyrinth::Setup::new(level, players);
        start.level_number = number;
        if !setup.names.is_empty() {
            start.names = setup.names.clone();
        }
        if let Some(session) = session {
            start.game_id = session.id;
            // The server writes the after-game block of a session's games itself.
            start.session = arbiter_games::SessionMode::Served;
        }
        Labyrinth::from_setup(start).map_err(|e| InvalidSettings::from_display(e.reason))
    }

    fn bench_start(settings: &LabyrinthSettings) -> Result<Self, InvalidSettings> {
        let mut settings = settings.clone();
        // A server game has at least four seats, robots filling the empty ones.
        settings.players.get_or_insert(4);
        Self::build(&settings, &TableSetup::default())
    }
}
