//! Who the server runs as: this process's user, or an unprivileged one when this process is
//! root (PostgreSQL refuses to run as root).

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// The user created for the cluster when the machine has no `postgres` user.
const OWN_USER: &str = "arbiter-pg";

/// How the cluster's programs are started.
pub(crate) enum RunAs {
    /// As this process's user.
    Me,
    /// As another user, through `setpriv`.
    User {
        /// Its name, for `setpriv`.
        name: String,
        uid: u32,
        gid: u32,
    },
}

impl RunAs {
    /// This process's user, unless it is root: then `postgres`, or [`OWN_USER`], created.
    pub(crate) fn for_this_process() -> Result<RunAs, String> {
        // /proc/self belongs to the process's effective user.
        let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
        if !root {
            return Ok(RunAs::Me);
        }
        let name = if id("-u", "postgres").is_ok() {
            "postgres"
        } else {
            create_user()?;
            OWN_USER
        };
        Ok(RunAs::User {
            name: name.to_owned(),
            uid: id("-u", name)?,
            gid: id("-g", name)?,
        })
    }

    /// Makes `dir` the server user's.
    pub(crate) fn give(&self, dir: &Path) -> Result<(), String> {
        match self {
            RunAs::Me => Ok(()),
            RunAs::User { uid, gid, .. } => std::os::unix::fs::chown(dir, Some(*uid), Some(*gid))
                .map_err(|e| format!("giving {} to uid {uid}: {e}", dir.display())),
        }
    }

    /// A command running `program` as this user.
    pub(crate) fn command(&self, program: &Path) -> Command {
        match self {
            RunAs::Me => Command::new(program),
            RunAs::User { name, .. } => {
                let mut command = Command::new("setpriv");
                command
                    .args(["--reuid", name, "--regid", name, "--init-groups", "--"])
                    .arg(program);
                command
            }
        }
    }

    /// A command running the server `program` as this user, killed when the thread that
    /// starts it ends — even when the test process is killed and no `Drop` runs.
    pub(crate) fn server_command(&self, program: &Path) -> Command {
        let mut command = Command::new("setpriv");
        command.args(["--pdeathsig", "KILL"]);
        if let RunAs::User { name, .. } = self {
            command.args(["--reuid", name, "--regid", name, "--init-groups"]);
        }
        command.arg("--").arg(program);
        command
    }
}

/// `id FLAG name`: a user's uid (`-u`) or group id (`-g`).
fn id(flag: &str, name: &str) -> Result<u32, String> {
    let output = Command::new("id")
        .args([flag, name])
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("running id: {e}"))?;
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .map_err(|_| format!("there is no user {name}"))
}

/// Creates the system user [`OWN_USER`]; one created meanwhile by another test is as good.
fn create_user() -> Result<(), String> {
    let output = Command::new("useradd")
        .args(["--system", "--no-create-home", "--home-dir", "/nonexistent"])
        .args(["--shell", "/usr/sbin/nologin", OWN_USER])
        .output()
        .map_err(|e| format!("running useradd: {e}"))?;
    // 9: the user exists already.
    if output.status.success() || output.status.code() == Some(9) {
        Ok(())
    } else {
        Err(format!(
            "creating the user {OWN_USER} to run PostgreSQL as (it refuses root): {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}
