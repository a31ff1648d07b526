//! What a bot sees of the filesystem, as bubblewrap arguments.
//!
//! The system's folders read-only; the folder of a toolchain installed elsewhere (pyenv, sdkman,
//! a program given by its path) read-only; the files a bare command line names read-only; the
//! bot's scratch folder writable, at the path of its player folder (or of the current folder),
//! so paths in its command line mean what they meant outside; a private `/tmp`, `/proc` of its
//! own processes, a minimal `/dev`. Nothing else exists for it.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};

/// Folders every program needs, shown read-only where they exist.
const SYSTEM: &[&str] = &["/usr", "/etc", "/opt"];
/// Top-level folders that are links into `/usr` on merged systems, folders elsewhere.
const SYSTEM_LINKS: &[&str] = &["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/// The namespaces and process settings of every jail.
pub(crate) const ISOLATION: &[&str] = &[
    "--unshare-pid",
    "--unshare-net",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--die-with-parent",
    "--new-session",
];

/// Runs bubblewrap once with the jails' namespaces, to learn whether the kernel allows them.
pub(crate) fn check_bwrap(bwrap: &Path, root: bool) -> Result<(), String> {
    let mut args: Vec<String> = ISOLATION.iter().map(|s| s.to_string()).collect();
    args.extend(system_args());
    if !root {
        args.push("--unshare-user".into());
    }
    args.push("true".into());
    let output = Command::new(bwrap)
        .args(&args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bwrap.display()))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "bubblewrap cannot build the namespaces here ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr).trim()
    ))
}

/// Arguments showing the system's folders read-only, with `/proc`, `/dev` and no `/tmp` yet.
pub(crate) fn system_args() -> Vec<String> {
    let mut args = Vec::new();
    for dir in SYSTEM.iter().filter(|d| Path::new(d).is_dir()) {
        args.extend(["--ro-bind".into(), dir.to_string(), dir.to_string()]);
    }
    for link in SYSTEM_LINKS {
        let path = Path::new(link);
        if let Ok(target) = path.read_link() {
            let target = target.to_string_lossy().into_owned();
            args.extend(["--symlink".into(), target, link.to_string()]);
        } else if path.is_dir() {
            args.extend(["--ro-bind".into(), link.to_string(), link.to_string()]);
        }
    }
    args.extend(["--proc", "/proc", "--dev", "/dev"].map(String::from));
    args
}

/// Whether `path` is inside one of the system's folders, which every jail shows already.
pub(crate) fn in_system(path: &Path) -> bool {
    SYSTEM
        .iter()
        .chain(SYSTEM_LINKS)
        .any(|dir| path.starts_with(dir))
}

/// Who wrote a bot's command line.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Author {
    /// The player, in the `info.txt` of a player folder.
    Player,
    /// The organiser, on Arbiter's command line.
    Organiser,
}

/// What a command the organiser typed (no player folder) needs to see read-only besides the
/// system: for a program found on `PATH` outside the system (a pyenv shim), the toolchain's
/// folder; each existing file it names: its folder, or the file alone when its folder is the
/// working folder or holds it (so the organiser's project never shows through a `bot.py` in
/// it). The command line of a player folder was written by the player, so it shows nothing:
/// it could name anything, a toolchain of the organiser's as well as a file (see
/// `toolchains.rs`).
pub(crate) fn exposed(argv: &[String], cwd: &Path, author: Author) -> Vec<PathBuf> {
    let mut paths = BTreeSet::new();
    if author == Author::Player {
        return Vec::new();
    }
    if let Some(program) = argv.first()
        && !program.contains('/')
    {
        for found in on_path(program) {
            paths.extend(toolchain_folder(&found));
        }
    }
    for arg in argv {
        let path = cwd.join(arg);
        let Ok(canonical) = path.canonicalize() else {
            continue;
        };
        for path in [path, canonical] {
            if in_system(&path) {
                continue;
            }
            let folder = path.parent().filter(|_| path.is_file()).unwrap_or(&path);
            // A folder closed to others (a private temporary folder) would stop the bot's own
            // user on its way to the file: the file alone is shown then.
            if cwd.starts_with(folder) || !open_to_others(folder) {
                if path.is_file() {
                    paths.insert(path.clone());
                }
            } else {
                paths.insert(folder.to_path_buf());
            }
        }
    }
    paths.into_iter().collect()
}

/// Whether users other than the owner may go through `folder`.
fn open_to_others(folder: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    folder
        .metadata()
        .is_ok_and(|m| m.permissions().mode() & 0o005 == 0o005)
}

/// Every place `program` is found on `PATH`, and where its links lead.
fn on_path(program: &str) -> Vec<PathBuf> {
    let found = std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file());
    found
        .into_iter()
        .flat_map(|path| {
            let canonical = path.canonicalize().ok();
            [Some(path), canonical]
        })
        .flatten()
        .collect()
}

/// The folder of the toolchain `program` belongs to: the folder above its `bin` or `shims`
/// folder (`~/.pyenv` for `~/.pyenv/shims/python3`), else its own folder; nothing for a
/// program of the system, or when that folder would be a home or the root.
pub(crate) fn toolchain_folder(program: &Path) -> Option<PathBuf> {
    if in_system(program) {
        return None;
    }
    let folder = program.parent()?;
    let named = |name: &str| folder.file_name().is_some_and(|f| f == name);
    let top = match named("bin") || named("shims") || named("sbin") {
        true => folder.parent()?,
        false => folder,
    };
    // `/`, `/root`, `/home/x`: too wide to show.
    let depth = top
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .count();
    let is_home = std::env::var_os("HOME").is_some_and(|home| top == Path::new(&home));
    (depth >= 2 && !is_home).then(|| top.to_path_buf())
}

/// One mount of a jail.
pub(crate) enum Mount {
    /// `from` shown at `at`, writable or not.
    Bind {
        from: PathBuf,
        at: PathBuf,
        writable: bool,
    },
    /// A folder made on the way to a mount, open to the bot's user (bubblewrap would make it
    /// readable by root alone, and the bot could not reach what is mounted inside).
    Folder(PathBuf),
    /// An empty folder over a folder of a shown one that holds something of the contest
    /// ([`cover_for`]).
    Cover(PathBuf),
}

impl Mount {
    fn at(&self) -> &Path {
        match self {
            Mount::Bind { at, .. } | Mount::Folder(at) | Mount::Cover(at) => at,
        }
    }

    /// Among mounts at one path, the order they are made in: a cover hides a read-only folder
    /// the organiser named at the path of a hidden one, and the scratch folder at the working
    /// folder's path (hidden too) shows over the cover.
    fn rank(&self) -> u8 {
        match self {
            Mount::Bind {
                writable: false, ..
            } => 0,
            Mount::Cover(_) => 1,
            Mount::Bind { writable: true, .. } | Mount::Folder(_) => 2,
        }
    }
}

/// Folders the system's folders (shown whole) hold only the system's files in: one of the
/// contest's folders there is not covered, or no program would run.
const NEVER_COVERED: &[&str] = &["/", "/usr", "/etc"];

/// Where an empty folder must cover the contest's folder `private` (the players', the store's,
/// the organiser's working folder) so that no bot sees it or anything beside it: the folder
/// just below the deepest of the `shown` folders holding it (`/opt/contest` for
/// `/opt/contest/players` when `/opt` is shown), `private` itself when it is shown. Nothing
/// when no shown folder holds it: the jail's root is empty.
pub(crate) fn cover_for(private: &Path, shown: &[PathBuf]) -> Option<PathBuf> {
    if NEVER_COVERED
        .iter()
        .chain(SYSTEM_LINKS)
        .any(|d| private == Path::new(d))
    {
        return None;
    }
    let holder = shown
        .iter()
        .filter(|s| private.starts_with(s))
        .max_by_key(|s| s.components().count())?;
    let below = private.strip_prefix(holder).ok()?.components().next();
    Some(match below {
        Some(first) => holder.join(first),
        None => private.to_path_buf(),
    })
}

/// The system's folders every jail shows whole.
pub(crate) fn system_folders() -> Vec<PathBuf> {
    SYSTEM
        .iter()
        .chain(SYSTEM_LINKS)
        .map(PathBuf::from)
        .filter(|d| d.is_dir() && !d.is_symlink())
        .collect()
}

/// Files that let whoever reads them act as the organiser (cargo's registry token, git's,
/// npm's, PyPI's, netrc): never shown, also at the top of a folder the organiser shows.
const CREDENTIALS: &[&str] = &[
    "credentials.toml",
    "credentials",
    ".git-credentials",
    ".netrc",
    ".npmrc",
    ".pypirc",
];

/// An empty file over each credentials file at the top of the shown `folder`.
pub(crate) fn credentials_covers(folder: &Path) -> Vec<Mount> {
    CREDENTIALS
        .iter()
        .map(|name| folder.join(name))
        .filter(|file| file.is_file() && !file.is_symlink())
        .map(|file| Mount::Bind {
            from: PathBuf::from("/dev/null"),
            at: file,
            writable: false,
        })
        .collect()
}

/// Mount arguments, parents before children: bubblewrap applies them in order, and a folder
/// mounted after one inside it would hide it. Every folder on the way to a mount that is not
/// in a read-only one is made first, reachable by the bot.
pub(crate) fn ordered(mounts: Vec<Mount>) -> Vec<String> {
    let targets: BTreeSet<PathBuf> = mounts.iter().map(|m| m.at().to_path_buf()).collect();
    let folders: BTreeSet<PathBuf> = targets
        .iter()
        .flat_map(|at| at.ancestors().skip(1))
        .filter(|a| a.parent().is_some() && !targets.contains(*a) && to_make(a, &mounts))
        .map(Path::to_path_buf)
        .collect();
    let mut all: Vec<Mount> = folders.into_iter().map(Mount::Folder).collect();
    all.extend(mounts);
    all.sort_by_key(|m| (m.at().components().count(), m.rank()));
    let text = |p: &Path| p.to_string_lossy().into_owned();
    all.into_iter()
        .flat_map(|mount| match mount {
            Mount::Bind { from, at, writable } => {
                let kind = if writable { "--bind" } else { "--ro-bind" };
                vec![kind.to_string(), text(&from), text(&at)]
            }
            Mount::Folder(at) => vec!["--perms".into(), "0755".into(), "--dir".into(), text(&at)],
            Mount::Cover(at) => vec!["--perms".into(), "0755".into(), "--tmpfs".into(), text(&at)],
        })
        .collect()
}

/// Whether the folder `a` on the way to a mount must be made: the innermost mount holding it
/// is writable (the jail's empty root, a cover, the scratch folder), not the system or a
/// read-only folder, where it exists or cannot be made.
fn to_make(a: &Path, mounts: &[Mount]) -> bool {
    let innermost = mounts
        .iter()
        .filter(|m| a.starts_with(m.at()) && a != m.at())
        .max_by_key(|m| m.at().components().count());
    let system_depth = SYSTEM
        .iter()
        .chain(SYSTEM_LINKS)
        .filter(|d| a.starts_with(d))
        .map(|d| Path::new(d).components().count())
        .max();
    match (innermost, system_depth) {
        (Some(m), Some(depth)) if m.at().components().count() < depth => false,
        (
            Some(Mount::Bind {
                writable: false, ..
            }),
            _,
        ) => false,
        (Some(_), _) => true,
        (None, system) => system.is_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_toolchain_is_shown_from_above_its_bin_folder() {
        assert_eq!(
            toolchain_folder(Path::new("/opt2/.pyenv/shims/python3")),
            Some(PathBuf::from("/opt2/.pyenv"))
        );
        assert_eq!(
            toolchain_folder(Path::new("/srv/tools/java17/bin/java")),
            Some(PathBuf::from("/srv/tools/java17"))
        );
        assert_eq!(toolchain_folder(Path::new("/usr/bin/python3")), None);
        // Never a whole top-level folder.
        assert_eq!(toolchain_folder(Path::new("/srv/bin/x")), None);
    }

    #[test]
    fn a_script_in_the_working_folder_is_shown_alone() {
        let dir = std::env::temp_dir().join(format!("arbiter-mounts-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("bots")).unwrap();
        std::fs::write(dir.join("bot.py"), "").unwrap();
        std::fs::write(dir.join("bots/x.py"), "").unwrap();
        let argv = ["python3", "bot.py", "bots/x.py", "--seed", "3"].map(String::from);
        let shown = exposed(&argv, &dir, Author::Organiser);
        assert!(shown.contains(&dir.join("bot.py")), "{shown:?}");
        assert!(shown.contains(&dir.join("bots")), "{shown:?}");
        assert!(!shown.contains(&dir), "{shown:?}");
        // A folder closed to others: the file alone.
        use std::os::unix::fs::PermissionsExt;
        let closed = dir.join("bots");
        std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o700)).unwrap();
        let shown = exposed(&argv, &dir, Author::Organiser);
        assert!(shown.contains(&dir.join("bots/x.py")), "{shown:?}");
        assert!(!shown.contains(&closed), "{shown:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn parents_are_mounted_before_children() {
        let bind = |from: &str, at: &str, writable| Mount::Bind {
            from: from.into(),
            at: at.into(),
            writable,
        };
        let args = ordered(vec![
            bind("/a/b/c", "/a/b/c", false),
            bind("/scratch", "/a", true),
        ]);
        assert_eq!(args[..3], ["--bind", "/scratch", "/a"]);
        // The folder between them is made, open to the bot, after /a and before /a/b/c.
        assert_eq!(args[3..7], ["--perms", "0755", "--dir", "/a/b"]);
        assert_eq!(args[7..], ["--ro-bind", "/a/b/c", "/a/b/c"]);
    }
    #[test]
    fn a_contest_under_a_shown_folder_is_covered_from_just_below_it() {
        let shown = ["/usr", "/opt", "/srv/tools"].map(PathBuf::from);
        let cover = |p: &str| cover_for(Path::new(p), &shown);
        assert_eq!(cover("/opt/contest/players"), Some("/opt/contest".into()));
        assert_eq!(cover("/opt/contest"), Some("/opt/contest".into()));
        // The deepest shown folder holding it counts.
        assert_eq!(
            cover("/srv/tools/contest/db"),
            Some("/srv/tools/contest".into())
        );
        assert_eq!(cover("/srv/tools"), Some("/srv/tools".into()));
        assert_eq!(cover("/opt"), Some("/opt".into()));
        // Outside every shown folder nothing needs covering; the system's own never is.
        assert_eq!(cover("/srv/contest"), None);
        assert_eq!(cover("/usr"), None);
        assert_eq!(cover("/"), None);
    }

    #[test]
    fn the_scratch_folder_and_deeper_folders_show_over_a_cover() {
        let bind = |from: &str, at: &str, writable| Mount::Bind {
            from: from.into(),
            at: at.into(),
            writable,
        };
        let args = ordered(vec![
            bind("/scratch", "/opt/contest/players/hostile", true),
            Mount::Cover("/opt/contest".into()),
            bind("/opt/contest/jdk", "/opt/contest/jdk", false),
        ]);
        let expected = [
            "--perms",
            "0755",
            "--tmpfs",
            "/opt/contest", //
            "--ro-bind",
            "/opt/contest/jdk",
            "/opt/contest/jdk", //
            "--perms",
            "0755",
            "--dir",
            "/opt/contest/players", //
            "--bind",
            "/scratch",
            "/opt/contest/players/hostile",
        ];
        assert_eq!(args, expected);
        // The working folder is covered and the scratch folder at its path shows over it.
        let args = ordered(vec![
            bind("/scratch", "/opt/contest", true),
            Mount::Cover("/opt/contest".into()),
        ]);
        assert_eq!(args[2..4], ["--tmpfs", "/opt/contest"]);
        assert_eq!(args[4..], ["--bind", "/scratch", "/opt/contest"]);
    }
}
