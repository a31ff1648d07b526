//! The sandbox flags of every command that starts bot programs (`play`, `tournament run`).

use std::path::PathBuf;

use arbiter_sandbox::{BetweenTurns, FolderLimits, Limits, SandboxConfig, SandboxPolicy};

/// Whether and how bot programs are confined (see docs/sandbox.md).
#[derive(clap::Args, Clone, Debug, Default, PartialEq, Eq)]
pub struct SandboxFlags {
    /// Refuse to start when bot programs cannot be sandboxed on this machine (by default
    /// Arbiter then warns once and runs them without a sandbox).
    #[arg(long, conflicts_with = "no_sandbox")]
    pub sandbox: bool,
    /// Run bot programs with all your rights, no sandbox: only for programs you trust.
    #[arg(long)]
    pub no_sandbox: bool,
    /// Memory of each bot, all its processes together, in MiB [default: 1024].
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(16..=1 << 20))]
    pub memory_mb: Option<u64>,
    /// Processes and threads of each bot together [default: 128].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub max_processes: Option<u32>,
    /// Largest file a bot may write, in MiB [default: 64].
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    pub file_size_mb: Option<u64>,
    /// Open files per bot process [default: 256].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(16..=65536))]
    pub open_files: Option<u32>,
    /// Largest player folder, its files together, in MiB: the sandbox copies it for every seat
    /// of every match [default: 512].
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    pub max_folder_mb: Option<u64>,
    /// Most files, folders and links in a player folder [default: 10000].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub max_folder_entries: Option<u64>,
    /// Deepest folders in a player folder (its own files are at depth 1) [default: 64].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub max_folder_depth: Option<u32>,
    /// CPU seconds of each bot process, a backstop against one that computes for ever (the
    /// game's time limits are wall-clock limits) [default: 3600].
    #[arg(long, value_name = "S", value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    pub cpu_seconds: Option<u64>,
    /// One more path every bot may read (a toolchain outside the system folders); repeatable.
    #[arg(long = "sandbox-ro", value_name = "PATH")]
    pub read_only: Vec<PathBuf>,
    /// Let sandboxed bots run between their turns (by default each is frozen from its answer to
    /// its next request, so that it cannot take CPU from the bot that is thinking).
    #[arg(long)]
    pub no_freeze: bool,
}

impl SandboxFlags {
    /// The policy these flags choose.
    pub fn policy(&self) -> SandboxPolicy {
        let defaults = Limits::default();
        let folders = FolderLimits::default();
        let config = SandboxConfig {
            limits: Limits {
                memory_mb: self.memory_mb.unwrap_or(defaults.memory_mb),
                max_processes: self.max_processes.unwrap_or(defaults.max_processes),
                file_size_mb: self.file_size_mb.unwrap_or(defaults.file_size_mb),
                open_files: self.open_files.unwrap_or(defaults.open_files),
                cpu_seconds: self.cpu_seconds.unwrap_or(defaults.cpu_seconds),
            },
            read_only: self.read_only.iter().map(absolute).collect(),
            folders: FolderLimits {
                max_mb: self.max_folder_mb.unwrap_or(folders.max_mb),
                max_entries: self.max_folder_entries.unwrap_or(folders.max_entries),
                max_depth: self.max_folder_depth.unwrap_or(folders.max_depth),
            },
            hidden: Vec::new(),
            between_turns: match self.no_freeze {
                true => BetweenTurns::Running,
                false => BetweenTurns::Frozen,
            },
        };
        match (self.no_sandbox, self.sandbox) {
            (true, _) => SandboxPolicy::Off,
            (false, true) => SandboxPolicy::Required(config),
            (false, false) => SandboxPolicy::Preferred(config),
        }
    }
}

/// `--sandbox-ro` taken from the current folder, as the user meant it.
fn absolute(path: &PathBuf) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.clone())
}
