//! Player-folder commands as the course's Windows Domino judge ran them (docs/games/domino.md),
//! so that a course's player folders run unchanged.
//!
//! The judge ran every command from its own folder, the one holding the players folder, after
//! rewriting it: a command holding `\` was taken as a path already and kept; otherwise one naming a
//! `.jar` ran `java -jar "<player folder>\NAME.jar"`, one naming a `.exe` ran
//! `"<player folder>\<command>"`, one naming a `.py` ran `python "<player folder>\NAME.py"`, where
//! `NAME` is the first word before the extension; anything else was kept. Here the program runs
//! inside its player folder, so each path is resolved as the judge resolved it and made relative
//! to that folder; a path outside it, a missing file and a Windows program are refused with what
//! is wrong.

use std::path::{Component, Path, PathBuf};
use std::str::FromStr;

use arbiter_folder::{Kind, Refusal, Refused};
use arbiter_text::quote;

use crate::SeatError;
use crate::process::split_command;

/// How the command line of a player folder's `info.txt` is run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Commands {
    /// The judge's way for a folder named by six digits (a student number, as the judge's
    /// players folders are), as written for any other.
    #[default]
    Auto,
    /// As written: split as a POSIX shell would, run inside the folder.
    AsWritten,
    /// As the course's judge rewrote them (the module docs).
    Judge,
}

impl FromStr for Commands {
    type Err = String;

    fn from_str(s: &str) -> Result<Commands, String> {
        match s {
            "auto" => Ok(Commands::Auto),
            "as-written" => Ok(Commands::AsWritten),
            "judge" => Ok(Commands::Judge),
            _ => Err(format!("`{s}` is not auto, as-written or judge")),
        }
    }
}

impl Commands {
    /// Whether the folder `dir` runs its command the judge's way.
    pub fn judge_for(self, dir: &Path) -> bool {
        match self {
            Commands::Auto => dir.file_name().is_some_and(|name| {
                let name = name.to_string_lossy();
                name.len() == 6 && name.bytes().all(|b| b.is_ascii_digit())
            }),
            Commands::AsWritten => false,
            Commands::Judge => true,
        }
    }
}

/// The program and arguments of `command`, the command line of the `info.txt` at `info`, run
/// inside its folder `dir` (absolute) as the judge ran it.
pub fn judge_argv(dir: &Path, info: &Path, command: &str) -> Result<Vec<String>, SeatError> {
    let refuse = |problem: String| SeatError::JudgeCommand {
        path: info.to_owned(),
        command: command.to_owned(),
        problem,
    };
    if command.contains('\\') {
        let words = windows_words(command);
        let argv = words
            .iter()
            .map(|word| match word.contains('\\') {
                true => inside(dir, word).map_err(refuse),
                false => Ok(word.clone()),
            })
            .collect::<Result<Vec<String>, _>>()?;
        return match (words.first(), argv.first()) {
            (Some(written), Some(program)) => {
                a_program(dir, written, program).map_err(refuse)?;
                Ok(argv)
            }
            _ => Err(refuse("it names no program".into())),
        };
    }
    // The judge looked for the extensions as written, case and all.
    if command.contains(".jar") {
        let jar = word_before(command, ".jar").ok_or_else(|| refuse(no_name(".jar")))?;
        return Ok(vec![
            "java".into(),
            "-jar".into(),
            present(dir, jar).map_err(refuse)?,
        ]);
    }
    if command.contains(".exe") {
        let program = present(dir, command).map_err(refuse)?;
        return match is_windows_program(dir, command) {
            true => Err(refuse(format!(
                "{} is a Windows program, which cannot run here",
                quote(command)
            ))),
            false => Ok(vec![program]),
        };
    }
    if command.contains(".py") {
        let script = word_before(command, ".py").ok_or_else(|| refuse(no_name(".py")))?;
        return Ok(vec![
            "python3".into(),
            present(dir, script).map_err(refuse)?,
        ]);
    }
    let argv = split_command(command)?;
    if let Some(program) = argv.first() {
        a_program(dir, program, program).map_err(refuse)?;
    }
    Ok(argv)
}

fn no_name(extension: &str) -> String {
    format!("no program name stands right before {extension}")
}

/// `name`, a regular file of the folder `dir` (through no link out of it), as a path from
/// inside it; why not if it is not there.
fn present(dir: &Path, name: &str) -> Result<String, String> {
    let within = within(dir, &dir.join(name), name)?;
    match arbiter_folder::kind_of(dir, &within) {
        Ok(Kind::File) => Ok(format!("./{}", within.display())),
        Ok(_)
        | Err(Refused {
            why: Refusal::Missing,
            ..
        }) => Err(format!(
            "{} is not in the player folder {}",
            quote(name),
            dir.display()
        )),
        Err(refused) => Err(refused.to_string()),
    }
}

/// The judge's path `word` (with `\`), from the judge's folder (the one holding the players
/// folder), as a path from inside the player folder `dir`.
fn inside(dir: &Path, word: &str) -> Result<String, String> {
    let word = word.replace('\\', "/");
    if word.as_bytes().get(1) == Some(&b':') {
        return Err(format!("{} is a path on a Windows drive", quote(&word)));
    }
    let judge_dir = dir
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("/"));
    let within = within(dir, &judge_dir.join(&word), &word)?;
    match arbiter_folder::kind_of(dir, &within) {
        Ok(_) => Ok(format!("./{}", within.display())),
        Err(Refused {
            why: Refusal::Missing,
            ..
        }) => Err(format!("{} is not there", quote(&word))),
        Err(refused) => Err(refused.to_string()),
    }
}

/// Checks that `program`, the first word of the command (`written` as the command has it),
/// can be a program: a path to a folder of the player folder `dir` is not one, and running it
/// would only say that `./` cannot start.
fn a_program(dir: &Path, written: &str, program: &str) -> Result<(), String> {
    if written.is_empty() {
        return Err("its first word, the program, is empty".into());
    }
    if !program.contains('/') || !dir.join(program).is_dir() {
        return Ok(());
    }
    let folder = match program.trim_start_matches("./").trim_end_matches('/') {
        "" | "." => "the player folder itself".to_string(),
        within => format!("the folder `{}` of the player folder", quote(within)),
    };
    Err(format!(
        "`{}` is {folder}, not a program: the command must start with the program to run, \
         a file in the player folder",
        quote(written)
    ))
}

/// `path` (named `name` in the command) from inside `dir`, or why it is not inside.
fn within(dir: &Path, path: &Path, name: &str) -> Result<PathBuf, String> {
    match normal(path).strip_prefix(dir) {
        Ok(within) => Ok(within.to_owned()),
        Err(_) => Err(format!(
            "{} is outside the player folder {}: a player runs its own files only",
            quote(name),
            dir.display()
        )),
    }
}

/// `path` with `.` and `..` taken out, without asking the file system.
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The words of a Windows command line: blanks part them, double quotes hold blanks in, and a
/// backslash is a path separator.
fn windows_words(command: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut started) = (Vec::new(), String::new(), false, false);
    for c in command.chars() {
        match c {
            '"' => (quoted, started) = (!quoted, true),
            c if c.is_whitespace() && !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// The judge's name of the program: the first match of `\b\w*<extension>` in `command` (ASCII
/// word characters), as its regular expression found it.
fn word_before<'a>(command: &'a str, extension: &str) -> Option<&'a str> {
    let bytes = command.as_bytes();
    let word = |i: usize| {
        bytes
            .get(i)
            .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
    };
    let boundary = |i: usize| (i > 0 && word(i - 1)) != word(i);
    (0..=bytes.len())
        .filter(|&i| boundary(i))
        .find_map(|start| {
            let end = (start..bytes.len())
                .find(|&i| !word(i))
                .unwrap_or(bytes.len());
            let rest = command.get(end..)?;
            rest.starts_with(extension)
                .then(|| command.get(start..end + extension.len()))
                .flatten()
        })
}

/// Whether the file `name` of the folder `dir` is a Windows program (it starts with `MZ`).
fn is_windows_program(dir: &Path, name: &str) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 2];
    arbiter_folder::open_file(dir, Path::new(name))
        .is_ok_and(|mut f| f.read_exact(&mut magic).is_ok() && &magic == b"MZ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_words_keep_quoted_blanks_and_backslashes() {
        assert_eq!(
            windows_words(r#"java -jar ".\example players\024680\P.jar"  -x"#),
            ["java", "-jar", r".\example players\024680\P.jar", "-x"]
        );
        assert_eq!(windows_words(r#"a "" b"#), ["a", "", "b"]);
    }

    #[test]
    fn the_program_name_is_the_word_right_before_the_extension() {
        assert_eq!(word_before("java -jar Bot.jar", ".jar"), Some("Bot.jar"));
        assert_eq!(
            word_before("java -jar my-bot.jar x", ".jar"),
            Some("bot.jar")
        );
        assert_eq!(
            word_before("python bot_2.py --fast", ".py"),
            Some("bot_2.py")
        );
        assert_eq!(word_before("run -.jar", ".jar"), None);
    }

    #[test]
    fn six_digit_folders_are_the_judges() {
        assert!(Commands::Auto.judge_for(Path::new("/p/024680")));
        assert!(!Commands::Auto.judge_for(Path::new("/p/02468")));
        assert!(!Commands::Auto.judge_for(Path::new("/p/bot-1")));
        assert!(Commands::Judge.judge_for(Path::new("/p/bot-1")));
        assert!(!Commands::AsWritten.judge_for(Path::new("/p/024680")));
        assert_eq!("as-written".parse(), Ok(Commands::AsWritten));
        assert!("windows".parse::<Commands>().is_err());
    }

    /// A player folder `players/100016` under a fresh judge's folder, with a `bin` folder and
    /// a program `bot` in it; the player folder's path.
    fn player_folder(name: &str) -> PathBuf {
        let root =
            std::env::temp_dir().join(format!("arbiter-judge-{}-{name}", std::process::id()));
        let dir = root.join("players").join("100016");
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::write(dir.join("bot"), "#!/bin/sh\n").unwrap();
        dir
    }

    fn argv(dir: &Path, command: &str) -> Result<Vec<String>, String> {
        judge_argv(dir, &dir.join("info.txt"), command).map_err(|e| e.to_string())
    }

    #[test]
    fn a_command_naming_a_folder_says_so_with_the_line_and_the_info_txt() {
        let dir = player_folder("folder");
        let info = dir.join("info.txt");
        assert_eq!(
            argv(&dir, r"players\100016\").unwrap_err(),
            format!(
                r"{}: the command `players\100016\`, run as the course's judge ran it, cannot run here: `players\100016\` is the player folder itself, not a program: the command must start with the program to run, a file in the player folder",
                info.display()
            )
        );
        for command in [r"players\100016", r".\players\100016\.", "./"] {
            let error = argv(&dir, command);
            assert!(
                error
                    .as_ref()
                    .is_err_and(|e| e.contains("is the player folder itself, not a program")),
                "{command}: {error:?}"
            );
        }
        let error = argv(&dir, r"players\100016\bin arg").unwrap_err();
        assert!(
            error.contains(
                r"`players\100016\bin` is the folder `bin` of the player folder, not a program"
            ),
            "{error}"
        );
        let error = argv(&dir, r#""" players\100016\bot"#).unwrap_err();
        assert!(
            error.ends_with("its first word, the program, is empty"),
            "{error}"
        );
        // A folder is fine as an argument, and a program in the folder as the program.
        assert_eq!(
            argv(&dir, r"java -cp players\100016\ Main").unwrap(),
            ["java", "-cp", "./", "Main"]
        );
        assert_eq!(
            argv(&dir, r"players\100016\bot --fast").unwrap(),
            ["./bot", "--fast"]
        );
        std::fs::remove_dir_all(dir.parent().unwrap().parent().unwrap()).unwrap();
    }

    /// Commands of a hostile info.txt, each refused with what is wrong.
    #[test]
    fn hostile_judge_commands_stay_refused() {
        let dir = player_folder("hostile");
        for (command, says) in [
            (r"..\..\etc\passwd", "outside the player folder"),
            (r"players\100016\..\100017\bot", "outside the player folder"),
            (
                r"players\100016\..\..\..\bin\sh",
                "outside the player folder",
            ),
            (r"\bin\sh", "outside the player folder"),
            (r"\\server\share\bot.exe", "outside the player folder"),
            (r"C:\bots\bot.exe", "Windows drive"),
            (r"players\100016\missing", "is not there"),
            (
                r"java -jar players\100017\P.jar",
                "outside the player folder",
            ),
            ("../100017/bot.exe", "outside the player folder"),
            ("/bin/sh.exe", "outside the player folder"),
            ("java -jar ../x.jar", "x.jar is not in the player folder"),
            ("python3 ../../x.py", "x.py is not in the player folder"),
            (r"players\100016\", "not a program"),
        ] {
            let error = argv(&dir, command);
            assert!(
                error.as_ref().is_err_and(|e| e.contains(says)),
                "{command}: {error:?}"
            );
        }
        std::fs::remove_dir_all(dir.parent().unwrap().parent().unwrap()).unwrap();
    }
}
