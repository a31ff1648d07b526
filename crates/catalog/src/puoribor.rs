//! Puoribor's settings: the game is played as its original environment fixes it (9×9, two
//! players, ten walls each, player 0 first); only the draw limit can be changed.

use arbiter_games::puoribor::{DEFAULT_MAX_TICKS, Puoribor};
use clap::Args;
use serde::{Deserialize, Serialize};

use crate::{CatalogGame, InvalidSettings, TableSetup};

/// Puoribor's settings flags.
#[derive(Args, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PuoriborSettings {
    /// The tick at which the match is a draw (default 200).
    #[arg(long)]
    pub max_ticks: Option<u32>,
}

impl CatalogGame for Puoribor {
    type Settings = PuoriborSettings;
    const ABOUT: &'static str =
        "Puoribor: Quoridor with rotating walls, as the fights environment plays it";
    const RENDERER: &'static str = "puoribor";

    fn seats(_: &PuoriborSettings, _offered: usize) -> usize {
        2
    }

    fn build(settings: &PuoriborSettings, _setup: &TableSetup) -> Result<Self, InvalidSettings> {
        let max_ticks = settings.max_ticks.unwrap_or(DEFAULT_MAX_TICKS);
        if max_ticks == 0 {
            return Err(InvalidSettings("--max-ticks must be at least 1".into()));
        }
        Ok(Puoribor::with_max_ticks(max_ticks))
    }
}
