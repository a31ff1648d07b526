//! Who takes part: the player folders of a directory and the built-in robots added by name.

use std::path::Path;

use arbiter_referee::{INFO_TXT, SeatSpec, split_command};
pub use arbiter_store::{Contestant, Status};

use crate::TournamentError;

/// How the referee opens a contestant's seat.
pub fn seat_spec(player: &Contestant) -> Result<SeatSpec, TournamentError> {
    match (&player.command, &player.folder) {
        (Some(command), Some(dir)) => Ok(SeatSpec::Folder {
            dir: dir.clone(),
            alias: player.alias.clone(),
            full_name: player.full_name.clone(),
            command: command.clone(),
            argv: split_command(command).map_err(|e| TournamentError::Player {
                id: player.id.clone(),
                message: e.to_string(),
            })?,
        }),
        _ => match player.id.strip_prefix("builtin:") {
            Some(name) => Ok(SeatSpec::Builtin { name: name.into() }),
            None => Err(TournamentError::Player {
                id: player.id.clone(),
                message: "neither a robot nor a folder with a command".into(),
            }),
        },
    }
}

/// Every sub-folder of `dir` that holds an `info.txt` or looks like it should: valid folders
/// become players with status `ok` (to be checked), the others players with status `invalid`
/// and the reason. Hidden folders and plain files are ignored. Sorted by id.
pub fn discover(dir: &Path) -> Result<Vec<Contestant>, TournamentError> {
    let entries = std::fs::read_dir(dir).map_err(|source| TournamentError::PlayersDir {
        dir: dir.to_owned(),
        source,
    })?;
    let mut players = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| TournamentError::PlayersDir {
            dir: dir.to_owned(),
            source,
        })?;
        let path = entry.path();
        let id = entry.file_name().to_string_lossy().into_owned();
        if id.starts_with('.') || !path.is_dir() {
            continue;
        }
        // Absolute, so a resumed tournament finds the folder from any working directory.
        let folder = std::path::absolute(&path).unwrap_or(path);
        players.push(discover_one(&id, &folder));
    }
    players.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(players)
}

/// The player of one folder, `invalid` with the reason if it is not a good player folder.
pub fn discover_one(id: &str, folder: &Path) -> Contestant {
    let folder = &std::path::absolute(folder).unwrap_or_else(|_| folder.to_owned());
    let id = id.to_owned();
    let invalid = |reason: String| Contestant {
        alias: id.clone(),
        full_name: String::new(),
        command: None,
        folder: Some(folder.to_owned()),
        status: Status::Invalid,
        reason: Some(reason),
        id: id.clone(),
    };
    if !folder.join(INFO_TXT).is_file() {
        return invalid(format!("no {INFO_TXT} in {}", folder.display()));
    }
    match SeatSpec::folder(folder) {
        Ok(SeatSpec::Folder {
            alias,
            full_name,
            command,
            ..
        }) => Contestant {
            id: id.clone(),
            alias,
            full_name,
            command: Some(command),
            folder: Some(folder.to_owned()),
            status: Status::Ok,
            reason: None,
        },
        Ok(other) => invalid(format!("not a player folder: {other:?}")),
        Err(error) => invalid(error.to_string()),
    }
}

/// Finds a player by id, alias, folder path or `builtin:NAME`, as a user names one on the
/// command line (`--challenger players/newbot`).
pub fn find<'a>(players: &'a [Contestant], name: &str) -> Option<&'a Contestant> {
    let trimmed = name.trim_end_matches('/');
    let last = Path::new(trimmed)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned());
    players
        .iter()
        .find(|p| p.id == trimmed)
        .or_else(|| players.iter().find(|p| p.alias == trimmed))
        .or_else(|| {
            let last = last?;
            players.iter().find(|p| p.id == last)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("arbiter-players-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn folders_become_players_and_bad_ones_say_why() {
        let dir = temp_dir("discover");
        for (name, info) in [
            (
                "123456",
                Some("Henro200\nHenryk Domaniewski\npython3 bot.py\n"),
            ),
            ("000001", Some("short\n")),
            ("empty", None),
        ] {
            std::fs::create_dir(dir.join(name)).unwrap();
            if let Some(info) = info {
                std::fs::write(dir.join(name).join(INFO_TXT), info).unwrap();
            }
        }
        std::fs::write(dir.join("notes.txt"), "not a folder").unwrap();
        std::fs::create_dir(dir.join(".git")).unwrap();
        let players = discover(&dir).unwrap();
        let ids: Vec<&str> = players.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["000001", "123456", "empty"]);
        assert_eq!(players[1].alias, "Henro200");
        assert_eq!(players[1].command.as_deref(), Some("python3 bot.py"));
        assert_eq!(players[1].status, Status::Ok);
        assert_eq!(players[0].status, Status::Invalid);
        assert!(players[0].reason.as_ref().unwrap().contains("found 1"));
        assert!(players[2].reason.as_ref().unwrap().contains("no info.txt"));
        assert!(matches!(
            seat_spec(&players[1]).unwrap(),
            SeatSpec::Folder { .. }
        ));
        assert_eq!(find(&players, "players/123456/").unwrap().id, "123456");
        assert_eq!(find(&players, "Henro200").unwrap().id, "123456");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn robots_are_players_too() {
        let robot = Contestant::builtin("runner");
        assert_eq!(robot.id, "builtin:runner");
        assert_eq!(
            seat_spec(&robot).unwrap(),
            SeatSpec::Builtin {
                name: "runner".into()
            }
        );
    }
}
