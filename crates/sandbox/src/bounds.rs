//! How a sandbox bounds what its bots use: a cgroup per bot where one can be made, else
//! resource limits (rlimits) on each of the bot's processes.
//!
//! The rlimits are the best that can be had without a cgroup, and weaker: memory is bounded per
//! process, not for the bot's processes together; a bot that runs into a limit sees a system
//! call fail, so nothing tells that it was ended for it; nothing measures its CPU time. Which
//! of them is set where:
//!
//! - data segment (`RLIMIT_DATA`), in place of the cgroup's memory limit: it counts what a
//!   process allocates (heap, anonymous writable mappings) and not the address space it only
//!   reserves, which a JVM makes several GiB of at start (`RLIMIT_AS` of 1 GiB stops any JVM);
//! - processes (`RLIMIT_NPROC`), in place of the cgroup's `pids.max`. The kernel counts a user's
//!   processes, not a bot's: when Arbiter is root each bot has a user of its own, so the limit
//!   is set before bubblewrap starts; otherwise every bot runs as the organiser, and the limit is
//!   set inside the bot's user namespace (by util-linux's `prlimit`), where Linux 5.14 and later
//!   count the namespace's processes alone. Set before bubblewrap it would count every process
//!   of the organiser's, and a desktop session has more than 128: no bot would start. Older
//!   kernels count them all anyway, so the limit is not set there.
//! - CPU seconds (`RLIMIT_CPU`), file size, open files and core dumps are set in both cases,
//!   with or without a cgroup.

use std::fmt;
use std::path::PathBuf;

use crate::cgroup::Cgroups;
use crate::{Limits, Unavailable, find_program, mounts::in_system};

/// An rlimit: the resource, its soft and its hard limit.
pub(crate) type Rlimit = (libc::__rlimit_resource_t, u64, u64);

/// How a sandbox bounds what its bots use.
#[derive(Debug)]
pub(crate) enum Bounds {
    /// A cgroup per bot.
    Cgroups(Cgroups),
    /// No cgroup can be made here (`why`): rlimits on each process of a bot.
    Rlimits { why: String, nproc: NprocLimit },
}

/// Where the limit on a bot's processes is set, when no cgroup counts them.
#[derive(Debug)]
pub(crate) enum NprocLimit {
    /// Before bubblewrap starts: the bot has a user of its own, whose processes are its own.
    OwnUser,
    /// Inside the bot's user namespace, by this `prlimit`.
    InNamespace { prlimit: PathBuf },
    /// Nowhere: this kernel counts all the organiser's processes against the limit.
    Unset,
}

impl Bounds {
    /// The cgroups, or, where none can be made, the rlimits that take their place. `root` is
    /// whether bots get users of their own.
    pub(crate) fn find(root: bool) -> Result<Bounds, Unavailable> {
        let why = match Cgroups::find() {
            Ok(cgroups) => return Ok(Bounds::Cgroups(cgroups)),
            Err(why) => why,
        };
        let nproc = if root {
            NprocLimit::OwnUser
        } else if !counts_processes_per_namespace(&kernel_release()) {
            NprocLimit::Unset
        } else {
            let prlimit = find_program("prlimit")
                .filter(|p| in_system(p))
                .ok_or_else(|| {
                    Unavailable(format!(
                        "{why}; without a cgroup, util-linux's `prlimit` (in the system's \
                         folders) sets the bots' process limit, and it is not installed"
                    ))
                })?;
            NprocLimit::InNamespace { prlimit }
        };
        Ok(Bounds::Rlimits { why, nproc })
    }

    /// The rlimits a bot's first process takes before bubblewrap starts (its processes inherit
    /// them).
    pub(crate) fn rlimits(&self, limits: &Limits) -> Vec<Rlimit> {
        let same = |resource, value| (resource, value, value);
        let mut rlimits = vec![
            same(libc::RLIMIT_FSIZE, limits.file_size_mb << 20),
            same(libc::RLIMIT_NOFILE, u64::from(limits.open_files)),
            same(libc::RLIMIT_CORE, 0),
            // SIGXCPU at the soft limit says why; SIGKILL a second later if it is caught.
            (
                libc::RLIMIT_CPU,
                limits.cpu_seconds,
                limits.cpu_seconds.saturating_add(1),
            ),
        ];
        if let Bounds::Rlimits { nproc, .. } = self {
            rlimits.push(same(libc::RLIMIT_DATA, limits.memory_mb << 20));
            if let NprocLimit::OwnUser = nproc {
                rlimits.push(same(libc::RLIMIT_NPROC, u64::from(limits.max_processes)));
            }
        }
        rlimits
    }

    /// What the bot's command line is prefixed with inside the jail: `prlimit` setting the
    /// process limit in the bot's user namespace, where that is how it is set.
    pub(crate) fn inside(&self, limits: &Limits) -> Vec<String> {
        match self {
            Bounds::Rlimits {
                nproc: NprocLimit::InNamespace { prlimit },
                ..
            } => {
                let n = limits.max_processes;
                vec![
                    prlimit.to_string_lossy().into_owned(),
                    format!("--nproc={n}:{n}"),
                    "--".into(),
                ]
            }
            _ => Vec::new(),
        }
    }

    /// What bots lack here, if they lack anything.
    pub(crate) fn lacks(&self, limits: &Limits, root: bool) -> Option<Lacks> {
        match self {
            Bounds::Cgroups(_) => None,
            Bounds::Rlimits { why, nproc } => Some(Lacks {
                why: why.clone(),
                memory_mb: limits.memory_mb,
                processes_unbounded: matches!(nproc, NprocLimit::Unset),
                root,
            }),
        }
    }
}

/// What a sandbox without cgroups does not guarantee, and how to get it: its one warning.
#[derive(Debug)]
pub struct Lacks {
    why: String,
    memory_mb: u64,
    processes_unbounded: bool,
    root: bool,
}

impl fmt::Display for Lacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let processes = match self.processes_unbounded {
            true => "",
            false => "processes, ",
        };
        write!(
            f,
            "bot programs run in a sandbox without a cgroup ({}). Their namespaces, private \
             files and limits on {processes}file size, open files and CPU seconds hold, but: \
             memory is limited per process ({} MiB of data each), not for all of a bot's \
             processes together; a bot that runs out of memory or processes is not reported as \
             killed for it; the CPU time bots use is not measured; a bot is not frozen between \
             its turns, so it can take CPU from the bot that is thinking",
            self.why, self.memory_mb
        )?;
        if self.processes_unbounded {
            f.write_str(
                "; the number of a bot's processes is not limited (this kernel counts all your \
                 processes against the limit; Linux 5.14 and later count a bot's alone)",
            )?;
        }
        match self.root {
            true => f.write_str(
                ". For all of it, run Arbiter in a cgroup it may write (on cgroup v2: \
                 `systemd-run --scope -p Delegate=yes arbiter …`; in a container, one with a \
                 writable cgroup).",
            ),
            false => f.write_str(
                ". For all of it, run Arbiter in a cgroup delegated to you \
                 (`systemd-run --user --scope -p Delegate=yes arbiter …`), or as root.",
            ),
        }
    }
}

/// The kernel's release (`uname -r`).
fn kernel_release() -> String {
    // SAFETY: uname fills the struct it is given; the release is a NUL-terminated string.
    unsafe {
        let mut names: libc::utsname = std::mem::zeroed();
        if libc::uname(&mut names) != 0 {
            return String::new();
        }
        std::ffi::CStr::from_ptr(names.release.as_ptr())
            .to_string_lossy()
            .into_owned()
    }
}

/// Whether a kernel of `release` counts the processes of a user namespace against
/// `RLIMIT_NPROC` there, apart from the same user's processes elsewhere (Linux 5.14's per
/// namespace counts). An unreadable release is taken as an old kernel.
fn counts_processes_per_namespace(release: &str) -> bool {
    let mut numbers = release
        .split(|c: char| !c.is_ascii_digit())
        .map(|n| n.parse::<u32>().ok());
    match (numbers.next().flatten(), numbers.next().flatten()) {
        (Some(major), Some(minor)) => (major, minor) >= (5, 14),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_counts_per_namespace_came_with_linux_5_14() {
        for (release, counted) in [
            ("6.18.44-fc-v657", true),
            ("5.14.0-284.el9.x86_64", true),
            ("5.10.0-28-amd64", false),
            ("4.18.0-553.el8_10.x86_64", false),
            ("", false),
            ("weird", false),
        ] {
            assert_eq!(
                counts_processes_per_namespace(release),
                counted,
                "{release}"
            );
        }
    }

    #[test]
    fn without_a_cgroup_the_warning_names_what_is_missing_and_how_to_get_it() {
        let bounds = Bounds::Rlimits {
            why: "cannot make a cgroup in /sys/fs/cgroup/x: Permission denied".into(),
            nproc: NprocLimit::Unset,
        };
        let text = bounds.lacks(&Limits::default(), false).unwrap().to_string();
        for part in [
            "Permission denied",
            "1024 MiB of data each",
            "not reported as killed",
            "not measured",
            "processes is not limited",
            "systemd-run --user --scope -p Delegate=yes",
            "or as root",
        ] {
            assert!(text.contains(part), "{part:?} not in {text}");
        }
        let rlimits = bounds.rlimits(&Limits::default());
        assert!(rlimits.contains(&(libc::RLIMIT_DATA, 1 << 30, 1 << 30)));
        assert!(!rlimits.iter().any(|r| r.0 == libc::RLIMIT_NPROC));
    }
}
