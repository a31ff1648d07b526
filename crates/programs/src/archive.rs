//! A player folder as one archive, and back.
//!
//! The archive is a stream of entries, gzip-compressed. Before compression the stream is
//! canonical — a fixed header, then every entry of the folder depth-first with each folder's
//! names sorted bytewise, then an end mark — so its SHA-256 is the program's name: the same
//! folder gives the same name on any machine, whatever the files' times, owners or the order the
//! disk lists them in. (The compressed bytes may differ between zlib builds; the name does not
//! depend on them.)
//!
//! What is kept, as git keeps it: each file's bytes and whether it is executable (any `x` bit;
//! unpacked as 0755, others 0644, folders 0755), empty folders, and links as links with their
//! target as written. A link that leaves the folder (an absolute target, or one climbing above
//! the folder) is kept as written too — a Python venv's `bin/python -> /usr/bin/python3` is one —
//! and listed in [`Packed::outside_links`]: it works on a worker only where its target exists.
//! Named pipes, sockets and devices are refused.
//!
//! Each entry: a tag byte (`d` folder, `f` file, `x` executable file, `l` link), the path
//! inside the folder (`/`-separated, a little-endian u32 length then the bytes), then for a
//! file its length (u64) and bytes, for a link its target (u32 length, bytes). The end mark is
//! the tag `e`.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt, symlink};
use std::path::{Component, Path, PathBuf};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use sha2::{Digest, Sha256};

use crate::ProgramError;

/// The default limit of an archive, in MiB once compressed.
pub const DEFAULT_MAX_MB: u64 = 64;

/// The header of every archive: the format and its version.
const MAGIC: &[u8] = b"arbiter-program 1\n";
/// The longest path or link target an archive may hold (Linux's PATH_MAX).
const MAX_NAME: u32 = 4096;
const END: u8 = b'e';
const CHUNK: usize = 64 * 1024;

/// A packed player folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packed {
    /// Its name: the SHA-256 of the canonical stream, 64 lowercase hexadecimal digits.
    pub hash: String,
    /// The bytes of its files.
    pub size: u64,
    /// Its files, folders and links.
    pub entries: u64,
    /// The compressed archive.
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

impl Kind {
    fn tag(self) -> u8 {
        match self {
            Kind::Folder => b'd',
            Kind::File => b'f',
            Kind::Executable => b'x',
            Kind::Link => b'l',
        }
    }

    fn of_tag(tag: u8) -> Option<Kind> {
        [Kind::Folder, Kind::File, Kind::Executable, Kind::Link]
            .into_iter()
            .find(|k| k.tag() == tag)
    }
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
    let mut sink = Sink {
        hasher: Sha256::new(),
        gz: GzEncoder::new(Vec::new(), Compression::default()),
    };
    let mut outside_links = Vec::new();
    sink.put(MAGIC);
    for e in &entries {
        sink.put(&[e.kind.tag()]);
        sink.put_name(&e.path);
        match e.kind {
            Kind::Folder => {}
            Kind::File | Kind::Executable => {
                sink.put(&e.len.to_le_bytes());
                copy_file(e, &mut sink, max_bytes).map_err(|error| match error {
                    Copy::TooLarge => too_large(),
                    Copy::Failed(error) => error,
                })?;
            }
            Kind::Link => {
                let target = fs::read_link(&e.source).map_err(read(&e.source))?;
                let inside = Path::new(OsStr::from_bytes(&e.path));
                if leaves(inside, &target) {
                    outside_links.push(inside.to_owned());
                }
                sink.put_name(target.as_os_str().as_bytes());
            }
        }
        if sink.compressed() > max_bytes {
            return Err(too_large());
        }
    }
    sink.put(&[END]);
    let (hash, archive) = sink.finish().map_err(read(dir))?;
    if archive.len() as u64 > max_bytes {
        return Err(too_large());
    }
    Ok(Packed {
        hash,
        size,
        entries: entries.len() as u64,
        archive,
        outside_links,
    })
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

/// The canonical stream going into the hash and the compressor.
struct Sink {
    hasher: Sha256,
    gz: GzEncoder<Vec<u8>>,
}

impl Sink {
    fn put(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
        // Writing into memory fails only when memory is out, which aborts anyway.
        self.gz.write_all(bytes).expect("compressing into memory");
    }

    fn put_name(&mut self, name: &[u8]) {
        self.put(&(name.len() as u32).to_le_bytes());
        self.put(name);
    }

    /// The compressed bytes so far.
    fn compressed(&self) -> u64 {
        self.gz.get_ref().len() as u64
    }

    fn finish(self) -> io::Result<(String, Vec<u8>)> {
        let hash = hex(&self.hasher.finalize());
        Ok((hash, self.gz.finish()?))
    }
}

enum Copy {
    TooLarge,
    Failed(ProgramError),
}

/// Puts the file of `e` into the stream: exactly the length listed, or an error.
fn copy_file(e: &Entry, sink: &mut Sink, max_bytes: u64) -> Result<(), Copy> {
    let failed = |error| Copy::Failed(read(&e.source)(error));
    // Listed as a regular file; opened so that a link or a named pipe put there since is
    // refused at once rather than followed or waited on.
    let mut file = File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&e.source)
        .map_err(failed)?;
    if !file.metadata().map_err(failed)?.is_file() {
        return Err(Copy::Failed(ProgramError::Changed {
            path: e.source.clone(),
        }));
    }
    let mut buffer = vec![0; CHUNK];
    let mut left = e.len;
    while left > 0 {
        let want = left.min(CHUNK as u64) as usize;
        let n = file.read(&mut buffer[..want]).map_err(failed)?;
        if n == 0 {
            break;
        }
        sink.put(&buffer[..n]);
        left -= n as u64;
        if sink.compressed() > max_bytes {
            return Err(Copy::TooLarge);
        }
    }
    if left > 0 || file.read(&mut buffer[..1]).map_err(failed)? > 0 {
        return Err(Copy::Failed(ProgramError::Changed {
            path: e.source.clone(),
        }));
    }
    Ok(())
}

fn read(path: &Path) -> impl FnOnce(io::Error) -> ProgramError {
    let path = path.to_owned();
    move |source| ProgramError::Read { path, source }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Unpacks the archive of program `hash` into the new folder `into` (which must not exist),
/// refusing an archive whose files hold more than `size` bytes or whose stream is not the one
/// `hash` names. On an error `into` may be left half written: the caller removes it.
pub fn unpack(archive: &[u8], hash: &str, size: u64, into: &Path) -> Result<(), ProgramError> {
    let corrupt = |why: String| ProgramError::Corrupt {
        hash: hash.to_owned(),
        why,
    };
    let mut stream = Source {
        hasher: Sha256::new(),
        inner: GzDecoder::new(archive),
    };
    make_folder(into)?;
    let mut magic = [0; MAGIC.len()];
    stream.exact(&mut magic, "the header").map_err(corrupt)?;
    if magic != MAGIC {
        return Err(corrupt("it is not an archive of a player folder".into()));
    }
    let mut folders: HashSet<Vec<u8>> = HashSet::new();
    let mut left = size;
    loop {
        let mut tag = [0];
        stream.exact(&mut tag, "an entry").map_err(corrupt)?;
        if tag[0] == END {
            break;
        }
        let kind = Kind::of_tag(tag[0])
            .ok_or_else(|| corrupt(format!("an entry of unknown kind {:?}", tag[0] as char)))?;
        let name = stream.name().map_err(corrupt)?;
        let path = into.join(inside(&name, &folders).map_err(corrupt)?);
        match kind {
            Kind::Folder => {
                make_folder(&path)?;
                folders.insert(name);
            }
            Kind::File | Kind::Executable => {
                let mut len = [0; 8];
                stream.exact(&mut len, "a file's length").map_err(corrupt)?;
                let len = u64::from_le_bytes(len);
                left = left.checked_sub(len).ok_or_else(|| {
                    corrupt(format!(
                        "its files hold more than the {size} bytes it declares"
                    ))
                })?;
                write_file(&mut stream, &path, len, kind == Kind::Executable, &corrupt)?;
            }
            Kind::Link => {
                let target = stream.name().map_err(corrupt)?;
                symlink(OsStr::from_bytes(&target), &path).map_err(write(&path))?;
            }
        }
    }
    let mut more = [0];
    if stream.exact(&mut more, "").is_ok() {
        return Err(corrupt("there is more after its end".into()));
    }
    let found = hex(&stream.hasher.finalize());
    if found != hash {
        return Err(corrupt(format!("its files hash to {found}")));
    }
    Ok(())
}

/// The path inside the folder of an entry named `name`: plain names only (no `..`, `.`,
/// empty or absolute parts), inside a folder the archive made before — never through a link.
fn inside(name: &[u8], folders: &HashSet<Vec<u8>>) -> Result<PathBuf, String> {
    let shown = || String::from_utf8_lossy(name).into_owned();
    let parts: Vec<&[u8]> = name.split(|&b| b == b'/').collect();
    if parts
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

fn make_folder(path: &Path) -> Result<(), ProgramError> {
    fs::create_dir(path).map_err(write(path))?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).map_err(write(path))
}

fn write_file(
    stream: &mut Source<'_>,
    path: &Path,
    len: u64,
    executable: bool,
    corrupt: &dyn Fn(String) -> ProgramError,
) -> Result<(), ProgramError> {
    let mode = if executable { 0o755 } else { 0o644 };
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .map_err(write(path))?;
    let mut buffer = vec![0; CHUNK];
    let mut left = len;
    while left > 0 {
        let want = left.min(CHUNK as u64) as usize;
        stream
            .exact(&mut buffer[..want], "a file")
            .map_err(corrupt)?;
        file.write_all(&buffer[..want]).map_err(write(path))?;
        left -= want as u64;
    }
    // The mode asked for at creation is narrowed by the umask: set it as stored.
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).map_err(write(path))
}

fn write(path: &Path) -> impl FnOnce(io::Error) -> ProgramError {
    let path = path.to_owned();
    move |source| ProgramError::Write { path, source }
}

/// The decompressed stream, hashed as it is read.
struct Source<'a> {
    hasher: Sha256,
    inner: GzDecoder<&'a [u8]>,
}

impl Source<'_> {
    /// Reads exactly `buffer.len()` bytes of `what`; a short or undecodable stream is said so.
    fn exact(&mut self, buffer: &mut [u8], what: &str) -> Result<(), String> {
        self.inner.read_exact(buffer).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => format!("it ends in the middle of {what}"),
            _ => format!("it cannot be decompressed ({e})"),
        })?;
        self.hasher.update(&*buffer);
        Ok(())
    }

    /// A length-prefixed path or link target.
    fn name(&mut self) -> Result<Vec<u8>, String> {
        let mut len = [0; 4];
        self.exact(&mut len, "a name")?;
        let len = u32::from_le_bytes(len);
        if len > MAX_NAME {
            return Err(format!("a name of {len} bytes"));
        }
        let mut name = vec![0; len as usize];
        self.exact(&mut name, "a name")?;
        Ok(name)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

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

    /// An archive of the raw canonical `stream`, and its hash.
    pub(crate) fn raw(stream: &[u8]) -> (String, Vec<u8>) {
        let mut sink = Sink {
            hasher: Sha256::new(),
            gz: GzEncoder::new(Vec::new(), Compression::default()),
        };
        sink.put(stream);
        sink.finish().unwrap()
    }

    fn entry(tag: u8, name: &str, tail: &[u8]) -> Vec<u8> {
        let mut bytes = vec![tag];
        bytes.extend((name.len() as u32).to_le_bytes());
        bytes.extend(name.as_bytes());
        bytes.extend(tail);
        bytes
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
        assert_eq!(pa.hash, pb.hash);
        assert_eq!(pa.hash.len(), 64);
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

    /// Every damaged archive is an error naming the program — never a panic, never a file
    /// outside the folder.
    #[test]
    fn damaged_and_hostile_archives_are_refused() {
        let root = scratch("damaged");
        player(&root.join("p"));
        let good = pack(&root.join("p"), 1 << 20).unwrap();
        let mut flipped = good.archive.clone();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0x40;
        let truncated = good.archive[..good.archive.len() / 2].to_vec();
        let header = MAGIC.to_vec();
        let file = |name: &str| entry(b'f', name, &[1u64.to_le_bytes().as_slice(), b"x"].concat());
        let hostile = [
            [header.clone(), file("../escaped"), vec![END]].concat(),
            [header.clone(), file("/tmp/escaped"), vec![END]].concat(),
            [header.clone(), file("a/./b"), vec![END]].concat(),
            [header.clone(), file("nofolder/x"), vec![END]].concat(),
            [
                header.clone(),
                entry(
                    b'l',
                    "a",
                    &[4, 0, 0, 0]
                        .iter()
                        .copied()
                        .chain(*b"/tmp")
                        .collect::<Vec<_>>(),
                ),
                file("a/escaped"),
                vec![END],
            ]
            .concat(),
            [header.clone(), entry(b'q', "a", &[]), vec![END]].concat(),
            [header.clone(), vec![b'f', 255, 255, 255, 255]].concat(),
            [header.clone(), file("x")].concat(),
            [header.clone(), vec![END, b'!']].concat(),
            b"not a program at all".to_vec(),
        ];
        let mut cases: Vec<(String, Vec<u8>, u64)> = vec![
            (good.hash.clone(), flipped, good.size),
            (good.hash.clone(), truncated, good.size),
            (good.hash.clone(), good.archive.clone(), good.size - 1),
            ("0".repeat(64), good.archive.clone(), good.size),
            (good.hash.clone(), b"not gzip".to_vec(), good.size),
        ];
        for stream in hostile {
            let (hash, archive) = raw(&stream);
            cases.push((hash, archive, 100));
        }
        for (n, (hash, archive, size)) in cases.into_iter().enumerate() {
            let into = root.join(format!("case{n}"));
            let error = unpack(&archive, &hash, size, &into).unwrap_err();
            let message = error.to_string();
            assert!(
                matches!(error, ProgramError::Corrupt { .. }),
                "case {n}: {message}"
            );
            assert!(
                message.starts_with(&format!("the stored program {hash} is damaged: ")),
                "{message}"
            );
        }
        assert!(!root.join("escaped").exists());
        assert!(!Path::new("/tmp/escaped").exists());
        fs::remove_dir_all(&root).unwrap();
    }
}
