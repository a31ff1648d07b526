//! What a build left in its jail's copy of the player folder, taken out before the jail
//! removes it: within bounds, links as links, files with their permissions (no set-user-id
//! bit), named pipes, sockets and devices left out, all of it then Arbiter's own.

use std::fs;
use std::path::Path;

use arbiter_folder::{Bounds, Over, WalkError};

use crate::BuildError;

/// Copies the folder `from` into `to` (which must not exist), within `bounds`: which bound
/// the folder is over, if one is (the version's fault), or an error of the machine.
pub(crate) fn copy_out(
    from: &Path,
    to: &Path,
    bounds: &Bounds,
) -> Result<Option<Over>, BuildError> {
    fs::create_dir(to).map_err(BuildError::io("making", to))?;
    match arbiter_folder::copy(from, to, bounds) {
        Ok(_) => Ok(None),
        Err(WalkError::Over(over)) => Ok(Some(over)),
        Err(WalkError::Io { path, error }) => Err(BuildError::Io {
            what: "taking the built folder out of the sandbox at",
            path: from.join(path),
            source: error,
        }),
    }
}

/// A bound gone over, for the version's author.
pub(crate) fn over_reason(over: Over, bounds: &Bounds) -> String {
    match over {
        Over::Bytes => format!(
            "the build left more than {} in its folder",
            arbiter_text::size(bounds.bytes)
        ),
        Over::Entries => format!(
            "the build left more than {} files, folders and links in its folder",
            bounds.entries
        ),
        Over::Depth => format!(
            "the build left folders more than {} deep in its folder",
            bounds.depth
        ),
    }
}
