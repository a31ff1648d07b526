//! The local folders of programs: `CACHE/<hash>/` is the player folder of program `hash`,
//! whole or absent.
//!
//! A program is unpacked into a hidden folder of its own next to its place, checked against
//! its hash, then renamed into place — one atomic step — so that a folder under its hash is
//! always complete, and any number of workers on one machine may fetch the same program at
//! once: the first rename wins, the others find the folder there and drop their copy. A worker
//! killed while unpacking leaves only a hidden `.HASH.*.partial` folder, never a folder under
//! the hash.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{ProgramError, check_hash, unpack};

/// Arbiter's folder for what a machine keeps between runs (fetched programs under
/// `programs/`, replays of matches played for a database server under `replays/`):
/// `$XDG_CACHE_HOME/arbiter`, else `$HOME/.cache/arbiter`, else `arbiter` in the temporary
/// folder (a service without a home).
pub fn arbiter_dir() -> PathBuf {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    // The XDG spec says a relative XDG_CACHE_HOME is to be ignored.
    if let Some(xdg) = var("XDG_CACHE_HOME").filter(|p| p.is_absolute()) {
        return xdg.join("arbiter");
    }
    match var("HOME") {
        Some(home) => home.join(".cache").join("arbiter"),
        None => std::env::temp_dir().join("arbiter"),
    }
}

/// The folder of program `hash` in `cache`, if it is there.
pub fn lookup(cache: &Path, hash: &str) -> Result<Option<PathBuf>, ProgramError> {
    check_hash(hash)?;
    let dir = cache.join(hash);
    Ok(dir.is_dir().then_some(dir))
}

/// Puts program `hash`, whose `archive` holds `size` bytes of files, into `cache` (created if
/// missing) and returns its folder. A damaged archive leaves nothing in the cache.
pub fn install(
    cache: &Path,
    hash: &str,
    archive: &[u8],
    size: u64,
) -> Result<PathBuf, ProgramError> {
    check_hash(hash)?;
    let dir = cache.join(hash);
    std::fs::create_dir_all(cache).map_err(|source| ProgramError::Write {
        path: cache.to_owned(),
        source,
    })?;
    let partial = cache.join(format!(".{hash}.{}.{}.partial", std::process::id(), next()));
    let placed = unpack(archive, hash, size, &partial).and_then(|()| {
        std::fs::rename(&partial, &dir).or_else(|source| {
            // Another worker put it in place first: theirs is the same program.
            if dir.is_dir() {
                Ok(())
            } else {
                Err(ProgramError::Write {
                    path: dir.clone(),
                    source,
                })
            }
        })
    });
    if partial.exists() {
        let _ = std::fs::remove_dir_all(&partial);
    }
    placed.map(|()| dir)
}

/// A number no other unpacking in this process uses, for the name of its hidden folder.
fn next() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::tests::{player, scratch};
    use crate::legacy::tests::raw;
    use crate::pack;

    #[test]
    fn a_program_is_fetched_once_and_found_after() {
        let root = scratch("cache-once");
        player(&root.join("p"));
        let packed = pack(&root.join("p"), 1 << 20).unwrap();
        let cache = root.join("cache");
        assert_eq!(lookup(&cache, &packed.hash).unwrap(), None);
        let dir = install(&cache, &packed.hash, &packed.archive, packed.size).unwrap();
        assert_eq!(dir, cache.join(&packed.hash));
        assert_eq!(lookup(&cache, &packed.hash).unwrap(), Some(dir.clone()));
        let listed: Vec<_> = std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            listed,
            [std::ffi::OsString::from(&packed.hash)],
            "nothing else is left"
        );
        // Installing again (a second worker late to the race) keeps the folder there.
        assert_eq!(
            install(&cache, &packed.hash, &packed.archive, packed.size).unwrap(),
            dir
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_damaged_program_leaves_nothing_in_the_cache() {
        let root = scratch("cache-damaged");
        player(&root.join("p"));
        let packed = pack(&root.join("p"), 1 << 20).unwrap();
        let cache = root.join("cache");
        let (_, other) = raw(b"arbiter-program 1\ne");
        let error = install(&cache, &packed.hash, &other, 0).unwrap_err();
        assert!(
            error.to_string().contains("is damaged: its files hash to "),
            "{error}"
        );
        assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 0);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_name_that_is_not_a_hash_never_becomes_a_path() {
        let cache = Path::new("/nonexistent-cache");
        for name in ["..", "../../etc", "", &"A".repeat(64), &"0".repeat(63)] {
            let error = lookup(cache, name).unwrap_err();
            assert!(matches!(error, ProgramError::BadHash { .. }), "{error}");
            assert!(install(cache, name, b"", 0).is_err());
        }
        assert!(!cache.exists());
    }

    /// Workers of one machine fetching one program at once: each gets the whole folder, and
    /// the cache holds it once.
    #[test]
    fn threads_fetching_one_program_at_once_all_get_it_whole() {
        let root = scratch("cache-race");
        player(&root.join("p"));
        std::fs::write(
            root.join("p/lib/big.bin"),
            crate::archive::tests::noise(4 << 20),
        )
        .unwrap();
        let packed = pack(&root.join("p"), 64 << 20).unwrap();
        let cache = root.join("cache");
        let dirs: Vec<PathBuf> = std::thread::scope(|s| {
            let fetches: Vec<_> = (0..4)
                .map(|_| s.spawn(|| install(&cache, &packed.hash, &packed.archive, packed.size)))
                .collect();
            fetches
                .into_iter()
                .map(|f| f.join().unwrap().unwrap())
                .collect()
        });
        assert!(dirs.iter().all(|d| d == &cache.join(&packed.hash)));
        assert_eq!(pack(&dirs[0], 64 << 20).unwrap().hash, packed.hash);
        assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 1);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_default_cache_follows_xdg_then_home() {
        let dir = arbiter_dir();
        assert!(dir.ends_with("arbiter"), "{}", dir.display());
    }
}
