//! A worker's name in the store, `HOST:PID@START`: which machine, which process, and when the
//! process started (in clock ticks since boot, as `/proc` gives it). The start tells a process
//! from a later one that got the same id, so a worker on this machine can tell that another
//! worker of this machine is gone and put its matches back at once, without waiting for their
//! leases (a run stopped with Ctrl-C or `kill -9`, then resumed).

use std::fmt;

/// The name of a worker process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerName(String);

impl WorkerName {
    /// This process's name.
    pub fn of_this_process() -> WorkerName {
        let pid = std::process::id();
        WorkerName(format!("{}:{pid}@{}", host(), start_of(pid).unwrap_or(0)))
    }

    /// A name given by the operator. It must be unique among the workers of a store; this
    /// machine never takes it for a gone process of its own, so only its leases tell.
    pub fn named(name: &str) -> WorkerName {
        WorkerName(name.to_owned())
    }

    /// The name as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `name` is a worker of this machine that no longer runs. Names of other
    /// machines, and names this version did not write, are never said to be gone: only their
    /// leases can tell.
    pub fn is_gone(name: &str) -> bool {
        let Some((host_part, process)) = name.rsplit_once(':') else {
            return false;
        };
        let Some((pid, start)) = process.split_once('@') else {
            return false;
        };
        let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), start.parse::<u64>()) else {
            return false;
        };
        host_part == host() && start_of(pid) != Some(start)
    }
}

impl fmt::Display for WorkerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().replace(':', "_"))
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

/// When process `pid` started, in clock ticks since boot; `None` when it does not run.
fn start_of(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, in parentheses, may hold spaces: fields are counted after it.
    let after_name = &stat[stat.rfind(')')? + 1..];
    // Field 22 of the line is the 20th after the name (state is the 3rd field).
    after_name.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_not_gone_and_a_finished_child_is() {
        let me = WorkerName::of_this_process();
        assert!(!WorkerName::is_gone(me.as_str()), "{me}");
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let name = format!("{}:{pid}@{}", host(), start_of(pid).unwrap_or(1));
        child.wait().unwrap();
        assert!(WorkerName::is_gone(&name), "{name}");
    }

    #[test]
    fn names_of_other_machines_or_other_forms_are_never_gone() {
        assert!(!WorkerName::is_gone("elsewhere.example:1@1"));
        assert!(!WorkerName::is_gone("a worker"));
        assert!(!WorkerName::is_gone(&format!("{}:x@y", host())));
    }
}
