//! What a player is, as given on the command line: `builtin:NAME`, a player folder, or a
//! command line.

use std::path::{Path, PathBuf};

use arbiter_games::{Robot, Wire};
use arbiter_sandbox::Sandbox;

use crate::SeatError;
use crate::builtin::BuiltinSeat;
use crate::folders::{INFO_TXT, read_player_folder};
use crate::judge::Commands;
use crate::process::{ProcessSeat, split_command};
use crate::seat::Seat;

#[derive(Clone, Debug, PartialEq, Eq)]
/// A seat as the command line names it, before it is opened.
pub enum SeatSpec {
    /// `builtin:NAME`: a robot of the game, in process.
    #[allow(missing_docs)] // the fields' names say what they hold
    Builtin { name: String },
    /// A folder holding `info.txt`: three lines, the alias (the player's name), the full name,
    /// and the command, run inside the folder.
    #[allow(missing_docs)] // the fields' names say what they hold
    Folder {
        dir: PathBuf,
        alias: String,
        full_name: String,
        command: String,
        argv: Vec<String>,
    },
    /// Any other argument: a command line, split as a shell would and run without one.
    #[allow(missing_docs)] // the fields' names say what they hold
    Command { line: String, argv: Vec<String> },
}

impl SeatSpec {
    /// Reads a `--bot` argument, a player folder's command run as [`Commands::Auto`] says.
    pub fn parse(arg: &str) -> Result<SeatSpec, SeatError> {
        SeatSpec::parse_with(arg, Commands::Auto)
    }

    /// Reads a `--bot` argument, a player folder's command run as `commands` says.
    pub fn parse_with(arg: &str, commands: Commands) -> Result<SeatSpec, SeatError> {
        if let Some(name) = arg.strip_prefix("builtin:") {
            let name = name.trim();
            if name.is_empty() {
                return Err(SeatError::EmptyRobotName);
            }
            return Ok(SeatSpec::Builtin { name: name.into() });
        }
        let path = Path::new(arg);
        if path.is_dir() {
            return read_player_folder(path, commands);
        }
        if path.file_name().is_some_and(|f| f == INFO_TXT) && path.is_file() {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
            return read_player_folder(dir.unwrap_or(Path::new(".")), commands);
        }
        if arg.trim().is_empty() {
            return Err(SeatError::EmptyCommand);
        }
        Ok(SeatSpec::Command {
            line: arg.to_owned(),
            argv: split_command(arg)?,
        })
    }

    /// The player's name: the robot's name, the folder's alias, or the program's file name (for
    /// an interpreter, the script's).
    pub fn name(&self) -> String {
        match self {
            SeatSpec::Builtin { name } => name.clone(),
            SeatSpec::Folder { alias, .. } => alias.clone(),
            SeatSpec::Command { argv, .. } => program_name(argv),
        }
    }

    /// Starts the program of a folder or command seat, in a jail of `sandbox` if one is given.
    pub fn spawn(&self, sandbox: Option<&Sandbox>) -> Result<ProcessSeat, SeatError> {
        match self {
            SeatSpec::Builtin { name } => Err(SeatError::NotAProcess { name: name.clone() }),
            SeatSpec::Folder {
                dir, alias, argv, ..
            } => ProcessSeat::spawn_in(alias.clone(), argv, Some(dir), sandbox),
            SeatSpec::Command { argv, .. } => {
                ProcessSeat::spawn_in(self.name(), argv, None, sandbox)
            }
        }
    }

    /// Opens the seat: starts the program (in a jail of `sandbox` if one is given), or asks
    /// `robots` for the named robot.
    pub fn open<G: Wire>(
        &self,
        sandbox: Option<&Sandbox>,
        robots: impl FnOnce(&str) -> Option<Box<dyn Robot<G>>>,
    ) -> Result<Box<dyn Seat<G>>, SeatError> {
        match self {
            SeatSpec::Builtin { name } => match robots(name) {
                Some(robot) => Ok(Box::new(BuiltinSeat::new(name.clone(), robot))),
                None => Err(SeatError::UnknownRobot { name: name.clone() }),
            },
            _ => Ok(Box::new(self.spawn(sandbox)?)),
        }
    }
}

const INTERPRETERS: &[&str] = &[
    "python", "python3", "pypy", "pypy3", "node", "deno", "bun", "java", "ruby", "perl", "php",
    "sh", "bash", "dotnet", "mono", "lua", "Rscript", "julia",
];

fn program_name(argv: &[String]) -> String {
    let file_name = |s: &str| {
        Path::new(s)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| s.to_owned())
    };
    let program = file_name(&argv[0]);
    if INTERPRETERS.contains(&program.as_str())
        && let Some(script) = argv[1..].iter().find(|a| !a.starts_with('-'))
    {
        return file_name(script);
    }
    program
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        arbiter_testdir::fresh(&format!("spec-{name}"))
    }

    #[test]
    fn builtin_robots() {
        assert_eq!(
            SeatSpec::parse("builtin:runner").unwrap(),
            SeatSpec::Builtin {
                name: "runner".into()
            }
        );
        assert!(matches!(
            SeatSpec::parse("builtin:"),
            Err(SeatError::EmptyRobotName)
        ));
    }

    #[test]
    fn command_lines_are_split_like_a_shell_does() {
        let spec = SeatSpec::parse("python3 -u 'my bots/bot.py' --level\\ 3").unwrap();
        let SeatSpec::Command { argv, .. } = &spec else {
            panic!("{spec:?}")
        };
        assert_eq!(argv, &["python3", "-u", "my bots/bot.py", "--level 3"]);
        assert_eq!(spec.name(), "bot.py");
        assert_eq!(
            SeatSpec::parse("./target/mybot -v").unwrap().name(),
            "mybot"
        );
        assert!(matches!(
            SeatSpec::parse("   "),
            Err(SeatError::EmptyCommand)
        ));
        let err = SeatSpec::parse("python3 'bot.py").unwrap_err();
        assert!(err.to_string().contains("python3 'bot.py"), "{err}");
    }

    #[test]
    fn player_folders() {
        let dir = temp_dir("folder");
        std::fs::write(
            dir.join("info.txt"),
            "\u{feff}Henro200\r\nHenryk Domaniewski\r\njava -jar TheAmazingProgram.jar\r\n",
        )
        .unwrap();
        let spec = SeatSpec::parse(dir.to_str().unwrap()).unwrap();
        assert_eq!(
            spec,
            SeatSpec::Folder {
                dir: dir.clone(),
                alias: "Henro200".into(),
                full_name: "Henryk Domaniewski".into(),
                command: "java -jar TheAmazingProgram.jar".into(),
                argv: vec!["java".into(), "-jar".into(), "TheAmazingProgram.jar".into()],
            }
        );
        assert_eq!(spec.name(), "Henro200");
        let via_file = SeatSpec::parse(dir.join("info.txt").to_str().unwrap()).unwrap();
        assert_eq!(via_file, spec);

        std::fs::write(dir.join("info.txt"), "Henro200\nHenryk\n").unwrap();
        let err = SeatSpec::parse(dir.to_str().unwrap()).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("info.txt") && message.contains("found 2"),
            "{message}"
        );

        std::fs::remove_file(dir.join("info.txt")).unwrap();
        let err = SeatSpec::parse(dir.to_str().unwrap()).unwrap_err();
        assert!(matches!(err, SeatError::NoInfoTxt { .. }), "{err:?}");
        assert!(err.to_string().contains(dir.to_str().unwrap()), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_program_is_a_clear_error() {
        let spec = SeatSpec::parse("/no/such/program --fast").unwrap();
        let err = spec.spawn(None).err().unwrap();
        assert!(matches!(err, SeatError::NotFound { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            "cannot start `/no/such/program`: program not found"
        );
        let err = SeatSpec::parse("builtin:x")
            .unwrap()
            .spawn(None)
            .err()
            .unwrap();
        assert!(matches!(err, SeatError::NotAProcess { .. }));
    }

    #[test]
    fn a_file_that_is_not_executable_is_a_clear_error() {
        let dir = temp_dir("noexec");
        let script = dir.join("bot.sh");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        let err = SeatSpec::parse(script.to_str().unwrap())
            .unwrap()
            .spawn(None)
            .err()
            .unwrap();
        let message = err.to_string();
        assert!(
            message.contains("bot.sh") && message.contains("ermission denied"),
            "{message}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
