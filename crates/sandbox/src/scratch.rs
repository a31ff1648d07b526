//! Where bots' scratch folders live: a folder only Arbiter's user may enter, one folder in it
//! per Arbiter process, and a sweep of the folders of processes that are gone.
//!
//! The layout, for Arbiter's user `U` and the system's temporary folder `TMP`:
//!
//! ```text
//! TMP/arbiter-jails-U/          0700, U's: nobody else walks in (root's alone when U is root)
//!     PID-K/                    0700, one Arbiter process's; locked (flock) while it lives
//!         N/                    0700, jail N's scratch folder, the bot's user's
//! ```
//!
//! A process's proof of life is its lock on its own folder: the kernel drops it when the process
//! ends, however it ends (SIGKILL too), and a new process reusing the pid cannot hold it. So a
//! sweeper that gets the lock knows the owner is gone. Making an owner's folder and sweeping
//! both happen under a lock on the shared folder, so a sweeper never sees a folder whose owner
//! has not locked it yet.

use std::fs::{self, File};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use arbiter_folder::remove_tree;

/// One Arbiter process's folder of scratch folders, locked while the process lives. Shared by
/// every sandbox and jail of the process; the last one to go removes it.
#[derive(Debug)]
pub(crate) struct Owner {
    dir: PathBuf,
    /// The lock on `dir` that says this process is alive.
    _alive: File,
}

impl Owner {
    /// This process's folder: made at the first call, after the folders of processes that are
    /// gone were removed; the same folder afterwards while any user of it is left.
    pub(crate) fn of_this_process() -> Result<Arc<Owner>, String> {
        static CURRENT: Mutex<Weak<Owner>> = Mutex::new(Weak::new());
        let mut current = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(owner) = current.upgrade() {
            return Ok(owner);
        }
        let owner = Arc::new(Owner::make(&shared_folder())?);
        *current = Arc::downgrade(&owner);
        Ok(owner)
    }

    fn make(shared: &Path) -> Result<Owner, String> {
        let guard = SharedFolder::enter(shared)?;
        for failure in sweep(shared) {
            // Not fatal: this process's own folder is still private. Said, so that it is known.
            eprintln!("warning: {failure}");
        }
        let made = (0..1000).find_map(|k| {
            let dir = shared.join(format!("{}-{k}", std::process::id()));
            // Another process with the same pid in another PID namespace may hold `dir`.
            match private_dir(&dir) {
                Ok(()) => Some(Ok(dir)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => None,
                Err(e) => Some(Err(format!("cannot make {}: {e}", dir.display()))),
            }
        });
        let dir = made.unwrap_or_else(|| Err(format!("no free name in {}", shared.display())))?;
        let alive = lock_folder(&dir)
            .and_then(|locked| locked.ok_or_else(|| io::Error::from(io::ErrorKind::WouldBlock)))
            .map_err(|e| format!("cannot lock {}: {e}", dir.display()))?;
        drop(guard);
        Ok(Owner { dir, _alive: alive })
    }

    /// The path of jail `n`'s scratch folder (not made yet).
    pub(crate) fn scratch_path(&self, n: u32) -> PathBuf {
        self.dir.join(n.to_string())
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        if let Err(e) = remove_tree(&self.dir) {
            eprintln!(
                "warning: cannot remove {}: {e}; the next start of Arbiter removes it",
                self.dir.display()
            );
            return;
        }
        // The shared folder goes too when this was its last process, so that nothing is left
        // in the temporary folder; under its lock, so that no process is making its own in it.
        let Some(shared) = self.dir.parent() else {
            return;
        };
        if let Ok(guard) = SharedFolder::enter(shared) {
            // Fails while other processes' folders are in it: then it stays, rightly.
            if fs::remove_dir(shared).is_ok() {
                guard.removed();
            }
        }
    }
}

/// `TMP/arbiter-jails-UID`: the folder of this user's Arbiter processes' scratch folders.
fn shared_folder() -> PathBuf {
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    std::env::temp_dir().join(format!("arbiter-jails-{uid}"))
}

/// The shared folder, made if needed, checked to be this user's alone, and locked.
struct SharedFolder {
    _lock: File,
}

impl SharedFolder {
    fn enter(path: &Path) -> Result<SharedFolder, String> {
        let fail = |e: io::Error| format!("cannot use {}: {e}", path.display());
        // A process that removed the folder while this one waited for its lock: start again.
        for _ in 0..100 {
            match private_dir(path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(fail(e)),
            }
            let lock = open_folder(path).map_err(fail)?;
            check_private(path, &lock)?;
            flock(&lock, libc::LOCK_EX).map_err(fail)?;
            let locked = lock.metadata().map_err(fail)?;
            let named = fs::symlink_metadata(path);
            let same = named.is_ok_and(|m| m.ino() == locked.ino() && m.dev() == locked.dev());
            if same && locked.nlink() > 0 {
                return Ok(SharedFolder { _lock: lock });
            }
        }
        Err(format!(
            "{} keeps being removed and made again",
            path.display()
        ))
    }

    /// The folder was removed under the lock: waiters will find it gone and start again.
    fn removed(self) {}
}

/// The shared folder must be a folder (not a link) of Arbiter's user that nobody else may
/// enter: another local user could otherwise have made it to read what is copied into it.
fn check_private(path: &Path, folder: &File) -> Result<(), String> {
    let meta = folder
        .metadata()
        .map_err(|e| format!("cannot use {}: {e}", path.display()))?;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        return Err(format!(
            "{} belongs to user {}, not to Arbiter's user {me}: someone else made it to see the \
             bots' scratch folders; remove it, or set TMPDIR to a folder of your own",
            path.display(),
            meta.uid()
        ));
    }
    if meta.mode() & 0o077 != 0 {
        folder
            .set_permissions(fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("cannot close {} to others: {e}", path.display()))?;
    }
    Ok(())
}

/// Removes the folder of every Arbiter process that is gone; what could not be removed, in
/// words. Called with the shared folder locked.
fn sweep(shared: &Path) -> Vec<String> {
    let entries = match fs::read_dir(shared) {
        Ok(entries) => entries,
        Err(e) => return vec![format!("cannot read {}: {e}", shared.display())],
    };
    let mut failures = Vec::new();
    for entry in entries {
        let path = match entry {
            Ok(entry) => entry.path(),
            Err(e) => {
                failures.push(format!("cannot read {}: {e}", shared.display()));
                break;
            }
        };
        // The lock taken here is dropped at once: the folder is removed under it.
        match lock_folder(&path) {
            Ok(Some(_gone)) => {}
            Ok(None) => continue,
            // Not a folder: nothing Arbiter made, in a folder only Arbiter's user writes in.
            Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => {}
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {}
            Err(e) => {
                failures.push(format!("cannot check {}: {e}", path.display()));
                continue;
            }
        }
        if let Err(e) = remove_tree(&path) {
            failures.push(format!(
                "cannot remove {}, left by an Arbiter that is gone: {e}",
                path.display()
            ));
        }
    }
    failures
}

/// Makes the folder `path`, 0700 whatever the umask.
pub(crate) fn private_dir(path: &Path) -> io::Result<()> {
    fs::DirBuilder::new().mode(0o700).create(path)?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o700))
}

/// Opens the folder `path` itself, never through a link.
fn open_folder(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
        .open(path)
}

/// Locks the folder `path` without waiting: `None` when a live process holds it.
fn lock_folder(path: &Path) -> io::Result<Option<File>> {
    let folder = open_folder(path)?;
    match flock(&folder, libc::LOCK_EX | libc::LOCK_NB) {
        Ok(()) => Ok(Some(folder)),
        Err(e) if e.raw_os_error() == Some(libc::EWOULDBLOCK) => Ok(None),
        Err(e) => Err(e),
    }
}

pub(crate) fn flock(file: &File, operation: libc::c_int) -> io::Result<()> {
    loop {
        // SAFETY: flock on a descriptor this function borrows.
        if unsafe { libc::flock(file.as_raw_fd(), operation) } == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("arbiter-scratch-{}-{name}", std::process::id()));
        let _ = remove_tree(&dir);
        fs::create_dir(&dir).unwrap();
        dir
    }

    #[test]
    fn a_deep_tree_with_closed_folders_is_removed_without_following_links() {
        let dir = temp("deep");
        let outside = dir.join("outside");
        fs::create_dir(&outside).unwrap();
        fs::write(outside.join("keep.txt"), "kept").unwrap();
        let tree = dir.join("tree");
        let mut path = tree.clone();
        for _ in 0..1500 {
            path.push("d");
        }
        fs::create_dir_all(&path).unwrap();
        fs::write(path.join("f"), "x").unwrap();
        symlink(&outside, tree.join("link")).unwrap();
        symlink(outside.join("keep.txt"), path.join("file-link")).unwrap();
        // Folders a bot closed, at the top and deep down.
        for closed in [path.parent().unwrap(), &tree.join("d")] {
            fs::set_permissions(closed, fs::Permissions::from_mode(0o500)).unwrap();
        }
        remove_tree(&tree).unwrap();
        assert!(!tree.exists());
        assert_eq!(
            fs::read_to_string(outside.join("keep.txt")).unwrap(),
            "kept"
        );
        remove_tree(&dir).unwrap();
        assert!(!dir.exists());
    }

    #[test]
    fn the_folders_of_gone_processes_are_swept_and_live_ones_kept() {
        let shared = temp("sweep");
        fs::set_permissions(&shared, fs::Permissions::from_mode(0o700)).unwrap();
        let (gone, live) = (shared.join("1-0"), shared.join("2-0"));
        for dir in [&gone, &live] {
            fs::create_dir_all(dir.join("0/sub")).unwrap();
            fs::write(dir.join("0/sub/bot.py"), "print()").unwrap();
        }
        // The live process's lock: another open file, as another process's would be.
        let held = lock_folder(&live).unwrap().expect("nobody holds it yet");
        let owner = Owner::make(&shared).unwrap();
        assert!(!gone.exists(), "the folder of a gone process is left");
        assert!(
            live.join("0/sub/bot.py").exists(),
            "a live process's folder was removed"
        );
        assert!(owner.dir.starts_with(&shared));
        assert!(
            lock_folder(&owner.dir).unwrap().is_none(),
            "the new folder is not locked"
        );
        let mode = fs::metadata(&owner.dir).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700);
        drop(owner);
        // The shared folder stays while another process's folder is in it.
        assert!(shared.exists());
        drop(held);
        let owner = Owner::make(&shared).unwrap();
        assert!(!live.exists(), "a folder whose owner is gone is left");
        drop(owner);
        assert!(!shared.exists(), "the last process leaves no shared folder");
    }

    #[test]
    fn a_shared_folder_of_another_user_is_refused() {
        let shared = temp("foreign");
        let nobody = 65534;
        std::os::unix::fs::chown(&shared, Some(nobody), Some(nobody)).unwrap();
        let error = Owner::make(&shared).unwrap_err();
        assert!(error.contains("belongs to user 65534"), "{error}");
        remove_tree(&shared).unwrap();
    }
}
