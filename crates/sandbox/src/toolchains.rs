//! Which of the organiser's toolchains the bot of a player folder sees: the system's, and
//! those the organiser named (`--sandbox-ro`), never one a player picks by writing its name.
//!
//! A command a player wrote could name any program on the organiser's `PATH`, and showing the
//! toolchain each one belongs to would let the player choose which of the organiser's folders
//! its bot reads (`cargo` showed all of `~/.cargo`, credentials included). So a player's bot
//! gets the organiser's `PATH` without the folders the jail does not show, and `python3` is then
//! the system's. Toolchain proxies (rustup, pyenv) choose their toolchain from files in the
//! working folder, which is the player's: where the organiser shows one, its choice is fixed
//! by the variables the proxy reads first (`RUSTUP_TOOLCHAIN`, `PYENV_VERSION`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::SandboxError;
use crate::mounts::{in_system, toolchain_folder};

/// The toolchains a player's bot sees, worked out once per sandbox.
#[derive(Debug)]
pub(crate) struct Toolchains {
    /// The folders of the organiser's `PATH` the jail shows, in order.
    shown: Vec<PathBuf>,
    /// The folders of the organiser's `PATH` it does not show.
    unshown: Vec<PathBuf>,
    /// Variables fixing each shown toolchain proxy on the organiser's choice.
    pins: Vec<(&'static str, String)>,
    /// The organiser's `--sandbox-ro` paths.
    named: Vec<PathBuf>,
}

impl Toolchains {
    /// The toolchains of the organiser's `PATH` and of the `named` paths (`--sandbox-ro`).
    pub(crate) fn new(named: &[PathBuf]) -> Toolchains {
        let path = std::env::var_os("PATH").unwrap_or_else(|| OsString::from("/usr/bin:/bin"));
        let (shown, unshown) = std::env::split_paths(&path)
            .filter(|folder| folder.is_absolute())
            .partition(|folder| in_system(folder) || named.iter().any(|n| folder.starts_with(n)));
        Toolchains {
            shown,
            unshown,
            pins: named.iter().flat_map(|folder| pins(folder)).collect(),
            named: named.to_vec(),
        }
    }

    /// `PATH` for a player's bot.
    pub(crate) fn path(&self) -> String {
        let text: Vec<_> = self.shown.iter().map(|f| f.to_string_lossy()).collect();
        text.join(":")
    }

    /// The variables that fix the toolchain of each proxy shown.
    pub(crate) fn pins(&self) -> &[(&'static str, String)] {
        &self.pins
    }

    /// A player's bare `program` must be found on its bot's `PATH`: one found only in a folder
    /// the jail does not show is refused here, with the flag that shows it, rather than failing
    /// inside as a missing program.
    pub(crate) fn check_found(&self, program: &str) -> Result<(), SandboxError> {
        if program.contains('/') || self.shown.iter().any(|f| f.join(program).is_file()) {
            return Ok(());
        }
        match self
            .unshown
            .iter()
            .map(|f| f.join(program))
            .find(|p| p.is_file())
        {
            Some(found) => Err(SandboxError::ToolchainNotShown {
                program: program.to_owned(),
                folder: show_flag(&found),
                found,
            }),
            None => Ok(()),
        }
    }

    /// Says once, on stderr, which toolchains players' bots see and which they do not, when
    /// there is more to say than "the system's".
    pub(crate) fn announce(&self) {
        static ONCE: std::sync::Once = std::sync::Once::new();
        if self.named.is_empty() && self.unshown.is_empty() {
            return;
        }
        ONCE.call_once(|| {
            use std::io::Write;
            // A closed stderr is no reason to stop: the notice is then lost.
            let _ = writeln!(std::io::stderr(), "{}", self.notice());
        });
    }

    fn notice(&self) -> String {
        let list = |paths: &[PathBuf]| {
            let text: Vec<_> = paths.iter().map(|p| p.display().to_string()).collect();
            text.join(", ")
        };
        let mut text = String::from(
            "sandbox: the bots of player folders see the programs of the system's folders",
        );
        if !self.named.is_empty() {
            text += &format!(" and, named by --sandbox-ro, {}", list(&self.named));
            if !self.pins.is_empty() {
                let pins: Vec<_> = self.pins.iter().map(|(k, v)| format!("{k}={v}")).collect();
                text += &format!(" (fixed on your choice: {})", pins.join(" "));
            }
        }
        if !self.unshown.is_empty() {
            let example = show_flag(&self.unshown[0].join("x"));
            text += &format!(
                "; not your PATH folders {} (a player's command does not choose your \
                 toolchains: --sandbox-ro FOLDER shows one to every bot, e.g. --sandbox-ro {})",
                list(&self.unshown),
                example.display()
            );
        }
        text
    }
}

/// The folder `--sandbox-ro` would name to show the program at `found`: its toolchain's, or
/// its own folder.
fn show_flag(found: &Path) -> PathBuf {
    toolchain_folder(found)
        .or_else(|| found.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| found.to_path_buf())
}

/// The variables that fix the toolchain proxy of `folder`, if it is a rustup or pyenv home,
/// on the organiser's choice: their own variable if they set one, else the home's default.
fn pins(folder: &Path) -> Vec<(&'static str, String)> {
    let organisers = |name| std::env::var(name).ok().filter(|v| !v.is_empty());
    let text = |path: PathBuf| path.to_string_lossy().into_owned();
    let mut pins = Vec::new();
    if folder.join("settings.toml").is_file() && folder.join("toolchains").is_dir() {
        pins.push(("RUSTUP_HOME", text(folder.to_path_buf())));
        let choice = organisers("RUSTUP_TOOLCHAIN").or_else(|| rustup_default(folder));
        // With no default at all rustup runs nothing unless told: fixing a name that is not
        // installed keeps a player's rust-toolchain file from choosing one.
        pins.push(("RUSTUP_TOOLCHAIN", choice.unwrap_or_else(|| "none".into())));
    }
    if folder.join("shims").is_dir() && folder.join("versions").is_dir() {
        pins.push(("PYENV_ROOT", text(folder.to_path_buf())));
        let choice = organisers("PYENV_VERSION").or_else(|| pyenv_default(folder));
        pins.push(("PYENV_VERSION", choice.unwrap_or_else(|| "system".into())));
    }
    pins
}

/// `default_toolchain` of a rustup home's `settings.toml`.
fn rustup_default(home: &Path) -> Option<String> {
    let settings = std::fs::read_to_string(home.join("settings.toml")).ok()?;
    settings.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        let value = value.trim().trim_matches('"');
        (key.trim() == "default_toolchain" && !value.is_empty()).then(|| value.to_owned())
    })
}

/// The versions named in a pyenv root's `version` file, as `PYENV_VERSION` writes them.
fn pyenv_default(root: &Path) -> Option<String> {
    let file = std::fs::read_to_string(root.join("version")).ok()?;
    let versions: Vec<&str> = file
        .split_whitespace()
        .filter(|w| !w.starts_with('#'))
        .collect();
    (!versions.is_empty()).then(|| versions.join(":"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("arbiter-toolchains-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_rustup_home_is_fixed_on_its_default_toolchain() {
        let home = temp("rustup");
        std::fs::create_dir(home.join("toolchains")).unwrap();
        std::fs::write(
            home.join("settings.toml"),
            "version = \"12\"\ndefault_toolchain = \"stable-x86_64\"\n",
        )
        .unwrap();
        let pins = pins(&home);
        assert_eq!(pins[0], ("RUSTUP_HOME", home.display().to_string()));
        // The organiser's own RUSTUP_TOOLCHAIN, if the test runs under one, wins.
        let expected = std::env::var("RUSTUP_TOOLCHAIN")
            .ok()
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| "stable-x86_64".into());
        assert_eq!(pins[1], ("RUSTUP_TOOLCHAIN", expected));
        std::fs::remove_dir_all(&home).unwrap();
    }

    #[test]
    fn a_pyenv_root_is_fixed_on_its_version_file() {
        let root = temp("pyenv");
        std::fs::create_dir(root.join("shims")).unwrap();
        std::fs::create_dir(root.join("versions")).unwrap();
        std::fs::write(root.join("version"), "3.12.1\n3.11.7\n").unwrap();
        assert_eq!(pyenv_default(&root).as_deref(), Some("3.12.1:3.11.7"));
        std::fs::remove_file(root.join("version")).unwrap();
        assert_eq!(pyenv_default(&root), None);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_folder_that_is_no_toolchain_home_fixes_nothing() {
        let dir = temp("plain");
        assert!(pins(&dir).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
