//! Domino's settings: the board (drawn from a seed as the original judge drew them, or given
//! whole) and the two habits of the judges bots were written for.

use arbiter_games::domino::{Domino, Settings as Rules, StartToken, parse_obstacles};
use clap::Args;
use serde::{Deserialize, Serialize};

use crate::{CatalogGame, InvalidSettings, TableSetup};

/// Domino's settings flags (none given: a board drawn from the match seed).
#[derive(Args, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DominoSettings {
    /// Board size: odd (default: drawn from --board-seed).
    #[arg(long)]
    pub board: Option<u8>,
    /// Seed of a drawn board: the size, unless --board gives it, and the obstacles.
    /// `arbiter play` uses the match seed when it is not given.
    #[arg(long)]
    pub board_seed: Option<u64>,
    /// The obstacles, as `{x;y},{x;y},...` (`-` for none), instead of drawn ones.
    #[arg(long, requires = "board", allow_hyphen_values = true)]
    pub obstacles: Option<String>,
    /// Send each obstacle as `{y;x}`, as the Java judge did (for bots written for it).
    #[arg(long)]
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub legacy_obstacle_order: bool,
    /// The token that starts the match, `START` (Java judge) or `start` (C# judge).
    #[arg(long, value_parser = ["START", "start"])]
    pub start_token: Option<String>,
}

impl DominoSettings {
    /// The engine's settings these flags give (seed 0 when no board seed is given).
    pub fn rules(&self) -> Result<Rules, InvalidSettings> {
        let seed = self.board_seed.unwrap_or(0);
        let mut rules = match (self.board, &self.obstacles) {
            (Some(size), Some(list)) => {
                let list = if list.trim() == "-" { "" } else { list };
                let cells = parse_obstacles(list).map_err(InvalidSettings)?;
                Rules::custom(size, &cells).map_err(InvalidSettings::from_display)?
            }
            (Some(size), None) => {
                Rules::seeded(size, seed).map_err(InvalidSettings::from_display)?
            }
            (None, _) => Rules::generated(seed),
        };
        rules.legacy_obstacle_order = self.legacy_obstacle_order;
        if let Some(token) = &self.start_token {
            rules.start_token = StartToken::parse(token)
                .ok_or_else(|| InvalidSettings("--start-token must be START or start".into()))?;
        }
        Ok(rules)
    }
}

impl CatalogGame for Domino {
    type Settings = DominoSettings;
    const ABOUT: &'static str = "Domino: place dominoes on a torus until your opponent cannot";
    const RENDERER: &'static str = "domino";

    fn seats(_: &DominoSettings, _offered: usize) -> usize {
        2
    }

    fn build(settings: &DominoSettings, _setup: &TableSetup) -> Result<Self, InvalidSettings> {
        Domino::new(settings.rules()?).map_err(InvalidSettings::from_display)
    }

    fn bench_start(settings: &DominoSettings) -> Result<Self, InvalidSettings> {
        let mut settings = settings.clone();
        // The size of the original judge's example; --board 51 measures the largest board.
        settings.board.get_or_insert(15);
        Self::build(&settings, &TableSetup::default())
    }

    fn board_seed(settings: &mut DominoSettings) -> Option<&mut Option<u64>> {
        Some(&mut settings.board_seed)
    }

    fn draws_board(settings: &DominoSettings) -> bool {
        settings.obstacles.is_none()
    }
}
