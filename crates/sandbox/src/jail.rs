//! One bot's jail: its cgroup, its scratch folder and the command that starts it inside.

use std::fs;
use std::io;
use std::os::unix::fs::{PermissionsExt, lchown, symlink};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::cgroup::BotCgroup;
use crate::mounts::{Author, ISOLATION, Mount, exposed, in_system, ordered, system_args};
use crate::{BetweenTurns, Limit, Sandbox, SandboxError};

/// A player folder larger than this is refused rather than copied for every match.
const FOLDER_LIMIT_MB: u64 = 512;
/// The size of the bot's private `/tmp` (its pages count against its memory limit too).
const TMP_MB: u64 = 256;

/// One bot's confinement, from before it starts until after it is gone. Dropping it kills
/// every process left in its cgroup and removes the cgroup and the scratch folder.
#[derive(Debug)]
pub struct Jail {
    /// `bwrap` and its arguments, then the bot's own command line.
    argv: Vec<String>,
    rlimits: [(libc::__rlimit_resource_t, u64); 3],
    cgroup: BotCgroup,
    scratch: PathBuf,
    /// Whether [`Jail::freeze`] freezes (as the sandbox's configuration says).
    freezes: bool,
}

impl Jail {
    pub(crate) fn prepare(
        sandbox: &Sandbox,
        n: u32,
        uid: Option<u32>,
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
        let scratch = make_scratch(n, dir, uid)?;
        let cgroup = match sandbox.cgroups.make(n, &limits) {
            Ok(cgroup) => cgroup,
            Err(e) => {
                let _ = fs::remove_dir_all(&scratch);
                return Err(e);
            }
        };
        let mut mounts = vec![Mount::Bind {
            from: scratch.clone(),
            at: cwd.clone(),
            writable: true,
        }];
        mounts.extend(shown.into_iter().map(|p| Mount::Bind {
            from: p.clone(),
            at: p,
            writable: false,
        }));
        let mut full = bwrap_args(sandbox, mounts, &cwd, uid);
        full.push("--".into());
        full.extend(argv.iter().cloned());
        Ok(Jail {
            argv: full,
            rlimits: [
                (libc::RLIMIT_FSIZE, limits.file_size_mb << 20),
                (libc::RLIMIT_NOFILE, u64::from(limits.open_files)),
                (libc::RLIMIT_CORE, 0),
            ],
            cgroup,
            scratch,
            freezes: sandbox.config.between_turns == BetweenTurns::Frozen,
        })
    }

    /// The command that starts the bot in its jail. The child joins the bot's cgroup and takes
    /// its resource limits before bubblewrap runs, so nothing it starts escapes either.
    pub fn command(&self) -> Command {
        let mut command = Command::new(&self.argv[0]);
        command.args(&self.argv[1..]);
        let fds = self.cgroup.join_fds();
        let rlimits = self.rlimits;
        // SAFETY: the hook only makes system calls (write, setrlimit) on values prepared
        // before the fork: nothing is allocated or locked between fork and exec.
        unsafe {
            command.pre_exec(move || {
                for &fd in &fds {
                    if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                        return Err(io::Error::last_os_error());
                    }
                }
                for (resource, value) in rlimits {
                    let limit = libc::rlimit {
                        rlim_cur: value,
                        rlim_max: value,
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

    /// The limit the bot ran into, if it did.
    pub fn limit_hit(&self) -> Option<Limit> {
        self.cgroup.limit_hit()
    }

    /// CPU time used by all the bot's processes so far, where the machine measures it.
    pub fn cpu_time(&self) -> Option<Duration> {
        self.cgroup.cpu_time()
    }

    /// Whether [`Jail::freeze`] stops the bot: the sandbox freezes bots between turns and the
    /// machine has a cgroup freezer.
    pub fn freezes(&self) -> bool {
        self.freezes && self.cgroup.can_freeze()
    }

    /// Stops every process of the bot until [`Jail::thaw`]: it gets no CPU, and what is written
    /// to it waits in its pipe. Does nothing where the jail does not freeze ([`Jail::freezes`]).
    /// Returns at once; the processes stop within microseconds.
    pub fn freeze(&self) -> Result<(), SandboxError> {
        if !self.freezes {
            return Ok(());
        }
        self.cgroup.freeze().map_err(SandboxError::Freezer)
    }

    /// Lets the bot run again after [`Jail::freeze`].
    pub fn thaw(&self) -> Result<(), SandboxError> {
        if !self.freezes {
            return Ok(());
        }
        self.cgroup.thaw().map_err(SandboxError::Freezer)
    }

    /// Kills every process of the bot, wherever it moved in the process tree.
    pub fn kill_all(&self) {
        self.cgroup.kill_all();
    }

    /// The whole command line, bubblewrap's part included (for diagnostics).
    pub fn argv(&self) -> &[String] {
        &self.argv
    }
}

impl Drop for Jail {
    fn drop(&mut self) {
        self.cgroup.kill_all();
        let _ = fs::remove_dir_all(&self.scratch);
    }
}

/// bubblewrap and its arguments: namespaces, the system, `mounts`, the working folder, the
/// environment, and the drop to the bot's user; the bot's command line follows.
fn bwrap_args(sandbox: &Sandbox, mounts: Vec<Mount>, cwd: &Path, uid: Option<u32>) -> Vec<String> {
    let mut full = vec![path_arg(&sandbox.bwrap)];
    full.extend(ISOLATION.iter().map(|s| s.to_string()));
    full.extend(system_args());
    // Writable by every user and sticky, as the system's own /tmp.
    let tmp_size = (TMP_MB << 20).to_string();
    full.extend(["--perms", "1777", "--size", &tmp_size, "--tmpfs", "/tmp"].map(String::from));
    full.extend(ordered(mounts));
    full.extend(["--chdir".into(), path_arg(cwd), "--clearenv".into()]);
    for (key, value) in environment(cwd) {
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
        _ => full.push("--unshare-user".into()),
    }
    full
}

/// The scratch folder of jail `n`: a copy of the player folder `dir` (empty without one),
/// given to the bot's user.
fn make_scratch(n: u32, dir: Option<&Path>, uid: Option<u32>) -> Result<PathBuf, SandboxError> {
    let scratch = std::env::temp_dir().join(format!("arbiter-jail-{}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&scratch);
    fs::create_dir(&scratch).map_err(SandboxError::io("making", &scratch))?;
    let fill = || -> Result<(), SandboxError> {
        if let Some(dir) = dir {
            copy_folder(dir, &scratch, &mut (FOLDER_LIMIT_MB << 20))?;
        }
        if let Some(uid) = uid {
            chown_all(&scratch, uid)?;
        }
        Ok(())
    };
    match fill() {
        Ok(()) => Ok(scratch),
        Err(e) => {
            let _ = fs::remove_dir_all(&scratch);
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
/// language.
fn environment(home: &Path) -> Vec<(&'static str, String)> {
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
    let lang = std::env::var("LANG").unwrap_or_else(|_| "C.UTF-8".into());
    vec![
        ("PATH", path),
        ("HOME", path_arg(home)),
        ("LANG", lang),
        ("TMPDIR", "/tmp".into()),
    ]
}

fn path_arg(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn absolute(path: &Path) -> Result<PathBuf, SandboxError> {
    path.canonicalize()
        .map_err(SandboxError::io("finding", path))
}

/// Copies the folder `from` into `to` (which exists), links as links, spending at most
/// `budget` bytes.
fn copy_folder(from: &Path, to: &Path, budget: &mut u64) -> Result<(), SandboxError> {
    let too_large = || SandboxError::FolderTooLarge {
        path: from.to_path_buf(),
        limit_mb: FOLDER_LIMIT_MB,
    };
    for entry in fs::read_dir(from).map_err(SandboxError::io("reading", from))? {
        let entry = entry.map_err(SandboxError::io("reading", from))?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry
            .file_type()
            .map_err(SandboxError::io("reading", &source))?;
        if kind.is_symlink() {
            let link = fs::read_link(&source).map_err(SandboxError::io("reading", &source))?;
            symlink(&link, &target).map_err(SandboxError::io("copying", &source))?;
        } else if kind.is_dir() {
            fs::create_dir(&target).map_err(SandboxError::io("copying", &source))?;
            copy_folder(&source, &target, budget).map_err(|e| match e {
                SandboxError::FolderTooLarge { .. } => too_large(),
                e => e,
            })?;
        } else if kind.is_file() {
            let size = entry
                .metadata()
                .map_err(SandboxError::io("reading", &source))?
                .len();
            *budget = budget.checked_sub(size).ok_or_else(too_large)?;
            fs::copy(&source, &target).map_err(SandboxError::io("copying", &source))?;
        }
    }
    let mode = fs::metadata(from)
        .map_err(SandboxError::io("reading", from))?
        .permissions()
        .mode();
    fs::set_permissions(to, fs::Permissions::from_mode(mode | 0o700))
        .map_err(SandboxError::io("copying", from))
}

/// Gives the scratch folder and everything in it to the bot's user.
fn chown_all(path: &Path, uid: u32) -> Result<(), SandboxError> {
    lchown(path, Some(uid), Some(uid)).map_err(SandboxError::io("giving", path))?;
    if path.is_dir() && !path.is_symlink() {
        for entry in fs::read_dir(path).map_err(SandboxError::io("reading", path))? {
            let entry = entry.map_err(SandboxError::io("reading", path))?;
            chown_all(&entry.path(), uid)?;
        }
    }
    Ok(())
}
