//! Archives handed in by bot authors (`.zip`, `.tar.gz`), unpacked into a player folder
//! without trusting anything they say.
//!
//! An upload may hold files and folders only. Refused, with the entry named: links of any kind
//! (a link could lead a later write, or a reader, out of the folder), `..` in a name, absolute
//! names, devices, named pipes and sockets, names that are not UTF-8 or hold control
//! characters, a name given twice, more entries than [`UploadLimits::max_entries`], names
//! deeper than [`UploadLimits::max_depth`], files inflating to more than
//! [`UploadLimits::max_bytes`] in all (counted as they inflate: sizes the archive declares
//! are used only to refuse sooner), encrypted zip entries, and an archive that is truncated or
//! damaged. Nothing is written outside the folder, since every name is checked and no link is
//! ever made in it. The archive is read twice: once writing nothing, so that almost every
//! refusal comes before a file is written, then writing; on a refusal in the second (a file
//! and a folder of one name, a full disk) what was written is removed.
//!
//! An archive whose entries all sit in one top folder is the folder itself zipped (as people
//! hand folders in): the top folder is dropped and its contents are the player folder. A
//! file's executable bit is kept (0755), others are 0644, folders 0755; times and owners are
//! not. `./` before names (`tar -czf bot.tgz .`), PAX global headers (`git archive`) and the
//! `__MACOSX` folder a Mac adds to zips are skipped.

use std::collections::HashSet;
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;
use tar::EntryType;

use crate::archive::describe;
use crate::tarstream::{self, Capped, OVER};

/// The limits of an upload once unpacked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UploadLimits {
    /// The bytes of its files, in all (default 64 MiB).
    pub max_bytes: u64,
    /// Its entries: files and folders (default 2,000).
    pub max_entries: u64,
    /// The parts of a name as the archive holds it, its top folder included (default 16).
    pub max_depth: u32,
}

impl Default for UploadLimits {
    fn default() -> UploadLimits {
        UploadLimits {
            max_bytes: 64 << 20,
            max_entries: 2_000,
            max_depth: 16,
        }
    }
}

/// The formats of archive an upload may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UploadKind {
    /// A `.zip` file.
    Zip,
    /// A `.tar.gz` or `.tgz` file.
    TarGz,
}

impl UploadKind {
    /// The format of an archive by its file name (`.zip`, `.tar.gz`, `.tgz`, in any case);
    /// `None` for anything else.
    pub fn of_name(file_name: &str) -> Option<UploadKind> {
        let name = file_name.to_ascii_lowercase();
        if name.ends_with(".zip") {
            Some(UploadKind::Zip)
        } else if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
            Some(UploadKind::TarGz)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            UploadKind::Zip => ".zip",
            UploadKind::TarGz => ".tar.gz",
        }
    }
}

/// What an upload unpacked to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unpacked {
    /// Its files.
    pub files: u64,
    /// The bytes of its files.
    pub bytes: u64,
}

/// Why an upload was refused, in words for its author.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    /// The archive cannot be read: truncated, damaged, or not of its kind.
    #[error("the upload is not a readable {kind} archive: {why}")]
    Corrupt {
        /// `.zip` or `.tar.gz`.
        kind: &'static str,
        /// What is wrong.
        why: String,
    },
    /// An entry is a link, a device, a named pipe or a socket.
    #[error("{entry:?} in the archive is {what}: an archive may hold only files and folders")]
    NotAFile {
        /// The entry's name.
        entry: String,
        /// What it is ("a symbolic link", "a device", …).
        what: &'static str,
    },
    /// An entry's name climbs out of the folder.
    #[error("{entry:?} in the archive has a `..` in its name: names must stay inside the folder")]
    Escapes {
        /// The entry's name.
        entry: String,
    },
    /// An entry's name is absolute.
    #[error("{entry:?} in the archive is an absolute name: names must be relative to the folder")]
    Absolute {
        /// The entry's name.
        entry: String,
    },
    /// An entry's name cannot name a file here.
    #[error("the name {entry:?} in the archive {why}")]
    BadName {
        /// The name, its bytes that are not UTF-8 replaced.
        entry: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// Two entries have one name.
    #[error("{entry:?} is in the archive twice")]
    Duplicate {
        /// The name.
        entry: String,
    },
    /// An entry is inside something the archive holds as a file.
    #[error("{entry:?} in the archive is inside {file:?}, which the archive holds as a file")]
    InsideFile {
        /// The entry's name.
        entry: String,
        /// The file it would be inside.
        file: String,
    },
    /// An entry is a file, and the folder of other entries.
    #[error("{entry:?} in the archive is both a file and the folder of other entries")]
    FileAndFolder {
        /// The entry's name.
        entry: String,
    },
    /// The archive holds more entries than the limit.
    #[error("the archive holds more than {limit} files and folders, the limit")]
    TooManyEntries {
        /// The limit.
        limit: u64,
    },
    /// An entry is nested deeper than the limit.
    #[error("{entry:?} in the archive is {depth} levels deep, more than the limit of {limit}")]
    TooDeep {
        /// The entry's name.
        entry: String,
        /// Its depth.
        depth: usize,
        /// The limit.
        limit: u32,
    },
    /// The files inflate to more than the limit.
    #[error("the archive's files inflate to more than {} (at {entry:?}), the limit", crate::mib(*limit))]
    TooLarge {
        /// The entry being inflated when the limit was passed.
        entry: String,
        /// The limit, in bytes.
        limit: u64,
    },
    /// A zip entry is encrypted.
    #[error("{entry:?} in the archive is encrypted: upload an archive without a password")]
    Encrypted {
        /// The entry's name.
        entry: String,
    },
    /// The folder to unpack into holds something already.
    #[error("cannot unpack into {}: the folder is not empty", path.display())]
    NotEmpty {
        /// The folder.
        path: PathBuf,
    },
    /// The folder could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// What was being written.
        path: PathBuf,
        /// Why it failed.
        source: io::Error,
    },
}

/// Unpacks `archive` into the empty folder `into` (made if missing). On a refusal nothing is
/// left in `into`; nothing is ever written outside it.
pub fn unpack_upload(
    kind: UploadKind,
    archive: &[u8],
    into: &Path,
    limits: &UploadLimits,
) -> Result<Unpacked, UploadError> {
    prepare(into)?;
    // First a pass that writes nothing, so that whatever the listing or the inflated bytes
    // refuse is refused before a file is written; then the pass that writes.
    pass(kind, archive, into, limits, false)?;
    let unpacked = pass(kind, archive, into, limits, true).and_then(|unpacked| {
        strip_top(into)?;
        Ok(unpacked)
    });
    if unpacked.is_err() {
        clear(into)?;
    }
    unpacked
}

/// Reads every entry of the archive, writing them into `into` if `write`.
fn pass(
    kind: UploadKind,
    archive: &[u8],
    into: &Path,
    limits: &UploadLimits,
    write: bool,
) -> Result<Unpacked, UploadError> {
    let mut sink = Sink {
        kind,
        into,
        limits,
        write,
        names: HashSet::new(),
        last: String::new(),
        entries: 0,
        files: 0,
        bytes: 0,
    };
    match kind {
        UploadKind::Zip => zip_entries(archive, &mut sink)?,
        UploadKind::TarGz => tar_entries(archive, &mut sink)?,
    }
    Ok(Unpacked {
        files: sink.files,
        bytes: sink.bytes,
    })
}

fn prepare(into: &Path) -> Result<(), UploadError> {
    let failed = |source| UploadError::Write {
        path: into.to_owned(),
        source,
    };
    fs::create_dir_all(into).map_err(failed)?;
    if fs::read_dir(into).map_err(failed)?.next().is_some() {
        return Err(UploadError::NotEmpty {
            path: into.to_owned(),
        });
    }
    Ok(())
}

/// Removes everything in `into`, leaving it empty.
fn clear(into: &Path) -> Result<(), UploadError> {
    let failed = |source| UploadError::Write {
        path: into.to_owned(),
        source,
    };
    for entry in fs::read_dir(into).map_err(failed)? {
        arbiter_folder::remove_tree(&entry.map_err(failed)?.path()).map_err(failed)?;
    }
    Ok(())
}

fn zip_entries(archive: &[u8], sink: &mut Sink<'_>) -> Result<(), UploadError> {
    let corrupt = |e: zip::result::ZipError| bad(UploadKind::Zip, e.to_string());
    let mut zip = zip::ZipArchive::new(io::Cursor::new(archive)).map_err(corrupt)?;
    // The central directory is read whole first: a million entries are refused here, before
    // any is written.
    if zip.len() as u64 > sink.limits.max_entries {
        return Err(UploadError::TooManyEntries {
            limit: sink.limits.max_entries,
        });
    }
    for i in 0..zip.len() {
        let (raw_name, encrypted, mode, declared) = {
            let file = zip.by_index_raw(i).map_err(corrupt)?;
            let mode = file.unix_mode().unwrap_or(0);
            (
                file.name_raw().to_vec(),
                file.encrypted(),
                mode,
                file.size(),
            )
        };
        if raw_name.starts_with(b"__MACOSX/") {
            continue;
        }
        let Some(name) = sink.name(&raw_name)? else {
            continue;
        };
        if encrypted {
            return Err(UploadError::Encrypted { entry: name });
        }
        let folder = raw_name.ends_with(b"/") || mode & S_IFMT == S_IFDIR;
        match mode & S_IFMT {
            0 | S_IFREG | S_IFDIR => {}
            S_IFLNK => return Err(not_a_file(name, "a symbolic link")),
            S_IFIFO => return Err(not_a_file(name, "a named pipe")),
            S_IFSOCK => return Err(not_a_file(name, "a socket")),
            _ => return Err(not_a_file(name, "a device")),
        }
        if folder {
            sink.folder(&name, &name)?;
        } else {
            let mut data = zip.by_index(i).map_err(corrupt)?;
            sink.file(&name, &mut data, declared, mode & 0o111 != 0)?;
        }
    }
    Ok(())
}

const S_IFMT: u32 = 0o170_000;
const S_IFSOCK: u32 = 0o140_000;
const S_IFLNK: u32 = 0o120_000;
const S_IFREG: u32 = 0o100_000;
const S_IFDIR: u32 = 0o040_000;
const S_IFIFO: u32 = 0o010_000;

fn not_a_file(entry: String, what: &'static str) -> UploadError {
    UploadError::NotAFile { entry, what }
}

fn tar_entries(archive: &[u8], sink: &mut Sink<'_>) -> Result<(), UploadError> {
    // Headers, names and padding besides the files' bytes: far more than any real archive
    // needs per entry, and still a bound on what a bomb of empty entries inflates to.
    let per_entry = 16 * 1024;
    let cap = (sink.limits.max_entries + 1)
        .saturating_mul(per_entry)
        .saturating_add(sink.limits.max_bytes);
    let mut tar = tar::Archive::new(Capped::new(GzDecoder::new(archive), cap));
    let walked = tar_walk(&mut tar, sink);
    let mut rest = tar.into_inner();
    // Inflated to its end, so that the gzip checksum of the whole is checked too.
    let walked = walked.and_then(|()| {
        io::copy(&mut rest, &mut io::sink()).map_err(|e| {
            bad(
                UploadKind::TarGz,
                format!("it cannot be inflated to its end ({e})"),
            )
        })
    });
    if rest.read > cap {
        return Err(UploadError::TooLarge {
            entry: sink.last.clone(),
            limit: sink.limits.max_bytes,
        });
    }
    walked.map(drop)
}

fn tar_walk<R: Read>(tar: &mut tar::Archive<R>, sink: &mut Sink<'_>) -> Result<(), UploadError> {
    let mut entries = tar
        .entries()
        .map_err(|e| bad(UploadKind::TarGz, e.to_string()))?
        .raw(true);
    let bad_tar = |why| bad(UploadKind::TarGz, why);
    while let Some((meta, mut data)) = tarstream::next(&mut entries).map_err(bad_tar)? {
        let Some(name) = sink.name(&meta.name)? else {
            continue;
        };
        match meta.kind {
            EntryType::Directory => sink.folder(&name, &name)?,
            EntryType::Regular | EntryType::Continuous => {
                sink.file(&name, &mut data, meta.size, meta.mode & 0o111 != 0)?
            }
            other => return Err(not_a_file(name, describe(other))),
        }
    }
    Ok(())
}

fn bad(kind: UploadKind, why: String) -> UploadError {
    UploadError::Corrupt {
        kind: kind.name(),
        why,
    }
}

/// Where the entries go, and what was seen of them.
struct Sink<'a> {
    kind: UploadKind,
    into: &'a Path,
    limits: &'a UploadLimits,
    /// Whether entries are written, or only read and checked.
    write: bool,
    /// The names given so far, as cleaned by [`Sink::name`].
    names: HashSet<String>,
    /// The name of the entry being unpacked.
    last: String,
    entries: u64,
    files: u64,
    bytes: u64,
}

impl Sink<'_> {
    /// The cleaned name of the next entry (`./` and empty parts left out, no trailing `/`),
    /// counted against the limits; `None` for the folder itself (`./`).
    fn name(&mut self, raw: &[u8]) -> Result<Option<String>, UploadError> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            return Err(UploadError::TooManyEntries {
                limit: self.limits.max_entries,
            });
        }
        let shown = String::from_utf8_lossy(raw).into_owned();
        let Ok(name) = std::str::from_utf8(raw) else {
            return Err(UploadError::BadName {
                entry: shown,
                why: "is not UTF-8: rename the file",
            });
        };
        if name.chars().any(char::is_control) {
            return Err(UploadError::BadName {
                entry: shown,
                why: "holds a control character (a line break, a tab, …): rename the file",
            });
        }
        if name.starts_with('/') {
            return Err(UploadError::Absolute { entry: shown });
        }
        let parts: Vec<&str> = name
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        if parts.contains(&"..") {
            return Err(UploadError::Escapes { entry: shown });
        }
        if parts.len() > self.limits.max_depth as usize {
            return Err(UploadError::TooDeep {
                entry: shown,
                depth: parts.len(),
                limit: self.limits.max_depth,
            });
        }
        if parts.is_empty() {
            return Ok(None);
        }
        let name = parts.join("/");
        if !self.names.insert(name.clone()) {
            return Err(UploadError::Duplicate { entry: name });
        }
        self.last.clone_from(&name);
        Ok(Some(name))
    }

    /// Makes the folder `name` and those it is in, as needed, for the entry `entry`.
    fn folder(&self, name: &str, entry: &str) -> Result<(), UploadError> {
        if !self.write {
            return Ok(());
        }
        let mut path = self.into.to_path_buf();
        let mut made = String::new();
        for part in name.split('/') {
            path.push(part);
            if !made.is_empty() {
                made.push('/');
            }
            made.push_str(part);
            match fs::create_dir(&path) {
                Ok(()) => set_mode(&path, 0o755)?,
                // Only files and folders are ever made here: what is there is one of them.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && path.is_dir() => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    return Err(UploadError::InsideFile {
                        entry: entry.to_owned(),
                        file: made,
                    });
                }
                Err(source) => return Err(UploadError::Write { path, source }),
            }
        }
        Ok(())
    }

    /// Writes the file `name` from `data`, counting its bytes as they inflate; `declared` (the
    /// archive's word) only refuses sooner.
    fn file(
        &mut self,
        name: &str,
        data: &mut dyn Read,
        declared: u64,
        executable: bool,
    ) -> Result<(), UploadError> {
        let limit = self.limits.max_bytes;
        let too_large = || UploadError::TooLarge {
            entry: name.to_owned(),
            limit,
        };
        if declared > limit - self.bytes {
            return Err(too_large());
        }
        if let Some((parent, _)) = name.rsplit_once('/') {
            self.folder(parent, name)?;
        }
        let path = self.into.join(name);
        let mode = if executable { 0o755 } else { 0o644 };
        let write = |source| UploadError::Write {
            path: path.clone(),
            source,
        };
        let mut file = match self.write {
            true => Some(create(&path, mode).map_err(|e| match e.kind() {
                io::ErrorKind::AlreadyExists => UploadError::FileAndFolder {
                    entry: name.to_owned(),
                },
                _ => write(e),
            })?),
            false => None,
        };
        let mut buffer = vec![0; 64 * 1024];
        loop {
            let n = match data.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.to_string().contains(OVER) => return Err(too_large()),
                Err(e) => return Err(bad(self.kind, format!("{name:?} cannot be inflated ({e})"))),
            };
            self.bytes += n as u64;
            if self.bytes > limit {
                return Err(too_large());
            }
            if let Some(file) = &mut file {
                file.write_all(&buffer[..n]).map_err(write)?;
            }
        }
        self.files += 1;
        match file {
            // The mode asked for at creation is narrowed by the umask: set it as the archive
            // says.
            Some(_) => set_mode(&path, mode),
            None => Ok(()),
        }
    }
}

/// The new file `path` (never through a link: nothing may be there).
fn create(path: &Path, mode: u32) -> io::Result<fs::File> {
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
}

fn set_mode(path: &Path, mode: u32) -> Result<(), UploadError> {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).map_err(|source| {
        UploadError::Write {
            path: path.to_owned(),
            source,
        }
    })
}

/// If `into` holds one folder and nothing else, puts that folder's contents in its place.
fn strip_top(into: &Path) -> Result<(), UploadError> {
    let failed = |path: &Path| {
        let path = path.to_owned();
        move |source| UploadError::Write { path, source }
    };
    let mut listed = fs::read_dir(into).map_err(failed(into))?;
    let (Some(top), None) = (listed.next(), listed.next()) else {
        return Ok(());
    };
    let top = top.map_err(failed(into))?;
    if !top.file_type().map_err(failed(into))?.is_dir() {
        return Ok(());
    }
    // Moved aside first, under a name none of its entries has, so that an entry named as the
    // top folder itself finds its place free.
    let aside = (0u64..)
        .map(|n| format!(".unpacking-{n}"))
        .find(|name| !top.path().join(name).exists())
        .map_or_else(|| into.join(".unpacking"), |name| into.join(name));
    fs::rename(top.path(), &aside).map_err(failed(&top.path()))?;
    for entry in fs::read_dir(&aside).map_err(failed(&aside))? {
        let entry = entry.map_err(failed(&aside))?;
        let to = into.join(entry.file_name());
        fs::rename(entry.path(), &to).map_err(failed(&to))?;
    }
    fs::remove_dir(&aside).map_err(failed(&aside))
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;
    use std::os::unix::fs::MetadataExt;

    use flate2::Compression;
    use flate2::write::GzEncoder;
    use zip::write::SimpleFileOptions;

    use super::*;
    use crate::archive::tests::{noise, raw_entry, scratch};

    fn options(mode: u32) -> SimpleFileOptions {
        SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .compression_level(Some(6))
            .unix_permissions(mode)
    }

    /// A zip of `(name, contents, mode)`; a name ending in `/` is a folder.
    fn zip_of(entries: &[(&str, &[u8], u32)]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, body, mode) in entries {
            if let Some(folder) = name.strip_suffix('/') {
                zip.add_directory(folder, options(*mode)).unwrap();
            } else {
                zip.start_file(*name, options(*mode)).unwrap();
                zip.write_all(body).unwrap();
            }
        }
        zip.finish().unwrap().into_inner()
    }

    /// A `.tar.gz` of the entries `build` appends.
    fn tgz(build: impl FnOnce(&mut tar::Builder<GzEncoder<Vec<u8>>>)) -> Vec<u8> {
        tgz_at(Compression::default(), build)
    }

    fn tgz_at(
        level: Compression,
        build: impl FnOnce(&mut tar::Builder<GzEncoder<Vec<u8>>>),
    ) -> Vec<u8> {
        let gz = GzEncoder::new(Vec::new(), level);
        let mut tar = tar::Builder::new(gz);
        build(&mut tar);
        tar.into_inner().unwrap().finish().unwrap()
    }

    /// A `.tar.gz` of the raw entries `(name, kind, contents)`.
    fn tgz_raw(entries: &[(&[u8], EntryType, &[u8])]) -> Vec<u8> {
        let mut tar = tar::Builder::new(Vec::new());
        for (name, kind, body) in entries {
            raw_entry(&mut tar, name, *kind, body, b"target");
        }
        let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
        gz.write_all(&tar.into_inner().unwrap()).unwrap();
        gz.finish().unwrap()
    }

    fn file(tar: &mut tar::Builder<GzEncoder<Vec<u8>>>, name: &str, body: &[u8], mode: u32) {
        let mut h = tar::Header::new_ustar();
        h.set_size(body.len() as u64);
        h.set_mode(mode);
        h.set_entry_type(EntryType::Regular);
        tar.append_data(&mut h, name, body).unwrap();
    }

    /// Unpacks into a fresh folder under `root`, which is left empty on a refusal.
    fn unpack(
        root: &Path,
        kind: UploadKind,
        archive: &[u8],
        limits: &UploadLimits,
    ) -> Result<Unpacked, UploadError> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let into = root.join(format!("into{n}"));
        let unpacked = unpack_upload(kind, archive, &into, limits);
        if unpacked.is_err() {
            assert_eq!(fs::read_dir(&into).unwrap().count(), 0, "left empty");
        }
        unpacked
    }

    /// Every file under `dir` with its mode and contents, sorted.
    fn listing(dir: &Path) -> Vec<(String, u32, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap() {
                let path = e.unwrap().path();
                let meta = fs::symlink_metadata(&path).unwrap();
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                let body = if meta.is_dir() {
                    stack.push(path.clone());
                    Vec::new()
                } else {
                    fs::read(&path).unwrap()
                };
                out.push((name, meta.mode() & 0o7777, body));
            }
        }
        out.sort();
        out
    }

    #[test]
    fn the_kind_of_an_upload_is_read_from_its_name() {
        assert_eq!(UploadKind::of_name("bot.zip"), Some(UploadKind::Zip));
        assert_eq!(UploadKind::of_name("BOT.ZIP"), Some(UploadKind::Zip));
        assert_eq!(UploadKind::of_name("bot.tar.gz"), Some(UploadKind::TarGz));
        assert_eq!(UploadKind::of_name("bot.tgz"), Some(UploadKind::TarGz));
        assert_eq!(UploadKind::of_name("bot.tar"), None);
        assert_eq!(UploadKind::of_name("bot.cpp"), None);
        assert_eq!(UploadKind::of_name("zip"), None);
    }

    /// One player folder as a zip of its folder (with a Mac's `__MACOSX` beside it), as a
    /// tarball of its contents made with `./`, and as a tarball of its folder: the same
    /// folder each time, modes kept, times not.
    #[test]
    fn a_zip_and_a_tarball_of_a_player_folder_unpack_to_the_same_folder() {
        let root = scratch("upload-same");
        let zipped = zip_of(&[
            ("bot/", b"", 0o755),
            ("bot/info.txt", b"bot\nAda\n./run\n", 0o644),
            ("bot/run", b"#!/bin/sh\necho MOVE\n", 0o755),
            ("bot/lib/data.txt", b"data\n", 0o600),
            ("bot/lib/empty/", b"", 0o700),
            ("__MACOSX/bot/._run", b"resource fork", 0o644),
        ]);
        let dotted = tgz(|t| {
            let mut h = tar::Header::new_ustar();
            h.set_entry_type(EntryType::Directory);
            h.set_mode(0o755);
            h.set_size(0);
            t.append_data(&mut h.clone(), "./", io::empty()).unwrap();
            file(t, "./info.txt", b"bot\nAda\n./run\n", 0o664);
            file(t, "./run", b"#!/bin/sh\necho MOVE\n", 0o700);
            file(t, "./lib/data.txt", b"data\n", 0o644);
            t.append_data(&mut h, "./lib/empty/", io::empty()).unwrap();
        });
        let foldered = tgz(|t| {
            file(t, "bot/run", b"#!/bin/sh\necho MOVE\n", 0o755);
            file(t, "bot/info.txt", b"bot\nAda\n./run\n", 0o644);
            file(t, "bot/lib/data.txt", b"data\n", 0o644);
            let mut h = tar::Header::new_ustar();
            h.set_entry_type(EntryType::Directory);
            h.set_mode(0o755);
            h.set_size(0);
            t.append_data(&mut h, "bot/lib/empty", io::empty()).unwrap();
        });
        let limits = UploadLimits::default();
        let mut listings = Vec::new();
        for (n, (kind, archive)) in [
            (UploadKind::Zip, zipped),
            (UploadKind::TarGz, dotted),
            (UploadKind::TarGz, foldered),
        ]
        .into_iter()
        .enumerate()
        {
            let into = root.join(format!("p{n}"));
            let unpacked = unpack_upload(kind, &archive, &into, &limits).unwrap();
            assert_eq!(
                unpacked,
                Unpacked {
                    files: 3,
                    bytes: 14 + 20 + 5
                },
                "{n}"
            );
            listings.push(listing(&into));
        }
        let text = |s: &str| s.as_bytes().to_vec();
        let expected = vec![
            ("info.txt".into(), 0o644, text("bot\nAda\n./run\n")),
            ("lib".into(), 0o755, vec![]),
            ("lib/data.txt".into(), 0o644, text("data\n")),
            ("lib/empty".into(), 0o755, vec![]),
            ("run".into(), 0o755, text("#!/bin/sh\necho MOVE\n")),
        ];
        for l in &listings {
            assert_eq!(l, &expected);
        }
        fs::remove_dir_all(&root).unwrap();
    }

    /// A folder alone at the top holding an entry of its own name: both are kept apart.
    #[test]
    fn a_top_folder_holding_its_own_name_is_stripped_once() {
        let root = scratch("upload-top");
        let archive = zip_of(&[("bot/bot/x", b"x", 0o644), ("bot/y", b"y", 0o644)]);
        let into = root.join("p");
        unpack_upload(UploadKind::Zip, &archive, &into, &UploadLimits::default()).unwrap();
        let files: Vec<_> = listing(&into).into_iter().map(|(n, _, _)| n).collect();
        assert_eq!(files, ["bot", "bot/x", "y"]);
        // A single file at the top stays where it is.
        let archive = zip_of(&[("main.py", b"print()", 0o644)]);
        let into = root.join("q");
        unpack_upload(UploadKind::Zip, &archive, &into, &UploadLimits::default()).unwrap();
        assert!(into.join("main.py").is_file());
        fs::remove_dir_all(&root).unwrap();
    }

    /// The message of a refusal, after checking that nothing is left and nothing escaped.
    fn refused(root: &Path, kind: UploadKind, archive: &[u8], limits: &UploadLimits) -> String {
        let error = unpack(root, kind, archive, limits).unwrap_err();
        assert!(!root.join("escaped").exists());
        assert!(!Path::new("/tmp/escaped").exists());
        error.to_string()
    }

    #[test]
    fn links_of_any_kind_are_refused() {
        let root = scratch("upload-links");
        let limits = UploadLimits::default();
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        zip.start_file("bot/info.txt", options(0o644)).unwrap();
        zip.write_all(b"bot\n").unwrap();
        zip.add_symlink("bot/secret", "/etc/shadow", options(0o777))
            .unwrap();
        let zipped = zip.finish().unwrap().into_inner();
        assert_eq!(
            refused(&root, UploadKind::Zip, &zipped, &limits),
            "\"bot/secret\" in the archive is a symbolic link: an archive may hold only files \
             and folders"
        );
        let linked = tgz_raw(&[
            (b"info.txt", EntryType::Regular, b"bot\n"),
            (b"escape", EntryType::Symlink, b""),
        ]);
        assert_eq!(
            refused(&root, UploadKind::TarGz, &linked, &limits),
            "\"escape\" in the archive is a symbolic link: an archive may hold only files and \
             folders"
        );
        let hard = tgz_raw(&[(b"passwd", EntryType::Link, b"")]);
        assert_eq!(
            refused(&root, UploadKind::TarGz, &hard, &limits),
            "\"passwd\" in the archive is a hard link: an archive may hold only files and folders"
        );
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn names_leaving_the_folder_are_refused() {
        let root = scratch("upload-names");
        let limits = UploadLimits::default();
        for name in ["../escaped", "bot/../../escaped", "/tmp/escaped"] {
            let zipped = zip_of(&[("bot/ok", b"ok", 0o644), (name, b"x", 0o644)]);
            let tarred = tgz_raw(&[
                (b"bot/ok", EntryType::Regular, b"ok"),
                (name.as_bytes(), EntryType::Regular, b"x"),
            ]);
            for (kind, archive) in [(UploadKind::Zip, zipped), (UploadKind::TarGz, tarred)] {
                let message = refused(&root, kind, &archive, &limits);
                let expected = if name.starts_with('/') {
                    format!(
                        "{name:?} in the archive is an absolute name: names must be relative to the folder"
                    )
                } else {
                    format!(
                        "{name:?} in the archive has a `..` in its name: names must stay inside the folder"
                    )
                };
                assert_eq!(message, expected, "{kind:?}");
            }
        }
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn devices_pipes_and_sockets_are_refused() {
        let root = scratch("upload-devices");
        let limits = UploadLimits::default();
        for (kind, what) in [
            (EntryType::Char, "a device"),
            (EntryType::Block, "a device"),
            (EntryType::Fifo, "a named pipe"),
        ] {
            let archive = tgz_raw(&[(b"dev", kind, b"")]);
            let message = refused(&root, UploadKind::TarGz, &archive, &limits);
            assert_eq!(
                message,
                format!(
                    "\"dev\" in the archive is {what}: an archive may hold only files and folders"
                )
            );
        }
        // A zip says what an entry is in its Unix mode, which the writer here keeps to
        // permissions: set in the central directory as a hostile writer would.
        for (mode, what) in [
            (0o010_644_u32, "a named pipe"),
            (0o140_644, "a socket"),
            (0o020_644, "a device"),
        ] {
            let mut archive = zip_of(&[("dev", b"", 0o644)]);
            let central = find(&archive, b"PK\x01\x02");
            archive[central + 38..central + 42].copy_from_slice(&(mode << 16).to_le_bytes());
            let message = refused(&root, UploadKind::Zip, &archive, &limits);
            assert_eq!(
                message,
                format!(
                    "\"dev\" in the archive is {what}: an archive may hold only files and folders"
                )
            );
        }
        fs::remove_dir_all(&root).unwrap();
    }

    fn find(haystack: &[u8], needle: &[u8]) -> usize {
        haystack
            .windows(needle.len())
            .position(|w| w == needle)
            .unwrap()
    }

    /// Replaces every `from` in `bytes` by `to`, of the same length.
    fn patch(bytes: &mut [u8], from: &[u8], to: &[u8]) {
        let mut i = 0;
        while i + from.len() <= bytes.len() {
            if &bytes[i..i + from.len()] == from {
                bytes[i..i + from.len()].copy_from_slice(to);
            }
            i += 1;
        }
    }

    #[test]
    fn names_that_are_not_utf8_or_hold_control_characters_are_refused() {
        let root = scratch("upload-bad-names");
        let limits = UploadLimits::default();
        let not_utf8 = "the name \"caf\u{fffd}\" in the archive is not UTF-8: rename the file";
        let mut zipped = zip_of(&[("cafX", b"x", 0o644)]);
        patch(&mut zipped, b"cafX", b"caf\xe9");
        assert_eq!(refused(&root, UploadKind::Zip, &zipped, &limits), not_utf8);
        let tarred = tgz_raw(&[(b"caf\xe9", EntryType::Regular, b"x")]);
        assert_eq!(
            refused(&root, UploadKind::TarGz, &tarred, &limits),
            not_utf8
        );
        let control = "holds a control character (a line break, a tab, …): rename the file";
        let zipped = zip_of(&[("bad\nname", b"x", 0o644)]);
        let message = refused(&root, UploadKind::Zip, &zipped, &limits);
        assert_eq!(
            message,
            format!("the name \"bad\\nname\" in the archive {control}")
        );
        let tarred = tgz_raw(&[(b"esc\x1b[31m", EntryType::Regular, b"x")]);
        let message = refused(&root, UploadKind::TarGz, &tarred, &limits);
        assert_eq!(
            message,
            format!("the name \"esc\\u{{1b}}[31m\" in the archive {control}")
        );
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_name_given_twice_or_as_a_file_and_a_folder_is_refused() {
        let root = scratch("upload-twice");
        let limits = UploadLimits::default();
        let zipped = zip_of(&[("a/b", b"1", 0o644), ("./a/b", b"2", 0o644)]);
        let message = refused(&root, UploadKind::Zip, &zipped, &limits);
        assert_eq!(message, "\"a/b\" is in the archive twice");
        let tarred = tgz_raw(&[
            (b"x", EntryType::Regular, b"1"),
            (b"x", EntryType::Regular, b"2"),
        ]);
        let message = refused(&root, UploadKind::TarGz, &tarred, &limits);
        assert_eq!(message, "\"x\" is in the archive twice");
        let tarred = tgz_raw(&[
            (b"x", EntryType::Regular, b"1"),
            (b"x/y", EntryType::Regular, b"2"),
        ]);
        let message = refused(&root, UploadKind::TarGz, &tarred, &limits);
        assert_eq!(
            message,
            "\"x/y\" in the archive is inside \"x\", which the archive holds as a file"
        );
        let zipped = zip_of(&[("x/y", b"1", 0o644), ("x", b"2", 0o644)]);
        let message = refused(&root, UploadKind::Zip, &zipped, &limits);
        assert_eq!(
            message,
            "\"x\" in the archive is both a file and the folder of other entries"
        );
        fs::remove_dir_all(&root).unwrap();
    }

    /// A `.tar.gz` of `count` empty files `f0000000`, `f0000001`, …: their headers written
    /// here, the name and checksum patched into one the `tar` crate made, which is much faster
    /// than a million calls to it.
    fn empty_files(count: u32) -> Vec<u8> {
        let mut h = tar::Header::new_ustar();
        h.set_path("f0000000").unwrap();
        h.set_size(0);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_entry_type(EntryType::Regular);
        h.set_cksum();
        let mut block = *h.as_bytes();
        // The checksum counts its own field as spaces, and the name's digits as they are.
        let mut fixed: u32 = block.iter().map(|&b| b as u32).sum();
        fixed -= block[148..156].iter().map(|&b| b as u32).sum::<u32>() - 8 * 32;
        fixed -= block[1..8].iter().map(|&b| b as u32).sum::<u32>();
        let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
        for n in 0..count {
            let digits = format!("{n:07}");
            block[1..8].copy_from_slice(digits.as_bytes());
            let sum = fixed + digits.bytes().map(|b| b as u32).sum::<u32>();
            block[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
            gz.write_all(&block).unwrap();
        }
        gz.write_all(&[0; 1024]).unwrap();
        gz.finish().unwrap()
    }

    /// A million empty files are refused once past the limit, long before a million are
    /// written; a zip's entries are counted before any is.
    #[test]
    fn an_archive_of_a_million_entries_is_refused_early() {
        let root = scratch("upload-million");
        let limits = UploadLimits::default();
        let million = empty_files(1_000_000);
        let message = refused(&root, UploadKind::TarGz, &million, &limits);
        assert_eq!(
            message,
            "the archive holds more than 2000 files and folders, the limit"
        );
        let many: Vec<(String, &[u8], u32)> = (0..2_001)
            .map(|n| (format!("f{n}"), &b""[..], 0o644))
            .collect();
        let many: Vec<(&str, &[u8], u32)> =
            many.iter().map(|(n, b, m)| (n.as_str(), *b, *m)).collect();
        let zipped = zip_of(&many);
        let message = refused(&root, UploadKind::Zip, &zipped, &limits);
        assert_eq!(
            message,
            "the archive holds more than 2000 files and folders, the limit"
        );
        let exactly = zip_of(&many[..2_000]);
        let unpacked = unpack(&root, UploadKind::Zip, &exactly, &limits).unwrap();
        assert_eq!(
            unpacked,
            Unpacked {
                files: 2_000,
                bytes: 0
            }
        );
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn names_deeper_than_the_limit_are_refused() {
        let root = scratch("upload-deep");
        let limits = UploadLimits {
            max_depth: 3,
            ..UploadLimits::default()
        };
        let zipped = zip_of(&[("a/b/c", b"ok", 0o644), ("a/b/c2/d", b"deep", 0o644)]);
        let message = refused(&root, UploadKind::Zip, &zipped, &limits);
        assert_eq!(
            message,
            "\"a/b/c2/d\" in the archive is 4 levels deep, more than the limit of 3"
        );
        fs::remove_dir_all(&root).unwrap();
    }

    /// A zip bomb of a few KiB: counted as it inflates, whatever its headers say.
    #[test]
    fn archives_inflating_past_the_limit_are_refused_as_they_inflate() {
        let root = scratch("upload-bomb");
        let limits = UploadLimits {
            max_bytes: 1 << 20,
            ..UploadLimits::default()
        };
        let zeros = vec![0; 16 << 20];
        let bomb = zip_of(&[
            ("bot/info.txt", b"bot\n", 0o644),
            ("bot/zeros", &zeros, 0o644),
        ]);
        assert!(bomb.len() < 32 << 10, "{}", bomb.len());
        let too_large =
            "the archive's files inflate to more than 1.0 MiB (at \"bot/zeros\"), the limit";
        assert_eq!(refused(&root, UploadKind::Zip, &bomb, &limits), too_large);
        // The same, its sizes rewritten to say 4 bytes: refused as it inflates.
        let mut lying = bomb.clone();
        patch(
            &mut lying,
            &(16u32 << 20).to_le_bytes(),
            &4u32.to_le_bytes(),
        );
        let message = refused(&root, UploadKind::Zip, &lying, &limits);
        assert!(
            message == too_large || message.starts_with("the upload is not a readable .zip"),
            "{message}"
        );
        let tarred = tgz(|t| {
            file(t, "bot/info.txt", b"bot\n", 0o644);
            file(t, "bot/zeros", &zeros, 0o644);
        });
        assert!(tarred.len() < 32 << 10, "{}", tarred.len());
        assert_eq!(
            refused(&root, UploadKind::TarGz, &tarred, &limits),
            too_large
        );
        // Many files, each under the limit, together over it.
        let tarred = tgz(|t| {
            for n in 0..5 {
                file(t, &format!("bot/part{n}"), &noise(300 << 10), 0o644);
            }
        });
        let message = refused(&root, UploadKind::TarGz, &tarred, &limits);
        assert!(
            message
                .starts_with("the archive's files inflate to more than 1.0 MiB (at \"bot/part3\")"),
            "{message}"
        );
        // Empty entries of endless padding are stopped by the inflated bytes, not the count.
        let padded = tgz(|t| {
            let mut h = tar::Header::new_ustar();
            h.set_entry_type(EntryType::Directory);
            h.set_mode(0o755);
            h.set_size(64 << 20);
            h.set_path("bot/").unwrap();
            h.set_cksum();
            t.append(&h, io::repeat(0).take(64 << 20)).unwrap();
        });
        let message = refused(&root, UploadKind::TarGz, &padded, &limits);
        assert!(
            message.starts_with("the archive's files inflate to more than"),
            "{message}"
        );
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn encrypted_zip_entries_are_refused() {
        let root = scratch("upload-encrypted");
        let mut archive = zip_of(&[("secret.txt", b"hidden", 0o644)]);
        // Bit 0 of the flags, in the local and the central header: the entry is encrypted.
        let local = find(&archive, b"PK\x03\x04");
        archive[local + 6] |= 1;
        let central = find(&archive, b"PK\x01\x02");
        archive[central + 8] |= 1;
        let message = refused(&root, UploadKind::Zip, &archive, &UploadLimits::default());
        assert_eq!(
            message,
            "\"secret.txt\" in the archive is encrypted: upload an archive without a password"
        );
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn truncated_and_damaged_archives_are_refused() {
        let root = scratch("upload-damaged");
        let limits = UploadLimits::default();
        let body = noise(200 << 10);
        let zipped = zip_of(&[("a", &body, 0o644), ("b", &body, 0o644)]);
        let tarred = tgz(|t| {
            file(t, "a", &body, 0o644);
            file(t, "b", &body, 0o644);
        });
        for (kind, good) in [(UploadKind::Zip, zipped), (UploadKind::TarGz, tarred)] {
            let name = kind.name();
            let mut flipped = good.clone();
            let at = good.len() / 3;
            flipped[at] ^= 0x55;
            let cases = [
                good[..good.len() / 2].to_vec(),
                good[..good.len() - 30].to_vec(),
                flipped,
                b"not an archive at all".to_vec(),
                Vec::new(),
            ];
            for (n, archive) in cases.iter().enumerate() {
                let message = refused(&root, kind, archive, &limits);
                assert!(
                    message.starts_with(&format!("the upload is not a readable {name} archive: ")),
                    "{name} case {n}: {message}"
                );
            }
        }
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn only_an_empty_folder_is_unpacked_into() {
        let root = scratch("upload-not-empty");
        fs::write(root.join("already"), "x").unwrap();
        let archive = zip_of(&[("a", b"a", 0o644)]);
        let error =
            unpack_upload(UploadKind::Zip, &archive, &root, &UploadLimits::default()).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "cannot unpack into {}: the folder is not empty",
                root.display()
            )
        );
        assert_eq!(fs::read_to_string(root.join("already")).unwrap(), "x");
        fs::remove_dir_all(&root).unwrap();
    }
}
