//! The match config and map formats of the public judge (AI Arena's Quoridor server), so that a
//! contest that used it can switch referees without changing its files.
//!
//! Config: `{"map": PATH, "bots": [{"id", "name", "runCommand"}]}`.
//! Map: `{"playerCount", "maxTicks", "boardSize", "startingPlayer", "pawnPos": [{"x","y"}],
//! "ownedWalls"}`. Older maps give `"board": {"rows", "cols"}` instead of `boardSize` and a single
//! number for `ownedWalls`; both spellings are read.

use std::io;
use std::path::{Path, PathBuf};

use arbiter_games::quoridor::{Cell, Settings, SettingsError};
use arbiter_text::read_to_string_capped;
use serde::Deserialize;

/// A match config: the map to play and the bots that play it, in seat order.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArenaConfig {
    /// The map file, resolved by [`read_config`] (beside the config if not found as given).
    pub map: PathBuf,
    /// The bots, one per seat.
    pub bots: Vec<JudgeBot>,
}

/// One bot of a match config.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JudgeBot {
    /// The key of the bot's score in `score.json`.
    pub id: String,
    /// The bot's display name.
    pub name: String,
    /// The command line that starts the bot.
    pub run_command: String,
}

/// Why a match config could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file could not be read.
    #[error("cannot read match config {path}: {error}")]
    Read {
        /// The config file.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// The config is not JSON of the judge's shape (the error names line and column).
    #[error("match config {path} is not of the judge's format: {error}")]
    Json {
        /// The config file.
        path: PathBuf,
        /// What serde found, with its line and column.
        error: serde_json::Error,
    },
    /// The map the config names is not a valid map.
    #[error(transparent)]
    Map(#[from] MapError),
    /// The map and the config disagree on the number of players.
    #[error("{path}: the map is for {players} players but the config lists {bots} bots")]
    BotCount {
        /// The config file.
        path: PathBuf,
        /// Players the map is for.
        players: u8,
        /// Bots the config lists.
        bots: usize,
    },
}

/// Why a map could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MapError {
    /// The map file could not be read.
    #[error("cannot read map {path}: {error}")]
    Read {
        /// The map file.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// The map is not JSON of the judge's shape (the error names line and column).
    #[error("map {path} is not of the judge's format: {error}")]
    Json {
        /// The map file.
        path: PathBuf,
        /// What serde found, with its line and column.
        error: serde_json::Error,
    },
    /// The map describes a game our rules do not allow.
    #[error("map {path}: {problem}")]
    Settings {
        /// The map file.
        path: PathBuf,
        /// What is wrong with it.
        problem: MapProblem,
    },
}

/// What is wrong with a well-formed map.
#[derive(Debug, thiserror::Error)]
pub enum MapProblem {
    /// `board` gives a board that is not square.
    #[error("the board must be square, not {rows} rows by {cols} columns")]
    NotSquare {
        /// Rows.
        rows: u8,
        /// Columns.
        cols: u8,
    },
    /// The settings break a rule of Quoridor (board size, players, pawns, walls).
    #[error(transparent)]
    Rules(#[from] SettingsError),
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

/// The largest match config or map read: both are a few hundred bytes of JSON.
pub const MAX_CONFIG_FILE: u64 = 1024 * 1024;

/// Reads a match config and its map; the map path is taken relative to the config's folder
/// when it does not exist relative to the current directory.
pub fn read_config(path: &Path) -> Result<(ArenaConfig, Settings), ConfigError> {
    let text = read_to_string_capped(path, MAX_CONFIG_FILE).map_err(|error| ConfigError::Read {
        path: path.to_owned(),
        error,
    })?;
    let mut config: ArenaConfig =
        serde_json::from_str(&text).map_err(|error| ConfigError::Json {
            path: path.to_owned(),
            error,
        })?;
    if !config.map.exists()
        && let Some(beside) = path.parent().map(|dir| dir.join(&config.map))
        && beside.exists()
    {
        config.map = beside;
    }
    let settings = read_map(&config.map)?;
    if config.bots.len() != usize::from(settings.players) {
        return Err(ConfigError::BotCount {
            path: path.to_owned(),
            players: settings.players,
            bots: config.bots.len(),
        });
    }
    Ok((config, settings))
}

/// Reads a map file into Quoridor settings.
pub fn read_map(path: &Path) -> Result<Settings, MapError> {
    let text = read_to_string_capped(path, MAX_CONFIG_FILE).map_err(|error| MapError::Read {
        path: path.to_owned(),
        error,
    })?;
    parse_map(&text).map_err(|error| match error {
        MapText::Json(error) => MapError::Json {
            path: path.to_owned(),
            error,
        },
        MapText::Problem(problem) => MapError::Settings {
            path: path.to_owned(),
            problem,
        },
    })
}

/// Why the text of a map is not a map, before the file is named.
enum MapText {
    Json(serde_json::Error),
    Problem(MapProblem),
}

fn parse_map(text: &str) -> Result<Settings, MapText> {
    let map: Map = serde_json::from_str(text).map_err(MapText::Json)?;
    settings_from_map(map).map_err(MapText::Problem)
}

fn settings_from_map(map: Map) -> Result<Settings, MapProblem> {
    let board = match (map.board_size, map.board) {
        (Some(size), _) => size,
        (None, Some(BoardShape { rows, cols })) if rows == cols => rows,
        (None, Some(BoardShape { rows, cols })) => {
            return Err(MapProblem::NotSquare { rows, cols });
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

    fn parse(json: &str) -> Result<Settings, String> {
        parse_map(json).map_err(|e| match e {
            MapText::Json(e) => e.to_string(),
            MapText::Problem(e) => e.to_string(),
        })
    }

    fn temp_dir(name: &str) -> PathBuf {
        arbiter_testdir::fresh(&format!("ai-arena-{name}"))
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
        assert!(error.contains("square"), "{error}");
    }

    #[test]
    fn refuses_an_even_board() {
        assert!(parse(r#"{"playerCount":2,"boardSize":8}"#).is_err());
    }

    #[test]
    fn malformed_json_names_the_line() {
        let error = parse("{\"playerCount\":2,\n\"boardSize\":}").unwrap_err();
        assert!(error.contains("line 2"), "{error}");
    }

    #[test]
    fn a_config_finds_its_map_beside_it_and_counts_its_bots() {
        let dir = temp_dir("config");
        std::fs::write(dir.join("map.json"), r#"{"playerCount":2,"boardSize":7}"#).unwrap();
        let bot = |id: &str| format!(r#"{{"id":"{id}","name":"n{id}","runCommand":"./bot"}}"#);
        let config = dir.join("match.json");
        let write = |bots: &[String]| {
            let text = format!(r#"{{"map":"map.json","bots":[{}]}}"#, bots.join(","));
            std::fs::write(&config, text).unwrap();
        };
        write(&[bot("a"), bot("b")]);
        let (read, settings) = read_config(&config).unwrap();
        assert_eq!(read.map, dir.join("map.json"));
        assert_eq!(read.bots[1].run_command, "./bot");
        assert_eq!(settings.board, 7);

        write(&[bot("a")]);
        let error = read_config(&config).unwrap_err();
        assert!(
            matches!(error, ConfigError::BotCount { bots: 1, .. }),
            "{error}"
        );

        std::fs::write(&config, r#"{"map":"map.json","bots":[],"extra":1}"#).unwrap();
        let error = read_config(&config).unwrap_err();
        assert!(matches!(error, ConfigError::Json { .. }), "{error}");
        assert!(error.to_string().contains("extra"), "{error}");

        std::fs::write(&config, r#"{"map":"nowhere.json","bots":[]}"#).unwrap();
        let error = read_config(&config).unwrap_err();
        assert!(
            matches!(error, ConfigError::Map(MapError::Read { .. })),
            "{error}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
