//! Player folders exactly as the Polish course judge ("Sędzia", the Domino judge) reads them:
//! the sub-folders of a players folder named with a six-digit student number, each with an
//! `info.txt` of three lines: the alias, the first and last name (letters only), the command.
//!
//! The judge's reading, kept here: only names of exactly six ASCII digits are player folders
//! (anything else is skipped, and we say so); a folder without `info.txt` is reported; the first
//! and the last name must each be letters only (`\p{L}+`), and what follows them on that line
//! is ignored; the command must not be empty. The command is run as written, inside the
//! player's folder: the Windows judge rewrote `.jar`, `.exe` and `.py` commands, we do not.

use std::path::{Path, PathBuf};

use crate::SeatError;
use crate::spec::{INFO_TXT, SeatSpec};

/// What a players folder holds.
#[derive(Debug)]
pub struct PlayersFolder {
    /// The six-digit folders, sorted by name (the judge's pairing order), valid or not.
    pub players: Vec<FolderPlayer>,
    /// Why each other folder was skipped, one note per folder.
    pub ignored: Vec<String>,
}

/// One six-digit folder.
#[derive(Debug)]
pub struct FolderPlayer {
    /// The folder's name: the student number.
    pub id: String,
    /// The player's folder.
    pub dir: PathBuf,
    /// A [`SeatSpec::Folder`], or why the folder is not a valid player.
    pub player: Result<SeatSpec, SeatError>,
}

impl PlayersFolder {
    /// The valid players, in order.
    pub fn valid(&self) -> impl Iterator<Item = (&FolderPlayer, &SeatSpec)> {
        self.players
            .iter()
            .filter_map(|p| p.player.as_ref().ok().map(|spec| (p, spec)))
    }
}

/// Whether `name` is a student number: exactly six ASCII digits (Java's `\d{6}`).
pub fn is_album_number(name: &str) -> bool {
    name.len() == 6 && name.bytes().all(|b| b.is_ascii_digit())
}

/// Reads every player folder of `dir` (see the module docs). Fails only if `dir` cannot be
/// listed; a bad player folder is an entry with its error.
pub fn read_players_folder(dir: &Path) -> Result<PlayersFolder, SeatError> {
    let cannot_list = |source| SeatError::PlayersFolder {
        dir: dir.to_owned(),
        source,
    };
    let mut players = Vec::new();
    let mut ignored = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(cannot_list)? {
        let entry = entry.map_err(cannot_list)?;
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_album_number(&name) {
            players.push(FolderPlayer {
                player: judge_player(&path),
                id: name,
                dir: path,
            });
        } else {
            ignored.push(format!(
                "ignored folder `{name}`: a player folder's name is a six-digit student number"
            ));
        }
    }
    players.sort_by(|a, b| a.id.cmp(&b.id));
    ignored.sort();
    Ok(PlayersFolder { players, ignored })
}

/// One player folder, read as the judge reads `info.txt`.
pub fn judge_player(dir: &Path) -> Result<SeatSpec, SeatError> {
    let spec = SeatSpec::folder(dir)?;
    if let SeatSpec::Folder { full_name, .. } = &spec {
        let mut words = full_name.split_whitespace();
        let letters = |w: Option<&str>| w.is_some_and(|w| w.chars().all(char::is_alphabetic));
        if !(letters(words.next()) && letters(words.next())) {
            return Err(SeatError::BadFullName {
                path: dir.join(INFO_TXT),
                line: full_name.clone(),
            });
        }
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("arbiter-folders-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn folder(root: &Path, name: &str, info: Option<&str>) {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        if let Some(info) = info {
            std::fs::write(dir.join(INFO_TXT), info).unwrap();
        }
    }

    #[test]
    fn the_judges_example_players_and_everything_it_refuses() {
        let root = temp_dir("judge");
        let jar = "java -jar \".\\example_players\\123456\\ProxyPlayer.jar\"";
        folder(
            &root,
            "123456",
            Some(&format!("gracz1\nStanislaw Poniatowski\n{jar}\n")),
        );
        folder(
            &root,
            "024680",
            Some("gracz2\r\nAugust Stanowicz\r\n./bot --fast\r\n"),
        );
        folder(
            &root,
            "343434",
            Some("gracz3\nŁukasz Żółć junior\npython3 bot.py\n"),
        );
        folder(&root, "111111", None);
        folder(&root, "222222", Some("alias\nJan Kowalski2\n./bot\n"));
        folder(&root, "333333", Some("alias\nJan\n./bot\n"));
        folder(&root, "444444", Some("alias\nJan Kowalski\n   \n"));
        folder(&root, "12345", Some("a\nJan Kowalski\n./bot\n"));
        folder(&root, "1234567", Some("a\nJan Kowalski\n./bot\n"));
        folder(&root, "example_players", None);
        std::fs::write(root.join("555555"), "a file, not a folder").unwrap();

        let read = read_players_folder(&root).unwrap();
        let ids: Vec<&str> = read.players.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "024680", "111111", "123456", "222222", "333333", "343434", "444444"
            ]
        );
        let valid: Vec<(&str, String)> = read
            .valid()
            .map(|(p, spec)| (p.id.as_str(), spec.name()))
            .collect();
        assert_eq!(
            valid,
            [
                ("024680", "gracz2".to_owned()),
                ("123456", "gracz1".to_owned()),
                ("343434", "gracz3".to_owned()),
            ]
        );
        // The command is kept as written: no rewriting of Windows paths or of `.jar`.
        let SeatSpec::Folder {
            command, argv, dir, ..
        } = read.players[2].player.as_ref().unwrap()
        else {
            panic!()
        };
        assert_eq!(command, jar);
        assert_eq!(argv[2], ".\\example_players\\123456\\ProxyPlayer.jar");
        assert_eq!(dir, &root.join("123456"));

        let error = |id: &str| {
            let p = read.players.iter().find(|p| p.id == id).unwrap();
            p.player.as_ref().unwrap_err().to_string()
        };
        assert!(error("111111").contains("info.txt"), "{}", error("111111"));
        assert!(error("222222").contains("Kowalski2"), "{}", error("222222"));
        assert!(
            error("333333").contains("letters only"),
            "{}",
            error("333333")
        );
        assert!(error("444444").contains("command"), "{}", error("444444"));

        assert_eq!(
            read.ignored,
            [
                "ignored folder `1234567`: a player folder's name is a six-digit student number",
                "ignored folder `12345`: a player folder's name is a six-digit student number",
                "ignored folder `example_players`: a player folder's name is a six-digit student \
                 number",
            ]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_missing_players_folder_is_an_error() {
        let err = read_players_folder(Path::new("/no/such/players")).unwrap_err();
        assert!(err.to_string().contains("/no/such/players"), "{err}");
    }

    #[test]
    fn album_numbers_are_six_ascii_digits() {
        assert!(is_album_number("024680"));
        assert!(!is_album_number("02468"));
        assert!(!is_album_number("0246801"));
        assert!(!is_album_number("02468a"));
        assert!(
            !is_album_number("٠١٢٣٤٥"),
            "Arabic-Indic digits are not \\d in Java"
        );
    }
}
