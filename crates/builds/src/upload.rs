//! Reading archives handed in: until `arbiter_programs::upload` exists, archives are refused.
//! (Temporary: replaced by a re-export of that module.)

use std::path::Path;

/// What an archive handed in may hold, unpacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UploadLimits {
    /// Bytes unpacked.
    pub max_bytes: u64,
    /// Entries.
    pub max_entries: u64,
    /// Depth.
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

#[derive(Clone, Copy, Debug)]
pub(crate) enum UploadKind {
    Zip,
    TarGz,
}

impl UploadKind {
    pub(crate) fn of_name(name: &str) -> Option<UploadKind> {
        match name {
            n if n.ends_with(".zip") => Some(UploadKind::Zip),
            n if n.ends_with(".tar.gz") || n.ends_with(".tgz") => Some(UploadKind::TarGz),
            _ => None,
        }
    }
}

pub(crate) fn unpack_upload(
    _kind: UploadKind,
    _archive: &[u8],
    _into: &Path,
    _limits: &UploadLimits,
) -> Result<(), String> {
    Err("archives are not read yet".into())
}
