//! Bot source handed in to the arena, made into a program that may play: the table of
//! languages, the build in the sandbox, and the check a new version plays.
//!
//! - [`Languages`]: which language a source file is (by its extension), how it is built and
//!   run, and the toolchain folders the sandbox shows it; defaults, and the operator's file.
//! - [`build`]: a source file laid out as a player folder, or an archive of one unpacked;
//!   built in the sandbox under [`BuildLimits`]; packed as a program
//!   ([`arbiter_programs::pack`]) so that every worker runs the very same bytes.
//! - [`check`]: the built version plays the game's weakest robot from every seat, and itself.
//! - [`play_match`]: one arena match of versions and robots, a seat's fault its loss; the
//!   check plays its matches the same way.
//!
//! # What a version is handed in as
//!
//! - **One source file** (`bot.cpp`): its extension picks the language. The file is put in an
//!   empty player folder under its own name, the language's build command runs there, and an
//!   `info.txt` is written as tournaments read it: the file's name without its extension as
//!   the alias, `NAME (LANGUAGE)` as the full name, the language's run command
//!   (`./bot`, `python3 bot.py`, `java Bot`).
//! - **An archive** (`.zip`, `.tar.gz`, `.tgz`) of a player folder with its own `info.txt`
//!   (its top folder, if it holds everything, is dropped). If the folder holds a
//!   [`BUILD_SH`] (`build.sh`), `sh build.sh` builds it; otherwise it runs as it is. A file
//!   rather than a fourth line of `info.txt`, because `info.txt` stays what every tournament
//!   and the Polish judge read, and a build is often more than one command. Such a version is
//!   labelled [`FOLDER_LANGUAGE`], and sees every language's toolchains.
//!
//! # The build
//!
//! It runs in the sandbox bots run in (`arbiter_sandbox`, docs/sandbox.md): under a user of
//! its own, with no network, the system's folders and the language's toolchains read-only, in
//! a writable copy of the player folder, with its own limits ([`BuildLimits`]: wall-clock
//! time, memory, processes, output size; the largest file it may write is the output size).
//! Its stdout and stderr together are the build log, of which the start and the end are kept.
//! When it exits with 0, what it left in its copy of the folder (links as links; pipes,
//! sockets and devices left out) is the program.
//!
//! A bot's mistake (a compile error, a build that runs for ever, a crash in the check) is an
//! outcome, with its log and a reason in words its author understands; an error of Arbiter or
//! of the machine (no sandbox, a full disk) is a [`BuildError`], so that the job is tried
//! again rather than held against the bot.

#![warn(missing_docs)]

mod build;
mod check;
mod languages;
mod layout;
mod log;
mod play;
mod run;
mod take_out;
mod upload;

use std::path::{Path, PathBuf};
use std::time::Duration;

use arbiter_programs::Packed;

pub use build::{build, build_until, remove_built, showing};
pub use check::{
    CHECK_SLACK, CHECK_STARTUP, CheckOutcome, CheckReplay, check, check_in, check_robot,
};
pub use languages::{Language, Languages};
pub use play::{
    MATCH_REPLAY_PREFIX, MatchSeat, PlayedMatch, places_with_faults, play_match, play_match_in,
};
pub use upload::UploadLimits;

pub use arbiter_sandbox::{SandboxConfig, SandboxPolicy};

/// The language a version handed in as an archive of a player folder is labelled with: no
/// file says which language it is written in.
pub const FOLDER_LANGUAGE: &str = "folder";

/// The file of a player folder, handed in as an archive, whose commands build it (run by
/// `sh build.sh` in the folder, in the sandbox). A folder without one is run as it is.
pub const BUILD_SH: &str = "build.sh";

/// The limits of one build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildLimits {
    /// Wall-clock time of the build command (default 120 s).
    pub time: Duration,
    /// Memory of all its processes together, in MiB, its `/tmp` included (default 2048).
    pub memory_mb: u64,
    /// Bytes of its output kept as the log, its start and its end (default 64 KiB).
    pub log_bytes: u64,
    /// Size of the built folder, in MiB; also the largest file the build may write
    /// (default 256).
    pub output_mb: u64,
    /// Its processes and threads together (default 512: a compiler driver's processes, the
    /// threads of `javac`'s JVM, Go's parallel compiles).
    pub max_processes: u32,
    /// What an archive handed in may hold, unpacked.
    pub archive: UploadLimits,
}

impl Default for BuildLimits {
    fn default() -> BuildLimits {
        BuildLimits {
            time: Duration::from_secs(120),
            memory_mb: 2048,
            log_bytes: 64 * 1024,
            output_mb: 256,
            max_processes: 512,
            archive: UploadLimits::default(),
        }
    }
}

/// What a version was handed in as (the arena keeps these bytes as its source).
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// One source file, its language known from its extension.
    File {
        /// Its name, as uploaded (`bot.cpp`).
        name: &'a str,
        /// Its contents.
        bytes: &'a [u8],
    },
    /// An archive of a player folder (`.zip`, `.tar.gz`, `.tgz`).
    Archive {
        /// Its name, as uploaded: the extension says which kind it is.
        name: &'a str,
        /// Its contents.
        bytes: &'a [u8],
    },
}

impl<'a> Source<'a> {
    /// What an upload named `name` is: an archive of a player folder if its name ends in
    /// `.zip`, `.tar.gz` or `.tgz`, else one source file.
    pub fn of_upload(name: &'a str, bytes: &'a [u8]) -> Source<'a> {
        match upload::UploadKind::of_name(name) {
            Some(_) => Source::Archive { name, bytes },
            None => Source::File { name, bytes },
        }
    }
}

/// The machine's folder of programs by hash, which tournaments' workers share
/// (`arbiter_programs::cache`).
pub fn programs_cache() -> PathBuf {
    arbiter_programs::cache::arbiter_dir().join("programs")
}

/// The folder of program `hash` in `cache`, if it is there.
pub fn cached_program(cache: &Path, hash: &str) -> Result<Option<PathBuf>, BuildError> {
    Ok(arbiter_programs::cache::lookup(cache, hash)?)
}

/// Unpacks program `hash` (its `archive`, of `size` bytes of files) into `cache`, checked
/// against its hash, and gives its folder.
pub fn install_program(
    cache: &Path,
    hash: &str,
    archive: &[u8],
    size: u64,
) -> Result<PathBuf, BuildError> {
    Ok(arbiter_programs::cache::install(
        cache, hash, archive, size,
    )?)
}

/// What came of a build.
#[derive(Debug)]
pub enum Built {
    /// Built: a player folder with its `info.txt`, packed as a program.
    Ok {
        /// The player folder, in a folder of its own under `work`: the caller removes that
        /// folder (the player folder's parent) once done with it.
        folder: PathBuf,
        /// The folder packed: its hash and archive bytes.
        program: Packed,
        /// The build's output (empty where nothing was built).
        log: String,
        /// Its language's name, or [`FOLDER_LANGUAGE`].
        language: String,
        /// How long the build command ran, if one ran.
        took: Option<Duration>,
    },
    /// Not built, through the version's own fault.
    Failed {
        /// The build's output, where it ran.
        log: String,
        /// Why, in one line: "g++ exited with status 1", "the build took longer than 120 s".
        reason: String,
    },
}

/// An error of Arbiter or of the machine, not of the version: the job is worth trying again.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The operator's languages file cannot be read or is wrong.
    #[error("languages file {}: {why}", path.display())]
    #[allow(missing_docs)] // the fields' names say what they hold
    Languages { path: PathBuf, why: String },
    /// A file operation failed.
    #[error("{what} {}: {source}", arbiter_text::short_path(path))]
    #[allow(missing_docs)] // the fields' names say what they hold
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// The sandbox the operator asked for cannot be built here.
    #[error(transparent)]
    Unavailable(#[from] arbiter_sandbox::Unavailable),
    /// The sandbox could not jail the build or a bot.
    #[error("the sandbox: {0}")]
    Sandbox(#[from] arbiter_sandbox::SandboxError),
    /// The built folder could not be packed.
    #[error("packing the built folder: {0}")]
    Program(#[from] arbiter_programs::ProgramError),
    /// The game is not one of this Arbiter's.
    #[error("there is no game {game:?} (there are: {games})")]
    #[allow(missing_docs)] // the fields' names say what they hold
    UnknownGame { game: String, games: String },
    /// The game's settings do not make a game.
    #[error("the settings of {game}: {why}")]
    #[allow(missing_docs)] // the fields' names say what they hold
    Settings { game: String, why: String },
    /// A match of the check could not be played, on Arbiter's side, after a few tries.
    #[error("the check could not be played: {0}")]
    Check(String),
    /// An arena match could not be played, on Arbiter's side or the machine's.
    #[error("the match could not be played: {0}")]
    Match(String),
    /// Arbiter is stopping: the build was ended before its end.
    #[error("stopped before the end, as Arbiter is stopping")]
    Stopped,
}

impl BuildError {
    fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> BuildError {
        let path = path.to_owned();
        move |source| BuildError::Io { what, path, source }
    }
}
