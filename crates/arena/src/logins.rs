//! Passwords of the arena's users, on the bounded argon2 pool of `arbiter-logins`, and the
//! throttling of failed sign-ins per address and per name: an attempt made too early is
//! refused before its password is checked.

use std::net::IpAddr;
use std::time::Instant;

use arbiter_logins::{Gates, Hasher, Refusal, Source, Throttle};

use crate::error::{AppError, AppResult};

/// Threads hashing and checking passwords.
const THREADS: usize = 2;

/// The pool and the throttle.
pub struct Logins {
    hasher: Hasher,
    throttle: Throttle,
    gates: Gates,
}

impl Logins {
    /// Starts the pool's threads.
    pub fn start() -> std::io::Result<Logins> {
        Ok(Logins {
            hasher: Hasher::start(THREADS)?,
            throttle: Throttle::default(),
            gates: Gates::default(),
        })
    }

    /// The argon2id hash of a new password.
    pub async fn hash(&self, password: String) -> AppResult<String> {
        self.hasher
            .hash(password)
            .await
            .map_err(|e| AppError::Internal(e.to_string()))
    }

    /// Whether `password` is `name`'s (hashed as `phc`; `None` for a name that is no user,
    /// checked as slowly), unless the attempt is refused by the throttle (429). `address` is
    /// the client's, where the connection tells it.
    pub async fn check(
        &self,
        address: Option<IpAddr>,
        name: &str,
        phc: Option<String>,
        password: String,
    ) -> AppResult<bool> {
        // Without an address (a request made in process), every such attempt is one source.
        let source = Source::from(address.unwrap_or(IpAddr::from([0, 0, 0, 0])));
        let _gate = self.gates.enter(source).await;
        // Names differing only in case are one user.
        let key = name.to_lowercase();
        let attempt = self
            .throttle
            .admit(source, &key, Instant::now())
            .map_err(|refusal| {
                AppError::TooMany(match refusal {
                    Refusal::Address => {
                        "too many failed sign-ins from your address: wait a minute".to_owned()
                    }
                    _ => "too many failed sign-ins for this name: wait a minute".to_owned(),
                })
            })?;
        let right = self.hasher.verify(phc, password).await;
        self.throttle.settle(attempt, right, Instant::now());
        Ok(right)
    }
}
