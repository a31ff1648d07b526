//! Passwords and logins, for every part of Arbiter that lets people sign in (the game server's
//! teams, the arena's users):
//!
//! - [`Hasher`]: argon2id hashes made and checked on a bounded pool of threads of their own,
//!   each with one argon2 work area for all its work, so that a flood of logins costs a bounded
//!   amount of memory and never takes the threads that serve games or pages. A name that is no
//!   account is checked against a stand-in hash, as slowly as a wrong password.
//! - API tokens and invite codes ([`new_token`], [`sha256_hex`]), and the rules of a new
//!   password ([`check_new_password`]).
//! - [`throttle`]: failed logins counted per source address and per account name, with a
//!   back-off, and at most a few password checks per address at a time.
#![warn(missing_docs)]

mod hasher;
mod secrets;
pub mod throttle;

/// argon2's parameters and work area, as [`Hasher::with_params`] and [`hash_in`] take them.
pub use argon2::{Block, Params};
pub use hasher::{
    Hasher, LoginError, MAX_THREADS, hash_in, is_argon2_phc, stand_in_like, verify_in,
};
pub use secrets::{
    MAX_PASSWORD_BYTES, MIN_PASSWORD_CHARS, check_new_password, new_invite_code, new_token,
    sha256_hex,
};
pub use throttle::{Attempt, Gate, Gates, Refusal, Rule, Source, Throttle};
