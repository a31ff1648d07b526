//! Player folders, the one reader of them: `arbiter play` (a folder given as a bot), tournaments
//! and anything else that reads `info.txt` come here.
//!
//! A player folder holds an `info.txt` of three lines, as the Polish Domino judge ("Sędzia")
//! reads them (docs/games/domino.md): the alias (the player's name), the full name (shown, never
//! checked: the judge's letters-only rule would refuse names such as `C++ starter` that
//! tournaments take), and the command, run inside the folder: as written, or as the Windows
//! judge rewrote it ([`Commands`], by default the judge's way for six-digit folders).
//! A byte-order mark, `\r\n` line ends and spaces around each line are allowed. Lines after the
//! third are not read; a file larger than [`MAX_INFO_TXT`] is refused, so that a player folder
//! cannot fill the organiser's memory, terminal or store.
//!
//! A players folder is a folder of player folders: every sub-folder not starting with `.` is
//! one, named by its id (a student number at the judge's contests, though any name is taken),
//! sorted by id; plain files are skipped. A sub-folder without `info.txt`, or with a bad one, is
//! an entry with its error, so that it can be reported without stopping the others.

use std::path::{Path, PathBuf};

use crate::SeatError;
use crate::judge::{Commands, judge_argv};
use crate::process::split_command;
use crate::spec::SeatSpec;

/// The file in a player folder that says who the player is and how to run it.
pub const INFO_TXT: &str = "info.txt";

/// The largest `info.txt` read: three lines of a name, a full name and a command are a few
/// hundred bytes; 64 KiB leaves room for a long class path.
pub const MAX_INFO_TXT: u64 = 64 * 1024;

/// One sub-folder of a players folder.
#[derive(Debug)]
pub struct FolderPlayer {
    /// The folder's name: the player's id.
    pub id: String,
    /// The folder, absolute, so that it is found again from any working directory.
    pub dir: PathBuf,
    /// A [`SeatSpec::Folder`], or why the folder is not a valid player.
    pub player: Result<SeatSpec, SeatError>,
}

/// Reads a player folder's `info.txt` into a [`SeatSpec::Folder`], its command run as
/// `commands` says. `info.txt` must be a regular file of the folder: a link to another player's
/// file or to one only root may read, or a named pipe, is refused unread
/// ([`arbiter_folder::open_file`]).
pub fn read_player_folder(dir: &Path, commands: Commands) -> Result<SeatSpec, SeatError> {
    let path = dir.join(INFO_TXT);
    let file =
        arbiter_folder::open_file(dir, Path::new(INFO_TXT)).map_err(|refused| {
            match refused.why {
                arbiter_folder::Refusal::Missing => SeatError::NoInfoTxt {
                    dir: dir.to_owned(),
                },
                _ => SeatError::Refused {
                    dir: dir.to_owned(),
                    refused,
                },
            }
        })?;
    let text = arbiter_text::read_to_string_capped_from(file, MAX_INFO_TXT).map_err(|error| {
        SeatError::InfoTxt {
            path: path.clone(),
            error,
        }
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let [alias, full_name, command, ..] = lines[..] else {
        return Err(SeatError::ShortInfoTxt {
            path,
            found: lines.len(),
        });
    };
    for (line, what) in [(alias, "alias"), (command, "command")] {
        if line.is_empty() {
            return Err(SeatError::EmptyInfoLine { path, what });
        }
    }
    if !commands.judge_for(dir) {
        return Ok(SeatSpec::Folder {
            dir: dir.to_owned(),
            alias: alias.into(),
            full_name: full_name.into(),
            command: command.into(),
            argv: split_command(command)?,
        });
    }
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    let argv = judge_argv(&dir, &path, command)?;
    // The command as it runs, written so that splitting it gives `argv` back: tournaments
    // store it, and workers run it.
    let command =
        shlex::try_join(argv.iter().map(String::as_str)).map_err(|_| SeatError::BadQuoting {
            line: command.into(),
        })?;
    Ok(SeatSpec::Folder {
        dir,
        alias: alias.into(),
        full_name: full_name.into(),
        command,
        argv,
    })
}

/// One sub-folder `dir` of a players folder, under the id `id`.
pub fn folder_player(id: &str, dir: &Path, commands: Commands) -> FolderPlayer {
    // Absolute, so a resumed tournament finds the folder from any working directory.
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    FolderPlayer {
        id: id.to_owned(),
        player: read_player_folder(&dir, commands),
        dir,
    }
}

/// Every player folder of `dir` (see the module docs), sorted by id. Fails only if `dir` cannot
/// be listed; a bad player folder is an entry with its error, and so is a link in `dir` (what
/// an unpacked archive put there may lead anywhere).
pub fn read_players_folder(dir: &Path, commands: Commands) -> Result<Vec<FolderPlayer>, SeatError> {
    let cannot_list = |error| SeatError::PlayersFolder {
        dir: dir.to_owned(),
        error,
    };
    let mut players = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(cannot_list)? {
        let entry = entry.map_err(cannot_list)?;
        let path = entry.path();
        let id = entry.file_name().to_string_lossy().into_owned();
        if id.starts_with('.') {
            continue;
        }
        let kind = entry.file_type().map_err(cannot_list)?;
        if kind.is_symlink() && path.is_dir() {
            players.push(FolderPlayer {
                id,
                player: Err(SeatError::LinkedFolder { path: path.clone() }),
                dir: path,
            });
            continue;
        }
        if kind.is_dir() {
            players.push(folder_player(&id, &path, commands));
        }
    }
    players.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(players)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        arbiter_testdir::fresh(&format!("folders-{name}"))
    }

    fn folder(root: &Path, name: &str, info: Option<&str>) {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        if let Some(info) = info {
            std::fs::write(dir.join(INFO_TXT), info).unwrap();
        }
    }

    /// The folders of the judge's example, and everything the judge refuses.
    fn the_judges_players(root: &Path, jar: &str) {
        let info = format!("gracz1\nStanislaw Poniatowski\n{jar}\n");
        folder(root, "123456", Some(&info));
        let info = "gracz2\r\nAugust Stanowicz\r\n./bot --fast\r\n";
        folder(root, "024680", Some(info));
        let info = "\u{feff}gracz3\nŁukasz Żółć junior\npython3 bot.py\n";
        folder(root, "343434", Some(info));
        folder(root, "111111", None);
        folder(root, "222222", Some("alias\nJan Kowalski2\n./bot\n"));
        folder(root, "333333", Some("alias\nJan\n./bot\n"));
        folder(root, "444444", Some("alias\nJan Kowalski\n   \n"));
        folder(root, "555555", Some("alias\n"));
        folder(
            root,
            "666666",
            Some("alias\nJan Kowalski\npython3 'bot.py\n"),
        );
        folder(root, "bot-of-mine", Some("mine\nAda Lovelace\n./bot\n"));
        folder(root, ".git", None);
        std::fs::write(root.join("777777"), "a file, not a folder").unwrap();
    }

    #[test]
    fn the_judges_example_players_as_written_and_everything_it_refuses() {
        let root = temp_dir("judge");
        let jar = "java -jar \".\\example_players\\123456\\ProxyPlayer.jar\"";
        the_judges_players(&root, jar);
        let read = read_players_folder(&root, Commands::AsWritten).unwrap();
        let ids: Vec<&str> = read.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "024680",
                "111111",
                "123456",
                "222222",
                "333333",
                "343434",
                "444444",
                "555555",
                "666666",
                "bot-of-mine"
            ]
        );
        let valid: Vec<(&str, String)> = read
            .iter()
            .filter_map(|p| Some((p.id.as_str(), p.player.as_ref().ok()?.name())))
            .collect();
        assert_eq!(
            valid,
            [
                ("024680", "gracz2".to_owned()),
                ("123456", "gracz1".to_owned()),
                ("222222", "alias".to_owned()),
                ("333333", "alias".to_owned()),
                ("343434", "gracz3".to_owned()),
                ("bot-of-mine", "mine".to_owned()),
            ]
        );
        // The command is kept as written: no rewriting of Windows paths or of `.jar`.
        let SeatSpec::Folder {
            command, argv, dir, ..
        } = read[2].player.as_ref().unwrap()
        else {
            panic!()
        };
        assert_eq!(command, jar);
        assert_eq!(argv[2], ".\\example_players\\123456\\ProxyPlayer.jar");
        assert_eq!(dir, &root.join("123456"));

        let error = |id: &str| {
            let p = read.iter().find(|p| p.id == id).unwrap();
            p.player.as_ref().unwrap_err().to_string()
        };
        let no_info = format!("no info.txt in {}", root.join("111111").display());
        assert_eq!(error("111111"), no_info);
        assert!(error("444444").contains("command"), "{}", error("444444"));
        assert!(error("555555").contains("found 1"), "{}", error("555555"));
        assert!(error("666666").contains("'bot.py"), "{}", error("666666"));
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// The command `argv` runs, or its error, of the player folder `id` of `read`.
    fn argv_of(read: &[FolderPlayer], id: &str) -> Result<Vec<String>, String> {
        let p = read.iter().find(|p| p.id == id).unwrap();
        match &p.player {
            Ok(SeatSpec::Folder { argv, command, .. }) => {
                assert_eq!(&split_command(command).unwrap(), argv, "stored as it runs");
                Ok(argv.clone())
            }
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn six_digit_folders_run_their_commands_as_the_judge_rewrote_them() {
        let root = temp_dir("judge-way").join("example_players");
        let jar = "java -jar \".\\example_players\\123456\\ProxyPlayer.jar\"";
        the_judges_players(&root, jar);
        std::fs::write(root.join("123456/ProxyPlayer.jar"), "PK").unwrap();
        std::fs::write(root.join("343434/bot.py"), "print('ok')").unwrap();
        let more = [
            ("100001", "NiceProgram.exe", Some(&b"MZ\x90\x00"[..])),
            ("100002", "Bot.jar", None),
            (
                "100003",
                "java -jar .\\example_players\\123456\\ProxyPlayer.jar",
                None,
            ),
            ("100004", "run.exe", Some(&b"#!/bin/sh\n"[..])),
            ("100005", "C:\\bots\\bot.exe", None),
            ("100006", "../100004/run.exe", None),
        ];
        for (id, command, file) in more {
            folder(&root, id, Some(&format!("a\nB C\n{command}\n")));
            if let Some(bytes) = file {
                std::fs::write(root.join(id).join(command), bytes).unwrap();
            }
        }
        let read = read_players_folder(&root, Commands::Auto).unwrap();
        let words = |w: &[&str]| -> Result<Vec<String>, String> {
            Ok(w.iter().map(|s| s.to_string()).collect())
        };
        assert_eq!(
            argv_of(&read, "123456"),
            words(&["java", "-jar", "./ProxyPlayer.jar"])
        );
        assert_eq!(argv_of(&read, "024680"), words(&["./bot", "--fast"]));
        assert_eq!(argv_of(&read, "343434"), words(&["python3", "./bot.py"]));
        assert_eq!(argv_of(&read, "100004"), words(&["./run.exe"]));
        assert_eq!(argv_of(&read, "bot-of-mine"), words(&["./bot"]));
        let error = |id: &str| argv_of(&read, id).unwrap_err();
        assert!(
            error("100001").contains("NiceProgram.exe is a Windows program"),
            "{}",
            error("100001")
        );
        assert!(
            error("100002").contains("Bot.jar is not in the player folder"),
            "{}",
            error("100002")
        );
        assert!(
            error("100003").contains("outside the player folder"),
            "{}",
            error("100003")
        );
        assert!(
            error("100005").contains("Windows drive"),
            "{}",
            error("100005")
        );
        // Another player's program, named from this folder.
        assert!(
            error("100006").contains("outside the player folder"),
            "{}",
            error("100006")
        );
        std::fs::remove_dir_all(root.parent().unwrap()).unwrap();
    }

    #[test]
    fn an_info_txt_larger_than_its_limit_is_refused_without_reading_it_all() {
        let root = temp_dir("huge");
        let command = "x".repeat(10 * 1024 * 1024);
        folder(&root, "huge", Some(&format!("alias\nname\n{command}\n")));
        let error = read_player_folder(&root.join("huge"), Commands::Auto)
            .unwrap_err()
            .to_string();
        assert!(error.ends_with("the file is larger than 64 KiB"), "{error}");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_long_command_is_quoted_by_its_beginning() {
        let root = temp_dir("long-command");
        let command = format!("'{}", "y".repeat(60_000));
        folder(&root, "long", Some(&format!("alias\nname\n{command}\n")));
        let error = read_player_folder(&root.join("long"), Commands::Judge)
            .unwrap_err()
            .to_string();
        assert!(error.len() < 500, "{} bytes: {error:.300}", error.len());
        assert!(error.contains("(60001 bytes)"), "{error:.300}");
        std::fs::remove_dir_all(&root).unwrap();
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        // An info.txt is written by whoever hands in a player folder: any bytes are a player or
        // an error, and what an error says is bounded whatever the file holds.
        #[test]
        fn any_info_txt_is_a_player_or_a_short_error(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..70_000),
            lines in proptest::collection::vec("[^\n]{0,3000}", 0..5),
            text in proptest::prelude::any::<bool>(),
        ) {
            let root = temp_dir("any");
            let dir = root.join("player");
            std::fs::create_dir_all(&dir).unwrap();
            let content = if text { lines.join("\n").into_bytes() } else { bytes };
            std::fs::write(dir.join(INFO_TXT), &content).unwrap();
            let commands = if text { Commands::Judge } else { Commands::AsWritten };
            match read_player_folder(&dir, commands) {
                Ok(spec) => proptest::prop_assert!(!spec.name().is_empty()),
                Err(error) => {
                    let message = error.to_string();
                    proptest::prop_assert!(message.len() < 2000, "{} bytes", message.len());
                }
            }
            std::fs::remove_dir_all(&root).unwrap();
        }
    }

    #[test]
    fn an_info_txt_read_through_a_link_out_of_its_folder_or_a_pipe_is_refused_unread() {
        use std::os::unix::fs::symlink;
        let root = temp_dir("links");
        folder(&root, "victim", Some("victim\nV Ictim\n./secret-command\n"));
        folder(&root, "sibling", None);
        symlink("../victim/info.txt", root.join("sibling/info.txt")).unwrap();
        folder(&root, "absolute", None);
        symlink(root.join("victim/info.txt"), root.join("absolute/info.txt")).unwrap();
        folder(&root, "pipe", None);
        let fifo = std::ffi::CString::new(root.join("pipe/info.txt").to_str().unwrap()).unwrap();
        // SAFETY: `fifo` is a valid C string.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        folder(&root, "inside", None);
        std::fs::create_dir(root.join("inside/conf")).unwrap();
        std::fs::write(root.join("inside/conf/me.txt"), "me\nM E\n./bot\n").unwrap();
        symlink("conf/me.txt", root.join("inside/info.txt")).unwrap();
        symlink("victim", root.join("linked")).unwrap();
        let read = read_players_folder(&root, Commands::AsWritten).unwrap();
        let error = |id: &str| {
            let p = read.iter().find(|p| p.id == id).unwrap();
            p.player.as_ref().unwrap_err().to_string()
        };
        for id in ["sibling", "absolute", "pipe", "linked"] {
            assert!(!error(id).contains("secret-command"), "{}", error(id));
        }
        assert!(
            error("sibling")
                .ends_with("info.txt is a link to outside its folder, which is not followed"),
            "{}",
            error("sibling")
        );
        assert!(
            error("absolute").contains("outside its folder"),
            "{}",
            error("absolute")
        );
        assert!(
            error("pipe").ends_with("info.txt is a named pipe, not a regular file"),
            "{}",
            error("pipe")
        );
        assert!(
            error("linked").contains("linked is a link"),
            "{}",
            error("linked")
        );
        let inside = read.iter().find(|p| p.id == "inside").unwrap();
        assert_eq!(inside.player.as_ref().unwrap().name(), "me");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_judges_program_behind_a_link_out_of_the_folder_is_refused_unread() {
        use std::os::unix::fs::symlink;
        let root = temp_dir("judge-links");
        folder(&root, "100001", Some("a\nB C\nBot.exe\n"));
        std::fs::write(root.join("100001/real.exe"), "MZ").unwrap();
        folder(&root, "100002", Some("a\nB C\nBot.exe\n"));
        symlink("../100001/real.exe", root.join("100002/Bot.exe")).unwrap();
        symlink("real.exe", root.join("100001/Bot.exe")).unwrap();
        let read = read_players_folder(&root, Commands::Judge).unwrap();
        assert!(
            argv_of(&read, "100001")
                .unwrap_err()
                .contains("is a Windows program")
        );
        let error = argv_of(&read, "100002").unwrap_err();
        assert!(
            error.contains("Bot.exe is a link to outside its folder"),
            "{error}"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_missing_players_folder_is_an_error() {
        let err = read_players_folder(Path::new("/no/such/players"), Commands::Auto).unwrap_err();
        assert!(err.to_string().contains("/no/such/players"), "{err}");
    }

    #[test]
    fn a_relative_folder_is_made_absolute() {
        let player = folder_player("x", Path::new("no-such-folder-here"), Commands::Auto);
        assert!(player.dir.is_absolute());
        assert!(matches!(player.player, Err(SeatError::NoInfoTxt { .. })));
    }
}
