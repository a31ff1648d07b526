//! Running one build command: in a jail of the sandbox (or, where the operator turned the
//! sandbox off, in the folder itself), under a wall-clock limit, its stdout and stderr kept
//! together as the bounded log, and what it left in its folder taken out of the jail.

use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use arbiter_sandbox::{Jail, Limit, Sandbox};

use crate::log::BoundedLog;
use crate::{BuildError, BuildLimits};

/// How often a running build is looked at for its time limit and for Arbiter stopping (its
/// exit is seen at once).
const POLL: Duration = Duration::from_millis(50);
/// How long the log's reader may take after the build's processes are gone: without a sandbox
/// a process that left its session may hold the pipe open for ever.
const LOG_DRAIN: Duration = Duration::from_secs(2);

/// How a build command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// It exited with this status.
    Exited(i32),
    /// A signal ended it.
    Signal(i32),
    /// It ran into a limit of its sandbox.
    Limit(Limit),
    /// It ran longer than its time limit, and was killed.
    TimedOut,
    /// Arbiter is stopping: it was killed.
    Stopped,
}

/// What a build command did.
#[derive(Debug)]
pub(crate) struct Ran {
    pub(crate) end: End,
    /// Its stdout and stderr together, bounded.
    pub(crate) log: String,
    /// How long it ran.
    pub(crate) took: Duration,
}

/// Runs `command` with `sh -c` in the player folder `dir`. In a jail of `sandbox` the command
/// works in a writable copy of `dir`, which `take_out` gets (before the jail is gone) when the
/// command ends; without a sandbox it works in `dir` itself. Setting `stop` kills it.
pub(crate) fn run(
    command: &str,
    dir: &Path,
    sandbox: Option<&Sandbox>,
    limits: &BuildLimits,
    stop: &AtomicBool,
    take_out: &mut dyn FnMut(&Path) -> Result<(), BuildError>,
) -> Result<Ran, BuildError> {
    let argv = ["sh", "-c", command].map(String::from);
    let jail = match sandbox {
        Some(sandbox) => Some(sandbox.prepare(&argv, Some(dir))?),
        None => None,
    };
    let started = Instant::now();
    let (mut child, reader) = spawn(&argv, dir, jail.as_ref())?;
    let (log, drained) = read_log(reader, limits.log_bytes);
    let waited = wait_until(&child, started + limits.time, stop);
    // Every process the build left is killed before its first process is reaped: its group
    // id (and, without a cgroup, its namespace) cannot be someone else's meanwhile.
    kill_everything(&child, jail.as_ref());
    let status = child
        .wait()
        .map_err(BuildError::io("waiting for the build in", dir))?;
    let took = started.elapsed();
    let _ = drained.recv_timeout(LOG_DRAIN);
    let log = log.lock().unwrap_or_else(|e| e.into_inner()).text();
    let end = match waited {
        Waited::TimedOut => End::TimedOut,
        Waited::Stopped => End::Stopped,
        Waited::Exited => match jail.as_ref().and_then(Jail::limit_hit) {
            Some(limit) => End::Limit(limit),
            None => end_of(status),
        },
    };
    if let Some(jail) = &jail {
        take_out(jail.scratch())?;
    }
    Ok(Ran { end, log, took })
}

/// Starts the build, in `jail` if there is one, its stdout and stderr into one pipe: the
/// process and the pipe's reading end.
fn spawn(
    argv: &[String],
    dir: &Path,
    jail: Option<&Jail>,
) -> Result<(Child, io::PipeReader), BuildError> {
    let mut process = match jail {
        Some(jail) => jail.command(),
        None => {
            let mut process = Command::new(&argv[0]);
            process.args(&argv[1..]).current_dir(dir);
            process
        }
    };
    let (reader, writer) = io::pipe().map_err(BuildError::io("making a pipe for", dir))?;
    let writer2 = writer
        .try_clone()
        .map_err(BuildError::io("making a pipe for", dir))?;
    process
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer2)
        .process_group(0);
    let child = process
        .spawn()
        .map_err(BuildError::io("starting the build in", dir))?;
    // The pipe's writing ends now belong to the build alone: the log ends when it does.
    drop(process);
    if let Some(jail) = jail {
        jail.started(child.id());
    }
    Ok((child, reader))
}

fn end_of(status: ExitStatus) -> End {
    match (status.code(), status.signal()) {
        (Some(code), _) => End::Exited(code),
        (None, Some(signal)) => Limit::of_signal(signal).map_or(End::Signal(signal), End::Limit),
        (None, None) => End::Signal(0),
    }
}

/// Reads the build's output into a bounded log, on a thread of its own; the channel says when
/// the output has ended.
fn read_log(
    mut reader: io::PipeReader,
    limit: u64,
) -> (Arc<Mutex<BoundedLog>>, mpsc::Receiver<()>) {
    let log = Arc::new(Mutex::new(BoundedLog::new(limit)));
    let (done, drained) = mpsc::channel();
    let shared = Arc::clone(&log);
    let reading = move || {
        let mut buffer = [0u8; 16 * 1024];
        loop {
            match reader.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => shared
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(&buffer[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = done.send(());
    };
    if std::thread::Builder::new()
        .name("build-log".into())
        .spawn(reading)
        .is_err()
    {
        // No thread for the log: the build still runs, and says so in its log.
        log.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(b"[the build's output could not be read: no thread to read it]\n");
    }
    (log, drained)
}

/// How waiting for a build ended.
enum Waited {
    Exited,
    TimedOut,
    Stopped,
}

/// Waits until the build's first process has exited, `deadline` has passed or `stop` is set,
/// leaving the process unreaped.
fn wait_until(child: &Child, deadline: Instant, stop: &AtomicBool) -> Waited {
    let pid = child.id() as libc::id_t;
    let exit = ExitWatch::open(pid);
    loop {
        if exited(pid) {
            return Waited::Exited;
        }
        let now = Instant::now();
        if now >= deadline {
            return Waited::TimedOut;
        }
        if stop.load(Ordering::Relaxed) {
            return Waited::Stopped;
        }
        exit.wait((deadline - now).min(POLL));
    }
}

/// Whether the child `pid` has exited, leaving it unreaped.
fn exited(pid: libc::id_t) -> bool {
    // SAFETY: waitid writes into the zeroed siginfo it is given; WNOWAIT leaves the child to
    // be reaped by `Child::wait`.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        libc::waitid(libc::P_PID, pid, &mut info, flags) == 0 && info.si_pid() != 0
    }
}

/// A process's exit as a file descriptor that becomes readable when it exits (a pidfd), so
/// that a build is seen to end at once; where the kernel has none, waiting is sleeping.
struct ExitWatch(Option<OwnedFd>);

impl ExitWatch {
    fn open(pid: libc::id_t) -> ExitWatch {
        // SAFETY: pidfd_open takes a pid and flags; a descriptor it returns is ours to own.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        let fd = i32::try_from(fd).ok().filter(|&fd| fd >= 0);
        // SAFETY: a new descriptor, owned here alone.
        ExitWatch(fd.map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Waits up to `most`, or until the process exits.
    fn wait(&self, most: Duration) {
        let Some(fd) = &self.0 else {
            std::thread::sleep(most);
            return;
        };
        let mut ready = libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = i32::try_from(most.as_millis()).unwrap_or(i32::MAX).max(1);
        // SAFETY: poll on one descriptor owned by `self`, with a valid pollfd.
        unsafe {
            libc::poll(&mut ready, 1, ms);
        }
    }
}

/// Kills every process of the build: its jail's, or without one its process group.
fn kill_everything(child: &Child, jail: Option<&Jail>) {
    match jail {
        Some(jail) => jail.kill_all(),
        None => {
            // SAFETY: a signal to the group of a child not reaped yet, so its id is ours.
            unsafe {
                libc::killpg(child.id() as libc::pid_t, libc::SIGKILL);
            }
        }
    }
}
