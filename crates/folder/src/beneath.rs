//! Files of a folder opened as the folder's own: a link is followed only while it stays inside
//! the folder, and only a regular file is opened, so that `info.txt -> ../victim/bot.sh`,
//! `-> /etc/shadow` or a named pipe reads nothing, and waits for nothing.
//!
//! The path is resolved one name at a time from the folder, with `O_NOFOLLOW` at every step,
//! as the kernel's `openat2(RESOLVE_BENEATH)` would (which kernels before 5.6 lack): a link's
//! target is read and walked the same way, a `..` above the folder or an absolute target is
//! refused. Only the folder itself is opened as named: whoever names it chose it.

use std::ffi::{CStr, CString, OsString};
use std::fmt;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use crate::sys::{self, Kind};

/// Links followed on one path at most, as the kernel's own limit.
const MAX_LINKS: u32 = 40;
/// Names walked on one path at most, links' targets included: bounds the work a hostile chain
/// of links and `..` can ask for.
const MAX_STEPS: u32 = 1024;

/// Why a file of a folder was not opened.
#[derive(Debug)]
pub enum Refusal {
    /// Nothing is there (or a name on the way is not a folder).
    Missing,
    /// The path leads out of the folder: through the link `link` (inside the folder), or by
    /// its own `..` or `/` when `None`.
    LeavesFolder {
        /// The link that leads out, as a path inside the folder.
        link: Option<PathBuf>,
    },
    /// It is something other than a regular file.
    NotAFile(Kind),
    /// Too many links, or names through links, on the way.
    TooManyLinks,
    /// The system refused.
    Io(io::Error),
}

/// A file of a folder not opened: its name (as asked, inside the folder) and why. Its message
/// says no more than that: never what a refused link points to, nor any of its bytes.
#[derive(Debug)]
pub struct Refused {
    /// The file asked for, as a path inside the folder.
    pub name: PathBuf,
    /// Why it was not opened.
    pub why: Refusal,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.name.display();
        match &self.why {
            Refusal::Missing => write!(f, "{name} is not there"),
            Refusal::LeavesFolder { link: Some(link) } if *link == self.name => write!(
                f,
                "{name} is a link to outside its folder, which is not followed"
            ),
            Refusal::LeavesFolder { link: Some(link) } => write!(
                f,
                "{name} leads outside its folder through the link {}, which is not followed",
                link.display()
            ),
            Refusal::LeavesFolder { link: None } => write!(f, "{name} is outside its folder"),
            Refusal::NotAFile(kind) => {
                write!(f, "{name} is {}, not a regular file", kind.describe())
            }
            Refusal::TooManyLinks => write!(f, "{name}: too many links on the way"),
            Refusal::Io(error) => write!(f, "{name}: {error}"),
        }
    }
}

impl std::error::Error for Refused {}

/// The regular file `name` (a path inside `dir`) of the folder `dir`, open for reading.
/// Opening does not wait, also for a named pipe (refused with its kind).
pub fn open_file(dir: &Path, name: &Path) -> Result<File, Refused> {
    let refused = |why| Refused {
        name: name.to_owned(),
        why,
    };
    let found = resolve(dir, name).map_err(refused)?;
    let kind = Kind::of(&found.stat);
    if kind != Kind::File {
        return Err(refused(Refusal::NotAFile(kind)));
    }
    let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY;
    let file = sys::openat(found.parent.as_fd(), &found.name, flags)
        .map_err(|e| refused(Refusal::Io(e)))?;
    // What was checked is what is open, or the folder changed in between.
    match sys::fstat(file.as_fd()) {
        Ok(stat) if sys::same(&stat, &found.stat) => Ok(File::from(file)),
        Ok(_) => Err(refused(Refusal::Io(sys::changed()))),
        Err(error) => Err(refused(Refusal::Io(error))),
    }
}

/// What `name` (a path inside `dir`) is, its links inside the folder followed.
pub fn kind_of(dir: &Path, name: &Path) -> Result<Kind, Refused> {
    resolve(dir, name)
        .map(|found| Kind::of(&found.stat))
        .map_err(|why| Refused {
            name: name.to_owned(),
            why,
        })
}

/// Where a path ends: the folder holding it, open, its name there, and what it is.
struct Found {
    parent: OwnedFd,
    name: CString,
    stat: libc::stat,
}

/// Walks `name` from the folder `dir`, as the module docs say.
fn resolve(dir: &Path, name: &Path) -> Result<Found, Refusal> {
    let io = Refusal::Io;
    let flags = libc::O_PATH | libc::O_DIRECTORY;
    let root = sys::open(dir, flags).map_err(missing)?;
    let mut current = sys::open(dir, flags).map_err(missing)?;
    // The folders walked into, from `dir`, and the names left to walk (last first).
    let mut walked: Vec<CString> = Vec::new();
    let mut todo = names_of(name, None)?;
    let (mut links, mut steps) = (0, 0);
    // The last link whose target was walked: a `..` out of the folder is its doing.
    let mut last_link = None;
    while let Some(part) = todo.pop() {
        steps += 1;
        if steps > MAX_STEPS {
            return Err(Refusal::TooManyLinks);
        }
        if part.as_bytes() == b".." {
            if walked.pop().is_none() {
                return Err(Refusal::LeavesFolder { link: last_link });
            }
            current = reopen(&root, &walked)?;
            continue;
        }
        let stat = sys::lstat_at(current.as_fd(), &part).map_err(missing)?;
        match Kind::of(&stat) {
            Kind::Link => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(Refusal::TooManyLinks);
                }
                let link = inside_path(&walked, &part);
                let target = sys::read_link_at(current.as_fd(), &part).map_err(io)?;
                todo.extend(names_of(&target, Some(&link))?);
                last_link = Some(link);
            }
            _ if todo.is_empty() => {
                return Ok(Found {
                    parent: current,
                    name: part,
                    stat,
                });
            }
            Kind::Folder => {
                current = sys::openat(current.as_fd(), &part, flags | libc::O_NOFOLLOW)
                    .map_err(missing)?;
                walked.push(part);
            }
            _ => return Err(Refusal::Missing),
        }
    }
    // The path ends at a folder: itself, in its parent, is `.`.
    let stat = sys::fstat(current.as_fd()).map_err(io)?;
    Ok(Found {
        parent: current,
        name: c".".to_owned(),
        stat,
    })
}

/// The names of `path` to walk, last first; a path from `/` leads out (through `link`, the
/// link it was read from, if any).
fn names_of(path: &Path, link: Option<&Path>) -> Result<Vec<CString>, Refusal> {
    let mut names = Vec::new();
    for part in path.components() {
        match part {
            Component::RootDir | Component::Prefix(_) => {
                return Err(Refusal::LeavesFolder {
                    link: link.map(Path::to_owned),
                });
            }
            Component::CurDir => {}
            Component::ParentDir => names.push(c"..".to_owned()),
            Component::Normal(name) => names.push(sys::c_name(name).map_err(Refusal::Io)?),
        }
    }
    names.reverse();
    Ok(names)
}

/// The folder `walked` from `root` again, one name at a time, no link followed.
fn reopen(root: &OwnedFd, walked: &[CString]) -> Result<OwnedFd, Refusal> {
    let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW;
    let mut current = sys::openat(root.as_fd(), c".", flags).map_err(Refusal::Io)?;
    for name in walked {
        current = sys::openat(current.as_fd(), name, flags).map_err(missing)?;
    }
    Ok(current)
}

fn inside_path(walked: &[CString], last: &CStr) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    walked
        .iter()
        .chain(Some(&last.to_owned()))
        .map(|name| OsString::from_vec(name.to_bytes().to_vec()))
        .collect()
}

fn missing(error: io::Error) -> Refusal {
    match error.raw_os_error() {
        Some(libc::ENOENT | libc::ENOTDIR | libc::ELOOP) => Refusal::Missing,
        _ => Refusal::Io(error),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;
    use std::os::unix::fs::symlink;

    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "arbiter-folder-beneath-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn read(dir: &Path, name: &str) -> Result<String, String> {
        let mut text = String::new();
        open_file(dir, Path::new(name))
            .map_err(|e| e.to_string())?
            .read_to_string(&mut text)
            .unwrap();
        Ok(text)
    }

    #[test]
    fn links_inside_the_folder_are_followed_and_links_out_of_it_are_not() {
        let root = temp_dir("links");
        let (me, victim) = (root.join("me"), root.join("victim"));
        std::fs::create_dir_all(me.join("sub")).unwrap();
        std::fs::create_dir_all(&victim).unwrap();
        std::fs::write(victim.join("bot.sh"), "secret\n").unwrap();
        std::fs::write(me.join("sub/real.txt"), "mine\n").unwrap();
        symlink("sub/real.txt", me.join("inside")).unwrap();
        symlink("sub/../inside", me.join("twice")).unwrap();
        symlink("../victim/bot.sh", me.join("sibling")).unwrap();
        symlink(victim.join("bot.sh"), me.join("absolute")).unwrap();
        symlink("../../victim/bot.sh", me.join("sub/climbs")).unwrap();
        symlink("sub/climbs", me.join("through")).unwrap();
        symlink("loop", me.join("loop")).unwrap();
        symlink(&me, me.join("sub/home")).unwrap();
        assert_eq!(read(&me, "inside").unwrap(), "mine\n");
        assert_eq!(read(&me, "twice").unwrap(), "mine\n");
        assert_eq!(read(&me, "sub/../sub/real.txt").unwrap(), "mine\n");
        let refused = |name| read(&me, name).unwrap_err();
        assert_eq!(
            refused("sibling"),
            "sibling is a link to outside its folder, which is not followed"
        );
        assert!(refused("absolute").contains("outside its folder"));
        assert_eq!(
            refused("through"),
            "through leads outside its folder through the link sub/climbs, which is not followed"
        );
        assert_eq!(
            refused("../victim/bot.sh"),
            "../victim/bot.sh is outside its folder"
        );
        assert!(refused("sub/home/inside").contains("through the link sub/home"));
        assert_eq!(refused("loop"), "loop: too many links on the way");
        assert_eq!(refused("nothing"), "nothing is not there");
        assert_eq!(refused("sub"), "sub is a folder, not a regular file");
        assert!(!refused("sibling").contains("secret"));
        assert_eq!(kind_of(&me, Path::new("inside")).unwrap(), Kind::File);
        assert_eq!(kind_of(&me, Path::new("sub/..")).unwrap(), Kind::Folder);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_named_pipe_is_refused_without_waiting_for_a_writer() {
        let root = temp_dir("fifo");
        let fifo = c_path_of(&root.join("pipe"));
        // SAFETY: `fifo` is a valid C string.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        symlink("pipe", root.join("info.txt")).unwrap();
        assert_eq!(
            read(&root, "info.txt").unwrap_err(),
            "info.txt is a named pipe, not a regular file"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    fn c_path_of(path: &Path) -> CString {
        sys::c_path(path).unwrap()
    }
}
