//! Secrets made for people and scripts: API tokens and invite codes, random from the
//! operating system, and the SHA-256 a store keeps of them instead (a copy of the database
//! gives no usable token). Passwords' own rules are here too.

use argon2::password_hash::rand_core::{OsRng, RngCore};
use sha2::{Digest, Sha256};

/// The fewest characters of a new password.
pub const MIN_PASSWORD_CHARS: usize = 8;
/// The most bytes of a password: argon2 takes more, but nobody types them.
pub const MAX_PASSWORD_BYTES: usize = 1024;

/// A new API token: 32 random bytes, as 64 lowercase hex digits.
pub fn new_token() -> String {
    random_hex(32)
}

/// A new invite code: 16 random bytes, as 32 lowercase hex digits.
pub fn new_invite_code() -> String {
    random_hex(16)
}

/// The SHA-256 of `secret` as 64 lowercase hex digits: what a store keeps of a token or an
/// invite code.
pub fn sha256_hex(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

/// Whether `password` may be a new password; why not, in words for the person choosing it.
pub fn check_new_password(password: &str) -> Result<(), String> {
    if password.is_empty() {
        return Err("the password is empty".into());
    }
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(format!(
            "the password is too short: at least {MIN_PASSWORD_CHARS} characters"
        ));
    }
    if password.len() > MAX_PASSWORD_BYTES {
        return Err(format!(
            "the password is too long: at most {MAX_PASSWORD_BYTES} bytes"
        ));
    }
    Ok(())
}

fn random_hex(bytes: usize) -> String {
    let mut random = vec![0u8; bytes];
    OsRng.fill_bytes(&mut random);
    hex(&random)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_codes_are_fresh_hex_and_hashed_as_sha256() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        assert!(
            a.bytes()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_eq!(new_invite_code().len(), 32);
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn a_new_password_is_neither_empty_nor_short_nor_huge() {
        assert_eq!(check_new_password("").unwrap_err(), "the password is empty");
        assert!(
            check_new_password("short")
                .unwrap_err()
                .contains("at least 8")
        );
        assert!(check_new_password(&"x".repeat(2000)).is_err());
        assert!(check_new_password("correct horse").is_ok());
    }
}
