//! A folder's whole tree, walked within bounds of bytes, entries and depth, and removed, with
//! two or three open files whatever its depth.
//!
//! The walk keeps one folder open: it lists a folder's names (closing the listing), goes down
//! into each sub-folder by name with `O_NOFOLLOW`, and comes back up through `..`, checking that
//! `..` is the folder it came from. So a folder deeper than the open-files limit is walked, a
//! link is never followed, and a folder moved away during the walk is an error rather than a
//! walk through somewhere else. What waits to be walked is names, bounded by the entries bound.

use std::ffi::{CStr, CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::sys::{self, Kind};

/// How large a folder may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Bytes of its regular files together.
    pub bytes: u64,
    /// Its files, folders, links and others, itself not counted.
    pub entries: u64,
    /// Folders on the way to its deepest entry, itself not counted: its own entries are at
    /// depth 1.
    pub depth: u32,
}

impl Bounds {
    /// No bound: for a tree already known to be within bounds.
    pub const NONE: Bounds = Bounds {
        bytes: u64::MAX,
        entries: u64::MAX,
        depth: u32::MAX,
    };
}

/// Which bound a folder is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Over {
    /// [`Bounds::bytes`].
    Bytes,
    /// [`Bounds::entries`].
    Entries,
    /// [`Bounds::depth`].
    Depth,
}

/// Why a walk stopped.
#[derive(Debug)]
pub enum WalkError {
    /// The folder is over a bound; the walk stopped there.
    Over(Over),
    /// Reading the folder, or what the visitor did with an entry, failed.
    Io {
        /// Where, as a path inside the folder (empty: the folder itself).
        path: PathBuf,
        /// The error.
        error: io::Error,
    },
}

/// How large a walked folder was.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Bytes of its regular files.
    pub bytes: u64,
    /// Its entries.
    pub entries: u64,
    /// Its depth.
    pub depth: u32,
}

/// One entry of a walked folder, given to the visitor before anything under it.
pub struct Entry<'a> {
    dir: BorrowedFd<'a>,
    name: &'a CStr,
    stat: &'a libc::stat,
    /// Its path inside the folder.
    pub path: &'a Path,
    /// What it is (a link is a link).
    pub kind: Kind,
}

impl Entry<'_> {
    /// Its permission bits.
    pub fn mode(&self) -> u32 {
        self.stat.st_mode & 0o7777
    }

    /// Its size in bytes.
    pub fn len(&self) -> u64 {
        self.stat.st_size as u64
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The regular file, open for reading; an error if it is something else by now.
    pub fn open_file(&self) -> io::Result<File> {
        let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY;
        let file = sys::openat(self.dir, self.name, flags)?;
        match sys::fstat(file.as_fd())? {
            stat if sys::same(&stat, self.stat) => Ok(File::from(file)),
            _ => Err(sys::changed()),
        }
    }

    /// The link's target, as written.
    pub fn read_link(&self) -> io::Result<PathBuf> {
        sys::read_link_at(self.dir, self.name)
    }

    /// Gives it (a link itself, not its target) to `uid` and `gid`.
    pub fn chown(&self, uid: u32, gid: u32) -> io::Result<()> {
        sys::chown_at(self.dir, self.name, uid, gid)
    }
}

/// A folder on the way down: which it is, and its sub-folders not walked yet.
struct Frame {
    stat: libc::stat,
    pending: Vec<(CString, libc::stat)>,
}

/// Copies the tree of `from` into the folder `to` (which exists) within `bounds`: links as
/// links, folders and files with their permissions (no set-user-id bit; folders at least
/// 0700, so that the copy can be removed), named pipes, sockets and devices left out. A few
/// files are open at a time, however deep the tree.
pub fn copy(from: &Path, to: &Path, bounds: &Bounds) -> Result<Totals, WalkError> {
    use std::fs::{self, Permissions};
    use std::os::unix::fs::{PermissionsExt, symlink};
    let mut copy = |entry: &Entry<'_>| -> io::Result<()> {
        let target = to.join(entry.path);
        let mode = entry.mode() & 0o777;
        match entry.kind {
            Kind::Folder => {
                fs::create_dir(&target)?;
                fs::set_permissions(&target, Permissions::from_mode(mode | 0o700))
            }
            Kind::File => {
                // No more than was counted, should the file grow meanwhile.
                let mut source = io::Read::take(entry.open_file()?, entry.len());
                let mut copied = fs::File::create_new(&target)?;
                io::copy(&mut source, &mut copied)?;
                copied.set_permissions(Permissions::from_mode(mode))
            }
            Kind::Link => symlink(entry.read_link()?, &target),
            Kind::NamedPipe | Kind::Socket | Kind::Device => Ok(()),
        }
    };
    walk(from, bounds, &mut copy)
}

/// Walks the folder `dir` (itself followed if a link: whoever names it chose it), giving every
/// entry to `visit`, a folder before what it holds; stops at the first bound gone over or the
/// first error.
pub fn walk(
    dir: &Path,
    bounds: &Bounds,
    visit: &mut dyn FnMut(&Entry<'_>) -> io::Result<()>,
) -> Result<Totals, WalkError> {
    let at = |path: &Path| {
        let path = path.to_owned();
        move |error| WalkError::Io { path, error }
    };
    let flags = libc::O_RDONLY | libc::O_DIRECTORY;
    let mut current = sys::open(dir, flags).map_err(at(Path::new("")))?;
    let mut path = PathBuf::new();
    let mut totals = Totals::default();
    let stat = sys::fstat(current.as_fd()).map_err(at(&path))?;
    let pending = list(&current, &path, bounds, &mut totals, 1, visit)?;
    let mut frames = vec![Frame { stat, pending }];
    while let Some(top) = frames.last_mut() {
        if let Some((name, expected)) = top.pending.pop() {
            path.push(OsStr::from_bytes(name.to_bytes()));
            current = down(&current, &name, &expected).map_err(at(&path))?;
            let depth = frames.len() as u32 + 1;
            let pending = list(&current, &path, bounds, &mut totals, depth, visit)?;
            frames.push(Frame {
                stat: expected,
                pending,
            });
        } else {
            frames.pop();
            if let Some(parent) = frames.last() {
                current = up(&current, &parent.stat).map_err(at(&path))?;
                path.pop();
            }
        }
    }
    Ok(totals)
}

/// Lists the folder open as `dir` (at `path`, entries at `depth`), counting and visiting its
/// entries; its sub-folders, to walk.
fn list(
    dir: &OwnedFd,
    path: &Path,
    bounds: &Bounds,
    totals: &mut Totals,
    depth: u32,
    visit: &mut dyn FnMut(&Entry<'_>) -> io::Result<()>,
) -> Result<Vec<(CString, libc::stat)>, WalkError> {
    let at = |path: &Path, error| WalkError::Io {
        path: path.to_owned(),
        error,
    };
    let room = bounds.entries.saturating_sub(totals.entries);
    let mut names = sys::list(dir.as_fd(), room)
        .map_err(|e| at(path, e))?
        .ok_or(WalkError::Over(Over::Entries))?;
    if !names.is_empty() && depth > bounds.depth {
        return Err(WalkError::Over(Over::Depth));
    }
    totals.entries += names.len() as u64;
    if !names.is_empty() {
        totals.depth = totals.depth.max(depth);
    }
    // The disk's order differs between machines; the walk's does not.
    names.sort();
    let mut folders = Vec::new();
    for name in names {
        let inside = path.join(OsStr::from_bytes(name.to_bytes()));
        let stat = sys::lstat_at(dir.as_fd(), &name).map_err(|e| at(&inside, e))?;
        let kind = Kind::of(&stat);
        if kind == Kind::File {
            totals.bytes = totals.bytes.saturating_add(stat.st_size as u64);
            if totals.bytes > bounds.bytes {
                return Err(WalkError::Over(Over::Bytes));
            }
        }
        let entry = Entry {
            dir: dir.as_fd(),
            name: &name,
            stat: &stat,
            path: &inside,
            kind,
        };
        visit(&entry).map_err(|e| at(&inside, e))?;
        if kind == Kind::Folder {
            folders.push((name, stat));
        }
    }
    // Walked from the end: reversed, so that the walk goes in order.
    folders.reverse();
    Ok(folders)
}

/// The sub-folder `name` of `dir`, which must still be the folder listed.
fn down(dir: &OwnedFd, name: &CStr, expected: &libc::stat) -> io::Result<OwnedFd> {
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW;
    let child = sys::openat(dir.as_fd(), name, flags)?;
    match sys::same(&sys::fstat(child.as_fd())?, expected) {
        true => Ok(child),
        false => Err(sys::changed()),
    }
}

/// The parent of `dir`, which must be the folder the walk came down from.
fn up(dir: &OwnedFd, expected: &libc::stat) -> io::Result<OwnedFd> {
    let parent = sys::openat(dir.as_fd(), c"..", libc::O_RDONLY | libc::O_DIRECTORY)?;
    match sys::same(&sys::fstat(parent.as_fd())?, expected) {
        true => Ok(parent),
        false => Err(sys::changed()),
    }
}

/// Removes `path` and everything under it, as `std::fs::remove_dir_all` does, without one open
/// file per level: a tree deeper than the open-files limit (which a bot can make in its scratch
/// folder) is removed too. Links are removed, never followed; a folder closed to its owner is
/// opened up first. Nothing there is no error.
pub fn remove_tree(path: &Path) -> io::Result<()> {
    let top = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if !top.is_dir() {
        return std::fs::remove_file(path);
    }
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW;
    let mut current = sys::open(path, flags)?;
    let stat = sys::fstat(current.as_fd())?;
    let pending = empty_but_folders(&current)?;
    // Each folder on the way down, with the name it has in its parent.
    let mut frames = vec![(c".".to_owned(), Frame { stat, pending })];
    while let Some((_, top)) = frames.last_mut() {
        if let Some((name, expected)) = top.pending.pop() {
            let child = match down(&current, &name, &expected) {
                Ok(child) => child,
                Err(e) if e.raw_os_error() == Some(libc::EACCES) => {
                    sys::open_up_at(current.as_fd(), &name)?;
                    down(&current, &name, &expected)?
                }
                Err(e) if e.raw_os_error() == Some(libc::ENOENT) => continue,
                Err(e) => return Err(e),
            };
            current = child;
            let pending = empty_but_folders(&current)?;
            frames.push((
                name,
                Frame {
                    stat: expected,
                    pending,
                },
            ));
        } else {
            let (name, _) = frames.pop().expect("a frame was on top");
            let Some((_, parent)) = frames.last() else {
                break;
            };
            current = up(&current, &parent.stat)?;
            sys::unlink_at(current.as_fd(), &name, libc::AT_REMOVEDIR)?;
        }
    }
    drop(current);
    std::fs::remove_dir(path)
}

/// Removes everything in the folder open as `dir` but its sub-folders, which it returns.
fn empty_but_folders(dir: &OwnedFd) -> io::Result<Vec<(CString, libc::stat)>> {
    let mut folders = Vec::new();
    for name in sys::list(dir.as_fd(), u64::MAX)?.unwrap_or_default() {
        let stat = match sys::lstat_at(dir.as_fd(), &name) {
            Ok(stat) => stat,
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => continue,
            Err(e) => return Err(e),
        };
        match Kind::of(&stat) {
            Kind::Folder => folders.push((name, stat)),
            _ => match sys::unlink_at(dir.as_fd(), &name, 0) {
                Err(e) if e.raw_os_error() != Some(libc::ENOENT) => return Err(e),
                _ => {}
            },
        }
    }
    Ok(folders)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("arbiter-folder-tree-{}-{name}", std::process::id()));
        let _ = remove_tree(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A chain of `depth` folders `d/d/d…` under `root`, made relative to each, as a bot or an
    /// archive makes one (a path that long could not be named from `/`).
    fn chain(root: &Path, depth: usize) {
        let mut current = sys::open(root, libc::O_RDONLY | libc::O_DIRECTORY).unwrap();
        for _ in 0..depth {
            // SAFETY: `current` is open and the name a valid C string.
            let made = unsafe {
                libc::mkdirat(
                    std::os::fd::AsRawFd::as_raw_fd(&current),
                    c"d".as_ptr(),
                    0o755,
                )
            };
            assert_eq!(made, 0, "{}", io::Error::last_os_error());
            current =
                sys::openat(current.as_fd(), c"d", libc::O_RDONLY | libc::O_DIRECTORY).unwrap();
        }
    }

    fn paths(dir: &Path, bounds: &Bounds) -> Result<Vec<(String, Kind)>, WalkError> {
        let mut seen = Vec::new();
        walk(dir, bounds, &mut |e| {
            seen.push((e.path.display().to_string(), e.kind));
            Ok(())
        })?;
        Ok(seen)
    }

    #[test]
    fn a_walk_gives_a_folders_entries_in_order_before_going_down_and_links_as_links() {
        let dir = temp_dir("order");
        std::fs::create_dir_all(dir.join("b/c")).unwrap();
        std::fs::write(dir.join("b/c/file"), "12345").unwrap();
        std::fs::write(dir.join("a"), "1").unwrap();
        symlink("/etc", dir.join("b/etc")).unwrap();
        let seen = paths(&dir, &Bounds::NONE).unwrap();
        let expected = [
            ("a", Kind::File),
            ("b", Kind::Folder),
            ("b/c", Kind::Folder),
            ("b/etc", Kind::Link),
            ("b/c/file", Kind::File),
        ];
        let expected: Vec<(String, Kind)> =
            expected.iter().map(|(p, k)| (p.to_string(), *k)).collect();
        assert_eq!(seen, expected);
        let totals = walk(&dir, &Bounds::NONE, &mut |_| Ok(())).unwrap();
        assert_eq!(
            totals,
            Totals {
                bytes: 6,
                entries: 5,
                depth: 3
            }
        );
        remove_tree(&dir).unwrap();
    }

    #[test]
    fn each_bound_stops_the_walk_at_once() {
        let dir = temp_dir("bounds");
        chain(&dir, 5);
        std::fs::write(dir.join("big"), vec![0; 100]).unwrap();
        let bounds = |bytes, entries, depth| Bounds {
            bytes,
            entries,
            depth,
        };
        assert!(paths(&dir, &bounds(100, 6, 5)).is_ok());
        let over = |b: Bounds| match paths(&dir, &b) {
            Err(WalkError::Over(over)) => over,
            other => panic!("{:?}", other.map(|_| ())),
        };
        assert_eq!(over(bounds(99, 6, 5)), Over::Bytes);
        assert_eq!(over(bounds(100, 5, 5)), Over::Entries);
        assert_eq!(over(bounds(100, 6, 4)), Over::Depth);
        remove_tree(&dir).unwrap();
    }

    #[test]
    fn a_tree_deeper_than_the_open_files_limit_is_walked_and_removed() {
        let dir = temp_dir("deep");
        // Far deeper than any open-files limit a test would set, with a few descriptors.
        chain(&dir, 1500);
        let totals = walk(&dir, &Bounds::NONE, &mut |_| Ok(())).unwrap();
        assert_eq!((totals.entries, totals.depth), (1500, 1500));
        remove_tree(&dir).unwrap();
        assert!(!dir.exists());
    }

    #[test]
    fn removing_a_tree_removes_links_not_what_they_point_to_and_opens_closed_folders() {
        let dir = temp_dir("remove");
        let keep = temp_dir("remove-keep");
        std::fs::write(keep.join("precious"), "x").unwrap();
        std::fs::create_dir_all(dir.join("closed/inner")).unwrap();
        std::fs::write(dir.join("closed/inner/f"), "x").unwrap();
        symlink(&keep, dir.join("closed/to-keep")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.join("closed"), std::fs::Permissions::from_mode(0o000))
            .unwrap();
        remove_tree(&dir).unwrap();
        assert!(!dir.exists());
        assert!(keep.join("precious").exists());
        remove_tree(&keep).unwrap();
        assert!(remove_tree(&keep).is_ok(), "nothing there is no error");
    }
}
