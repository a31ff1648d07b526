//! The entries of a tar stream, read with bounded memory: the `tar` crate reads a GNU long
//! name or a PAX header whole, however long its header says it is, so the entries are taken raw
//! and those headers read here, each within [`MAX_META`] bytes.

use std::io::{self, Read};

use tar::EntryType;

/// The longest path or link target an archive may hold (Linux's PATH_MAX).
pub(crate) const MAX_NAME: usize = 4096;
/// The longest PAX header read: paths, times and a few attributes fit many times over.
const MAX_META: u64 = 64 * 1024;

/// One entry of the archive, its long name and PAX attributes applied.
pub(crate) struct Meta {
    /// Its path as the archive holds it (a folder's may end in `/`).
    pub(crate) name: Vec<u8>,
    pub(crate) kind: EntryType,
    /// Its permission bits.
    pub(crate) mode: u32,
    /// The bytes of its data, as its header declares them.
    pub(crate) size: u64,
    /// A link's target.
    pub(crate) link: Option<Vec<u8>>,
}

/// What the headers before an entry said of it.
#[derive(Default)]
struct Pending {
    name: Option<Vec<u8>>,
    link: Option<Vec<u8>>,
    size: Option<u64>,
}

/// The next entry of `entries` (made with `raw(true)`), with its data to read; `None` at the
/// end. An error says what is wrong with the archive.
pub(crate) fn next<'a, R: Read>(
    entries: &mut tar::Entries<'a, R>,
) -> Result<Option<(Meta, tar::Entry<'a, R>)>, String> {
    let mut pending = Pending::default();
    loop {
        let Some(entry) = entries.next() else {
            return match pending.name.is_some() || pending.link.is_some() {
                true => Err("it ends after a long name, before its entry".into()),
                false => Ok(None),
            };
        };
        let mut entry = entry.map_err(|e| format!("it cannot be read ({e})"))?;
        let kind = entry.header().entry_type();
        if kind.is_gnu_longname() {
            pending.name = Some(bounded(&mut entry, MAX_NAME as u64 + 1, "a long name")?);
        } else if kind.is_gnu_longlink() {
            pending.link = Some(bounded(&mut entry, MAX_NAME as u64 + 1, "a long link")?);
        } else if kind.is_pax_local_extensions() {
            let pax = bounded(&mut entry, MAX_META, "a PAX header")?;
            pax_attributes(&pax, &mut pending)?;
        } else if kind.is_pax_global_extensions() {
            // Global attributes (a comment, times) say nothing this reader keeps.
            bounded(&mut entry, MAX_META, "a PAX header")?;
        } else {
            return Ok(Some((meta(&entry, pending)?, entry)));
        }
    }
}

fn meta<R: Read>(entry: &tar::Entry<'_, R>, pending: Pending) -> Result<Meta, String> {
    let header = entry.header();
    let size = header
        .entry_size()
        .map_err(|_| "an entry's size is not a number".to_string())?;
    if pending.size.is_some_and(|s| s != size) {
        return Err("an entry's PAX size and header size disagree".into());
    }
    let name = match pending.name {
        Some(name) => name,
        None => header.path_bytes().into_owned(),
    };
    let link = pending
        .link
        .or_else(|| header.link_name_bytes().map(|l| l.into_owned()));
    Ok(Meta {
        name: strip_nul(name),
        kind: header.entry_type(),
        mode: header.mode().unwrap_or(0o644),
        size,
        link: link.map(strip_nul),
    })
}

/// A GNU long name ends with the NUL that C tools need.
fn strip_nul(mut bytes: Vec<u8>) -> Vec<u8> {
    if let Some(end) = bytes.iter().position(|&b| b == 0) {
        bytes.truncate(end);
    }
    bytes
}

fn pax_attributes(pax: &[u8], pending: &mut Pending) -> Result<(), String> {
    for attribute in tar::PaxExtensions::new(pax) {
        let attribute = attribute.map_err(|_| "a PAX header cannot be read".to_string())?;
        match attribute.key_bytes() {
            b"path" => pending.name = Some(attribute.value_bytes().to_vec()),
            b"linkpath" => pending.link = Some(attribute.value_bytes().to_vec()),
            b"size" => {
                let size = std::str::from_utf8(attribute.value_bytes())
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .ok_or("a PAX size is not a number")?;
                pending.size = Some(size);
            }
            _ => {}
        }
    }
    Ok(())
}

/// The data of a header entry, refused past `limit` bytes.
fn bounded(entry: &mut impl Read, limit: u64, what: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    entry
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("it cannot be read ({e})"))?;
    if bytes.len() as u64 > limit {
        return Err(format!("it holds {what} longer than {limit} bytes"));
    }
    Ok(bytes)
}

/// A reader that refuses to give more than `limit` bytes in all, so that a stream inflating
/// without end is stopped as it inflates, whatever its headers declare.
pub(crate) struct Capped<R> {
    pub(crate) inner: R,
    pub(crate) read: u64,
    pub(crate) limit: u64,
}

impl<R> Capped<R> {
    pub(crate) fn new(inner: R, limit: u64) -> Capped<R> {
        Capped {
            inner,
            read: 0,
            limit,
        }
    }
}

/// The message of the error [`Capped`] gives past its limit, to tell it from others.
pub(crate) const OVER: &str = "the archive inflates past its limit";

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.read > self.limit {
            return Err(io::Error::other(OVER));
        }
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.limit {
            return Err(io::Error::other(OVER));
        }
        Ok(n)
    }
}
