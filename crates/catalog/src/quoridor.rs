//! Quoridor's settings: 2 or 4 players on an odd board, walls, the tick limit, who starts.

use arbiter_games::quoridor::{Quoridor, Settings as Rules};
use clap::Args;
use serde::{Deserialize, Serialize};

use crate::{CatalogGame, InvalidSettings, TableSetup};

/// Quoridor's settings flags (none given: the standard 2-player 9×9 game).
#[derive(Args, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct QuoridorSettings {
    /// Number of players: 2 or 4.
    #[arg(long)]
    pub players: Option<u8>,
    /// Board size: odd, 5 to 25 (default 9).
    #[arg(long)]
    pub board: Option<u8>,
    /// Walls per player (default: 20 split equally).
    #[arg(long)]
    pub walls: Option<u8>,
    /// The tick at which the match ends (default: 100 with 2 players, 200 with 4).
    #[arg(long)]
    pub max_ticks: Option<u32>,
    /// The player who moves first.
    #[arg(long)]
    pub start_player: Option<u8>,
}

impl QuoridorSettings {
    /// The engine's settings these flags give.
    pub fn rules(&self) -> Result<Rules, InvalidSettings> {
        let mut rules = Rules::standard(self.players.unwrap_or(2), self.board.unwrap_or(9))
            .map_err(InvalidSettings::from_display)?;
        if let Some(walls) = self.walls {
            rules = rules.with_walls_each(walls);
        }
        if let Some(max_ticks) = self.max_ticks {
            rules.max_ticks = max_ticks;
        }
        if let Some(start) = self.start_player {
            rules.start_player = start;
        }
        rules.validate().map_err(InvalidSettings::from_display)?;
        Ok(rules)
    }
}

impl CatalogGame for Quoridor {
    type Settings = QuoridorSettings;
    const ABOUT: &'static str = "Quoridor: race your pawn across the board, walls in the way";
    const RENDERER: &'static str = "quoridor";

    fn seats(settings: &QuoridorSettings, _offered: usize) -> usize {
        usize::from(settings.players.unwrap_or(2))
    }

    fn build(settings: &QuoridorSettings, _setup: &TableSetup) -> Result<Self, InvalidSettings> {
        Quoridor::new(settings.rules()?).map_err(InvalidSettings::from_display)
    }

    fn bench_start(settings: &QuoridorSettings) -> Result<Self, InvalidSettings> {
        let mut settings = settings.clone();
        // OpenSpiel's Quoridor ends a 9×9 game at 4·9·9 = 324 moves; compare like with like.
        settings.max_ticks.get_or_insert(324);
        Self::build(&settings, &TableSetup::default())
    }
}
