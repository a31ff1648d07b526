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
        return windows_words(command)
            .into_iter()
            .map(|word| match word.contains('\\') {
                true => inside(dir, &word).map_err(refuse),
                false => Ok(word),
            })
            .collect();
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
    split_command(command)
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
}
