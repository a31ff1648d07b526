//! The table of languages a version may be handed in as one source file of: its extensions,
//! how it is built, how it runs, and the organiser's toolchain folders the sandbox shows it.
//!
//! The defaults cover C, C++, Python 3, Java, Rust, Go and JavaScript with the compilers
//! `scripts/setup` installs; the operator's TOML file adds languages or changes entries
//! (docs/arena.md, "Languages"):
//!
//! ```toml
//! [language."c++"]                  # changes the default entry: only the keys given
//! build = "g++ -std=c++20 -O2 -o bot {file}"
//!
//! [language.zig]                    # a new language: extensions and run are needed
//! extensions = ["zig"]
//! build = "zig build-exe -O ReleaseFast -femit-bin=bot {file}"
//! run = "./bot"
//! toolchains = ["/opt/zig"]
//!
//! [language.javascript]
//! disabled = true                   # no longer offered
//! ```
//!
//! In the commands, `{file}` is the source file's name and `{name}` the name without its
//! extension (Java's class). A build command is run by `sh -c` in the player folder; the run
//! command becomes the third line of `info.txt`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::BuildError;

/// One language of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Language {
    /// Its name, as versions are labelled with it: `"c++"`.
    pub name: String,
    /// The extensions of its source files, without the dot, lowercase: `["cpp", "cc"]`.
    pub extensions: Vec<String>,
    /// The shell command that builds it in the player folder, if it is built; `{file}` is the
    /// source's name, `{name}` the name without its extension.
    pub build: Option<String>,
    /// The command that runs it, as `info.txt` says it (the same placeholders).
    pub run: String,
    /// The organiser's folders the sandbox shows it, read-only, when it is built and when it
    /// runs, besides the system's (a rustup home, a JDK under `/srv`).
    pub toolchains: Vec<PathBuf>,
}

impl Language {
    /// The build command for the source file `file`, if the language is built.
    pub fn build_command(&self, file: &str) -> Option<String> {
        self.build.as_deref().map(|command| fill(command, file))
    }

    /// The run command for the source file `file`.
    pub fn run_command(&self, file: &str) -> String {
        fill(&self.run, file)
    }
}

/// `command` with its placeholders filled for the source file `file` (a plain name, checked
/// before: nothing in it needs quoting).
fn fill(command: &str, file: &str) -> String {
    let name = file.rsplit_once('.').map_or(file, |(name, _)| name);
    command.replace("{file}", file).replace("{name}", name)
}

/// The table of languages: defaults for C, C++, Python 3, Java, Rust, Go, JavaScript,
/// extended or overridden by the operator's TOML file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Languages {
    /// By name, so that the table is listed in a stable order.
    languages: BTreeMap<String, Language>,
}

impl Languages {
    /// The default table.
    pub fn defaults() -> Languages {
        let entry = |name: &str, extensions: &[&str], build: Option<&str>, run: &str| Language {
            name: name.into(),
            extensions: extensions.iter().map(|e| e.to_string()).collect(),
            build: build.map(str::to_owned),
            run: run.into(),
            toolchains: Vec::new(),
        };
        let languages = [
            entry("c", &["c"], Some("gcc -O2 -o bot {file} -lm"), "./bot"),
            entry(
                "c++",
                &["cpp", "cc", "cxx"],
                Some("g++ -std=c++17 -O2 -o bot {file}"),
                "./bot",
            ),
            entry("python3", &["py"], None, "python3 {file}"),
            entry("java", &["java"], Some("javac {file}"), "java {name}"),
            Language {
                toolchains: rustup_folders(),
                ..entry(
                    "rust",
                    &["rs"],
                    Some("rustc -O --edition 2021 -o bot {file}"),
                    "./bot",
                )
            },
            // Go keeps its caches in the build's own /tmp: it has no network to fetch into
            // them, and in the folder they would be packed into the program. GOTOOLCHAIN
            // keeps a newer Go from looking for another toolchain.
            entry(
                "go",
                &["go"],
                Some(
                    "GOCACHE=/tmp/go-cache GOPATH=/tmp/go GOTOOLCHAIN=local GOPROXY=off \
                     go build -o bot {file}",
                ),
                "./bot",
            ),
            entry("javascript", &["js"], None, "node {file}"),
        ];
        Languages {
            languages: languages.into_iter().map(|l| (l.name.clone(), l)).collect(),
        }
    }

    /// The default table with the operator's TOML file at `path` applied: a bad file is an
    /// error naming the file, and the key where it can.
    pub fn with_file(path: &Path) -> Result<Languages, BuildError> {
        let bad = |why: String| BuildError::Languages {
            path: path.to_owned(),
            why,
        };
        let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        let mut languages = Languages::defaults();
        languages.apply(&text).map_err(bad)?;
        Ok(languages)
    }

    /// Applies the TOML `text` to the table.
    fn apply(&mut self, text: &str) -> Result<(), String> {
        let file: LanguagesFile = toml::from_str(text).map_err(|e| e.to_string())?;
        for (name, entry) in file.language {
            let key = format!("[language.{}]", quoted_key(&name));
            if entry.disabled == Some(true) {
                self.languages.remove(&name);
                continue;
            }
            let language = match self.languages.remove(&name) {
                Some(old) => entry.over(old),
                None => entry.new_language(&name, &key)?,
            };
            check_language(&language, &key)?;
            self.languages.insert(name, language);
        }
        self.check_extensions()
    }

    /// Two languages may not claim one extension: which one a file is would be a guess.
    fn check_extensions(&self) -> Result<(), String> {
        let mut owners: BTreeMap<&str, &str> = BTreeMap::new();
        for language in self.languages.values() {
            for extension in &language.extensions {
                if let Some(other) = owners.insert(extension, &language.name) {
                    return Err(format!(
                        "the extension .{extension} belongs to both {} and {}: remove it from \
                         one (`extensions`)",
                        quoted_key(other),
                        quoted_key(&language.name)
                    ));
                }
            }
        }
        Ok(())
    }

    /// The language of a source file named `name`, by its extension (in any case).
    pub fn for_file_name(&self, name: &str) -> Option<&Language> {
        let (_, extension) = name.rsplit_once('.')?;
        let extension = extension.to_ascii_lowercase();
        self.languages
            .values()
            .find(|l| l.extensions.contains(&extension))
    }

    /// The language named `name`.
    pub fn get(&self, name: &str) -> Option<&Language> {
        self.languages.get(name)
    }

    /// The languages, by name.
    pub fn iter(&self) -> impl Iterator<Item = &Language> {
        self.languages.values()
    }

    /// The toolchain folders of every language: what a player folder handed in as an archive
    /// is shown, since nothing says which language it is written in.
    pub fn all_toolchains(&self) -> Vec<PathBuf> {
        let mut all: Vec<PathBuf> = Vec::new();
        for folder in self.languages.values().flat_map(|l| &l.toolchains) {
            if !all.contains(folder) {
                all.push(folder.clone());
            }
        }
        all
    }

    /// The toolchain folders a version labelled `language` is shown when it runs: its
    /// language's, or every language's for a player folder ([`crate::FOLDER_LANGUAGE`]) or a
    /// language the table no longer has.
    pub fn toolchains_for(&self, language: &str) -> Vec<PathBuf> {
        match self.languages.get(language) {
            Some(language) => language.toolchains.clone(),
            None => self.all_toolchains(),
        }
    }
}

/// A language's name as a TOML key: bare where TOML allows it, quoted otherwise (`"c++"`).
fn quoted_key(name: &str) -> String {
    let bare = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    match bare {
        true => name.to_owned(),
        false => format!("{name:?}"),
    }
}

fn check_language(language: &Language, key: &str) -> Result<(), String> {
    if language.extensions.is_empty() {
        return Err(format!("{key}: `extensions` is empty"));
    }
    for extension in &language.extensions {
        let plain = !extension.is_empty()
            && extension
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '+' || c == '_');
        if !plain {
            return Err(format!(
                "{key}: extension {extension:?} is not lowercase letters and digits without \
                 the dot (\"cpp\")"
            ));
        }
    }
    if language.run.trim().is_empty() {
        return Err(format!("{key}: `run` is empty"));
    }
    if let Some(folder) = language.toolchains.iter().find(|p| !p.is_absolute()) {
        return Err(format!(
            "{key}: toolchain folder {} is not an absolute path",
            folder.display()
        ));
    }
    Ok(())
}

/// The operator's file, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LanguagesFile {
    #[serde(default)]
    language: BTreeMap<String, LanguageEntry>,
}

/// One `[language.NAME]` table: every key optional, so that an entry of the defaults can be
/// changed by the keys given alone.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LanguageEntry {
    extensions: Option<Vec<String>>,
    /// An empty command: the language is not built.
    build: Option<String>,
    run: Option<String>,
    toolchains: Option<Vec<PathBuf>>,
    disabled: Option<bool>,
}

impl LanguageEntry {
    /// The default entry `old` with the keys given here.
    fn over(self, old: Language) -> Language {
        Language {
            extensions: self.extensions.unwrap_or(old.extensions),
            build: match self.build {
                Some(build) => non_empty(build),
                None => old.build,
            },
            run: self.run.unwrap_or(old.run),
            toolchains: self.toolchains.unwrap_or(old.toolchains),
            name: old.name,
        }
    }

    /// A language the defaults do not have: it needs its extensions and run command.
    fn new_language(self, name: &str, key: &str) -> Result<Language, String> {
        let missing = |what| format!("{key} is a new language and needs `{what}`");
        Ok(Language {
            name: name.to_owned(),
            extensions: self.extensions.ok_or_else(|| missing("extensions"))?,
            build: self.build.and_then(non_empty),
            run: self.run.ok_or_else(|| missing("run"))?,
            toolchains: self.toolchains.unwrap_or_default(),
        })
    }
}

fn non_empty(command: String) -> Option<String> {
    (!command.trim().is_empty()).then_some(command)
}

/// Where the machine's Rust comes from rustup (`rustc` on `PATH` is its proxy outside the
/// system's folders), the folders a build must see: the proxies' folder and the rustup home,
/// whose default toolchain the sandbox then fixes (`RUSTUP_TOOLCHAIN`). A system `rustc`
/// needs none.
fn rustup_folders() -> Vec<PathBuf> {
    let Some(rustc) = find_on_path("rustc") else {
        return Vec::new();
    };
    let Some(bin) = rustc.parent() else {
        return Vec::new();
    };
    if !bin.join("rustup").is_file() {
        return Vec::new();
    }
    let home = std::env::var_os("RUSTUP_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".rustup")));
    let mut folders = vec![bin.to_path_buf()];
    folders.extend(home.filter(|h| h.is_absolute() && h.is_dir()));
    folders
}

/// The program `name` as the organiser's `PATH` finds it.
fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|folder| folder.is_absolute())
        .map(|folder| folder.join(name))
        .find(|file| file.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_know_every_language_of_the_issue_by_its_extension() {
        let languages = Languages::defaults();
        let name = |file| languages.for_file_name(file).map(|l| l.name.as_str());
        assert_eq!(name("bot.c"), Some("c"));
        assert_eq!(name("bot.cpp"), Some("c++"));
        assert_eq!(name("Bot.CC"), Some("c++"));
        assert_eq!(name("bot.cxx"), Some("c++"));
        assert_eq!(name("bot.py"), Some("python3"));
        assert_eq!(name("Bot.java"), Some("java"));
        assert_eq!(name("main.rs"), Some("rust"));
        assert_eq!(name("main.go"), Some("go"));
        assert_eq!(name("bot.js"), Some("javascript"));
        assert_eq!(name("bot"), None);
        assert_eq!(name("bot.txt"), None);
        let java = languages.get("java").unwrap();
        assert_eq!(java.build_command("Bot.java").unwrap(), "javac Bot.java");
        assert_eq!(java.run_command("Bot.java"), "java Bot");
        let cpp = languages.get("c++").unwrap();
        assert_eq!(
            cpp.build_command("a.cpp").unwrap(),
            "g++ -std=c++17 -O2 -o bot a.cpp"
        );
        assert_eq!(
            languages.get("python3").unwrap().build_command("a.py"),
            None
        );
    }

    #[test]
    fn the_operators_file_changes_adds_and_removes_languages() {
        let mut languages = Languages::defaults();
        languages
            .apply(
                r#"
                [language."c++"]
                build = "g++ -std=c++20 -O2 -o bot {file}"
                [language.zig]
                extensions = ["zig"]
                build = "zig build-exe -femit-bin=bot {file}"
                run = "./bot"
                toolchains = ["/opt/zig"]
                [language.javascript]
                disabled = true
                [language.python3]
                build = ""
                "#,
            )
            .unwrap();
        let cpp = languages.for_file_name("a.cpp").unwrap();
        assert_eq!(
            cpp.build.as_deref(),
            Some("g++ -std=c++20 -O2 -o bot {file}")
        );
        assert_eq!(cpp.run, "./bot", "keys not given keep their default");
        let zig = languages.for_file_name("a.zig").unwrap();
        assert_eq!(zig.toolchains, [PathBuf::from("/opt/zig")]);
        assert!(languages.for_file_name("a.js").is_none());
        assert_eq!(languages.get("python3").unwrap().build, None);
        assert!(
            languages
                .all_toolchains()
                .contains(&PathBuf::from("/opt/zig"))
        );
        assert_eq!(languages.toolchains_for("zig"), [PathBuf::from("/opt/zig")]);
    }

    #[test]
    fn a_bad_file_names_the_key_that_is_wrong() {
        let error = |text: &str| Languages::defaults().apply(text).unwrap_err();
        let e = error("[language.c]\nbulid = \"gcc\"\n");
        assert!(e.contains("bulid"), "{e}");
        let e = error("[language.zig]\nextensions = [\"zig\"]\n");
        assert!(e.contains("[language.zig]") && e.contains("`run`"), "{e}");
        let e = error("[language.mine]\nextensions = [\"cpp\"]\nrun = \"./bot\"\n");
        assert!(
            e.contains(".cpp") && e.contains("c++") && e.contains("mine"),
            "{e}"
        );
        let e = error("[language.c]\nextensions = [\".c\"]\n");
        assert!(e.contains("[language.c]") && e.contains("\".c\""), "{e}");
        let e = error("[language.c]\ntoolchains = [\"opt/gcc\"]\n");
        assert!(e.contains("opt/gcc"), "{e}");
        let e = error("[language.c]\nrun = 3\n");
        assert!(e.contains("run"), "{e}");
        let e = error("[languages.c]\n");
        assert!(e.contains("languages"), "{e}");
    }

    #[test]
    fn a_file_that_cannot_be_read_or_parsed_is_named_in_the_error() {
        let dir = arbiter_testdir::fresh("languages-file");
        let path = dir.join("languages.toml");
        let missing = Languages::with_file(&path).unwrap_err().to_string();
        assert!(missing.contains("languages.toml"), "{missing}");
        std::fs::write(&path, "[language.c\n").unwrap();
        let bad = Languages::with_file(&path).unwrap_err().to_string();
        assert!(
            bad.contains("languages.toml") && bad.contains("line 1"),
            "{bad}"
        );
    }
}
