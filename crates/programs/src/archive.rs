//! A player folder as one archive, and back.
//!
//! The archive is a `.tar.gz` file, as `cargo package` makes them, which an operator can open
//! with `tar xzf` — and deterministic, so its SHA-256 (what `sha256sum` prints of it) is the
//! program's name: the same folder gives the same bytes on any machine, whatever its files'
//! times, owners or the order the disk lists them in. The tar stream holds every entry of the
//! folder depth-first, each folder's names sorted bytewise, in GNU headers with mtime 0, uid and
//! gid 0, no user or group names, and mode 0755 for folders, 0755 or 0644 for files by their
//! executable bit; the gzip header has no name and mtime 0, and the compressor (zlib-rs, named
//! in this crate's `Cargo.toml`) is fixed with the build: another one would name the same
//! folder otherwise, which `the_same_folder_always_packs_to_the_same_bytes` would catch.
//!
//! What is kept, as git keeps it: each file's bytes and whether it is executable (any `x` bit),
//! empty folders, and links as links with their target as written. A link that leaves the
//! folder (an absolute target, or one climbing above the folder) is kept as written too — a
//! Python venv's `bin/python -> /usr/bin/python3` is one — and listed in
//! [`Packed::outside_links`]: it works on a worker only where its target exists. Unpacking
//! never writes through a link, so such a link cannot make it write outside its folder. Named
//! pipes, sockets and devices are refused.
//!
//! Archives stored before this format (an own stream of entries, gzip-compressed, named by the
//! hash of the inflated stream) still unpack: [`unpack`] tells them by the bytes they inflate
//! to first.

use std::cell::Cell;
use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt, symlink};
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use flate2::read::GzDecoder;
use flate2::{Compression, GzBuilder};
use sha2::{Digest, Sha256};
use tar::EntryType;

use crate::tarstream::{self, MAX_NAME};
use crate::{ProgramError, legacy};

/// The default limit of an archive, in MiB once compressed.
pub const DEFAULT_MAX_MB: u64 = 64;

const CHUNK: usize = 64 * 1024;

/// A packed player folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packed {
    /// Its name: the SHA-256 of the archive, 64 lowercase hexadecimal digits.
    pub hash: String,
    /// The bytes of its files.
    pub size: u64,
    /// Its files, folders and links.
    pub entries: u64,
    /// The `.tar.gz` archive.
    pub archive: Vec<u8>,
    /// The links whose target is outside the folder, as paths inside the folder.
    pub outside_links: Vec<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Folder,
    File,
    Executable,
    Link,
}

/// One thing in the folder, as listed before it is read.
struct Entry {
    /// Inside the folder, `/`-separated.
    path: Vec<u8>,
    /// On the disk.
    source: PathBuf,
    kind: Kind,
    /// A file's length when listed.
    len: u64,
}

/// The compressed archive as it grows, its length seen by the files being read into it, so
/// that a file too large is given up in its middle.
struct Tally {
    out: Vec<u8>,
    written: Rc<Cell<u64>>,
}

impl Write for Tally {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.extend_from_slice(buf);
        self.written.set(self.out.len() as u64);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

type Builder = tar::Builder<flate2::write::GzEncoder<Tally>>;

/// Packs the folder `dir` into an archive of at most `max_bytes` bytes.
pub fn pack(dir: &Path, max_bytes: u64) -> Result<Packed, ProgramError> {
    let mut entries = Vec::new();
    list(dir, &[], &mut entries)?;
    let size = entries.iter().map(|e| e.len).sum();
    let too_large = || ProgramError::TooLarge {
        dir: dir.to_owned(),
        size,
        entries: entries.len() as u64,
        limit: max_bytes,
    };
    let written = Rc::new(Cell::new(0));
    let tally = Tally {
        out: Vec::new(),
        written: written.clone(),
    };
    // No name, mtime 0 and the OS byte "unknown": the gzip header is the same everywhere.
    let gz = GzBuilder::new()
        .mtime(0)
        .write(tally, Compression::default());
    let mut tar = tar::Builder::new(gz);
    let mut outside_links = Vec::new();
    for e in &entries {
        let inside = Path::new(OsStr::from_bytes(&e.path));
        match e.kind {
            Kind::Folder => {
                let mut name = e.path.clone();
                name.push(b'/');
                let mut h = header(EntryType::Directory, 0o755, 0);
                tar.append_data(&mut h, OsStr::from_bytes(&name), io::empty())
                    .map_err(read(&e.source))?;
            }
            Kind::File | Kind::Executable => {
                append_file(&mut tar, e, &written, max_bytes).map_err(|stop| match stop {
                    Stop::TooLarge => too_large(),
                    Stop::Failed(error) => error,
                })?;
            }
            Kind::Link => {
                let target = fs::read_link(&e.source).map_err(read(&e.source))?;
                if leaves(inside, &target) {
                    outside_links.push(inside.to_owned());
                }
                let mut h = header(EntryType::Symlink, 0o777, 0);
                tar.append_link(&mut h, inside, &target)
                    .map_err(read(&e.source))?;
            }
        }
        if written.get() > max_bytes {
            return Err(too_large());
        }
    }
    let archive = finish(tar).map_err(read(dir))?;
    if archive.len() as u64 > max_bytes {
        return Err(too_large());
    }
    Ok(Packed {
        hash: hex(&Sha256::digest(&archive)),
        size,
        entries: entries.len() as u64,
        archive,
        outside_links,
    })
}

/// The end of the tar stream, then of the gzip stream.
fn finish(tar: Builder) -> io::Result<Vec<u8>> {
    Ok(tar.into_inner()?.finish()?.out)
}

/// A header with nothing of the machine that made it: no time, owner or user name.
fn header(kind: EntryType, mode: u32, size: u64) -> tar::Header {
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(kind);
    h.set_mode(mode);
    h.set_uid(0);
    h.set_gid(0);
    h.set_mtime(0);
    h.set_size(size);
    h
}

/// Lists the folder `dir` (at `prefix` inside the packed folder) depth-first, each folder's
/// names sorted bytewise.
fn list(dir: &Path, prefix: &[u8], out: &mut Vec<Entry>) -> Result<(), ProgramError> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(read(dir))? {
        names.push(entry.map_err(read(dir))?.file_name());
    }
    names.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    for name in names {
        let source = dir.join(&name);
        let meta = fs::symlink_metadata(&source).map_err(read(&source))?;
        let kind = meta.file_type();
        let mut path = prefix.to_vec();
        if !path.is_empty() {
            path.push(b'/');
        }
        path.extend_from_slice(name.as_bytes());
        let (kind, len) = if kind.is_dir() {
            (Kind::Folder, 0)
        } else if kind.is_symlink() {
            (Kind::Link, 0)
        } else if kind.is_file() && meta.permissions().mode() & 0o111 != 0 {
            (Kind::Executable, meta.len())
        } else if kind.is_file() {
            (Kind::File, meta.len())
        } else {
            let what = if kind.is_fifo() {
                "a named pipe"
            } else if kind.is_socket() {
                "a socket"
            } else {
                "a device"
            };
            return Err(ProgramError::Special { path: source, what });
        };
        out.push(Entry {
            path: path.clone(),
            source: source.clone(),
            kind,
            len,
        });
        if kind == Kind::Folder {
            list(&source, &path, out)?;
        }
    }
    Ok(())
}

/// Whether the link at `inside` (a path inside the folder) to `target` points outside the
/// folder, read as written (the target need not exist).
fn leaves(inside: &Path, target: &Path) -> bool {
    let mut depth = inside.components().count() as i64 - 1;
    for part in target.components() {
        match part {
            Component::RootDir | Component::Prefix(_) => return true,
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

enum Stop {
    TooLarge,
    Failed(ProgramError),
}

/// Puts the file of `e` into the archive: exactly the length listed (its header says it
/// first), or an error.
fn append_file(
    tar: &mut Builder,
    e: &Entry,
    written: &Rc<Cell<u64>>,
    max_bytes: u64,
) -> Result<(), Stop> {
    let failed = |error| Stop::Failed(read(&e.source)(error));
    let changed = || {
        Stop::Failed(ProgramError::Changed {
            path: e.source.clone(),
        })
    };
    // Listed as a regular file; opened so that a link or a named pipe put there since is
    // refused at once rather than followed or waited on.
    let file = File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&e.source)
        .map_err(failed)?;
    if !file.metadata().map_err(failed)?.is_file() {
        return Err(changed());
    }
    let mode = if e.kind == Kind::Executable {
        0o755
    } else {
        0o644
    };
    let mut body = Body {
        file,
        left: e.len,
        written: written.clone(),
        max_bytes,
        stop: None,
    };
    let mut h = header(EntryType::Regular, mode, e.len);
    let appended = tar.append_data(&mut h, OsStr::from_bytes(&e.path), &mut body);
    match (appended, body.stop.take()) {
        (Ok(()), _) => {}
        (Err(_), Some(Halt::TooLarge)) => return Err(Stop::TooLarge),
        (Err(_), Some(Halt::Short)) => return Err(changed()),
        (Err(_), Some(Halt::Read(error))) | (Err(error), None) => return Err(failed(error)),
    }
    let mut more = [0];
    if body.file.read(&mut more).map_err(failed)? > 0 {
        return Err(changed());
    }
    Ok(())
}

/// Why [`Body`] stopped giving bytes.
enum Halt {
    TooLarge,
    Short,
    Read(io::Error),
}

/// A file's bytes going into the archive: exactly `left` of them, or an error saying why not.
struct Body {
    file: File,
    left: u64,
    written: Rc<Cell<u64>>,
    max_bytes: u64,
    stop: Option<Halt>,
}

impl Read for Body {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Ok(0);
        }
        if self.written.get() > self.max_bytes {
            self.stop = Some(Halt::TooLarge);
            return Err(io::Error::other("the archive is too large"));
        }
        let want = self.left.min(buf.len() as u64) as usize;
        match self.file.read(&mut buf[..want]) {
            Ok(0) => {
                self.stop = Some(Halt::Short);
                Err(io::Error::other("the file got shorter"))
            }
            Ok(n) => {
                self.left -= n as u64;
                Ok(n)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(e) => {
                let shown = io::Error::new(e.kind(), e.to_string());
                self.stop = Some(Halt::Read(e));
                Err(shown)
            }
        }
    }
}

fn read(path: &Path) -> impl FnOnce(io::Error) -> ProgramError {
    let path = path.to_owned();
    move |source| ProgramError::Read { path, source }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Unpacks the archive of program `hash` into the new folder `into` (which must not exist),
/// refusing an archive whose files hold more than `size` bytes or which is not the one `hash`
/// names. On an error `into` may be left half written: the caller removes it.
pub fn unpack(archive: &[u8], hash: &str, size: u64, into: &Path) -> Result<(), ProgramError> {
    if legacy::is_legacy(archive) {
        return legacy::unpack(archive, hash, size, into);
    }
    let corrupt = |why: String| ProgramError::Corrupt {
        hash: hash.to_owned(),
        why,
    };
    let found = hex(&Sha256::digest(archive));
    if found != hash {
        return Err(corrupt(format!("its bytes hash to {found}")));
    }
    make_folder(into)?;
    let mut tar = tar::Archive::new(GzDecoder::new(archive));
    let mut entries = tar
        .entries()
        .map_err(|e| corrupt(format!("it cannot be read ({e})")))?
        .raw(true);
    let (mut folders, mut seen) = (HashSet::new(), HashSet::new());
    let mut left = size;
    while let Some((meta, mut data)) = tarstream::next(&mut entries).map_err(corrupt)? {
        let name = meta.name.strip_suffix(b"/").unwrap_or(&meta.name);
        let path = into.join(inside(name, &folders).map_err(corrupt)?);
        if !seen.insert(name.to_vec()) {
            let shown = String::from_utf8_lossy(name);
            return Err(corrupt(format!("the entry {shown:?} is there twice")));
        }
        match meta.kind {
            EntryType::Directory => {
                make_folder(&path)?;
                folders.insert(name.to_vec());
            }
            EntryType::Regular | EntryType::Continuous => {
                left = left.checked_sub(meta.size).ok_or_else(|| {
                    corrupt(format!(
                        "its files hold more than the {size} bytes it declares"
                    ))
                })?;
                let executable = meta.mode & 0o111 != 0;
                write_file(&mut data, &path, meta.size, executable).map_err(|e| e.or(corrupt))?;
            }
            EntryType::Symlink => {
                let target = meta.link.filter(|t| !t.is_empty() && !t.contains(&0));
                let target = target.ok_or_else(|| corrupt("a link has no target".into()))?;
                symlink(OsStr::from_bytes(&target), &path).map_err(write(&path))?;
            }
            other => {
                return Err(corrupt(format!(
                    "the entry {:?} is {}: a program holds only files, folders and links",
                    String::from_utf8_lossy(name),
                    describe(other)
                )));
            }
        }
    }
    Ok(())
}

/// What a tar entry of a kind no program holds is, in words.
pub(crate) fn describe(kind: EntryType) -> &'static str {
    match kind {
        EntryType::Link => "a hard link",
        EntryType::Symlink => "a symbolic link",
        EntryType::Char | EntryType::Block => "a device",
        EntryType::Fifo => "a named pipe",
        EntryType::GNUSparse => "a sparse file",
        _ => "an entry of an unknown kind",
    }
}

/// The path inside the folder of an entry named `name`: plain names only (no `..`, `.`,
/// empty or absolute parts), inside a folder the archive made before — never through a link.
pub(crate) fn inside(name: &[u8], folders: &HashSet<Vec<u8>>) -> Result<PathBuf, String> {
    let shown = || String::from_utf8_lossy(name).into_owned();
    let parts: Vec<&[u8]> = name.split(|&b| b == b'/').collect();
    if name.len() > MAX_NAME
        || parts
            .iter()
            .any(|p| p.is_empty() || *p == b"." || *p == b".." || p.contains(&0))
    {
        return Err(format!(
            "the entry {:?} is not a path inside the folder",
            shown()
        ));
    }
    let parent = &name[..name.len() - parts[parts.len() - 1].len()];
    let parent = parent.strip_suffix(b"/").unwrap_or(parent);
    if !parent.is_empty() && !folders.contains(parent) {
        return Err(format!("the entry {:?} comes before its folder", shown()));
    }
    Ok(PathBuf::from(OsStr::from_bytes(name)))
}

pub(crate) fn make_folder(path: &Path) -> Result<(), ProgramError> {
    fs::create_dir(path).map_err(write(path))?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).map_err(write(path))
}

/// Why a file could not be written whole: the archive (said in words) or the disk.
pub(crate) enum Short {
    Archive(String),
    Disk(ProgramError),
}

impl Short {
    pub(crate) fn or(self, corrupt: impl FnOnce(String) -> ProgramError) -> ProgramError {
        match self {
            Short::Archive(why) => corrupt(why),
            Short::Disk(error) => error,
        }
    }
}

/// Writes the next `len` bytes of `stream` as the new file `path` (never through a link: it
/// must not exist), 0755 if `executable` else 0644.
pub(crate) fn write_file(
    stream: &mut impl Read,
    path: &Path,
    len: u64,
    executable: bool,
) -> Result<(), Short> {
    let mode = if executable { 0o755 } else { 0o644 };
    let disk = |e| Short::Disk(write(path)(e));
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .map_err(disk)?;
    let mut buffer = vec![0; CHUNK];
    let mut left = len;
    while left > 0 {
        let want = left.min(CHUNK as u64) as usize;
        stream
            .read_exact(&mut buffer[..want])
            .map_err(|e| match e.kind() {
                io::ErrorKind::UnexpectedEof => {
                    Short::Archive("it ends in the middle of a file".into())
                }
                _ => Short::Archive(format!("it cannot be decompressed ({e})")),
            })?;
        file.write_all(&buffer[..want]).map_err(disk)?;
        left -= want as u64;
    }
    // The mode asked for at creation is narrowed by the umask: set it as stored.
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).map_err(disk)
}

pub(crate) fn write(path: &Path) -> impl FnOnce(io::Error) -> ProgramError {
    let path = path.to_owned();
    move |source| ProgramError::Write { path, source }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;
    use std::process::Command;

    /// A fresh, empty folder of this test process, removed when it exits.
    pub(crate) fn scratch(name: &str) -> PathBuf {
        arbiter_testdir::fresh(&format!("programs-{name}"))
    }

    /// A player folder with a script, a data file, a sub-folder, an empty folder and a link.
    pub(crate) fn player(dir: &Path) {
        fs::create_dir_all(dir.join("lib/empty")).unwrap();
        fs::write(dir.join("info.txt"), "bot\nAda Lovelace\nsh bot.sh\n").unwrap();
        fs::write(dir.join("bot.sh"), "#!/bin/sh\ncat lib/move.txt\n").unwrap();
        fs::set_permissions(dir.join("bot.sh"), fs::Permissions::from_mode(0o755)).unwrap();
        fs::write(dir.join("lib/move.txt"), "MOVE\n").unwrap();
        symlink("lib/move.txt", dir.join("move")).unwrap();
    }

    /// Bytes that do not compress.
    pub(crate) fn noise(len: usize) -> Vec<u8> {
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    fn set_mtime(path: &Path, secs: u64) {
        let time = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(time)
            .unwrap();
    }

    #[test]
    fn the_same_folder_has_the_same_hash_whatever_its_times_and_the_order_it_was_made_in() {
        let root = scratch("same");
        let (a, b) = (root.join("a"), root.join("b"));
        player(&a);
        // b: the same files, written in another order, at other times.
        fs::create_dir_all(b.join("lib")).unwrap();
        fs::write(b.join("lib/move.txt"), "MOVE\n").unwrap();
        symlink("lib/move.txt", b.join("move")).unwrap();
        fs::write(b.join("bot.sh"), "#!/bin/sh\ncat lib/move.txt\n").unwrap();
        fs::set_permissions(b.join("bot.sh"), fs::Permissions::from_mode(0o700)).unwrap();
        fs::write(b.join("info.txt"), "bot\nAda Lovelace\nsh bot.sh\n").unwrap();
        fs::create_dir(b.join("lib/empty")).unwrap();
        set_mtime(&b.join("info.txt"), 1_000_000);
        set_mtime(&b.join("lib/move.txt"), 2_000_000);
        let (pa, pb) = (pack(&a, 1 << 20).unwrap(), pack(&b, 1 << 20).unwrap());
        assert_eq!(pa.archive, pb.archive);
        assert_eq!(pa.hash, pb.hash);
        assert_eq!(pa.hash, hex(&Sha256::digest(&pa.archive)));
        assert_eq!((pa.entries, pa.size), (6, 5 + 27 + 27));
        assert!(pa.outside_links.is_empty());
        // Any change of a byte, a name or the executable bit is another program.
        fs::set_permissions(b.join("bot.sh"), fs::Permissions::from_mode(0o644)).unwrap();
        let unexecutable = pack(&b, 1 << 20).unwrap().hash;
        fs::write(a.join("lib/move.txt"), "MOVF\n").unwrap();
        let edited = pack(&a, 1 << 20).unwrap().hash;
        fs::rename(a.join("lib/empty"), a.join("lib/vide")).unwrap();
        let renamed = pack(&a, 1 << 20).unwrap().hash;
        let all = [&pa.hash, &unexecutable, &edited, &renamed];
        let distinct: HashSet<_> = all.iter().collect();
        assert_eq!(distinct.len(), 4, "{all:?}");
        fs::remove_dir_all(&root).unwrap();
    }

    /// The bytes of a folder's archive depend on nothing of the machine: a change of the
    /// compressor or of the headers would rename every program, and fails here first.
    #[test]
    fn the_same_folder_always_packs_to_the_same_bytes() {
        let root = scratch("golden");
        player(&root);
        let packed = pack(&root, 1 << 20).unwrap();
        // The gzip header: deflate, no flags (no name), mtime 0, OS "unknown".
        assert_eq!(packed.archive[..10], [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
        assert_eq!(packed.hash, GOLDEN);
        fs::remove_dir_all(&root).unwrap();
    }

    const GOLDEN: &str = "f95bece2cba52b34a9dffc5b9d8895b97c73b76901890d9a1398aa1f45e7b55b";

    /// The system's tar, a real process, lists and extracts what `pack` wrote.
    #[test]
    fn the_system_tar_lists_and_extracts_the_archive() {
        let root = scratch("system-tar");
        player(&root.join("p"));
        let packed = pack(&root.join("p"), 1 << 20).unwrap();
        let file = root.join("program.tar.gz");
        fs::write(&file, &packed.archive).unwrap();
        let listed = Command::new("tar")
            .arg("-tzvf")
            .arg(&file)
            .env("TZ", "UTC")
            .output()
            .unwrap();
        assert!(listed.status.success(), "{listed:?}");
        let listed = String::from_utf8(listed.stdout).unwrap();
        let lines: Vec<Vec<&str>> = listed
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        let expected: [&[&str]; 6] = [
            &["-rwxr-xr-x", "0/0", "27", "1970-01-01", "00:00", "bot.sh"],
            &["-rw-r--r--", "0/0", "27", "1970-01-01", "00:00", "info.txt"],
            &["drwxr-xr-x", "0/0", "0", "1970-01-01", "00:00", "lib/"],
            &[
                "drwxr-xr-x",
                "0/0",
                "0",
                "1970-01-01",
                "00:00",
                "lib/empty/",
            ],
            &[
                "-rw-r--r--",
                "0/0",
                "5",
                "1970-01-01",
                "00:00",
                "lib/move.txt",
            ],
            &[
                "lrwxrwxrwx",
                "0/0",
                "0",
                "1970-01-01",
                "00:00",
                "move",
                "->",
                "lib/move.txt",
            ],
        ];
        assert_eq!(lines, expected, "{listed}");
        let out = root.join("x");
        fs::create_dir(&out).unwrap();
        let extracted = Command::new("tar")
            .arg("-xzf")
            .arg(&file)
            .arg("-C")
            .arg(&out)
            .status()
            .unwrap();
        assert!(extracted.success());
        assert_eq!(pack(&out, 1 << 20).unwrap(), packed, "the same folder");
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_folder_unpacks_with_its_modes_links_and_empty_folders() {
        let root = scratch("roundtrip");
        player(&root.join("p"));
        let packed = pack(&root.join("p"), 1 << 20).unwrap();
        let into = root.join("q");
        unpack(&packed.archive, &packed.hash, packed.size, &into).unwrap();
        let mode = |p: &str| fs::symlink_metadata(into.join(p)).unwrap().mode() & 0o777;
        assert_eq!(mode("bot.sh"), 0o755);
        assert_eq!(mode("info.txt"), 0o644);
        assert_eq!(mode("lib/empty"), 0o755);
        assert_eq!(
            fs::read_link(into.join("move")).unwrap(),
            Path::new("lib/move.txt")
        );
        assert_eq!(fs::read_to_string(into.join("move")).unwrap(), "MOVE\n");
        assert_eq!(pack(&into, 1 << 20).unwrap(), packed, "it packs to itself");
        fs::remove_dir_all(&root).unwrap();
    }

    /// Names and link targets longer than a tar header holds, and names that are not UTF-8.
    #[test]
    fn long_and_odd_names_unpack_as_they_were() {
        let root = scratch("long-names");
        let dir = root.join("p");
        let deep = dir.join("a".repeat(120)).join("b".repeat(200));
        fs::create_dir_all(&deep).unwrap();
        fs::write(deep.join("c".repeat(250)), "deep\n").unwrap();
        symlink(deep.join("c".repeat(250)), dir.join("far")).unwrap();
        fs::write(dir.join(OsStr::from_bytes(b"caf\xe9")), "latin-1\n").unwrap();
        let packed = pack(&dir, 1 << 20).unwrap();
        let into = root.join("q");
        unpack(&packed.archive, &packed.hash, packed.size, &into).unwrap();
        let inner = into.join("a".repeat(120)).join("b".repeat(200));
        assert_eq!(
            fs::read_to_string(inner.join("c".repeat(250))).unwrap(),
            "deep\n"
        );
        assert_eq!(
            fs::read_link(into.join("far")).unwrap(),
            deep.join("c".repeat(250))
        );
        let odd = into.join(OsStr::from_bytes(b"caf\xe9"));
        assert_eq!(fs::read_to_string(odd).unwrap(), "latin-1\n");
        assert_eq!(pack(&into, 1 << 20).unwrap().hash, packed.hash);
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn links_leaving_the_folder_are_kept_as_written_and_listed() {
        let root = scratch("links");
        let dir = root.join("p");
        player(&dir);
        symlink("/usr/bin/python3", dir.join("lib/python")).unwrap();
        symlink("../../elsewhere", dir.join("lib/up")).unwrap();
        symlink("../info.txt", dir.join("lib/info")).unwrap();
        symlink("missing", dir.join("dangling")).unwrap();
        let packed = pack(&dir, 1 << 20).unwrap();
        assert_eq!(
            packed.outside_links,
            [Path::new("lib/python"), Path::new("lib/up")]
        );
        let into = root.join("q");
        unpack(&packed.archive, &packed.hash, packed.size, &into).unwrap();
        let target = fs::read_link(into.join("lib/python")).unwrap();
        assert_eq!(target, Path::new("/usr/bin/python3"));
        assert_eq!(
            fs::read_link(into.join("dangling")).unwrap(),
            Path::new("missing")
        );
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn special_files_are_refused_by_name() {
        let root = scratch("special");
        player(&root);
        let socket = root.join("lib/control.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let error = pack(&root, 1 << 20).unwrap_err();
        assert!(matches!(error, ProgramError::Special { .. }), "{error}");
        assert_eq!(
            error.to_string(),
            format!(
                "{} is a socket: a player folder can hold only files, folders and links",
                socket.display()
            )
        );
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_folder_larger_than_the_limit_once_compressed_is_refused_with_its_size() {
        let root = scratch("large");
        player(&root);
        fs::write(root.join("lib/weights.bin"), noise(3 << 20)).unwrap();
        let error = pack(&root, 1 << 20).unwrap_err();
        assert!(matches!(error, ProgramError::TooLarge { .. }), "{error}");
        assert_eq!(
            error.to_string(),
            format!(
                "the player folder {} is too large to store: its 7 entries (3.0 MiB) compress \
                 to more than 1.0 MiB, the limit (--max-program-mb)",
                root.display()
            )
        );
        // What compresses well fits.
        fs::write(root.join("lib/weights.bin"), vec![0; 3 << 20]).unwrap();
        let packed = pack(&root, 1 << 20).unwrap();
        assert!(packed.archive.len() < 1 << 16, "{}", packed.archive.len());
        fs::remove_dir_all(&root).unwrap();
    }

    /// A file growing or shrinking between the listing and its reading is said so, never
    /// stored with a length its header does not say.
    #[test]
    fn a_file_changing_while_it_is_packed_is_refused() {
        let root = scratch("changing");
        player(&root);
        let mut entries = Vec::new();
        list(&root, &[], &mut entries).unwrap();
        let written = Rc::new(Cell::new(0));
        for (content, name) in [("MOVE\nMORE\n", "grown"), ("MO", "shrunk")] {
            fs::write(root.join("lib/move.txt"), content).unwrap();
            let e = entries.iter().find(|e| e.path == b"lib/move.txt").unwrap();
            let gz = GzBuilder::new().write(
                Tally {
                    out: Vec::new(),
                    written: written.clone(),
                },
                Compression::default(),
            );
            let mut tar = tar::Builder::new(gz);
            match append_file(&mut tar, e, &written, 1 << 20) {
                Err(Stop::Failed(error @ ProgramError::Changed { .. })) => assert!(
                    error.to_string().ends_with(
                        "lib/move.txt changed while it was being stored: store it again once \
                         nothing writes to it"
                    ),
                    "{name}: {error}"
                ),
                _ => panic!("{name}: not refused as changed"),
            }
        }
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn an_unreadable_folder_is_named() {
        let error = pack(Path::new("/no/such/player"), 1 << 20).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("cannot read /no/such/player: "),
            "{error}"
        );
    }

    /// Appends an entry with its name and link written as given, `..` and all, as a hostile
    /// writer would.
    pub(crate) fn raw_entry(
        tar: &mut tar::Builder<Vec<u8>>,
        name: &[u8],
        kind: EntryType,
        body: &[u8],
        link: &[u8],
    ) {
        let mut h = header(kind, 0o644, body.len() as u64);
        h.as_old_mut().name[..name.len()].copy_from_slice(name);
        h.as_old_mut().linkname[..link.len()].copy_from_slice(link);
        h.set_cksum();
        tar.append(&h, body).unwrap();
    }

    /// A `.tar.gz` of the entries `build` appends, and its hash.
    pub(crate) fn hostile(build: impl FnOnce(&mut tar::Builder<Vec<u8>>)) -> (String, Vec<u8>) {
        let mut tar = tar::Builder::new(Vec::new());
        build(&mut tar);
        let stream = tar.into_inner().unwrap();
        let mut gz = GzBuilder::new().write(Vec::new(), Compression::default());
        gz.write_all(&stream).unwrap();
        let archive = gz.finish().unwrap();
        (hex(&Sha256::digest(&archive)), archive)
    }

    /// Every damaged or hostile archive is an error naming the program — never a panic, never
    /// a file outside the folder, never more memory than a name takes.
    #[test]
    fn damaged_and_hostile_archives_are_refused() {
        use EntryType::{Block, Char, Directory, Fifo, GNULongName, Link, Regular, Symlink};
        let root = scratch("damaged");
        player(&root.join("p"));
        let good = pack(&root.join("p"), 1 << 20).unwrap();
        let mut flipped = good.archive.clone();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0x40;
        let truncated = good.archive[..good.archive.len() / 2].to_vec();
        let mut cases: Vec<(String, Vec<u8>, u64)> = vec![
            (good.hash.clone(), flipped, good.size),
            (good.hash.clone(), good.archive.clone(), good.size - 1),
            ("0".repeat(64), good.archive.clone(), good.size),
            (good.hash.clone(), b"not gzip".to_vec(), good.size),
        ];
        cases.push((hex(&Sha256::digest(&truncated)), truncated, good.size));
        type T = tar::Builder<Vec<u8>>;
        type Build = Box<dyn FnOnce(&mut T)>;
        let builds: Vec<Build> = vec![
            Box::new(|t: &mut T| raw_entry(t, b"../escaped", Regular, b"x", b"")),
            Box::new(|t: &mut T| raw_entry(t, b"/tmp/escaped", Regular, b"x", b"")),
            Box::new(|t: &mut T| raw_entry(t, b"a/./b", Regular, b"x", b"")),
            Box::new(|t: &mut T| raw_entry(t, b"nofolder/x", Regular, b"x", b"")),
            Box::new(|t: &mut T| {
                raw_entry(t, b"a", Symlink, b"", b"/tmp");
                raw_entry(t, b"a/escaped", Regular, b"x", b"");
            }),
            Box::new(|t: &mut T| raw_entry(t, b"hard", Link, b"", b"/etc/passwd")),
            Box::new(|t: &mut T| raw_entry(t, b"tty", Char, b"", b"")),
            Box::new(|t: &mut T| raw_entry(t, b"disk", Block, b"", b"")),
            Box::new(|t: &mut T| raw_entry(t, b"pipe", Fifo, b"", b"")),
            Box::new(|t: &mut T| raw_entry(t, b"link", Symlink, b"", b"")),
            Box::new(|t: &mut T| {
                raw_entry(t, b"d", Directory, b"", b"");
                raw_entry(t, b"d", Directory, b"", b"");
            }),
            Box::new(|t: &mut T| raw_entry(t, b"big", Regular, &[7; 200], b"")),
            // A long name of 16 MiB: refused once past a path's length, not read whole.
            Box::new(|t: &mut T| {
                let mut h = header(GNULongName, 0o644, 16 << 20);
                h.as_old_mut().name[..13].copy_from_slice(b"././@LongLink");
                h.set_cksum();
                t.append(&h, io::repeat(b'a').take(16 << 20)).unwrap();
            }),
        ];
        for build in builds {
            let (hash, archive) = hostile(build);
            cases.push((hash, archive, 100));
        }
        for (n, (hash, archive, size)) in cases.into_iter().enumerate() {
            let into = root.join(format!("case{n}"));
            let error = unpack(&archive, &hash, size, &into).unwrap_err();
            let message = error.to_string();
            assert!(
                message.starts_with(&format!("the stored program {hash} is damaged: ")),
                "case {n}: {message}"
            );
        }
        assert!(!root.join("escaped").exists());
        assert!(!Path::new("/tmp/escaped").exists());
        fs::remove_dir_all(&root).unwrap();
    }
}
