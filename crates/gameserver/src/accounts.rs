//! Team accounts: a TOML file of team names and argon2 password hashes (PHC strings).
//!
//! ```toml
//! [teams.alice]
//! password = "$argon2id$v=19$m=19456,t=2,p=1$..."
//! ```
//!
//! Passwords are never kept, logged or put in an error: only their hashes are stored, and a
//! failed login says `BAD_LOGIN` whatever was wrong. A name that is no team is checked against
//! a stand-in hash with the same argon2 parameters, so it takes as long to refuse as a wrong
//! password: the time of an answer does not tell which teams exist.
//!
//! The file is written readable by its owner only (mode 0600, or the mode it had), and
//! [`loose_permissions`] tells when other users of the machine may read or change it.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use argon2::password_hash::rand_core::{OsRng, RngCore};
use argon2::password_hash::{PasswordHash, PasswordHasher, SaltString};
use argon2::{Argon2, Block};
use serde::{Deserialize, Serialize};

use crate::GameServerError;

/// The teams allowed to log in, each with the argon2 hash (PHC string) of its password.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Accounts {
    #[serde(default)]
    teams: BTreeMap<String, Account>,
    /// The stand-in hash names that are no team are checked against, made on first use.
    #[serde(skip)]
    stand_in: OnceLock<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Account {
    password: String,
}

/// Whether `name` is a team name (`[a-z0-9_]{1,32}`, docs/games/labyrinth.md#protocol).
pub fn valid_team(name: &str) -> bool {
    (1..=32).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

impl Accounts {
    /// Reads an accounts file; a missing file is an error (a server with no teams is a typo).
    pub fn load(path: &Path) -> Result<Accounts, GameServerError> {
        let text = std::fs::read_to_string(path).map_err(|source| GameServerError::Io {
            what: format!("reading {}", path.display()),
            source,
        })?;
        let accounts: Accounts = toml::from_str(&text).map_err(|e| {
            GameServerError::Accounts(format!("{}: {}", path.display(), e.message()))
        })?;
        for (team, account) in &accounts.teams {
            if !valid_team(team) {
                return Err(GameServerError::Accounts(format!(
                    "{}: `{team}` is not a team name ([a-z0-9_], 1 to 32 characters)",
                    path.display()
                )));
            }
            if PasswordHash::new(&account.password).is_err() {
                return Err(GameServerError::Accounts(format!(
                    "{}: the password of `{team}` is not an argon2 hash (add teams with \
                     `arbiter accounts add`)",
                    path.display()
                )));
            }
        }
        Ok(accounts)
    }

    /// Number of teams.
    pub fn len(&self) -> usize {
        self.teams.len()
    }

    /// Whether there is no team at all.
    pub fn is_empty(&self) -> bool {
        self.teams.is_empty()
    }

    /// Team names, in alphabetical order.
    pub fn teams(&self) -> impl Iterator<Item = &str> {
        self.teams.keys().map(String::as_str)
    }

    /// Sets `team`'s password (adding the team), storing only its hash.
    pub fn set_password(&mut self, team: &str, password: &str) -> Result<(), GameServerError> {
        if !valid_team(team) {
            return Err(GameServerError::Accounts(format!(
                "`{team}` is not a team name ([a-z0-9_], 1 to 32 characters)"
            )));
        }
        if password.is_empty() {
            return Err(GameServerError::Accounts("the password is empty".into()));
        }
        if password
            .chars()
            .any(|c| c.is_whitespace() || c.is_control())
        {
            // A password travels as one word of the LOGIN line.
            return Err(GameServerError::Accounts(
                "a password cannot hold blanks or control characters".into(),
            ));
        }
        let salt = SaltString::generate(&mut OsRng);
        let hash = Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map_err(|e| GameServerError::Accounts(format!("hashing the password: {e}")))?
            .to_string();
        self.teams
            .insert(team.to_owned(), Account { password: hash });
        Ok(())
    }

    /// Writes the file through a temporary one in the same folder, so a crash never leaves
    /// half a file. A new file is readable by its owner only (0600); a file rewritten keeps
    /// its mode, and is never readable by others even for a moment.
    pub fn save(&self, path: &Path) -> Result<(), GameServerError> {
        let text = toml::to_string(self).map_err(|e| GameServerError::Accounts(e.to_string()))?;
        let mode = std::fs::metadata(path).map_or(0o600, |m| m.permissions().mode() & 0o7777);
        let tmp = path.with_extension("toml.tmp");
        let io = |what: String| move |source| GameServerError::Io { what, source };
        let writing = || format!("writing {}", tmp.display());
        // A temporary file left by a crash may have any mode: start afresh.
        match std::fs::remove_file(&tmp) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(writing())(e))?,
            _ => {}
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(io(writing()))?;
        file.write_all(text.as_bytes()).map_err(io(writing()))?;
        file.set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(io(writing()))?;
        file.sync_all().map_err(io(writing()))?;
        std::fs::rename(&tmp, path).map_err(io(format!("writing {}", path.display())))?;
        Ok(())
    }

    /// Whether `password` is `team`'s. Slow on purpose (argon2): call it off the async threads.
    pub fn verify(&self, team: &str, password: &str) -> bool {
        self.verify_in(team, password, &mut Vec::new())
    }

    /// [`Accounts::verify`] with `memory` as argon2's work area, kept from one call to the
    /// next so that checks allocate nothing. A name that is no team is checked against the
    /// stand-in hash: as slow as a wrong password.
    pub fn verify_in(&self, team: &str, password: &str, memory: &mut Vec<Block>) -> bool {
        let (phc, known) = match self.teams.get(team) {
            Some(account) => (account.password.as_str(), true),
            None => (self.stand_in(memory), false),
        };
        // `&` rather than `&&`: the stand-in is checked as fully as a real hash.
        arbiter_logins::verify_in(phc, password, memory) & known
    }

    /// A hash of a random password with the parameters of the first team's hash (argon2's
    /// defaults if there is no team): checking it costs what checking a team's costs.
    fn stand_in(&self, memory: &mut Vec<Block>) -> &str {
        self.stand_in.get_or_init(|| {
            let first = self.teams.values().next();
            arbiter_logins::stand_in_like(first.map(|a| a.password.as_str()), memory)
        })
    }
}

/// The mode of the accounts file at `path` when users other than its owner may read or
/// change it (a warning to give: the hashes can be attacked offline); `None` when only its
/// owner can, or it cannot be read.
pub fn loose_permissions(path: &Path) -> Option<u32> {
    let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o7777;
    (mode & 0o077 != 0).then_some(mode)
}

/// The warning for an accounts file others may read or change, if it is one.
pub fn permissions_warning(path: &Path) -> Option<String> {
    let mode = loose_permissions(path)?;
    Some(format!(
        "warning: {} has mode {mode:04o}: other users of this machine may read the password \
         hashes in it (and guess passwords offline) or change it; `chmod 600 {}` keeps it to you",
        path.display(),
        path.display()
    ))
}

/// The accounts a running server checks logins against, read again from their file whenever it
/// changes: a team added with `arbiter accounts add` during a session can log in without a
/// restart. A file that cannot be read any more keeps the teams read last.
pub struct LiveAccounts {
    path: Option<PathBuf>,
    state: Mutex<(Option<FileStamp>, Arc<Accounts>)>,
}

/// What tells that a file changed: its modification time and length.
type FileStamp = (std::time::SystemTime, u64);

fn stamp(path: &Path) -> Option<FileStamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

impl LiveAccounts {
    /// `accounts` as read from `path` (none: they never change).
    pub fn new(accounts: Accounts, path: Option<PathBuf>) -> LiveAccounts {
        let seen = path.as_deref().and_then(stamp);
        LiveAccounts {
            path,
            state: Mutex::new((seen, Arc::new(accounts))),
        }
    }

    /// The accounts as the file holds them now; with the reason when it changed but could not
    /// be read (the accounts read last are returned then). Call it off the async threads: it
    /// may read the file.
    pub fn current(&self) -> (Arc<Accounts>, Option<String>) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let Some(path) = &self.path else {
            return (state.1.clone(), None);
        };
        let now = stamp(path);
        if now == state.0 {
            return (state.1.clone(), None);
        }
        state.0 = now;
        match Accounts::load(path) {
            Ok(accounts) => {
                state.1 = Arc::new(accounts);
                (state.1.clone(), None)
            }
            Err(e) => (state.1.clone(), Some(e.to_string())),
        }
    }
}

/// A fresh password for `arbiter accounts add` when none is given: 16 letters and digits.
pub fn generate_password() -> String {
    const CHARS: &[u8] = b"abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    (0..16)
        .map(|_| CHARS[(OsRng.next_u32() as usize) % CHARS.len()] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use argon2::Params;

    #[test]
    fn team_names() {
        assert!(valid_team("alice"));
        assert!(valid_team("team_42"));
        assert!(!valid_team(""));
        assert!(!valid_team("Alice"));
        assert!(!valid_team("a-b"));
        assert!(!valid_team(&"a".repeat(33)));
    }

    /// Alice's account saved in a fresh folder named after `name`: the folder, the file and
    /// the accounts.
    fn saved_alice(name: &str) -> (PathBuf, PathBuf, Accounts) {
        let dir = arbiter_testdir::fresh(name);
        let path = dir.join("teams.toml");
        let mut accounts = Accounts::default();
        accounts.set_password("alice", "secret").unwrap();
        accounts.save(&path).unwrap();
        (dir, path, accounts)
    }

    #[test]
    fn a_saved_password_verifies_and_is_not_in_the_file() {
        let (_, path, _) = saved_alice("accounts");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("secret"), "{text}");
        assert!(text.contains("$argon2id$"), "{text}");
        let mut accounts = Accounts::load(&path).unwrap();
        assert!(accounts.verify("alice", "secret"));
        assert!(!accounts.verify("alice", "Secret"));
        assert!(!accounts.verify("bob", "secret"));
        assert!(accounts.set_password("x", "two words").is_err());
    }

    #[test]
    fn live_accounts_see_a_team_added_to_the_file_and_keep_the_last_good_ones() {
        let (dir, path, mut accounts) = saved_alice("live-accounts");
        let live = LiveAccounts::new(Accounts::load(&path).unwrap(), Some(path.clone()));
        assert!(!live.current().0.verify("bob", "pw"));

        accounts.set_password("bob", "pw").unwrap();
        accounts.save(&path).unwrap();
        let (now, problem) = live.current();
        assert!(now.verify("bob", "pw") && now.verify("alice", "secret"));
        assert_eq!(problem, None);

        std::fs::write(&path, "[teams.carol]\npassword = 7\n").unwrap();
        let (now, problem) = live.current();
        assert!(now.verify("bob", "pw"), "the last good accounts stay");
        assert!(problem.is_some());
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// Equal work, not equal stopwatch readings (a timed test fails on a loaded machine): the
    /// stand-in hash has the team hash's algorithm, version, parameters and length, and the
    /// check runs argon2 over a work area of the same size.
    #[test]
    fn a_name_that_is_no_team_is_checked_as_fully_as_a_wrong_password() {
        let mut accounts = Accounts::default();
        accounts.set_password("alice", "secret").unwrap();
        let mut known_memory = Vec::new();
        assert!(!accounts.verify_in("alice", "x", &mut known_memory));
        let mut unknown_memory = Vec::new();
        assert!(!accounts.verify_in("nobody", "secret", &mut unknown_memory));
        assert!(!known_memory.is_empty());
        assert_eq!(unknown_memory.len(), known_memory.len());
        let team = PasswordHash::new(&accounts.teams["alice"].password).unwrap();
        let stand_in = PasswordHash::new(accounts.stand_in(&mut Vec::new())).unwrap();
        assert_eq!(stand_in.algorithm, team.algorithm);
        assert_eq!(stand_in.version, team.version);
        assert_eq!(
            Params::try_from(&stand_in).unwrap(),
            Params::try_from(&team).unwrap()
        );
        assert_eq!(stand_in.hash.map(|h| h.len()), team.hash.map(|h| h.len()));
        assert!(accounts.verify_in("alice", "secret", &mut known_memory));
    }

    #[test]
    fn the_file_is_written_for_its_owner_only_and_keeps_its_mode() {
        let (dir, path, accounts) = saved_alice("accounts-mode");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(loose_permissions(&path), None);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        accounts.save(&path).unwrap();
        assert_eq!(loose_permissions(&path), Some(0o640));
        assert!(permissions_warning(&path).unwrap().contains("mode 0640"));
        // A temporary file left readable by a crash is not reused as it is.
        let tmp = path.with_extension("toml.tmp");
        std::fs::write(&tmp, "junk").unwrap();
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o666)).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        accounts.save(&path).unwrap();
        assert_eq!(mode(&path), 0o600);
        assert!(Accounts::load(&path).unwrap().verify("alice", "secret"));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
