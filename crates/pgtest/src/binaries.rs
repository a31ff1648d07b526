//! Where PostgreSQL's programs are: on PATH, or in Debian's `/usr/lib/postgresql/VERSION/bin`.

use std::path::{Path, PathBuf};

/// The folder of one PostgreSQL installation's programs.
pub(crate) struct Binaries {
    dir: PathBuf,
}

impl Binaries {
    /// The folder of `initdb` on PATH (following a link to where the other programs are), else
    /// the newest of Debian's.
    pub(crate) fn find() -> Result<Binaries, String> {
        let on_path = std::env::var_os("PATH")
            .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .map(|dir| dir.join("initdb"))
            .find(|initdb| initdb.is_file())
            .and_then(|initdb| std::fs::canonicalize(initdb).ok())
            .and_then(|initdb| initdb.parent().map(Path::to_path_buf));
        on_path
            .into_iter()
            .chain(debian_dirs())
            .find(|dir| complete(dir))
            .map(|dir| Binaries { dir })
            .ok_or_else(|| {
                "PostgreSQL is not installed: no initdb on PATH or in /usr/lib/postgresql/*/bin \
                 (scripts/setup installs it)"
                    .to_owned()
            })
    }

    /// The path of program `name`.
    pub(crate) fn tool(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

/// Debian's installations, newest first.
fn debian_dirs() -> Vec<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_string_lossy().parse().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .collect();
    versions.sort_by_key(|v| std::cmp::Reverse(v.0));
    versions.into_iter().map(|(_, dir)| dir).collect()
}

/// Whether `dir` has every program a cluster needs.
fn complete(dir: &Path) -> bool {
    ["initdb", "postgres", "pg_ctl", "pg_isready", "psql"]
        .iter()
        .all(|tool| dir.join(tool).is_file())
}
