//! Who takes part: the player folders of a directory and the built-in robots added by name.

use std::path::Path;

use arbiter_referee::{
    Commands, FolderPlayer, SeatError, SeatSpec, folder_player, read_players_folder, split_command,
};
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
        // A robot playing itself (an SPRT of a robot against itself) is told apart by `#2`.
        _ => match player.id.strip_prefix("builtin:") {
            Some(name) => Ok(SeatSpec::Builtin {
                name: name.split('#').next().unwrap_or(name).into(),
            }),
            None => Err(TournamentError::Player {
                id: player.id.clone(),
                message: "neither a robot nor a folder with a command".into(),
            }),
        },
    }
}

/// The players of a players folder, as the referee reads player folders
/// ([`arbiter_referee::read_players_folder`]): valid folders become players with status `ok` (to
/// be checked), the others players with status `invalid` and the reason. Sorted by id.
pub fn discover(dir: &Path, commands: Commands) -> Result<Vec<Contestant>, TournamentError> {
    let folders = read_players_folder(dir, commands).map_err(|error| match error {
        SeatError::PlayersFolder { dir, error } => {
            TournamentError::PlayersDir { dir, source: error }
        }
        other => TournamentError::Player {
            id: dir.display().to_string(),
            message: other.to_string(),
        },
    })?;
    Ok(folders.into_iter().map(player_of).collect())
}

/// The player of one folder, `invalid` with the reason if it is not a good player folder.
pub fn discover_one(id: &str, folder: &Path, commands: Commands) -> Contestant {
    player_of(folder_player(id, folder, commands))
}

fn player_of(folder: FolderPlayer) -> Contestant {
    let FolderPlayer { id, dir, player } = folder;
    match player {
        Ok(SeatSpec::Folder {
            alias,
            full_name,
            command,
            ..
        }) => Contestant {
            id,
            alias,
            full_name,
            command: Some(command),
            folder: Some(dir),
            status: Status::Ok,
            reason: None,
            program: None,
        },
        other => Contestant {
            alias: id.clone(),
            full_name: String::new(),
            command: None,
            folder: Some(dir),
            status: Status::Invalid,
            reason: Some(match other {
                Ok(spec) => format!("not a player folder: {spec:?}"),
                Err(error) => error.to_string(),
            }),
            program: None,
            id,
        },
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
    use arbiter_referee::INFO_TXT;

    fn temp_dir(name: &str) -> std::path::PathBuf {
        arbiter_testdir::fresh(&format!("players-{name}"))
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
        let players = discover(&dir, Commands::AsWritten).unwrap();
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
