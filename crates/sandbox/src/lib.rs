//! Confines a bot program that Arbiter did not write.
//!
//! A [`Sandbox`] is checked once, when a command starts ([`Sandbox::new`]): bubblewrap can build
//! namespaces here, and the memory and process controllers of the cgroups are writable. Each bot
//! then gets a [`Jail`] ([`Sandbox::prepare`]): a cgroup of its own with its limits, a private
//! scratch folder (a copy of its player folder), and the `bwrap` command line that starts it in
//! empty PID, network, IPC and UTS namespaces, with the system's folders and what its program
//! needs read-only, under a user of its own when Arbiter runs as root.
//!
//! Why bubblewrap and cgroups rather than our own namespace code: bubblewrap is the sandbox of
//! Flatpak, packaged by every distribution, and small enough to audit; the limits it does not
//! set are plain cgroup files. `docs/sandbox.md` compares this with isolate and nsjail.

#![warn(missing_docs)]

mod cgroup;
mod jail;
mod mounts;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use serde::{Deserialize, Serialize};

pub use jail::Jail;

use cgroup::Cgroups;

/// Per-bot limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Memory of all the bot's processes together, in MiB (its private `/tmp` included).
    pub memory_mb: u64,
    /// Processes and threads of the bot together (a JVM starts a few dozen threads).
    pub max_processes: u32,
    /// Largest file the bot may write, in MiB.
    pub file_size_mb: u64,
    /// Open files per process.
    pub open_files: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            memory_mb: 1024,
            max_processes: 128,
            file_size_mb: 64,
            open_files: 256,
        }
    }
}

/// What a sandbox is asked for: the limits, more folders to show its bots read-only, and
/// whether bots run between their turns.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxConfig {
    /// The limits of every bot.
    pub limits: Limits,
    /// Paths shown read-only to every bot besides the system's folders (`--sandbox-ro`).
    #[serde(default)]
    pub read_only: Vec<PathBuf>,
    /// What a bot does between its answer and its next request (stored tournaments made before
    /// this choice existed read as [`BetweenTurns::Frozen`]).
    #[serde(default)]
    pub between_turns: BetweenTurns,
}

/// What a sandboxed bot does between its answer and its next request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BetweenTurns {
    /// Its processes are frozen: it gets no CPU, so it cannot take the cores from the bot that
    /// is thinking; what is sent to it waits in its pipe (the default).
    #[default]
    Frozen,
    /// It runs on (`--no-freeze`), as bots do without a sandbox; the CPU it uses is measured.
    Running,
}

/// Whether bots run in a sandbox, as the organiser chose: the choice a tournament is stored
/// with, so that it resumes as it started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum SandboxPolicy {
    /// Bots run with the organiser's rights (`--no-sandbox`).
    Off,
    /// Bots run in a sandbox where the machine can build one; elsewhere they run without one,
    /// after one warning (the default).
    Preferred(SandboxConfig),
    /// Bots run in a sandbox, or nothing runs (`--sandbox`).
    Required(SandboxConfig),
}

impl Default for SandboxPolicy {
    fn default() -> SandboxPolicy {
        SandboxPolicy::Preferred(SandboxConfig::default())
    }
}

impl SandboxPolicy {
    /// The sandbox this policy asks for: `None` when it is off, or preferred but impossible
    /// here (said once on stderr); an error when it is required but impossible.
    pub fn open(&self) -> Result<Option<Sandbox>, Unavailable> {
        match self {
            SandboxPolicy::Off => Ok(None),
            SandboxPolicy::Required(config) => Sandbox::new(config.clone()).map(Some),
            SandboxPolicy::Preferred(config) => match Sandbox::new(config.clone()) {
                Ok(sandbox) => Ok(Some(sandbox)),
                Err(why) => {
                    static WARNED: std::sync::Once = std::sync::Once::new();
                    WARNED.call_once(|| {
                        use std::io::Write;
                        // A closed stderr is no reason to stop: the warning is then lost.
                        let _ = writeln!(
                            std::io::stderr(),
                            "warning: bot programs run WITHOUT a sandbox, with all your rights: \
                             {}. --sandbox makes this an error, --no-sandbox silences it.",
                            why.0
                        );
                    });
                    Ok(None)
                }
            },
        }
    }
}

/// The limit a bot was killed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// It used more memory than [`Limits::memory_mb`].
    Memory,
    /// It tried to have more than [`Limits::max_processes`] processes and threads.
    Processes,
}

impl Limit {
    /// The limit in words, for people.
    pub fn describe(self) -> &'static str {
        match self {
            Limit::Memory => "its memory limit",
            Limit::Processes => "its limit on processes and threads",
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limit::Memory => "memory",
            Limit::Processes => "processes",
        })
    }
}

/// Why no sandbox can be built on this machine.
#[derive(Debug, thiserror::Error)]
#[error("no sandbox on this machine: {0}")]
pub struct Unavailable(pub String);

/// Why one bot could not be jailed.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// A file operation of the jail's set-up failed.
    #[error("setting up the sandbox: {what} {path}: {error}")]
    #[allow(missing_docs)] // the fields' names say what they hold
    Io {
        what: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    /// The program is outside everything the sandbox shows the bot.
    #[error(
        "{program} is outside the player folder and the system's folders, so the sandbox does \
         not show it; --sandbox-ro {} shows it to every bot",
        program.parent().unwrap_or(program).display()
    )]
    #[allow(missing_docs)] // the fields' names say what they hold
    Hidden { program: PathBuf },
    /// The player folder is too large to copy into the bot's scratch folder.
    #[error(
        "player folder {path} holds more than {limit_mb} MiB; the sandbox copies it for every match"
    )]
    #[allow(missing_docs)] // the fields' names say what they hold
    FolderTooLarge { path: PathBuf, limit_mb: u64 },
    /// The bot's cgroup could not be frozen or thawed.
    #[error("freezing or thawing the bot's cgroup: {0}")]
    Freezer(std::io::Error),
}

impl SandboxError {
    fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> SandboxError {
        let path = path.to_path_buf();
        move |error| SandboxError::Io { what, path, error }
    }
}

/// A sandbox that works on this machine.
#[derive(Debug)]
pub struct Sandbox {
    config: SandboxConfig,
    bwrap: PathBuf,
    /// `setpriv`, to take a user of the bot's own; `None` when Arbiter is not root.
    setpriv: Option<PathBuf>,
    cgroups: Cgroups,
}

/// Bots get users `FIRST_UID..FIRST_UID + UIDS`, in turn, when Arbiter runs as root.
const FIRST_UID: u32 = 61000;
const UIDS: u32 = 2000;

impl Sandbox {
    /// Checks that bubblewrap runs here and that the cgroup controllers are writable.
    pub fn new(config: SandboxConfig) -> Result<Sandbox, Unavailable> {
        let bwrap = find_program("bwrap").ok_or_else(|| {
            Unavailable(
                "bubblewrap (`bwrap`) is not installed (Debian: apt-get install bubblewrap)".into(),
            )
        })?;
        let root = is_root();
        let setpriv = match root {
            true => Some(
                find_program("setpriv")
                    .ok_or_else(|| Unavailable("`setpriv` (util-linux) is not installed".into()))?,
            ),
            false => None,
        };
        mounts::check_bwrap(&bwrap, root).map_err(Unavailable)?;
        let cgroups = Cgroups::find().map_err(Unavailable)?;
        if config.between_turns == BetweenTurns::Frozen
            && let Some(why) = cgroups.no_freezer()
        {
            warn_once_not_frozen(why);
        }
        for path in &config.read_only {
            if !path.is_absolute() || !path.exists() {
                return Err(Unavailable(format!(
                    "--sandbox-ro {}: needs an absolute path that exists",
                    path.display()
                )));
            }
        }
        Ok(Sandbox {
            config,
            bwrap,
            setpriv,
            cgroups,
        })
    }

    /// The limits and extra folders this sandbox was made with.
    pub fn config(&self) -> &SandboxConfig {
        &self.config
    }

    /// Prepares a jail for `argv` run in `dir` (a player folder), or in the current folder.
    pub fn prepare(&self, argv: &[String], dir: Option<&Path>) -> Result<Jail, SandboxError> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let uid = self
            .setpriv
            .as_ref()
            .map(|_| FIRST_UID + (std::process::id().wrapping_mul(7919).wrapping_add(n)) % UIDS);
        Jail::prepare(self, n, uid, argv, dir)
    }
}

/// Says once that bots run between their turns here, and why: the sandbox still works.
fn warn_once_not_frozen(why: &str) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        use std::io::Write;
        // A closed stderr is no reason to stop: the warning is then lost.
        let _ = writeln!(
            std::io::stderr(),
            "warning: sandboxed bots are not frozen between their turns: {why}. Their CPU \
             between turns is measured and reported; --no-freeze silences this."
        );
    });
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The program `name` found on `PATH`, as a shell would find it.
fn find_program(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(name))
        .find(|path| is_executable(path))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
