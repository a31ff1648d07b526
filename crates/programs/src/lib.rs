//! Player folders as content-addressed archives, so that a program handed in on one machine
//! runs on every machine of a tournament; and archives handed in by bot authors, unpacked
//! safely.
//!
//! - [`archive`]: a folder packed into one deterministic `.tar.gz` archive named by its SHA-256
//!   (the same folder gives the same bytes, so the same name, on any machine), and unpacked
//!   again with that hash checked.
//! - [`cache`]: the local folders of programs by hash, filled from archives; any number of
//!   workers on one machine share it.
//! - [`upload`]: a `.zip` or `.tar.gz` of a player folder from a stranger, unpacked into a
//!   folder with everything hostile refused (links, `..`, devices, bombs, a million entries).
//!
//! Why a `.tar.gz`: it is the format an operator already has the tools for — `tar xzf` opens
//! a stored program, `sha256sum` prints its name — and the `tar` crate writes it without a
//! format of our own to keep. Why deterministic, as `cargo package` makes crates: entries
//! sorted, no times, owners or user names, fixed modes, a gzip header with no name or time;
//! so storing one folder twice (two tournaments, two machines) stores one program. Programs
//! stored in the format before this one (an own stream of entries) still unpack: the reader
//! tells them by the bytes they inflate to first.
//!
//! The crate knows nothing of databases or tournaments: the store keeps the archives, the
//! tournament crate asks for a program's local folder, the arena unpacks uploads.
#![warn(missing_docs)]

pub mod archive;
pub mod cache;
mod legacy;
mod tarstream;
pub mod upload;

use std::io;
use std::path::PathBuf;

pub use archive::{DEFAULT_MAX_MB, Packed, pack, unpack};

/// What can go wrong packing a folder or unpacking a program.
#[derive(Debug, thiserror::Error)]
pub enum ProgramError {
    /// A file or folder of the player folder could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// What was being read.
        path: PathBuf,
        /// Why it failed.
        source: io::Error,
    },
    /// The player folder holds something that is not a file, a folder or a link.
    #[error("{} is {what}: a player folder can hold only files, folders and links", path.display())]
    Special {
        /// The special file.
        path: PathBuf,
        /// What it is ("a named pipe", "a socket", "a device").
        what: &'static str,
    },
    /// A file's length changed between listing the folder and reading it.
    #[error("{} changed while it was being stored: store it again once nothing writes to it", path.display())]
    Changed {
        /// The file.
        path: PathBuf,
    },
    /// The archive of the folder is larger than the limit.
    #[error(
        "the player folder {} is too large to store: its {entries} entries ({}) compress to \
         more than {}, the limit (--max-program-mb)",
        dir.display(), mib(*size), mib(*limit)
    )]
    TooLarge {
        /// The player folder.
        dir: PathBuf,
        /// The bytes of its files.
        size: u64,
        /// Its files, folders and links.
        entries: u64,
        /// The largest archive allowed, in bytes.
        limit: u64,
    },
    /// A stored archive does not unpack into the folder its hash names.
    #[error("the stored program {hash} is damaged: {why}")]
    Corrupt {
        /// The program's hash.
        hash: String,
        /// What is wrong with it.
        why: String,
    },
    /// A program's name is not a SHA-256 hash, so it cannot name a folder of the cache.
    #[error("{hash:?} does not name a program (64 lowercase hexadecimal digits)")]
    BadHash {
        /// The name given.
        hash: String,
    },
    /// The cache could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// What was being written.
        path: PathBuf,
        /// Why it failed.
        source: io::Error,
    },
}

/// Bytes as MiB with one decimal, as sizes are shown to organisers.
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}

/// Whether `hash` can be a program's name: 64 lowercase hexadecimal digits. Checked before a
/// name read from the store becomes a path, so that no name leaves the cache.
pub fn check_hash(hash: &str) -> Result<(), ProgramError> {
    let hex = |c: u8| c.is_ascii_digit() || (b'a'..=b'f').contains(&c);
    if hash.len() == 64 && hash.bytes().all(hex) {
        Ok(())
    } else {
        Err(ProgramError::BadHash {
            hash: hash.chars().take(80).collect(),
        })
    }
}
