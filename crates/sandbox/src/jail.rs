//! One bot's jail: its cgroup (or rlimits where there is none), its scratch folder and the
//! command that starts it inside.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::{PermissionsExt, lchown};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbiter_folder::{Bounds as FolderBounds, Over, WalkError};

use crate::bounds::{Bounds, Rlimit};
use crate::cgroup::BotCgroup;
use crate::mounts::{
    Author, ISOLATION, Mount, cover_for, credentials_covers, exposed, in_system, ordered,
    system_args, system_folders,
};
use crate::scratch::{Owner, private_dir};
use crate::uids::UidLease;
use crate::{BetweenTurns, FolderLimit, FolderLimits, Limit, Sandbox, SandboxError};

/// The size of the bot's private `/tmp` (with a cgroup, its pages count against its memory limit
/// too).
const TMP_MB: u64 = 256;
/// How long killing a bot without a cgroup waits for its PID namespace to end.
const NAMESPACE_END_MS: i32 = 2000;

/// One bot's confinement, from before it starts until after it is gone. Dropping it kills
/// every process left in its cgroup and removes the cgroup and the scratch folder. Without a
/// cgroup, its processes die with its PID namespace when the seat kills bubblewrap.
#[derive(Debug)]
pub struct Jail {
    /// `bwrap` and its arguments, then the bot's own command line.
    argv: Vec<String>,
    rlimits: Vec<Rlimit>,
    /// `None` where the machine gives no cgroup.
    cgroup: Option<BotCgroup>,
    /// bubblewrap's process id, from its start until the bot is killed: without a cgroup, the
    /// way to the bot's PID namespace. Taken when used, as the process may be reaped after.
    bwrap: Mutex<Option<i32>>,
    scratch: PathBuf,
    /// The bot's own user, held until every process of the bot is gone.
    _uid: Option<UidLease>,
    /// The folder `scratch` is in, kept while the jail lives.
    _owner: Arc<Owner>,
    /// Whether [`Jail::freeze`] freezes (as the sandbox's configuration says).
    freezes: bool,
}

impl Jail {
    pub(crate) fn prepare(
        sandbox: &Sandbox,
        n: u32,
        lease: Option<UidLease>,
        argv: &[String],
        dir: Option<&Path>,
    ) -> Result<Jail, SandboxError> {
        let limits = sandbox.config.limits;
        let cwd = match dir {
            Some(dir) => absolute(dir)?,
            None => absolute(Path::new("."))?,
        };
        let author = match dir {
            Some(_) => Author::Player,
            None => Author::Organiser,
        };
        let mut shown = exposed(argv, &cwd, author);
        shown.extend(sandbox.config.read_only.iter().cloned());
        check_visible(&argv[0], &cwd, &shown)?;
        if author == Author::Player {
            sandbox.toolchains.check_found(&argv[0])?;
            sandbox.toolchains.announce();
        }
        let uid = lease.as_ref().map(UidLease::uid);
        let scratch = make_scratch(&sandbox.scratch, n, dir, uid, &sandbox.config.folders)?;
        let cgroup = match &sandbox.bounds {
            Bounds::Cgroups(cgroups) => match cgroups.make(n, &limits) {
                Ok(cgroup) => Some(cgroup),
                Err(e) => {
                    remove_scratch(&scratch);
                    return Err(e);
                }
            },
            Bounds::Rlimits { .. } => None,
        };
        let mut mounts = view(sandbox, shown, &cwd);
        mounts.push(Mount::Bind {
            from: scratch.clone(),
            at: cwd.clone(),
            writable: true,
        });
        let mut full = bwrap_args(sandbox, mounts, &cwd, uid, author);
        full.push("--".into());
        full.extend(sandbox.bounds.inside(&limits));
        full.extend(argv.iter().cloned());
        Ok(Jail {
            argv: full,
            rlimits: sandbox.bounds.rlimits(&limits),
            cgroup,
            bwrap: Mutex::new(None),
            scratch,
            _uid: lease,
            _owner: sandbox.scratch.clone(),
            freezes: sandbox.config.between_turns == BetweenTurns::Frozen,
        })
    }

    /// The command that starts the bot in its jail. The child joins the bot's cgroup and takes
    /// its resource limits before bubblewrap runs, so nothing it starts escapes either.
    pub fn command(&self) -> Command {
        let mut command = Command::new(&self.argv[0]);
        command.args(&self.argv[1..]);
        let fds = self.cgroup.as_ref().map(BotCgroup::join_fds);
        let fds = fds.unwrap_or_default();
        let rlimits = self.rlimits.clone();
        // SAFETY: the hook only makes system calls (write, keyctl, setrlimit) on values prepared
        // before the fork: nothing is allocated or locked between fork and exec.
        unsafe {
            command.pre_exec(move || {
                for &fd in &fds {
                    if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                        return Err(io::Error::last_os_error());
                    }
                }
                // A session keyring of its own: the one Arbiter inherited from a login (its
                // keys readable by the bot, which possesses it) would be shared by every bot.
                // Without keyrings in the kernel there is nothing to share.
                const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
                let joined = libc::syscall(
                    libc::SYS_keyctl,
                    KEYCTL_JOIN_SESSION_KEYRING,
                    std::ptr::null::<libc::c_char>(),
                );
                if joined < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::ENOSYS) {
                    return Err(io::Error::last_os_error());
                }
                for &(resource, soft, hard) in &rlimits {
                    let limit = libc::rlimit {
                        rlim_cur: soft,
                        rlim_max: hard,
                    };
                    if libc::setrlimit(resource, &limit) != 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        command
    }

    /// The limit the bot ran into, if its cgroup says it did (without one, nothing says it:
    /// see [`Limit::of_signal`]).
    pub fn limit_hit(&self) -> Option<Limit> {
        self.cgroup.as_ref()?.limit_hit()
    }

    /// CPU time used by all the bot's processes so far, where the machine measures it.
    pub fn cpu_time(&self) -> Option<Duration> {
        self.cgroup.as_ref()?.cpu_time()
    }

    /// Tells the jail that [`Jail::command`] started as process `pid`, which its starter reaps
    /// only after [`Jail::kill_all`].
    pub fn started(&self, pid: u32) {
        *self.bwrap.lock().unwrap_or_else(|e| e.into_inner()) = i32::try_from(pid).ok();
    }

    /// Whether [`Jail::freeze`] stops the bot: the sandbox freezes bots between turns and the
    /// machine has a cgroup freezer.
    pub fn freezes(&self) -> bool {
        self.freezer().is_some()
    }

    /// Stops every process of the bot until [`Jail::thaw`]: it gets no CPU, and what is written
    /// to it waits in its pipe. Does nothing where the jail does not freeze ([`Jail::freezes`]).
    /// Returns at once; the processes stop within microseconds.
    pub fn freeze(&self) -> Result<(), SandboxError> {
        match self.freezer() {
            Some(cgroup) => cgroup.freeze().map_err(SandboxError::Freezer),
            None => Ok(()),
        }
    }

    /// Lets the bot run again after [`Jail::freeze`].
    pub fn thaw(&self) -> Result<(), SandboxError> {
        match self.freezer() {
            Some(cgroup) => cgroup.thaw().map_err(SandboxError::Freezer),
            None => Ok(()),
        }
    }

    /// The cgroup that [`Jail::freeze`] freezes, if the jail freezes.
    fn freezer(&self) -> Option<&BotCgroup> {
        let cgroup = self.cgroup.as_ref().filter(|c| c.can_freeze())?;
        self.freezes.then_some(cgroup)
    }

    /// Kills every process of the bot, wherever it moved in the process tree, and waits (up to
    /// a limit) until none is left. Without a cgroup, the bot's PID namespace is killed
    /// through bubblewrap, which must not be reaped yet: call this before reaping it.
    pub fn kill_all(&self) {
        match &self.cgroup {
            Some(cgroup) => cgroup.kill_all(),
            None => {
                let bwrap = self.bwrap.lock().unwrap_or_else(|e| e.into_inner()).take();
                if let Some(bwrap) = bwrap {
                    kill_namespace(bwrap);
                }
            }
        }
    }

    /// The whole command line, bubblewrap's part included (for diagnostics).
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// The bot's scratch folder on the host (the copy of its player folder it works in), as
    /// it is while the jail lives: what a build made there is taken from it once every
    /// process of the jail is gone ([`Jail::kill_all`]). It belongs to the bot's user.
    pub fn scratch(&self) -> &Path {
        &self.scratch
    }
}

impl Drop for Jail {
    fn drop(&mut self) {
        self.kill_all();
        remove_scratch(&self.scratch);
        // The uid is released after this, with the fields (dropped in their order, after
        // the cgroup): once no process of the bot is left to use it.
    }
}

/// Kills the PID namespace that bubblewrap (process `bwrap`, not reaped yet) made, and waits
/// until it is gone: bubblewrap's child is the namespace's init, and an init ends only once
/// every other process of its namespace has ended.
fn kill_namespace(bwrap: i32) {
    let Ok(children) = fs::read_to_string(format!("/proc/{bwrap}/task/{bwrap}/children")) else {
        return;
    };
    for init in children
        .split_whitespace()
        .filter_map(|c| c.parse::<i32>().ok())
    {
        // SAFETY: pidfd_open takes a pid and flags; a descriptor it returns is ours to own.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, init, 0) };
        let Ok(fd) = i32::try_from(fd) else { continue };
        if fd < 0 {
            continue;
        }
        // SAFETY: a new descriptor, owned here alone.
        let pidfd = unsafe { OwnedFd::from_raw_fd(fd) };
        // Its id could have been reused since it was read: it must still be bubblewrap's child.
        if parent_of(init) != Some(bwrap) {
            continue;
        }
        let mut ready = libc::pollfd {
            fd: pidfd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: plain system calls on the descriptor owned above.
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                pidfd.as_raw_fd(),
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            );
            libc::poll(&mut ready, 1, NAMESPACE_END_MS);
        }
    }
}

/// The parent of process `pid`, from `/proc/PID/stat` (its fourth field, after the name in
/// parentheses, which may hold anything).
fn parent_of(pid: i32) -> Option<i32> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, after_name) = stat.rsplit_once(')')?;
    after_name.split_whitespace().nth(1)?.parse().ok()
}

/// bubblewrap and its arguments: namespaces, the system, `mounts`, the working folder, the
/// environment, and the drop to the bot's user; the bot's command line follows.
fn bwrap_args(
    sandbox: &Sandbox,
    mounts: Vec<Mount>,
    cwd: &Path,
    uid: Option<u32>,
    author: Author,
) -> Vec<String> {
    let mut full = vec![path_arg(&sandbox.bwrap)];
    full.extend(ISOLATION.iter().map(|s| s.to_string()));
    full.extend(system_args());
    // Writable by every user and sticky, as the system's own /tmp.
    let tmp_size = (TMP_MB << 20).to_string();
    full.extend(["--perms", "1777", "--size", &tmp_size, "--tmpfs", "/tmp"].map(String::from));
    full.extend(ordered(mounts));
    full.extend(["--chdir".into(), path_arg(cwd), "--clearenv".into()]);
    for (key, value) in environment(cwd, sandbox, author) {
        full.extend(["--setenv".into(), key.into(), value]);
    }
    match (&sandbox.setpriv, uid) {
        (Some(setpriv), Some(uid)) => {
            // bubblewrap runs as root and drops every capability but these two, which setpriv
            // needs to become the bot's user; it then drops them for good.
            full.extend(["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"].map(String::from));
            full.extend(["--".into(), path_arg(setpriv)]);
            full.extend([
                format!("--reuid={uid}"),
                format!("--regid={uid}"),
                "--clear-groups".into(),
                "--no-new-privs".into(),
                "--bounding-set=-all".into(),
                "--inh-caps=-all".into(),
            ]);
        }
        _ => {
            // The bot's user owns the namespace's root and /dev, both memory-backed and
            // unbounded: read-only, as they are to a bot's own user under root.
            full.extend(["--remount-ro", "/dev", "--remount-ro", "/"].map(String::from));
            full.push("--unshare-user".into());
        }
    }
    full
}

/// The scratch folder of jail `n`, in this process's private folder: a copy of the player
/// folder `dir` (empty without one), within `folders`, closed to everyone but the bot's user
/// (0700), given to it.
fn make_scratch(
    owner: &Owner,
    n: u32,
    dir: Option<&Path>,
    uid: Option<u32>,
    folders: &FolderLimits,
) -> Result<PathBuf, SandboxError> {
    let scratch = owner.scratch_path(n);
    private_dir(&scratch).map_err(SandboxError::io("making", &scratch))?;
    let fill = || -> Result<(), SandboxError> {
        if let Some(dir) = dir {
            copy_folder(dir, &scratch, folders)?;
        }
        // The copy gave it the player folder's mode.
        fs::set_permissions(&scratch, fs::Permissions::from_mode(0o700))
            .map_err(SandboxError::io("closing", &scratch))?;
        if let Some(uid) = uid {
            chown_all(&scratch, uid)?;
        }
        Ok(())
    };
    match fill() {
        Ok(()) => Ok(scratch),
        Err(e) => {
            remove_scratch(&scratch);
            Err(e)
        }
    }
}

/// A program named by its path must be inside what the jail shows, or it would only be a
/// puzzling "No such file or directory" from inside.
fn check_visible(program: &str, cwd: &Path, shown: &[PathBuf]) -> Result<(), SandboxError> {
    if !program.contains('/') {
        return Ok(());
    }
    let path = cwd.join(program);
    let path = path.canonicalize().unwrap_or(path);
    if path.starts_with(cwd) || in_system(&path) || shown.iter().any(|p| path.starts_with(p)) {
        return Ok(());
    }
    Err(SandboxError::Hidden { program: path })
}

/// The bot's whole environment: nothing of the organiser's but where programs are and the
/// language. A player's bot finds programs in the folders its jail shows only, and the
/// toolchain proxies shown to it are fixed on the organiser's choice (`toolchains.rs`).
fn environment(home: &Path, sandbox: &Sandbox, author: Author) -> Vec<(&'static str, String)> {
    let path = match author {
        Author::Player => sandbox.toolchains.path(),
        Author::Organiser => {
            std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into())
        }
    };
    let lang = std::env::var("LANG").unwrap_or_else(|_| "C.UTF-8".into());
    let mut environment = vec![
        ("PATH", path),
        ("HOME", path_arg(home)),
        ("LANG", lang),
        ("TMPDIR", "/tmp".into()),
    ];
    if author == Author::Player {
        environment.extend(sandbox.toolchains.pins().iter().cloned());
    }
    environment
}

/// What the bot sees besides the system and its scratch folder: the `shown` paths read-only,
/// without the credentials files at their top, and an empty folder over every folder of the
/// contest they or the system would show (the players', the store's, the organiser's working
/// folder, the one holding the player folder at `cwd`).
fn view(sandbox: &Sandbox, shown: Vec<PathBuf>, cwd: &Path) -> Vec<Mount> {
    let mut holders = system_folders();
    holders.extend(shown.iter().filter(|p| p.is_dir()).cloned());
    let player_folders = cwd.parent().filter(|_| cwd != sandbox.workdir);
    let private = sandbox
        .config
        .hidden
        .iter()
        .map(PathBuf::as_path)
        .chain([sandbox.workdir.as_path()])
        .chain(player_folders)
        .filter(|p| p.exists())
        .flat_map(|p| [Some(p.to_path_buf()), p.canonicalize().ok()])
        .flatten();
    let covers: BTreeSet<PathBuf> = private.filter_map(|p| cover_for(&p, &holders)).collect();
    let mut mounts: Vec<Mount> = shown.iter().flat_map(|p| credentials_covers(p)).collect();
    mounts.extend(shown.into_iter().map(|p| Mount::Bind {
        from: p.clone(),
        at: p,
        writable: false,
    }));
    mounts.extend(covers.into_iter().map(Mount::Cover));
    mounts
}

fn path_arg(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn absolute(path: &Path) -> Result<PathBuf, SandboxError> {
    path.canonicalize()
        .map_err(SandboxError::io("finding", path))
}

/// Removes a scratch folder, whatever the bot left in it (a tree deeper than the open-files
/// limit too); a failure is said on stderr, since the folder then stays behind.
fn remove_scratch(scratch: &Path) {
    if let Err(error) = arbiter_folder::remove_tree(scratch) {
        use std::io::Write;
        // A closed stderr is no reason to stop: the warning is then lost.
        let _ = writeln!(
            io::stderr(),
            "warning: could not remove the sandbox's scratch folder {}: {error}; the next \
             start of Arbiter removes it",
            arbiter_text::short_path(scratch)
        );
    }
}

/// Whether the player folder `dir` is within `limits`, as [`copy_folder`] would find it.
pub(crate) fn check_folder(dir: &Path, limits: &FolderLimits) -> Result<(), SandboxError> {
    arbiter_folder::walk(dir, &limits.bounds(), &mut |_| Ok(()))
        .map(drop)
        .map_err(folder_error(dir, limits, "reading"))
}

/// Copies the player folder `from` into `to` (which exists), within `limits`: links as links,
/// folders and files with their permissions (no set-user-id bit), named pipes, sockets and
/// devices left out. A few files are open at a time, however deep the folder.
fn copy_folder(from: &Path, to: &Path, limits: &FolderLimits) -> Result<(), SandboxError> {
    arbiter_folder::copy(from, to, &limits.bounds())
        .map_err(folder_error(from, limits, "copying"))?;
    let mode = fs::metadata(from)
        .map_err(SandboxError::io("reading", from))?
        .permissions()
        .mode();
    fs::set_permissions(to, fs::Permissions::from_mode(mode | 0o700))
        .map_err(SandboxError::io("copying", from))
}

/// Gives the scratch folder and everything in it (links themselves, not their targets) to the
/// bot's user.
fn chown_all(path: &Path, uid: u32) -> Result<(), SandboxError> {
    lchown(path, Some(uid), Some(uid)).map_err(SandboxError::io("giving", path))?;
    // What the copy made: within the folder limits already.
    arbiter_folder::walk(path, &FolderBounds::NONE, &mut |entry| {
        entry.chown(uid, uid)
    })
    .map(drop)
    .map_err(folder_error(path, &FolderLimits::default(), "giving"))
}

/// The error of a walk of the player folder `dir` under `limits`.
fn folder_error(
    dir: &Path,
    limits: &FolderLimits,
    what: &'static str,
) -> impl FnOnce(WalkError) -> SandboxError {
    move |error| match error {
        WalkError::Over(over) => SandboxError::FolderTooLarge {
            path: dir.to_owned(),
            limit: match over {
                Over::Bytes => FolderLimit::Megabytes(limits.max_mb),
                Over::Entries => FolderLimit::Entries(limits.max_entries),
                Over::Depth => FolderLimit::Depth(limits.max_depth),
            },
        },
        WalkError::Io { path, error } => SandboxError::Io {
            what,
            path: dir.join(path),
            error,
        },
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;

    use super::*;
    use crate::SandboxConfig;
    use crate::bounds::NprocLimit;

    /// Processes other than `except` whose command line holds `marker`.
    fn processes_with(marker: &str, except: u32) -> Vec<String> {
        let mut found = Vec::new();
        for entry in fs::read_dir("/proc").unwrap().flatten() {
            let Ok(cmdline) = fs::read(entry.path().join("cmdline")) else {
                continue;
            };
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(marker) && entry.file_name() != except.to_string().as_str() {
                found.push(cmdline);
            }
        }
        found
    }

    #[test]
    fn without_a_cgroup_killing_a_bot_waits_until_its_whole_namespace_is_gone() {
        let mut sandbox = Sandbox::new(SandboxConfig::default()).expect("a sandbox here");
        sandbox.bounds = Bounds::Rlimits {
            why: "a test without cgroups".into(),
            nproc: NprocLimit::OwnUser,
        };
        let marker = format!("arbiter-namespace-test-{}", std::process::id());
        // A grandchild in a session of its own, out of the bot's process group.
        let script = format!("setsid sh -c 'sleep 600; : {marker}' & echo started; wait");
        let argv = ["sh", "-c", &script].map(String::from);
        let jail = sandbox.prepare(&argv, None).unwrap();
        let mut bwrap = jail.command().stdout(Stdio::piped()).spawn().unwrap();
        jail.started(bwrap.id());
        let mut line = String::new();
        BufReader::new(bwrap.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line, "started\n");
        assert!(!processes_with(&marker, bwrap.id()).is_empty());
        jail.kill_all();
        let left = processes_with(&marker, bwrap.id());
        assert!(left.is_empty(), "left after kill_all: {left:?}");
        let _ = bwrap.kill();
        bwrap.wait().unwrap();
    }
}
