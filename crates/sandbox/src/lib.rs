//! Confines a bot program that Arbiter did not write.
//!
//! A [`Sandbox`] is checked once, when a command starts ([`Sandbox::new`]): bubblewrap can build
//! namespaces here, and whether the memory and process controllers of the cgroups are writable.
//! Each bot then gets a [`Jail`] ([`Sandbox::prepare`]): a cgroup of its own with its limits
//! (where no cgroup can be made, resource limits of its processes instead), a
//! private scratch folder (a copy of its player folder), and the `bwrap` command line that
//! starts it in empty PID, network, IPC and UTS namespaces, with the system's folders and what
//! its program needs read-only, under a user of its own when Arbiter runs as root.
//!
//! Why bubblewrap and cgroups rather than our own namespace code: bubblewrap is the sandbox of
//! Flatpak, packaged by every distribution, and small enough to audit; the limits it does not
//! set are plain cgroup files. `docs/sandbox.md` compares this with isolate and nsjail.

#![warn(missing_docs)]

mod bounds;
mod cgroup;
mod jail;
mod mounts;
mod scratch;
mod toolchains;
mod uids;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use serde::{Deserialize, Serialize};

pub use bounds::Lacks;
pub use jail::Jail;

use bounds::Bounds;
use scratch::Owner;
use uids::UidPool;

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
    /// CPU seconds per process: a backstop against a process that computes for ever, not a
    /// time limit of the game.
    #[serde(default = "default_cpu_seconds")]
    pub cpu_seconds: u64,
}

fn default_cpu_seconds() -> u64 {
    Limits::default().cpu_seconds
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            memory_mb: 1024,
            max_processes: 128,
            file_size_mb: 64,
            open_files: 256,
            cpu_seconds: 3600,
        }
    }
}

/// How large a player folder may be: the sandbox copies it, and gives the copy to the bot's
/// user, for every seat of every match. Checked before any match ([`SandboxPolicy::check_folder`])
/// and again while copying.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FolderLimits {
    /// Bytes of its files together, in MiB (`--max-folder-mb`).
    pub max_mb: u64,
    /// Its files, folders and links (`--max-folder-entries`).
    pub max_entries: u64,
    /// Folders within folders (`--max-folder-depth`): its own files are at depth 1.
    pub max_depth: u32,
}

impl Default for FolderLimits {
    fn default() -> FolderLimits {
        // A bot with its libraries or a Python virtual environment holds a few thousand
        // files, a few folders deep; 10,000 copy in about a tenth of a second.
        FolderLimits {
            max_mb: 512,
            max_entries: 10_000,
            max_depth: 64,
        }
    }
}

impl FolderLimits {
    pub(crate) fn bounds(&self) -> arbiter_folder::Bounds {
        arbiter_folder::Bounds {
            bytes: self.max_mb.saturating_mul(1 << 20),
            entries: self.max_entries,
            depth: self.max_depth,
        }
    }
}

/// Which of the [`FolderLimits`] a player folder is over, with the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FolderLimit {
    /// [`FolderLimits::max_mb`].
    Megabytes(u64),
    /// [`FolderLimits::max_entries`].
    Entries(u64),
    /// [`FolderLimits::max_depth`].
    Depth(u32),
}

impl fmt::Display for FolderLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FolderLimit::Megabytes(mb) => write!(f, "holds more than {mb} MiB (--max-folder-mb)"),
            FolderLimit::Entries(n) => write!(
                f,
                "holds more than {n} files, folders and links (--max-folder-entries)"
            ),
            FolderLimit::Depth(n) => {
                write!(f, "has folders more than {n} deep (--max-folder-depth)")
            }
        }
    }
}

/// What a sandbox is asked for: the limits, more folders to show its bots read-only, the
/// folders of the contest no bot may see, and whether bots run between their turns.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxConfig {
    /// The limits of every bot.
    pub limits: Limits,
    /// Paths shown read-only to every bot besides the system's folders (`--sandbox-ro`).
    #[serde(default)]
    pub read_only: Vec<PathBuf>,
    /// How large a player folder may be (tournaments stored before these limits resume with
    /// the defaults).
    #[serde(default)]
    pub folders: FolderLimits,
    /// Folders no bot sees even when they sit under a folder the sandbox shows: the store's,
    /// the players', the replays' (absolute paths, named by the command that knows them).
    /// Arbiter's working folder and the folder holding each player folder are always hidden
    /// besides these.
    #[serde(default)]
    pub hidden: Vec<PathBuf>,
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
    /// This policy, with `folders` hidden from every bot besides those it hides already
    /// ([`SandboxConfig::hidden`]); relative paths are taken from the current folder.
    pub fn hiding(mut self, folders: impl IntoIterator<Item = PathBuf>) -> SandboxPolicy {
        if let SandboxPolicy::Preferred(config) | SandboxPolicy::Required(config) = &mut self {
            for folder in folders {
                let folder = std::path::absolute(&folder).unwrap_or(folder);
                if !config.hidden.contains(&folder) {
                    config.hidden.push(folder);
                }
            }
        }
        self
    }

    /// The sandbox this policy asks for: `None` when it is off, or preferred but impossible
    /// here (said once on stderr); an error when it is required but impossible. A sandbox
    /// without cgroups is said once on stderr too, with what it lacks.
    pub fn open(&self) -> Result<Option<Sandbox>, Unavailable> {
        let sandbox = match self {
            SandboxPolicy::Off => return Ok(None),
            SandboxPolicy::Required(config) => Sandbox::new(config.clone())?,
            SandboxPolicy::Preferred(config) => match Sandbox::new(config.clone()) {
                Ok(sandbox) => sandbox,
                Err(why) => {
                    warn_once(&format!(
                        "bot programs run WITHOUT a sandbox, with all your rights: {}. \
                         --sandbox makes this an error, --no-sandbox silences it.",
                        why.0
                    ));
                    return Ok(None);
                }
            },
        };
        if let Some(lacks) = sandbox.lacks() {
            warn_once(&lacks.to_string());
        }
        Ok(Some(sandbox))
    }

    /// Whether the player folder `dir` is within the [`FolderLimits`] of this policy, read
    /// without following a link and stopping at the first limit gone over: the check made
    /// before any match, so that a folder too large for the sandbox to copy is refused once,
    /// with the flag that raises the limit. Without a sandbox nothing is copied, nothing
    /// checked.
    pub fn check_folder(&self, dir: &Path) -> Result<(), SandboxError> {
        match self {
            SandboxPolicy::Off => Ok(()),
            SandboxPolicy::Preferred(config) | SandboxPolicy::Required(config) => {
                jail::check_folder(dir, &config.folders)
            }
        }
    }
}

/// Writes `warning` on stderr, the first time only: a command that opens its policy once per
/// match says it once.
fn warn_once(warning: &str) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        use std::io::Write;
        // A closed stderr is no reason to stop: the warning is then lost.
        let _ = writeln!(std::io::stderr(), "warning: {warning}");
    });
}

/// The limit a bot was killed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// It used more memory than [`Limits::memory_mb`].
    Memory,
    /// It tried to have more than [`Limits::max_processes`] processes and threads.
    Processes,
    /// It computed for [`Limits::cpu_seconds`].
    Cpu,
}

impl Limit {
    /// The limit in words, for people.
    pub fn describe(self) -> &'static str {
        match self {
            Limit::Memory => "its memory limit",
            Limit::Processes => "its limit on processes and threads",
            Limit::Cpu => "its limit on CPU seconds",
        }
    }

    /// The limit a process ended by `signal` ran into, where the signal says it: `SIGXCPU` is
    /// sent by the kernel only for the CPU-seconds limit.
    pub fn of_signal(signal: i32) -> Option<Limit> {
        (signal == libc::SIGXCPU).then_some(Limit::Cpu)
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limit::Memory => "memory",
            Limit::Processes => "processes",
            Limit::Cpu => "cpu",
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
    #[error(
        "setting up the sandbox: {what} {}: {error}",
        arbiter_text::short_path(path)
    )]
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
    /// A player's bare command is found only in a folder of the organiser's `PATH` the jail
    /// does not show.
    #[error(
        "`{program}` is {}, in a toolchain the sandbox does not show to a player's bot \
         (a player's command does not choose the organiser's toolchains); --sandbox-ro {} \
         shows it to every bot",
        found.display(),
        folder.display()
    )]
    #[allow(missing_docs)] // the fields' names say what they hold
    ToolchainNotShown {
        program: String,
        found: PathBuf,
        folder: PathBuf,
    },
    /// The player folder is too large to copy into the bot's scratch folder.
    #[error(
        "player folder {} {limit}; the sandbox copies it for every seat of every match",
        arbiter_text::short_path(path)
    )]
    #[allow(missing_docs)] // the fields' names say what they hold
    FolderTooLarge { path: PathBuf, limit: FolderLimit },
    /// Every uid of the bots' range is held by a live bot of this machine.
    #[error(
        "every user id from {first} to {last} belongs to a live bot on this machine: no more bots \
         can start until some end"
    )]
    #[allow(missing_docs)] // the fields' names say what they hold
    NoFreeUid { first: u32, last: u32 },
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
    /// The bots' users, when Arbiter is root (with `setpriv`).
    uids: Option<UidPool>,
    bounds: Bounds,
    /// This process's folder of scratch folders.
    scratch: Arc<Owner>,
    /// Arbiter's working folder, hidden from every bot.
    workdir: PathBuf,
    /// The toolchains the bots of player folders see.
    toolchains: toolchains::Toolchains,
}

impl Sandbox {
    /// Checks that bubblewrap runs here, and whether the cgroup controllers are writable (where
    /// they are not, rlimits take their place: [`Sandbox::lacks`] says what is then missing).
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
        let bounds = Bounds::find(root)?;
        if config.between_turns == BetweenTurns::Frozen
            && let Bounds::Cgroups(cgroups) = &bounds
            && let Some(why) = cgroups.no_freezer()
        {
            warn_once_not_frozen(why);
        }
        let uids = match root {
            true => Some(UidPool::open().map_err(Unavailable)?),
            false => None,
        };
        let scratch = Owner::of_this_process().map_err(Unavailable)?;
        for path in &config.read_only {
            if !path.is_absolute() || !path.exists() {
                return Err(Unavailable(format!(
                    "--sandbox-ro {}: needs an absolute path that exists",
                    path.display()
                )));
            }
        }
        // A working folder that was removed holds nothing a bot could see.
        let workdir = std::env::current_dir()
            .and_then(|d| d.canonicalize())
            .unwrap_or_else(|_| PathBuf::from("/"));
        Ok(Sandbox {
            toolchains: toolchains::Toolchains::new(&config.read_only),
            config,
            bwrap,
            setpriv,
            uids,
            bounds,
            scratch,
            workdir,
        })
    }

    /// What bots lack in this sandbox, where the machine gives no cgroup: `None` when they
    /// have every guarantee of docs/sandbox.md.
    pub fn lacks(&self) -> Option<Lacks> {
        self.bounds
            .lacks(&self.config.limits, self.setpriv.is_some())
    }

    /// The limits and extra folders this sandbox was made with.
    pub fn config(&self) -> &SandboxConfig {
        &self.config
    }

    /// Prepares a jail for `argv` run in `dir` (a player folder), or in the current folder.
    pub fn prepare(&self, argv: &[String], dir: Option<&Path>) -> Result<Jail, SandboxError> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        // Processes start their search at different places, so that few locks are tried.
        let hint = std::process::id()
            .wrapping_mul(7919)
            .wrapping_add(n.wrapping_mul(104729));
        let uid = self
            .uids
            .as_ref()
            .map(|pool| pool.lease(hint))
            .transpose()?;
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
