//! What was handed in, laid out as a player folder to build: one source file with the
//! `info.txt` of its language, or an archive of a player folder unpacked.

use std::path::{Path, PathBuf};

use arbiter_referee::INFO_TXT;

use crate::upload::{UploadError, UploadKind, unpack_upload};
use crate::{BUILD_SH, BuildError, BuildLimits, FOLDER_LANGUAGE, Languages, Source};

/// The longest name of a source file handed in.
const MAX_FILE_NAME: usize = 100;

/// A player folder laid out, before its build.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The language's name, or [`FOLDER_LANGUAGE`].
    pub(crate) language: String,
    /// How it is built, if it is.
    pub(crate) build: Option<BuildStep>,
    /// The `info.txt` to write once built (a source file's); an archive brings its own.
    pub(crate) info: Option<String>,
    /// The toolchain folders the sandbox shows the build and the bot.
    pub(crate) toolchains: Vec<PathBuf>,
}

/// A build command, and the program it starts as the reason of a failure names it (`g++`).
#[derive(Debug)]
pub(crate) struct BuildStep {
    pub(crate) command: String,
    pub(crate) program: String,
}

/// Lays `source` out in the empty folder `dir`: the plan of its build, or why it cannot be
/// built (the version's fault).
pub(crate) fn lay_out(
    source: Source<'_>,
    languages: &Languages,
    limits: &BuildLimits,
    dir: &Path,
) -> Result<Result<Plan, String>, BuildError> {
    match source {
        Source::File { name, bytes } => lay_out_file(name, bytes, languages, dir),
        Source::Archive { name, bytes } => unpack(name, bytes, languages, limits, dir),
    }
}

fn lay_out_file(
    name: &str,
    bytes: &[u8],
    languages: &Languages,
    dir: &Path,
) -> Result<Result<Plan, String>, BuildError> {
    if let Err(why) = check_file_name(name) {
        return Ok(Err(why));
    }
    let Some(language) = languages.for_file_name(name) else {
        return Ok(Err(no_language(name, languages)));
    };
    let file = dir.join(name);
    std::fs::write(&file, bytes).map_err(BuildError::io("writing", &file))?;
    let build = language.build_command(name).map(|command| BuildStep {
        program: program_of(&command),
        command,
    });
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    let info = format!(
        "{stem}\n{stem} ({})\n{}\n",
        language.name,
        language.run_command(name)
    );
    Ok(Ok(Plan {
        language: language.name.clone(),
        build,
        info: Some(info),
        toolchains: language.toolchains.clone(),
    }))
}

/// A source file's name becomes a file of the folder and a word of its commands: plain
/// letters, digits and `._+-`, not starting with a dot or a dash.
fn check_file_name(name: &str) -> Result<(), String> {
    let plain = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-'));
    let shown = arbiter_text::prefix(name, MAX_FILE_NAME);
    if name.is_empty() || name.len() > MAX_FILE_NAME {
        return Err(format!(
            "the file name {shown:?} must be 1 to {MAX_FILE_NAME} characters long"
        ));
    }
    if !plain || name.starts_with(['.', '-']) || name == INFO_TXT || name == BUILD_SH {
        return Err(format!(
            "the file name {shown:?} must be letters, digits, `.`, `_`, `+` and `-`, not \
             starting with `.` or `-` (rename the file, e.g. bot.cpp)"
        ));
    }
    Ok(())
}

fn no_language(name: &str, languages: &Languages) -> String {
    let offered: Vec<String> = languages
        .iter()
        .map(|l| {
            let extensions: Vec<String> = l.extensions.iter().map(|e| format!(".{e}")).collect();
            format!("{} ({})", l.name, extensions.join(" "))
        })
        .collect();
    let what = match name.rsplit_once('.') {
        Some((_, extension)) => format!("the extension .{extension}"),
        None => "a file without an extension".to_owned(),
    };
    format!(
        "no language of this arena has {what}; the languages are: {}; or hand in an archive \
         (.zip, .tar.gz) of a player folder with its info.txt",
        offered.join(", ")
    )
}

fn unpack(
    name: &str,
    bytes: &[u8],
    languages: &Languages,
    limits: &BuildLimits,
    dir: &Path,
) -> Result<Result<Plan, String>, BuildError> {
    let Some(kind) = UploadKind::of_name(name) else {
        let shown = arbiter_text::prefix(name, MAX_FILE_NAME);
        return Ok(Err(format!(
            "{shown:?} is not an archive Arbiter reads: a .zip, .tar.gz or .tgz file"
        )));
    };
    match unpack_upload(kind, bytes, dir, &limits.archive) {
        Ok(_) => {}
        // The machine's fault (a full disk), not the archive's.
        Err(UploadError::Write { path, source }) => {
            return Err(BuildError::Io {
                what: "unpacking the archive into",
                path,
                source,
            });
        }
        Err(why) => return Ok(Err(format!("the archive cannot be unpacked: {why}"))),
    }
    let build = match arbiter_folder::kind_of(dir, Path::new(BUILD_SH)) {
        Ok(arbiter_folder::Kind::File) => Some(BuildStep {
            command: format!("sh {BUILD_SH}"),
            program: BUILD_SH.to_owned(),
        }),
        Ok(other) => {
            return Ok(Err(format!(
                "{BUILD_SH} is {}, not a file",
                other.describe()
            )));
        }
        Err(_) => None,
    };
    Ok(Ok(Plan {
        language: FOLDER_LANGUAGE.to_owned(),
        build,
        info: None,
        toolchains: languages.all_toolchains(),
    }))
}

/// The program a build command starts with, as a failure names it (`g++`): its first word
/// that does not set a variable.
fn program_of(command: &str) -> String {
    let words = shlex::split(command).unwrap_or_default();
    let program = words
        .iter()
        .find(|w| !is_assignment(w))
        .map_or("the build command", String::as_str);
    program.rsplit('/').next().unwrap_or(program).to_owned()
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_names_the_program_the_build_command_starts() {
        assert_eq!(program_of("g++ -std=c++17 -O2 -o bot a.cpp"), "g++");
        assert_eq!(
            program_of("GOCACHE=/tmp/c GOPATH=/tmp/go go build -o bot a.go"),
            "go"
        );
        assert_eq!(program_of("/usr/bin/javac A.java"), "javac");
    }

    #[test]
    fn a_source_file_name_must_be_plain() {
        for good in ["bot.cpp", "My_Bot-2.c++.cpp", "a.py"] {
            assert!(check_file_name(good).is_ok(), "{good}");
        }
        for bad in [
            "", ".bot.cpp", "-o.cpp", "a b.cpp", "../x.cpp", "a/b.cpp", "x;rm.cpp", "info.txt",
        ] {
            assert!(check_file_name(bad).is_err(), "{bad}");
        }
        assert!(check_file_name(&"a".repeat(101)).is_err());
    }

    #[test]
    fn an_unknown_extension_lists_the_languages() {
        let why = no_language("bot.kt", &Languages::defaults());
        assert!(
            why.contains(".kt") && why.contains("c++ (.cpp .cc .cxx)"),
            "{why}"
        );
    }
}
