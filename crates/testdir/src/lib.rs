//! Scratch folders for tests. Every folder a test process asks for ([`fresh`]) lives under one
//! root of its own in the system's temporary folder, `arbiter-test-BINARY-PID`, and the root is
//! removed when the process exits, whether its tests passed or failed: the test harness ends the
//! process with `exit` either way, which runs the handler registered here. A process killed by a
//! signal runs nothing; the next test process to ask for a folder removes the roots of processes
//! that are gone.
//!
//! A folder per test that is removed when the test ends would leave one behind at every failed
//! assertion (a panic unwinds past code that never runs); one root per process needs no clean-up
//! code in any test.
#![warn(missing_docs)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The start of every root's name; the process id ends it.
const PREFIX: &str = "arbiter-test-";

/// The process that made the root: a child forked from it that calls `exit` (not `_exit`, as
/// `exec` failing does in some libraries) must not remove its parent's folders.
static OWNER: OnceLock<(PathBuf, u32)> = OnceLock::new();

/// This process's root, made (and the roots of dead test processes removed) on first use.
pub fn root() -> &'static Path {
    &OWNER
        .get_or_init(|| {
            let temp = std::env::temp_dir();
            sweep(&temp);
            let pid = std::process::id();
            let root = temp.join(format!("{PREFIX}{}-{pid}", binary_name()));
            std::fs::create_dir_all(&root)
                .unwrap_or_else(|e| panic!("cannot create {}: {e}", root.display()));
            // SAFETY: `remove_root` is a plain function that never unwinds (it only writes to
            // stderr when removing fails) and reads a static set before registration.
            if unsafe { libc::atexit(remove_root) } != 0 {
                let _ = writeln!(
                    std::io::stderr(),
                    "cannot register the removal of {} at exit",
                    root.display()
                );
            }
            (root, pid)
        })
        .0
}

/// A fresh, empty folder `name` (which may hold `/`) under this process's root: whatever a
/// test of this process left there under that name before is removed first.
pub fn fresh(name: &str) -> PathBuf {
    let dir = root().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// The test binary's name without the hash cargo adds (`server-0a1b2c…` → `server`): a root
/// left behind says which tests left it.
fn binary_name() -> String {
    let exe = std::env::current_exe().ok();
    let stem = exe
        .as_deref()
        .and_then(Path::file_stem)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tests".into());
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_owned(),
        _ => stem,
    }
}

/// The process id that ends a root's name, if `name` is a root's.
fn owner_of(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    rest.rsplit_once('-')?.1.parse().ok()
}

/// Removes the roots in `temp` whose process is gone (killed before it could remove its own).
fn sweep(temp: &Path) {
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = owner_of(&name.to_string_lossy()) else {
            continue;
        };
        if !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

extern "C" fn remove_root() {
    let Some((root, pid)) = OWNER.get() else {
        return;
    };
    if *pid != std::process::id() {
        return;
    }
    if let Err(e) = std::fs::remove_dir_all(root)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        let _ = writeln!(
            std::io::stderr(),
            "cannot remove the tests' scratch folder {}: {e}",
            root.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_folder_is_empty_and_under_the_root() {
        let dir = fresh("a/b");
        std::fs::write(dir.join("x"), "1").unwrap();
        let again = fresh("a/b");
        assert_eq!(dir, again);
        assert!(std::fs::read_dir(&again).unwrap().next().is_none());
        assert!(again.starts_with(root()));
    }

    #[test]
    fn a_root_is_known_by_its_process_id() {
        assert_eq!(owner_of("arbiter-test-server-123"), Some(123));
        assert_eq!(owner_of("arbiter-test-a-b-c-9"), Some(9));
        assert_eq!(owner_of("arbiter-jail-1-2"), None);
        assert_eq!(owner_of("arbiter-test-x-y"), None);
    }

    #[test]
    fn the_roots_of_dead_processes_are_swept_and_the_others_kept() {
        let temp = fresh("sweep");
        // No process has an id above the kernel's limit (at most 2^22).
        let dead = temp.join(format!("{PREFIX}gone-{}", u32::MAX));
        let alive = temp.join(format!("{PREFIX}here-{}", std::process::id()));
        let other = temp.join("arbiter-jail-1-1");
        for dir in [&dead, &alive, &other] {
            std::fs::create_dir_all(dir.join("inside")).unwrap();
        }
        sweep(&temp);
        assert!(!dead.exists());
        assert!(alive.exists() && other.exists());
    }
}
