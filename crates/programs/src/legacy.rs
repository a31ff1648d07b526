//! The reader of the archives stored before programs became `.tar.gz` files, which stores
//! keep: no program is packed in this format any more.
//!
//! Such an archive is gzip-compressed like the new one, but what it inflates to starts with
//! [`MAGIC`]: a canonical stream of entries whose SHA-256 is the program's name. Each entry: a
//! tag byte (`d` folder, `f` file, `x` executable file, `l` link), the path inside the folder
//! (`/`-separated, a little-endian u32 length then the bytes), then for a file its length (u64)
//! and bytes, for a link its target (u32 length, bytes). The end mark is the tag `e`.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::Path;

use flate2::read::GzDecoder;
use sha2::{Digest, Sha256};

use crate::ProgramError;
use crate::archive::{hex, inside, make_folder, write, write_file};
use crate::tarstream::MAX_NAME;

/// The header of every archive of this format: the format and its version.
pub(crate) const MAGIC: &[u8] = b"arbiter-program 1\n";
const END: u8 = b'e';

/// Whether `archive` is of this format: its inflated stream starts with [`MAGIC`].
pub(crate) fn is_legacy(archive: &[u8]) -> bool {
    let mut start = [0; MAGIC.len()];
    GzDecoder::new(archive).read_exact(&mut start).is_ok() && start == MAGIC
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Folder,
    File,
    Executable,
    Link,
}

impl Kind {
    fn of_tag(tag: u8) -> Option<Kind> {
        match tag {
            b'd' => Some(Kind::Folder),
            b'f' => Some(Kind::File),
            b'x' => Some(Kind::Executable),
            b'l' => Some(Kind::Link),
            _ => None,
        }
    }
}

/// Unpacks an archive of this format as [`crate::unpack`] does: its inflated stream must hash
/// to `hash`, its files hold at most `size` bytes.
pub(crate) fn unpack(
    archive: &[u8],
    hash: &str,
    size: u64,
    into: &Path,
) -> Result<(), ProgramError> {
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
                let executable = kind == Kind::Executable;
                write_file(&mut stream, &path, len, executable).map_err(|e| e.or(corrupt))?;
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
        if len as usize > MAX_NAME {
            return Err(format!("a name of {len} bytes"));
        }
        let mut name = vec![0; len as usize];
        self.exact(&mut name, "a name")?;
        Ok(name)
    }
}

impl Read for Source<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::io::Write;

    use flate2::Compression;
    use flate2::write::GzEncoder;

    use super::*;
    use crate::archive::tests::{player, scratch};

    /// An archive of this format holding the raw canonical `stream`, and its name: what the
    /// former writer made, for the reader to be tested on.
    pub(crate) fn raw(stream: &[u8]) -> (String, Vec<u8>) {
        let mut gz = GzEncoder::new(Vec::new(), Compression::default());
        gz.write_all(stream).unwrap();
        (hex(&Sha256::digest(stream)), gz.finish().unwrap())
    }

    fn entry(tag: u8, name: &str, tail: &[u8]) -> Vec<u8> {
        let mut bytes = vec![tag];
        bytes.extend((name.len() as u32).to_le_bytes());
        bytes.extend(name.as_bytes());
        bytes.extend(tail);
        bytes
    }

    fn file(tag: u8, name: &str, body: &[u8]) -> Vec<u8> {
        let tail = [(body.len() as u64).to_le_bytes().as_slice(), body].concat();
        entry(tag, name, &tail)
    }

    fn link(name: &str, target: &str) -> Vec<u8> {
        let tail = [
            (target.len() as u32).to_le_bytes().as_slice(),
            target.as_bytes(),
        ]
        .concat();
        entry(b'l', name, &tail)
    }

    /// The stream the former writer made of [`player`]'s folder: folders, files and links in
    /// order, each folder's names sorted.
    fn player_stream() -> Vec<u8> {
        [
            MAGIC.to_vec(),
            file(b'x', "bot.sh", b"#!/bin/sh\ncat lib/move.txt\n"),
            file(b'f', "info.txt", b"bot\nAda Lovelace\nsh bot.sh\n"),
            entry(b'd', "lib", &[]),
            entry(b'd', "lib/empty", &[]),
            file(b'f', "lib/move.txt", b"MOVE\n"),
            link("move", "lib/move.txt"),
            vec![END],
        ]
        .concat()
    }

    /// A program stored before the `.tar.gz` format unpacks as it did, into the same folder
    /// the new format makes of it.
    #[test]
    fn a_program_stored_in_the_former_format_still_unpacks() {
        let root = scratch("legacy");
        let (hash, archive) = raw(&player_stream());
        assert!(is_legacy(&archive));
        let into = root.join("q");
        crate::unpack(&archive, &hash, 5 + 27 + 27, &into).unwrap();
        player(&root.join("p"));
        let new = crate::pack(&root.join("p"), 1 << 20).unwrap();
        assert!(!is_legacy(&new.archive));
        assert_eq!(crate::pack(&into, 1 << 20).unwrap(), new, "the same folder");
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// Every damaged archive is an error naming the program — never a panic, never a file
    /// outside the folder.
    #[test]
    fn damaged_and_hostile_archives_of_the_former_format_are_refused() {
        let root = scratch("legacy-damaged");
        let (hash, good) = raw(&player_stream());
        let mut flipped = good.clone();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0x40;
        let header = MAGIC.to_vec();
        let x = |name: &str| file(b'f', name, b"x");
        let hostile = [
            [header.clone(), x("../escaped"), vec![END]].concat(),
            [header.clone(), x("/tmp/escaped"), vec![END]].concat(),
            [header.clone(), x("a/./b"), vec![END]].concat(),
            [header.clone(), x("nofolder/x"), vec![END]].concat(),
            [header.clone(), link("a", "/tmp"), x("a/escaped"), vec![END]].concat(),
            [header.clone(), entry(b'q', "a", &[]), vec![END]].concat(),
            [header.clone(), vec![b'f', 255, 255, 255, 255]].concat(),
            [header.clone(), x("x")].concat(),
            [header.clone(), vec![END, b'!']].concat(),
        ];
        let mut cases: Vec<(String, Vec<u8>, u64)> = vec![
            (hash.clone(), flipped, 59),
            (hash.clone(), good[..good.len() / 2].to_vec(), 59),
            (hash.clone(), good.clone(), 58),
            ("0".repeat(64), good.clone(), 59),
        ];
        for stream in hostile {
            let (hash, archive) = raw(&stream);
            cases.push((hash, archive, 100));
        }
        for (n, (hash, archive, size)) in cases.into_iter().enumerate() {
            let into = root.join(format!("case{n}"));
            let error = crate::unpack(&archive, &hash, size, &into).unwrap_err();
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
        std::fs::remove_dir_all(&root).unwrap();
    }
}
