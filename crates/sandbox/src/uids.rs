//! The users bots run as, when Arbiter runs as root: one of its own for each live bot on the
//! machine, whichever Arbiter process started it.
//!
//! The range, `0x7000_0000..=0x7000_FFFF` (1879048192–1879113727), is one that systemd's table
//! of user ids leaves unused (between the containers' ranges, which end at 0x6FFF_FFFF, and the
//! foreign images' range at 0x7FFE_0000), below 2^31 (above which some kernel interfaces take
//! user ids for negative numbers), and far above the ranges `useradd` hands out for
//! `/etc/subuid` (100000 and up, 65536 a user). Ids that `/etc/passwd`, `/etc/group`,
//! `/etc/subuid` or `/etc/subgid` name are skipped anyway.
//!
//! A bot's uid is held by a lock (flock) on `/run/arbiter/uids/UID`, a folder only root may
//! enter, for as long as its jail lives: another Arbiter process cannot get that lock, and the
//! kernel drops it when the holder ends, SIGKILL too.

use std::fs::{self, File};
use std::io;
use std::ops::RangeInclusive;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::SandboxError;
use crate::scratch::flock;

/// The first uid of bots.
pub(crate) const FIRST_UID: u32 = 0x7000_0000;
/// How many uids bots may have at once on one machine.
pub(crate) const UIDS: u32 = 0x1_0000;
/// Where the locks of the uids in use are.
const LOCKS: &str = "/run/arbiter/uids";
/// More than any system's user database; a larger file is read this far.
const DATABASE_LIMIT: u64 = 64 << 20;

/// The uids this machine leaves to bots, and where their locks are.
#[derive(Debug)]
pub(crate) struct UidPool {
    locks: PathBuf,
    /// Ids in the bots' range that the system's databases name.
    taken: Vec<RangeInclusive<u32>>,
}

impl UidPool {
    /// Makes the root-only folder of locks, and reads which uids the system uses.
    pub(crate) fn open() -> Result<UidPool, String> {
        let locks = PathBuf::from(LOCKS);
        for dir in [Path::new("/run/arbiter"), &locks] {
            root_only_dir(dir).map_err(|e| format!("cannot use {}: {e}", dir.display()))?;
        }
        remove_stale_locks(&locks).map_err(|e| format!("cannot clean {LOCKS}: {e}"))?;
        let mut taken = Vec::new();
        for (file, fields) in [
            ("/etc/passwd", Fields::Ids(&[2, 3])),
            ("/etc/group", Fields::Ids(&[2])),
            ("/etc/subuid", Fields::Range),
            ("/etc/subgid", Fields::Range),
        ] {
            let text = read_database(file).map_err(|e| format!("cannot read {file}: {e}"))?;
            taken.extend(named_ids(&text, fields).filter(overlaps_bots));
        }
        Ok(UidPool { locks, taken })
    }

    /// A uid no live bot of this machine has, held until the lease is dropped. `hint` spreads
    /// the processes' first tries over the range.
    pub(crate) fn lease(&self, hint: u32) -> Result<UidLease, SandboxError> {
        for i in 0..UIDS {
            let uid = FIRST_UID + hint.wrapping_add(i) % UIDS;
            if self.taken.iter().any(|r| r.contains(&uid)) {
                continue;
            }
            let path = self.locks.join(uid.to_string());
            if let Some(lock) = try_lock(&path).map_err(SandboxError::io("locking", &path))? {
                clear_keyrings(uid).map_err(SandboxError::io("clearing the keyrings of", &path))?;
                return Ok(UidLease {
                    uid,
                    path,
                    _lock: lock,
                });
            }
        }
        Err(SandboxError::NoFreeUid {
            first: FIRST_UID,
            last: FIRST_UID + (UIDS - 1),
        })
    }
}

/// A uid held for one bot.
#[derive(Debug)]
pub(crate) struct UidLease {
    uid: u32,
    path: PathBuf,
    _lock: File,
}

impl UidLease {
    pub(crate) fn uid(&self) -> u32 {
        self.uid
    }
}

impl Drop for UidLease {
    fn drop(&mut self) {
        // Removed while still locked: a process that opened it meanwhile finds, once it has
        // the lock, that the path no longer names its file, and tries another uid.
        // The lock itself goes with `lock`, right after.
        let _ = fs::remove_file(&self.path);
    }
}

/// Removes the lock files of holders that are gone (killed before their leases were dropped),
/// as a holder removes its own: while holding them.
fn remove_stale_locks(locks: &Path) -> io::Result<()> {
    for entry in fs::read_dir(locks)? {
        let path = entry?.path();
        if let Some(_held) = try_lock(&path)? {
            fs::remove_file(&path)?;
        }
    }
    Ok(())
}

/// The lock on `path`, made if needed, or `None` when another process holds it.
fn try_lock(path: &Path) -> io::Result<Option<File>> {
    let file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    match flock(&file, libc::LOCK_EX | libc::LOCK_NB) {
        Ok(()) => {}
        Err(e) if e.raw_os_error() == Some(libc::EWOULDBLOCK) => return Ok(None),
        Err(e) => return Err(e),
    }
    // The holder before may have removed the file between our open and our lock.
    let held = file.metadata()?;
    match fs::symlink_metadata(path) {
        Ok(named) if named.ino() == held.ino() && named.dev() == held.dev() => Ok(Some(file)),
        _ => Ok(None),
    }
}

/// Makes `dir` if needed; it must be root's, not a link, and closed to others.
fn root_only_dir(dir: &Path) -> io::Result<()> {
    match fs::DirBuilder::new().mode(0o700).create(dir) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
        _ => {}
    }
    let meta = fs::symlink_metadata(dir)?;
    if !meta.is_dir() || meta.uid() != 0 {
        return Err(io::Error::other("not a folder of root's"));
    }
    if meta.mode() & 0o077 != 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Which fields of a line of a user database hold ids.
#[derive(Clone, Copy)]
enum Fields {
    /// Single ids in these `:`-separated fields (`name:x:uid:gid:…`).
    Ids(&'static [usize]),
    /// A range, `name:first:count` (`/etc/subuid`).
    Range,
}

/// The ids or ranges of ids that the lines of a user database name; a line that is not one is
/// skipped, as the system's own tools skip it.
fn named_ids(text: &str, fields: Fields) -> impl Iterator<Item = RangeInclusive<u32>> + '_ {
    text.lines().flat_map(move |line| {
        let parts: Vec<&str> = line.split(':').collect();
        let number = |i: usize| parts.get(i).and_then(|p| p.trim().parse::<u32>().ok());
        match fields {
            Fields::Ids(at) => at
                .iter()
                .filter_map(|&i| number(i))
                .map(|id| id..=id)
                .collect(),
            Fields::Range => match (number(1), number(2)) {
                (Some(first), Some(count)) if count > 0 => {
                    vec![first..=first.saturating_add(count - 1)]
                }
                _ => Vec::new(),
            },
        }
    })
}

fn overlaps_bots(range: &RangeInclusive<u32>) -> bool {
    *range.start() <= FIRST_UID + (UIDS - 1) && *range.end() >= FIRST_UID
}

/// The text of a user database, empty when the machine has none.
fn read_database(path: &str) -> io::Result<String> {
    use std::io::Read;
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(String::new()),
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    file.take(DATABASE_LIMIT).read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The kernel keeps a user's keyrings after its last process ends: a bot that had `uid` before
/// could have left keys there for the next. A child process takes `uid` and empties them.
fn clear_keyrings(uid: u32) -> io::Result<()> {
    const KEYCTL_GET_PERSISTENT: libc::c_long = 22;
    const KEYCTL_CLEAR: libc::c_long = 7;
    const KEY_SPEC_PROCESS_KEYRING: libc::c_long = -2;
    const KEY_SPEC_USER_KEYRING: libc::c_long = -4;
    const KEY_SPEC_USER_SESSION_KEYRING: libc::c_long = -5;
    // SAFETY: the child makes system calls only (no allocation, no lock) and leaves by _exit;
    // the parent waits for it.
    unsafe {
        let pid = libc::fork();
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            let gid = uid as libc::gid_t;
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setresgid(gid, gid, gid) != 0
                || libc::setresuid(uid, uid, uid) != 0
            {
                libc::_exit(1);
            }
            for keyring in [KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING] {
                libc::syscall(libc::SYS_keyctl, KEYCTL_CLEAR, keyring);
            }
            // The persistent keyring, where the kernel has them.
            let persistent = libc::syscall(
                libc::SYS_keyctl,
                KEYCTL_GET_PERSISTENT,
                -1 as libc::c_long,
                KEY_SPEC_PROCESS_KEYRING,
            );
            if persistent > 0 {
                libc::syscall(libc::SYS_keyctl, KEYCTL_CLEAR, persistent);
            }
            libc::_exit(0);
        }
        let mut status = 0;
        while libc::waitpid(pid, &mut status, 0) < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        match libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
            true => Ok(()),
            false => Err(io::Error::other(format!(
                "the process taking uid {uid} failed ({status})"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    const CHILD: &str = "ARBITER_UID_LEASE_CHILD";
    const LEASES: usize = 300;

    /// In a child process (see the test below): leases uids, says which, and holds them until
    /// its stdin closes.
    #[test]
    fn lease_as_a_child_process() {
        if std::env::var_os(CHILD).is_none() {
            return;
        }
        let pool = UidPool::open().unwrap();
        let hint = std::process::id();
        let leases: Vec<UidLease> = (0..LEASES)
            .map(|i| pool.lease(hint.wrapping_add(i as u32 * 7)).unwrap())
            .collect();
        let uids: Vec<String> = leases.iter().map(|l| l.uid().to_string()).collect();
        println!("uids {}", uids.join(" "));
        std::io::stdout().flush().unwrap();
        let _ = std::io::stdin().read_line(&mut String::new());
    }

    fn is_root() -> bool {
        // SAFETY: geteuid has no preconditions.
        unsafe { libc::geteuid() == 0 }
    }

    #[test]
    fn two_processes_never_hold_the_same_uid() {
        if !is_root() {
            eprintln!("skipped: bots get uids of their own only when Arbiter is root");
            return;
        }
        let spawn = || {
            Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "uids::tests::lease_as_a_child_process",
                    "--nocapture",
                ])
                .env(CHILD, "1")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let mut children = [spawn(), spawn()];
        let mut held = Vec::new();
        // Kept open until the children end: the test harness writes its verdict there.
        let mut outputs = Vec::new();
        for child in &mut children {
            let mut stdout = BufReader::new(child.stdout.take().unwrap());
            let line = (&mut stdout)
                .lines()
                .map(Result::unwrap)
                .find(|l| l.starts_with("uids "))
                .expect("the child leased its uids");
            outputs.push(stdout);
            let uids: Vec<u32> = line[5..].split(' ').map(|u| u.parse().unwrap()).collect();
            assert_eq!(uids.len(), LEASES);
            held.push(uids);
        }
        // Both still hold theirs: neither has read its stdin's end.
        let mut all: Vec<u32> = held.concat();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 2 * LEASES, "two live processes shared a uid");
        assert!(
            all.iter()
                .all(|u| (FIRST_UID..FIRST_UID + UIDS).contains(u))
        );
        for mut child in children {
            drop(child.stdin.take());
            assert!(child.wait().unwrap().success());
        }
        drop(outputs);
    }

    #[test]
    fn a_uid_comes_back_with_empty_keyrings() {
        if !is_root() {
            eprintln!("skipped: bots get uids of their own only when Arbiter is root");
            return;
        }
        let pool = UidPool::open().unwrap();
        let lease = pool.lease(std::process::id()).unwrap();
        let uid = lease.uid();
        // A bot stashes a key in its user keyring, and ends.
        let run = |what: &str| stash_or_look(uid, what == "add");
        assert!(run("add"), "the key was not stashed");
        assert!(run("look"), "the kernel forgot the key by itself");
        drop(lease);
        let again = pool.lease(uid - FIRST_UID).unwrap();
        assert_eq!(again.uid(), uid);
        assert!(!run("look"), "the next bot with this uid finds the key");
    }

    /// Whether a process of `uid` finds the key `stash` in its user keyring, after adding it
    /// when `add`.
    fn stash_or_look(uid: u32, add: bool) -> bool {
        const KEYCTL_SEARCH: libc::c_long = 10;
        const KEY_SPEC_USER_KEYRING: libc::c_int = -4;
        // SAFETY: the child makes system calls only and leaves by _exit; the parent waits.
        unsafe {
            let pid = libc::fork();
            assert!(pid >= 0);
            if pid == 0 {
                if libc::setresgid(uid, uid, uid) != 0 || libc::setresuid(uid, uid, uid) != 0 {
                    libc::_exit(2);
                }
                let (kind, name) = (c"user".as_ptr(), c"stash".as_ptr());
                if add {
                    libc::syscall(
                        libc::SYS_add_key,
                        kind,
                        name,
                        c"hi".as_ptr(),
                        2usize,
                        KEY_SPEC_USER_KEYRING,
                    );
                }
                let found = libc::syscall(
                    libc::SYS_keyctl,
                    KEYCTL_SEARCH,
                    KEY_SPEC_USER_KEYRING,
                    kind,
                    name,
                    0,
                );
                libc::_exit(if found > 0 { 0 } else { 1 });
            }
            let mut status = 0;
            assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
            assert!(
                libc::WIFEXITED(status) && libc::WEXITSTATUS(status) < 2,
                "{status}"
            );
            libc::WEXITSTATUS(status) == 0
        }
    }

    #[test]
    fn the_system_databases_name_ids_and_ranges() {
        let passwd = "root:x:0:0:root:/root:/bin/sh\nbroken\nsvc:x:1879048200:1879048201::/:\n";
        let ids: Vec<_> = named_ids(passwd, Fields::Ids(&[2, 3])).collect();
        assert_eq!(
            ids,
            [
                0..=0,
                0..=0,
                1879048200..=1879048200,
                1879048201..=1879048201
            ]
        );
        let subuid = "alice:100000:65536\nbob:x:1\nzero:5:0\nhuge:4294967290:100\n";
        let ranges: Vec<_> = named_ids(subuid, Fields::Range).collect();
        assert_eq!(ranges, [100000..=165535, 4294967290..=u32::MAX]);
        assert!(!overlaps_bots(&(100000..=165535)));
        assert!(overlaps_bots(&(FIRST_UID - 5..=FIRST_UID)));
    }
}
