//! A bot program run as a child process, speaking the protocol on stdin/stdout.
//!
//! Three small threads per bot keep the referee's own thread from ever blocking on the bot:
//! one reads stdout into a bounded channel of lines, one drains stderr into a capped log, one
//! waits for the process to exit. The referee thread only writes (non-blocking, with `poll`
//! until the deadline) and waits on the channel, so a turn costs no polling and no sleeping.
//!
//! The bot runs in a process group of its own, which the referee kills as a whole when the
//! seat closes. In a sandbox ([`arbiter_sandbox`]) it also has a PID namespace and a cgroup of
//! its own, so not even a child that left the group (`setsid`) outlives the seat.

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{ChildStderr, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TryRecvError, sync_channel};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use arbiter_games::{Protocol, Wire};
use arbiter_sandbox::{Jail, Limit, Sandbox};

use crate::seat::{
    Ask, Discarded, Down, ExitInfo, LOG_CAP, LOG_TRIMMED, Line, MAX_LINE, Reply, Seat, SeatKind,
};
use crate::{AnswerSorter, SeatError};

/// Batches of lines in flight between the stdout thread and the referee. Together with the
/// line cap and the batch cap this bounds what a bot flooding its stdout costs in memory.
const CHANNEL_BATCHES: usize = 8;
const BATCH_LINES: usize = 64;
const READ_CHUNK: usize = 64 * 1024;
const THREAD_STACK: usize = 64 * 1024;
/// How long the referee waits for the rest of the news once a bot is seen to be gone (its exit
/// status after its stdout closed, its last lines after it exited), to report it precisely.
const SETTLE: Duration = Duration::from_millis(100);
/// How long the end of a tick waits for the log reader to take in what the bot had written to
/// stderr by then (normally microseconds: it only has to be scheduled). On a loaded machine
/// (tests in parallel on two cores) the reader thread waited more than 50 ms for a core and the
/// log of a tick landed in the next one: this bounds a rare wait, not a usual one.
const LOG_CATCH_UP: Duration = Duration::from_millis(250);
/// How long closing waits for the last of stderr once the process group is dead.
const LOG_SETTLE: Duration = Duration::from_millis(200);
/// How often the limits of a sandboxed bot that keeps answering are checked.
const LIMIT_CHECK_EVERY: Duration = Duration::from_millis(10);
/// How long closing waits for a killed process group to be gone.
const REAP_LIMIT: Duration = Duration::from_secs(2);

enum Event {
    Lines(Vec<Line>),
    StdoutClosed,
    Exited(ExitInfo),
}

/// A bot program in a process of its own.
pub struct ProcessSeat {
    name: String,
    command: String,
    pid: i32,
    stdin: Option<ChildStdin>,
    /// Bytes written to the bot's stdin by the referee but not yet taken by the pipe.
    pending: Vec<u8>,
    events: Receiver<Event>,
    log: Arc<LogShared>,
    /// A second handle on the stderr pipe, to ask how much the log reader has yet to read.
    stderr_probe: Option<OwnedFd>,
    /// Tells answers from the other lines, as the game's protocol says.
    sorter: AnswerSorter,
    exited: Option<ExitInfo>,
    stdout_closed: bool,
    down: Option<Down>,
    closed: Option<ExitInfo>,
    /// The bot's sandbox, if it runs in one.
    jail: Option<Jail>,
    /// The bot's processes are frozen ([`Seat::freeze`]).
    frozen: bool,
    /// When the sandbox's limits were last checked.
    limits_checked: Instant,
}

impl ProcessSeat {
    /// Starts `argv` (no shell involved) in `dir`, or in the current directory, with all the
    /// rights of the referee. A relative program path with a `/` in it is taken relative to
    /// `dir`.
    pub fn spawn(
        name: impl Into<String>,
        argv: &[String],
        dir: Option<&Path>,
    ) -> Result<ProcessSeat, SeatError> {
        ProcessSeat::spawn_in(name, argv, dir, None)
    }

    /// Starts `argv` as [`ProcessSeat::spawn`] does, in a jail of `sandbox` when one is given.
    pub fn spawn_in(
        name: impl Into<String>,
        argv: &[String],
        dir: Option<&Path>,
        sandbox: Option<&Sandbox>,
    ) -> Result<ProcessSeat, SeatError> {
        let program = match argv.first() {
            Some(program) if !program.is_empty() => program,
            _ => return Err(SeatError::EmptyCommand),
        };
        become_subreaper();
        let jail = match sandbox {
            Some(sandbox) => Some(jail_for(sandbox, argv, dir)?),
            None => None,
        };
        let mut command = match &jail {
            Some(jail) => jail.command(),
            None => plain_command(argv, dir),
        };
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let cannot_start = |source| start_error(program, dir, source);
        let mut child = command.spawn().map_err(cannot_start)?;
        let pid = child.id() as i32;
        if let Some(jail) = &jail {
            jail.started(child.id());
        }
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let stderr_probe = stderr.as_fd().try_clone_to_owned().ok();
        // The exit is awaited by our own thread with waitid(WNOWAIT), and the zombie reaped only
        // in close(), after the group is killed: so the group id cannot be reused meanwhile.
        drop(child);

        let kill_now = |error: io::Error| {
            // SAFETY: plain syscalls on the group and the child we just started.
            unsafe {
                libc::killpg(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
            cannot_start(error)
        };
        if let Err(e) = set_nonblocking(&stdin) {
            return Err(kill_now(e));
        }
        let (tx, events) = sync_channel(CHANNEL_BATCHES);
        let log = Arc::new(LogShared::default());
        let threads = (|| {
            let tx2 = tx.clone();
            spawn_thread("bot-stdout", move || read_lines(stdout, tx2))?;
            let log2 = Arc::clone(&log);
            spawn_thread("bot-stderr", move || read_log(stderr, &log2))?;
            spawn_thread("bot-exit", move || wait_exit(pid, tx))
        })();
        if let Err(e) = threads {
            return Err(kill_now(e));
        }
        let mut seat = ProcessSeat {
            name: name.into(),
            command: shlex::try_join(argv.iter().map(String::as_str))
                .unwrap_or_else(|_| argv.join(" ")),
            pid,
            stdin: Some(stdin),
            pending: Vec::new(),
            events,
            log,
            stderr_probe,
            sorter: AnswerSorter::default(),
            exited: None,
            stdout_closed: false,
            down: None,
            closed: None,
            jail,
            frozen: false,
            limits_checked: Instant::now(),
        };
        // A bot runs during its requests only, where its jail freezes: its start-up too is
        // done in its first request, not while another bot thinks.
        seat.set_frozen(true);
        Ok(seat)
    }

    /// Splits `line` as a POSIX shell would (quotes, backslashes; no variables, globs or
    /// pipes) and starts it.
    pub fn spawn_line(
        name: impl Into<String>,
        line: &str,
        dir: Option<&Path>,
    ) -> Result<ProcessSeat, SeatError> {
        ProcessSeat::spawn(name, &split_command(line)?, dir)
    }

    /// The bot's process id.
    pub fn pid(&self) -> u32 {
        self.pid as u32
    }

    /// The bot's process group id (the bot leads its own group).
    pub fn pgid(&self) -> i32 {
        self.pid
    }

    fn shut_down(&mut self, deadline: Instant) -> ExitInfo {
        if let Some(exit) = &self.closed {
            return exit.clone();
        }
        // A frozen bot could neither read its end message nor exit.
        self.set_frozen(false);
        // End of input is the second signal to exit, after the end message.
        self.stdin = None;
        while self.exited.is_none() {
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(wait) {
                Ok(Event::Exited(exit)) => self.exited = Some(self.as_bot_exit(exit)),
                Ok(_) => {}
                Err(_) => break,
            }
        }
        let killed = self.exited.is_none();
        self.kill();
        let status = reap(self.pid).map(|exit| self.as_bot_exit(exit));
        let mut exit = self.exited.clone().or(status).unwrap_or_default();
        exit.killed = killed;
        reap_group(self.pid);
        self.log.wait_done(LOG_SETTLE);
        self.closed = Some(exit.clone());
        exit
    }

    /// Freezes or thaws the bot, where its jail freezes. A bot that cannot be frozen runs on
    /// (its CPU between turns is still measured); one that cannot be thawed is only late.
    fn set_frozen(&mut self, frozen: bool) {
        let Some(jail) = &self.jail else { return };
        if self.frozen == frozen || !jail.freezes() {
            return;
        }
        let done = match frozen {
            true => jail.freeze(),
            false => jail.thaw(),
        };
        if done.is_ok() {
            self.frozen = frozen;
        }
    }

    /// Kills the bot's process group, and in a sandbox every process of the bot.
    fn kill(&self) {
        // The jail first: without a cgroup it finds the bot's processes through bubblewrap,
        // which must still be alive for that.
        if let Some(jail) = &self.jail {
            jail.kill_all();
        }
        // Always, even after a clean exit: the bot may have left children in its group.
        // SAFETY: plain syscalls; the group is ours, and its leader is not reaped yet, so its id
        // cannot have been reused.
        unsafe { libc::killpg(self.pid, libc::SIGKILL) };
    }

    /// The exit of the bot as seen through its sandbox: bubblewrap exits with 128 + the signal
    /// that ended the bot, and the limit it ran into, if any, is the reason.
    fn as_bot_exit(&self, mut exit: ExitInfo) -> ExitInfo {
        let Some(jail) = &self.jail else {
            return exit;
        };
        if let Some(code) = exit.code.filter(|code| (129..=128 + 64).contains(code)) {
            exit = ExitInfo::signal(code - 128);
        }
        // Without a cgroup, only a signal can say which limit ended the bot.
        exit.killed_for = jail
            .limit_hit()
            .or_else(|| exit.signal.and_then(Limit::of_signal));
        exit
    }

    /// Ends a bot that ran into a limit of its sandbox (a fork bomb that still answers, a
    /// child killed for memory): the bot is down, killed for that limit.
    fn enforce_limits(
        &mut self,
        protocol: &Protocol,
        discarded: &mut Vec<Discarded>,
    ) -> Option<Down> {
        if self.down.is_some() || self.jail.as_ref()?.limit_hit().is_none() {
            return None;
        }
        self.kill();
        self.settle(protocol, discarded);
        let exit = self
            .exited
            .clone()
            .unwrap_or_else(|| self.as_bot_exit(ExitInfo::signal(libc::SIGKILL)));
        let down = Down::Exited { exit };
        self.down = Some(down.clone());
        Some(down)
    }

    /// Waits until the log reader has taken in what the bot had written to stderr by now: a
    /// bot that logs then answers gets that log in the answer's tick, however late the reader
    /// thread is scheduled. Bounded, so a bot that floods its stderr cannot stall the match.
    fn catch_up_log(&self) {
        let Some(probe) = &self.stderr_probe else {
            return;
        };
        let mut unread: libc::c_int = 0;
        // SAFETY: FIONREAD writes one c_int, the bytes waiting in the pipe.
        if unsafe { libc::ioctl(probe.as_raw_fd(), libc::FIONREAD, &mut unread) } != 0 {
            return;
        }
        let target = self.log.read.load(Ordering::Acquire) + unread.max(0) as u64;
        let give_up = Instant::now() + LOG_CATCH_UP;
        while self.log.taken_in() < target && Instant::now() < give_up {
            std::thread::sleep(Duration::from_micros(20));
        }
    }

    fn handle_unasked(
        &mut self,
        protocol: &Protocol,
        event: Event,
        discarded: &mut Vec<Discarded>,
    ) -> Option<Line> {
        match event {
            Event::Lines(batch) => return self.sorter.push_all(protocol, batch, discarded),
            Event::StdoutClosed => self.stdout_closed = true,
            Event::Exited(exit) => self.exited = Some(self.as_bot_exit(exit)),
        }
        None
    }

    /// The reason the bot is gone, if it is, waiting briefly for the exit status when only the
    /// closing of stdout has been seen.
    fn check_down(&mut self, protocol: &Protocol, discarded: &mut Vec<Discarded>) -> Option<Down> {
        if self.down.is_none() {
            if self.stdout_closed && self.exited.is_none() {
                self.settle(protocol, discarded);
            }
            self.down = match (&self.exited, self.stdout_closed) {
                (Some(exit), _) => Some(Down::Exited { exit: exit.clone() }),
                (None, true) => Some(Down::ClosedOutput),
                (None, false) => None,
            };
        }
        self.down.clone()
    }

    /// Takes events for a short while, to learn the exit status (or the last lines); the
    /// answer to the open request among those lines, if there is one.
    fn settle(&mut self, protocol: &Protocol, discarded: &mut Vec<Discarded>) -> Option<Line> {
        let until = Instant::now() + SETTLE;
        let mut answer = None;
        while self.exited.is_none() || !self.stdout_closed {
            match self
                .events
                .recv_timeout(until.saturating_duration_since(Instant::now()))
            {
                Ok(event) => {
                    if let Some(line) = self.handle_unasked(protocol, event, discarded) {
                        answer = Some(line);
                    }
                }
                Err(_) => break,
            }
        }
        answer
    }

    fn down_after_write_error(
        &mut self,
        protocol: &Protocol,
        error: io::Error,
        discarded: &mut Vec<Discarded>,
    ) -> Down {
        // A failed write usually means the bot died: wait a moment for how it died.
        self.settle(protocol, discarded);
        self.check_down(protocol, discarded).unwrap_or_else(|| {
            let down = Down::WriteFailed {
                error: error.to_string(),
            };
            self.down = Some(down.clone());
            down
        })
    }

    /// Writes as much of `pending` as the pipe takes, waiting for room until `deadline`
    /// (`None`: no waiting). Returns whether everything was written.
    fn flush_pending(&mut self, deadline: Option<Instant>) -> io::Result<bool> {
        let Some(stdin) = &mut self.stdin else {
            return Err(io::Error::new(io::ErrorKind::BrokenPipe, "stdin closed"));
        };
        let mut written = 0;
        let result = loop {
            if written == self.pending.len() {
                break Ok(true);
            }
            match stdin.write(&self.pending[written..]) {
                Ok(0) => break Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => written += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    let Some(deadline) = deadline else {
                        break Ok(false);
                    };
                    match wait_writable(stdin.as_raw_fd(), deadline) {
                        Ok(true) => {}
                        Ok(false) => break Ok(false),
                        Err(e) => break Err(e),
                    }
                }
                Err(e) => break Err(e),
            }
        };
        self.pending.drain(..written);
        result
    }
}

impl ProcessSeat {
    /// Sends `message` and waits until `deadline` for the answer ([`Seat::request`]).
    fn exchange(
        &mut self,
        protocol: &Protocol,
        message: &str,
        deadline: Instant,
        discarded: &mut Vec<Discarded>,
    ) -> Reply {
        // Bounded: a bot flooding its stdout refills the channel as fast as it is emptied.
        for _ in 0..=CHANNEL_BATCHES {
            match self.events.try_recv() {
                Ok(event) => {
                    self.handle_unasked(protocol, event, discarded);
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.stdout_closed = true;
                    break;
                }
            }
        }
        if let Some(line) = self.sorter.open(protocol, discarded) {
            // Answered before it was asked: the request still goes out, as the bot reads on.
            self.pending.extend_from_slice(message.as_bytes());
            let _ = self.flush_pending(None);
            return Reply::Answer(line);
        }
        if let Some(down) = self.check_down(protocol, discarded) {
            return Reply::Down(down);
        }

        self.pending.extend_from_slice(message.as_bytes());
        // A line the reader took in from here on was read after the request went out.
        let sent_at = Instant::now();
        match self.flush_pending(Some(deadline)) {
            Ok(true) => {}
            Ok(false) => {
                // The bot does not read: the request stays queued, and its answer will be late.
                self.sorter.timed_out(protocol, discarded);
                return Reply::Timeout;
            }
            Err(e) => return Reply::Down(self.down_after_write_error(protocol, e, discarded)),
        }
        if let Some(answer) = self.sorter.written(protocol, sent_at, discarded) {
            return Reply::Answer(answer);
        }

        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(wait) {
                Ok(Event::Lines(batch)) => {
                    if let Some(answer) = self.sorter.push_all(protocol, batch, discarded) {
                        return Reply::Answer(answer);
                    }
                }
                Ok(Event::StdoutClosed) | Err(RecvTimeoutError::Disconnected) => {
                    self.stdout_closed = true;
                    break;
                }
                Ok(Event::Exited(exit)) => {
                    self.exited = Some(self.as_bot_exit(exit));
                    // Its last words may still be in the pipe.
                    if let Some(answer) = self.settle(protocol, discarded) {
                        return Reply::Answer(answer);
                    }
                    break;
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.sorter.timed_out(protocol, discarded);
                    return Reply::Timeout;
                }
            }
        }
        Reply::Down(
            self.check_down(protocol, discarded)
                .expect("the bot is gone"),
        )
    }
}

impl<G: Wire> Seat<G> for ProcessSeat {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> SeatKind {
        SeatKind::Process
    }

    fn command(&self) -> Option<&str> {
        Some(&self.command)
    }

    fn send(&mut self, text: &str) -> Result<(), Down> {
        if let Some(down) = &self.down {
            return Err(down.clone());
        }
        self.pending.extend_from_slice(text.as_bytes());
        match self.flush_pending(None) {
            Ok(_) => Ok(()),
            Err(e) => Err(self.down_after_write_error(&G::PROTOCOL, e, &mut Vec::new())),
        }
    }

    fn request(
        &mut self,
        _ask: Ask<'_, G>,
        message: &str,
        deadline: Instant,
        discarded: &mut Vec<Discarded>,
    ) -> Reply {
        let protocol = &G::PROTOCOL;
        self.set_frozen(false);
        // Reading the cgroup costs microseconds: a bot that answers is checked now and then,
        // one that does not, at once (below).
        if self.limits_checked.elapsed() >= LIMIT_CHECK_EVERY {
            self.limits_checked = Instant::now();
            if let Some(down) = self.enforce_limits(protocol, discarded) {
                return Reply::Down(down);
            }
        }
        match self.exchange(protocol, message, deadline, discarded) {
            // A bot silent because it is busy forking or allocating is down for that limit.
            Reply::Timeout => self
                .enforce_limits(protocol, discarded)
                .map_or(Reply::Timeout, Reply::Down),
            reply => reply,
        }
    }

    fn cpu_time(&self) -> Option<Duration> {
        self.jail.as_ref()?.cpu_time()
    }

    fn take_log(&mut self) -> String {
        self.catch_up_log();
        self.log.take()
    }

    fn freeze(&mut self) {
        if self.closed.is_none() && self.down.is_none() {
            self.set_frozen(true);
        }
    }

    fn thaw(&mut self) {
        self.set_frozen(false);
    }

    fn close(&mut self, deadline: Instant) -> ExitInfo {
        self.shut_down(deadline)
    }
}

impl Drop for ProcessSeat {
    fn drop(&mut self) {
        self.shut_down(Instant::now());
    }
}

/// Splits a command line as a POSIX shell would, without running one.
pub fn split_command(line: &str) -> Result<Vec<String>, SeatError> {
    let argv = shlex::split(line).ok_or_else(|| SeatError::BadQuoting {
        line: line.to_owned(),
    })?;
    if argv.is_empty() {
        return Err(SeatError::EmptyCommand);
    }
    Ok(argv)
}

fn spawn_thread(name: &str, f: impl FnOnce() + Send + 'static) -> io::Result<()> {
    std::thread::Builder::new()
        .name(name.to_owned())
        .stack_size(THREAD_STACK)
        .spawn(f)
        .map(drop)
}

/// Makes this process adopt the orphans of its descendants, so that the children a bot leaves
/// behind are reaped by the referee when it kills the bot's group, not left as zombies under an
/// init that may not reap them.
/// The jail of a bot in `sandbox`, once its program is known to exist: inside the jail a
/// missing program would only be an exit status.
fn jail_for(sandbox: &Sandbox, argv: &[String], dir: Option<&Path>) -> Result<Jail, SeatError> {
    find_program(&argv[0], dir)?;
    sandbox.prepare(argv, dir).map_err(SeatError::Sandbox)
}

/// Why `program` could not be started in `dir`, from the error of the start.
fn start_error(program: &str, dir: Option<&Path>, source: io::Error) -> SeatError {
    let program = program.to_owned();
    if source.kind() != io::ErrorKind::NotFound {
        return SeatError::CannotStart {
            program,
            error: source,
        };
    }
    match dir {
        Some(dir) if !dir.is_dir() => SeatError::CannotStart {
            program,
            error: io::Error::new(
                io::ErrorKind::NotFound,
                format!("no folder {}", dir.display()),
            ),
        },
        _ => SeatError::NotFound { program },
    }
}

/// The bot's command as given, run with the referee's rights in `dir`.
fn plain_command(argv: &[String], dir: Option<&Path>) -> Command {
    let mut path = PathBuf::from(&argv[0]);
    if let Some(dir) = dir
        && path.is_relative()
        && argv[0].contains('/')
    {
        // The program is started after the move into `dir`: a path relative to the current
        // folder (`players/mybot/./bot.sh`) would then name nothing.
        path = std::path::absolute(dir)
            .unwrap_or_else(|_| dir.to_owned())
            .join(path);
    }
    let mut command = Command::new(&path);
    command.args(&argv[1..]);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    command
}

/// Where `program` is, as `exec` would find it: a path (taken relative to `dir` when it has
/// a `/`) or a name on `PATH`.
fn find_program(program: &str, dir: Option<&Path>) -> Result<PathBuf, SeatError> {
    use std::os::unix::fs::PermissionsExt;
    let candidates: Vec<PathBuf> = if program.contains('/') {
        vec![dir.unwrap_or(Path::new(".")).join(program)]
    } else {
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .map(|d| d.join(program))
            .collect()
    };
    let not_found = || SeatError::NotFound {
        program: program.to_owned(),
    };
    let found = candidates
        .into_iter()
        .find(|p| p.is_file())
        .ok_or_else(not_found)?;
    let mode = found
        .metadata()
        .map_err(|_| not_found())?
        .permissions()
        .mode();
    if mode & 0o111 == 0 {
        return Err(SeatError::CannotStart {
            program: program.to_owned(),
            error: io::Error::from(io::ErrorKind::PermissionDenied),
        });
    }
    Ok(found)
}

fn become_subreaper() {
    #[cfg(target_os = "linux")]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: prctl with integer arguments only.
        ONCE.call_once(|| unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        });
    }
}

fn set_nonblocking(stdin: &ChildStdin) -> io::Result<()> {
    let fd = stdin.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags == -1 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) == -1 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Waits until `fd` can take more bytes; false at the deadline.
fn wait_writable(fd: i32, deadline: Instant) -> io::Result<bool> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(false);
        }
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLOUT,
            revents: 0,
        };
        let ms = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd.
        match unsafe { libc::poll(&mut pfd, 1, ms) } {
            -1 => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
            0 => {}
            // Writable, or an error the next write reports.
            _ => return Ok(true),
        }
    }
}

fn read_lines(mut out: ChildStdout, tx: SyncSender<Event>) {
    let mut buf = vec![0u8; READ_CHUNK];
    let mut line = Vec::new();
    let mut overlong = false;
    let finish = |line: &mut Vec<u8>, overlong: &mut bool, at| {
        if line.last() == Some(&b'\r') && !*overlong {
            line.pop();
        }
        let text = String::from_utf8_lossy(line).into_owned();
        line.clear();
        Line {
            text,
            at,
            overlong: std::mem::take(overlong),
        }
    };
    let append = |line: &mut Vec<u8>, overlong: &mut bool, bytes: &[u8]| {
        let room = MAX_LINE - line.len();
        if bytes.len() > room {
            *overlong = true;
        }
        line.extend_from_slice(&bytes[..bytes.len().min(room)]);
    };
    loop {
        let n = match out.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let at = Instant::now();
        let mut batch = Vec::new();
        let mut rest = &buf[..n];
        while let Some(end) = rest.iter().position(|&b| b == b'\n') {
            append(&mut line, &mut overlong, &rest[..end]);
            batch.push(finish(&mut line, &mut overlong, at));
            rest = &rest[end + 1..];
            if batch.len() == BATCH_LINES
                && tx.send(Event::Lines(std::mem::take(&mut batch))).is_err()
            {
                return;
            }
        }
        append(&mut line, &mut overlong, rest);
        if !batch.is_empty() && tx.send(Event::Lines(batch)).is_err() {
            return;
        }
    }
    if !line.is_empty() {
        // A last line without its line end still counts.
        let last = finish(&mut line, &mut overlong, Instant::now());
        if tx.send(Event::Lines(vec![last])).is_err() {
            return;
        }
    }
    let _ = tx.send(Event::StdoutClosed);
}

/// Waits for the process to exit without reaping it (see `spawn`).
fn wait_exit(pid: i32, tx: SyncSender<Event>) {
    // SAFETY: waitid fills the zeroed siginfo_t it is given.
    let exit = unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        loop {
            let r = libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            );
            if r == 0 {
                break;
            }
            if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                // Reaped by close() already.
                return;
            }
        }
        match info.si_code {
            libc::CLD_EXITED => ExitInfo::code(info.si_status()),
            libc::CLD_KILLED | libc::CLD_DUMPED => ExitInfo::signal(info.si_status()),
            _ => ExitInfo::default(),
        }
    };
    let _ = tx.send(Event::Exited(exit));
}

/// Reaps the group leader; its exit status if it was ours to reap.
fn reap(pid: i32) -> Option<ExitInfo> {
    let mut status = 0;
    loop {
        // SAFETY: waitpid on our own child.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            break;
        }
        if r == -1 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
            continue;
        }
        return None;
    }
    if libc::WIFEXITED(status) {
        Some(ExitInfo::code(libc::WEXITSTATUS(status)))
    } else if libc::WIFSIGNALED(status) {
        Some(ExitInfo::signal(libc::WTERMSIG(status)))
    } else {
        None
    }
}

/// Waits until no process is left in the (killed) group, reaping the orphans we adopted.
fn reap_group(pgid: i32) {
    let give_up = Instant::now() + REAP_LIMIT;
    loop {
        // SAFETY: waitpid and kill on our own process group.
        unsafe {
            while libc::waitpid(-pgid, std::ptr::null_mut(), libc::WNOHANG) > 0 {}
            if libc::kill(-pgid, 0) == -1
                && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
            {
                return;
            }
        }
        // Members still dying, or orphans not yet handed to us: rare, and only when closing.
        if Instant::now() >= give_up {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The stderr of one tick, capped at `LOG_CAP` characters; the rest is read and dropped.
#[derive(Default)]
struct LogShared {
    state: Mutex<LogBuf>,
    done: Condvar,
    /// Bytes the reader has read from the pipe (counted before they are appended).
    read: AtomicU64,
}

#[derive(Default)]
struct LogBuf {
    /// Bytes appended since the start, kept or dropped by the cap.
    taken_in: u64,
    bytes: Vec<u8>,
    chars: usize,
    trimmed: bool,
    eof: bool,
}

impl LogShared {
    fn append(&self, chunk: &[u8]) {
        let mut log = self.state.lock().unwrap_or_else(|e| e.into_inner());
        log.taken_in += chunk.len() as u64;
        if log.trimmed {
            return;
        }
        for (i, &b) in chunk.iter().enumerate() {
            // Counting UTF-8 lead bytes counts characters without decoding.
            if b & 0xC0 != 0x80 {
                if log.chars == LOG_CAP {
                    log.trimmed = true;
                    log.bytes.extend_from_slice(&chunk[..i]);
                    return;
                }
                log.chars += 1;
            }
        }
        log.bytes.extend_from_slice(chunk);
    }

    fn taken_in(&self) -> u64 {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .taken_in
    }

    fn take(&self) -> String {
        let mut log = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if log.bytes.is_empty() && !log.trimmed {
            return String::new();
        }
        let mut text = String::from_utf8_lossy(&log.bytes).into_owned();
        if log.trimmed {
            text.push_str(LOG_TRIMMED);
        }
        log.bytes.clear();
        log.chars = 0;
        log.trimmed = false;
        text
    }

    fn finish(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).eof = true;
        self.done.notify_all();
    }

    fn wait_done(&self, limit: Duration) {
        let log = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let _ = self.done.wait_timeout_while(log, limit, |log| !log.eof);
    }
}

fn read_log(mut err: ChildStderr, log: &LogShared) {
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        match err.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                log.read.fetch_add(n as u64, Ordering::Release);
                log.append(&buf[..n]);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    log.finish();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_is_cut_at_2000_characters_exactly() {
        let log = LogShared::default();
        log.append("é".repeat(1999).as_bytes());
        log.append(b"x");
        assert_eq!(log.take(), format!("{}x", "é".repeat(1999)));
        log.append("é".repeat(1500).as_bytes());
        log.append("ab".repeat(400).as_bytes());
        let text = log.take();
        assert_eq!(
            text,
            format!(
                "{}{}...\n[[bot log trimmed to 2KB]]",
                "é".repeat(1500),
                "ab".repeat(250)
            )
        );
        assert_eq!(log.take(), "", "a new tick starts empty");
    }
}
