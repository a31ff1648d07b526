//! The few system calls the folder readers need, on file descriptors, safely wrapped.

use std::ffi::{CStr, CString, OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// What a folder entry is, read without following links.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A folder.
    Folder,
    /// A regular file.
    File,
    /// A symbolic link.
    Link,
    /// A named pipe (FIFO): reading it may wait for ever.
    NamedPipe,
    /// A Unix socket.
    Socket,
    /// A character or block device.
    Device,
}

impl Kind {
    pub(crate) fn of(stat: &libc::stat) -> Kind {
        match stat.st_mode & libc::S_IFMT {
            libc::S_IFDIR => Kind::Folder,
            libc::S_IFREG => Kind::File,
            libc::S_IFLNK => Kind::Link,
            libc::S_IFIFO => Kind::NamedPipe,
            libc::S_IFSOCK => Kind::Socket,
            _ => Kind::Device,
        }
    }

    /// The kind in words, as a message says it: "a named pipe".
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Folder => "a folder",
            Kind::File => "a regular file",
            Kind::Link => "a link",
            Kind::NamedPipe => "a named pipe",
            Kind::Socket => "a socket",
            Kind::Device => "a device",
        }
    }
}

pub(crate) fn c_name(name: &OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

pub(crate) fn c_path(path: &Path) -> io::Result<CString> {
    c_name(path.as_os_str())
}

fn check(result: libc::c_int) -> io::Result<libc::c_int> {
    match result {
        -1 => Err(io::Error::last_os_error()),
        ok => Ok(ok),
    }
}

/// Opens `path` (followed if a link: the caller named it).
pub(crate) fn open(path: &Path, flags: libc::c_int) -> io::Result<OwnedFd> {
    let path = c_path(path)?;
    // SAFETY: `path` is a valid C string; the descriptor returned is owned by no one else.
    let fd = check(unsafe { libc::open(path.as_ptr(), flags | libc::O_CLOEXEC) })?;
    // SAFETY: `fd` was just opened and is owned here.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Opens `name` of the folder `dir`.
pub(crate) fn openat(dir: BorrowedFd<'_>, name: &CStr, flags: libc::c_int) -> io::Result<OwnedFd> {
    // SAFETY: `dir` is open, `name` a valid C string; the descriptor returned is owned here.
    let fd =
        check(unsafe { libc::openat(dir.as_raw_fd(), name.as_ptr(), flags | libc::O_CLOEXEC) })?;
    // SAFETY: `fd` was just opened and is owned here.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn empty_stat() -> libc::stat {
    // SAFETY: `stat` is plain old data, for which all zeroes is a valid value.
    unsafe { std::mem::zeroed() }
}

pub(crate) fn fstat(fd: BorrowedFd<'_>) -> io::Result<libc::stat> {
    let mut stat = empty_stat();
    // SAFETY: `fd` is open and `stat` is writable.
    check(unsafe { libc::fstat(fd.as_raw_fd(), &mut stat) })?;
    Ok(stat)
}

/// `name` of the folder `dir`, a link itself rather than what it points to.
pub(crate) fn lstat_at(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<libc::stat> {
    let mut stat = empty_stat();
    // SAFETY: `dir` is open, `name` a valid C string and `stat` writable.
    check(unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            name.as_ptr(),
            &mut stat,
            libc::AT_SYMLINK_NOFOLLOW,
        )
    })?;
    Ok(stat)
}

/// The target of the link `name` of the folder `dir`, as written.
pub(crate) fn read_link_at(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<PathBuf> {
    let mut buffer = vec![0u8; libc::PATH_MAX as usize + 1];
    // SAFETY: `dir` is open, `name` a valid C string, `buffer` writable for its length.
    let n = unsafe {
        libc::readlinkat(
            dir.as_raw_fd(),
            name.as_ptr(),
            buffer.as_mut_ptr().cast(),
            buffer.len(),
        )
    };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    buffer.truncate(n as usize);
    Ok(PathBuf::from(OsString::from_vec(buffer)))
}

/// The names in the folder open as `dir`, `.` and `..` left out, at most `max` of them: `None`
/// if there are more.
pub(crate) fn list(dir: BorrowedFd<'_>, max: u64) -> io::Result<Option<Vec<CString>>> {
    // fdopendir takes the descriptor it is given; the caller keeps its own.
    let own = dir.try_clone_to_owned()?;
    // SAFETY: `own` is an open folder; on success the stream owns it, on failure it is ours.
    let stream = unsafe { libc::fdopendir(own.as_raw_fd()) };
    if stream.is_null() {
        return Err(io::Error::last_os_error());
    }
    std::mem::forget(own);
    let mut names = Vec::new();
    let result = loop {
        // readdir reports an error only through errno, so it is cleared first.
        // SAFETY: errno is this thread's; `stream` is open until closedir below.
        unsafe { *libc::__errno_location() = 0 };
        let entry = unsafe { libc::readdir64(stream) };
        if entry.is_null() {
            let error = io::Error::last_os_error();
            break match error.raw_os_error() {
                Some(0) | None => Ok(Some(names)),
                Some(_) => Err(error),
            };
        }
        // SAFETY: a non-null entry's name is a C string valid until the next readdir.
        let name = unsafe { CStr::from_ptr((*entry).d_name.as_ptr()) };
        if name.to_bytes() == b"." || name.to_bytes() == b".." {
            continue;
        }
        if names.len() as u64 >= max {
            break Ok(None);
        }
        names.push(name.to_owned());
    };
    // SAFETY: `stream` is open, and closed once.
    unsafe { libc::closedir(stream) };
    result
}

pub(crate) fn unlink_at(dir: BorrowedFd<'_>, name: &CStr, flags: libc::c_int) -> io::Result<()> {
    // SAFETY: `dir` is open and `name` a valid C string.
    check(unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), flags) }).map(drop)
}

/// Gives `name` of the folder `dir` (a link itself, not its target) to `uid` and `gid`.
pub(crate) fn chown_at(dir: BorrowedFd<'_>, name: &CStr, uid: u32, gid: u32) -> io::Result<()> {
    // SAFETY: `dir` is open and `name` a valid C string.
    check(unsafe {
        libc::fchownat(
            dir.as_raw_fd(),
            name.as_ptr(),
            uid,
            gid,
            libc::AT_SYMLINK_NOFOLLOW,
        )
    })
    .map(drop)
}

/// Lets the owner into the folder `name` of `dir` (a bot may have closed it to itself).
pub(crate) fn open_up_at(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<()> {
    // SAFETY: `dir` is open and `name` a valid C string.
    check(unsafe { libc::fchmodat(dir.as_raw_fd(), name.as_ptr(), 0o700, 0) }).map(drop)
}

/// Whether two stats are of the same file.
pub(crate) fn same(a: &libc::stat, b: &libc::stat) -> bool {
    a.st_dev == b.st_dev && a.st_ino == b.st_ino
}

/// An error for a folder that changed while it was read.
pub(crate) fn changed() -> io::Error {
    io::Error::other("it changed while it was read")
}
