//! The match config and map formats of the public judge (AI Arena's Quoridor server), so that a
//! contest that used it can switch referees without changing its files.
//!
//! Config: `{"map": PATH, "bots": [{"id", "name", "runCommand"}]}`.
//! Map: `{"playerCount", "maxTicks", "boardSize", "startingPlayer", "pawnPos": [{"x","y"}],
//! "ownedWalls"}`. Older maps give `"board": {"rows", "cols"}` instead of `boardSize` and a single
//! number for `ownedWalls`; both spellings are read.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use arbiter_games::quoridor::{Cell, Settings};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchConfig {
    pub map: PathBuf,
    pub bots: Vec<JudgeBot>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JudgeBot {
    pub id: String,
    pub name: String,
    pub run_command: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Map {
    player_count: u8,
    max_ticks: Option<u32>,
    board_size: Option<u8>,
    board: Option<BoardShape>,
    starting_player: Option<u8>,
    pawn_pos: Option<Vec<Position>>,
    owned_walls: Option<OwnedWalls>,
}

#[derive(Debug, Deserialize)]
struct BoardShape {
    rows: u8,
    cols: u8,
}

#[derive(Debug, Deserialize)]
struct Position {
    x: u8,
    y: u8,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OwnedWalls {
    Each(u8),
    PerPlayer(Vec<u8>),
}

/// Reads a match config; the map path is taken relative to the config's folder when it does not
/// exist relative to the current directory.
pub fn read_config(path: &Path) -> Result<(MatchConfig, Settings)> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading match config {}", path.display()))?;
    let mut config: MatchConfig = serde_json::from_str(&text).with_context(|| {
        format!(
            "match config {} is not of the judge's format",
            path.display()
        )
    })?;
    if !config.map.exists()
        && let Some(beside) = path.parent().map(|dir| dir.join(&config.map))
        && beside.exists()
    {
        config.map = beside;
    }
    let settings = read_map(&config.map)?;
    if config.bots.len() != usize::from(settings.players) {
        bail!(
            "{}: the map is for {} players but the config lists {} bots",
            path.display(),
            settings.players,
            config.bots.len()
        );
    }
    Ok((config, settings))
}

pub fn read_map(path: &Path) -> Result<Settings> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading map {}", path.display()))?;
    let map: Map = serde_json::from_str(&text)
        .with_context(|| format!("map {} is not of the judge's format", path.display()))?;
    settings_from_map(map).with_context(|| format!("map {}", path.display()))
}

fn settings_from_map(map: Map) -> Result<Settings> {
    let board = match (map.board_size, map.board) {
        (Some(size), _) => size,
        (None, Some(BoardShape { rows, cols })) if rows == cols => rows,
        (None, Some(BoardShape { rows, cols })) => {
            bail!("the board must be square, not {rows} rows by {cols} columns")
        }
        (None, None) => 9,
    };
    let mut settings = Settings::standard(map.player_count, board)?;
    match map.owned_walls {
        Some(OwnedWalls::Each(walls)) => settings = settings.with_walls_each(walls),
        Some(OwnedWalls::PerPlayer(walls)) => settings.walls = walls,
        None => {}
    }
    if let Some(ticks) = map.max_ticks {
        settings.max_ticks = ticks;
    }
    if let Some(start) = map.starting_player {
        settings.start_player = start;
    }
    if let Some(pawns) = map.pawn_pos {
        settings.pawns = pawns.into_iter().map(|p| Cell { x: p.x, y: p.y }).collect();
    }
    settings.validate()?;
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Settings> {
        settings_from_map(serde_json::from_str(json)?)
    }

    #[test]
    fn reads_the_current_map_format() {
        let settings = parse(
            r#"{"playerCount":2,"maxTicks":50,"boardSize":7,"startingPlayer":1,
                "pawnPos":[{"x":3,"y":0},{"x":3,"y":6}],"ownedWalls":[4,6]}"#,
        )
        .unwrap();
        assert_eq!(settings.board, 7);
        assert_eq!(settings.max_ticks, 50);
        assert_eq!(settings.start_player, 1);
        assert_eq!(settings.walls, vec![4, 6]);
        assert_eq!(
            settings.pawns,
            vec![Cell { x: 3, y: 0 }, Cell { x: 3, y: 6 }]
        );
    }

    #[test]
    fn reads_the_older_map_format() {
        let settings = parse(
            r#"{"playerCount":2,"board":{"rows":9,"cols":9},
                "pawnPos":[{"x":4,"y":0},{"x":4,"y":8}],"ownedWalls":10}"#,
        )
        .unwrap();
        assert_eq!(settings, Settings::standard(2, 9).unwrap());
    }

    #[test]
    fn refuses_a_board_that_is_not_square() {
        let error = parse(r#"{"playerCount":2,"board":{"rows":9,"cols":7}}"#).unwrap_err();
        assert!(error.to_string().contains("square"), "{error}");
    }

    #[test]
    fn refuses_an_even_board() {
        assert!(parse(r#"{"playerCount":2,"boardSize":8}"#).is_err());
    }
}
