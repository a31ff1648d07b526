//! Team accounts: a TOML file of team names and argon2 password hashes (PHC strings).
//!
//! ```toml
//! [teams.alice]
//! password = "$argon2id$v=19$m=19456,t=2,p=1$..."
//! ```
//!
//! Passwords are never kept, logged or put in an error: only their hashes are stored, and a
//! failed login says `BAD_LOGIN` whatever was wrong.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use serde::{Deserialize, Serialize};

use crate::GameServerError;

/// The teams allowed to log in, each with the argon2 hash (PHC string) of its password.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Accounts {
    #[serde(default)]
    teams: BTreeMap<String, Account>,
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

    /// Writes the file through a temporary one, so a crash never leaves half a file.
    pub fn save(&self, path: &Path) -> Result<(), GameServerError> {
        let text = toml::to_string(self).map_err(|e| GameServerError::Accounts(e.to_string()))?;
        let tmp = path.with_extension("toml.tmp");
        let io = |what: String| move |source| GameServerError::Io { what, source };
        std::fs::write(&tmp, text).map_err(io(format!("writing {}", tmp.display())))?;
        std::fs::rename(&tmp, path).map_err(io(format!("writing {}", path.display())))?;
        Ok(())
    }

    /// Whether `password` is `team`'s. Slow on purpose (argon2): call it off the async threads.
    pub fn verify(&self, team: &str, password: &str) -> bool {
        let Some(account) = self.teams.get(team) else {
            return false;
        };
        let Ok(hash) = PasswordHash::new(&account.password) else {
            return false;
        };
        Argon2::default()
            .verify_password(password.as_bytes(), &hash)
            .is_ok()
    }
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
    use argon2::password_hash::rand_core::RngCore;
    const CHARS: &[u8] = b"abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    (0..16)
        .map(|_| CHARS[(OsRng.next_u32() as usize) % CHARS.len()] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn team_names() {
        assert!(valid_team("alice"));
        assert!(valid_team("team_42"));
        assert!(!valid_team(""));
        assert!(!valid_team("Alice"));
        assert!(!valid_team("a-b"));
        assert!(!valid_team(&"a".repeat(33)));
    }

    #[test]
    fn a_saved_password_verifies_and_is_not_in_the_file() {
        let dir = std::env::temp_dir().join(format!("arbiter-accounts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("teams.toml");
        let mut accounts = Accounts::default();
        accounts.set_password("alice", "secret").unwrap();
        accounts.save(&path).unwrap();
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
        let dir =
            std::env::temp_dir().join(format!("arbiter-live-accounts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("teams.toml");
        let mut accounts = Accounts::default();
        accounts.set_password("alice", "secret").unwrap();
        accounts.save(&path).unwrap();
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
}
