//! Who may sign in, and with what: the password rules, refresh credentials (256 random bits,
//! handed out once and kept only as their SHA-256), which outcomes of a refresh are
//! accepted, what a device is called, the name a guest of the hotel's takes. The HTTP
//! handlers parse, call these and answer; hashing passwords (argon2id) stays with them.

use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::common::{ErrorCode, UserName};
use crate::store::{DeviceRow, Rotation};

/// The longest password taken, in bytes (argon2 reads it all).
pub const MAX_PASSWORD_BYTES: usize = 256;
/// The shortest, in characters.
pub const MIN_PASSWORD_CHARS: usize = 10;

/// Why a credential was refused.
#[derive(Debug, Error)]
pub enum AccountError {
    /// A new password too short or too long (`password` is the field).
    #[error("{MIN_PASSWORD_CHARS} characters or more, up to {MAX_PASSWORD_BYTES} bytes")]
    Password,
    /// The one answer to a failed sign-in: it never says whether the name exists.
    #[error("the name or the password is wrong")]
    SignInFailed,
    /// A spent refresh credential came back: its device is signed out.
    #[error("this refresh credential was used before: the device is signed out, sign in again")]
    RefreshReused,
    #[error("the refresh credential is not valid (unknown, expired or signed out): sign in again")]
    RefreshInvalid,
    /// A device key that is not 16 to 128 letters, digits, `-` or `_`.
    #[error("`device_key` is 16 to 128 letters, digits, `-` or `_`")]
    DeviceKey,
    /// None of the names a guest of the hotel's comes with is allowed here.
    #[error("the hotel gives no name allowed here: send one as `name`")]
    NoName,
    /// No randomness for a credential.
    #[error("randomness: {0}")]
    Randomness(String),
}

impl AccountError {
    /// Its code in the one list HTTP and WebSocket answer with.
    pub fn code(&self) -> ErrorCode {
        match self {
            AccountError::Password | AccountError::DeviceKey => ErrorCode::InvalidField,
            AccountError::SignInFailed => ErrorCode::SignInFailed,
            AccountError::RefreshReused => ErrorCode::RefreshReused,
            AccountError::RefreshInvalid => ErrorCode::RefreshInvalid,
            AccountError::NoName => ErrorCode::InvalidName,
            AccountError::Randomness(_) => ErrorCode::Internal,
        }
    }
}

/// A new refresh credential and its hash (hex).
pub fn new_credential() -> Result<(String, String), AccountError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| AccountError::Randomness(e.to_string()))?;
    let credential = hex::encode(bytes);
    let hash = credential_hash(&credential);
    Ok((credential, hash))
}

/// What a refresh credential is kept as: its SHA-256, in hex.
pub fn credential_hash(credential: &str) -> String {
    hex::encode(Sha256::digest(credential.as_bytes()))
}

/// Whether a refresh is accepted: the device it rotated on, else why not.
pub fn refreshed(rotation: Rotation) -> Result<DeviceRow, AccountError> {
    match rotation {
        Rotation::Rotated(device) => Ok(device),
        Rotation::Reused => {
            tracing::warn!("a spent refresh credential came back: its device is signed out");
            Err(AccountError::RefreshReused)
        }
        Rotation::Unknown | Rotation::Revoked | Rotation::Expired => {
            Err(AccountError::RefreshInvalid)
        }
    }
}

/// A device's label: the one given, else the browser's User-Agent (`agent`), cut to 64
/// characters.
pub fn device_label(given: Option<&str>, agent: Option<&str>) -> String {
    let raw = given
        .map(str::trim)
        .filter(|g| !g.is_empty())
        .or(agent)
        .unwrap_or("a device");
    raw.chars()
        .filter(|c| !c.is_control())
        .take(64)
        .collect::<String>()
        .trim()
        .to_owned()
}

/// What a device's key is kept as: its SHA-256 in hex, `None` when none was sent. A key is
/// the browser's own random string, kept across sign-ins (and accounts) on that browser: two
/// accounts that sent one key are one person's as far as ratings go. It proves nothing (a
/// client may send any), so it can only keep games from being rated, never make them so.
pub fn device_key_hash(given: Option<&str>) -> Result<Option<String>, AccountError> {
    let Some(key) = given else {
        return Ok(None);
    };
    let fits = (16..=128).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !fits {
        return Err(AccountError::DeviceKey);
    }
    Ok(Some(credential_hash(key)))
}

/// Whether `password` may be set: 10 characters or more, up to 256 bytes.
pub fn check_new_password(password: &str) -> Result<(), AccountError> {
    let chars = password.chars().count();
    if chars < MIN_PASSWORD_CHARS || password.len() > MAX_PASSWORD_BYTES {
        return Err(AccountError::Password);
    }
    Ok(())
}

/// Whether a password given to be checked is worth hashing: one longer than any set is
/// wrong at once.
pub fn worth_checking(password: &str) -> bool {
    password.len() <= MAX_PASSWORD_BYTES
}

/// Whether a sign-in by `name` and `password` is worth looking up: bounded in bytes, as
/// names are parsed (a name of 24 letters with tone marks, NFD, holds many more than 24
/// chars). One that is not is simply wrong.
pub fn worth_looking_up(name: &str, password: &str) -> bool {
    name.len() <= UserName::MAX_INPUT_BYTES && worth_checking(password)
}

/// The name a guest of the hotel's takes at the first visit: the first allowed of
/// `choices` (their own choice first: it is how they answer `name_taken` for the hotel's
/// name).
pub fn first_name<'a>(
    choices: impl IntoIterator<Item = Option<&'a str>>,
) -> Result<UserName, AccountError> {
    choices
        .into_iter()
        .flatten()
        .find_map(|n| UserName::parse(n).ok())
        .ok_or(AccountError::NoName)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_key_is_kept_hashed_and_a_malformed_one_refused() {
        assert_eq!(device_key_hash(None).unwrap(), None);
        let key = "k3y-of_a-browser-0123456789";
        let kept = device_key_hash(Some(key)).unwrap().unwrap();
        assert_eq!(kept, credential_hash(key));
        assert_ne!(kept, key);
        for bad in [
            "short",
            &"x".repeat(129),
            "sixteen chars ok but spaces",
            "ключ-ключ-ключ-ключ",
        ] {
            assert!(device_key_hash(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_password_is_ten_characters_to_256_bytes() {
        assert!(check_new_password("short").is_err());
        assert!(check_new_password("ten chars!").is_ok());
        assert!(check_new_password(&"é".repeat(128)).is_ok());
        assert!(check_new_password(&"é".repeat(129)).is_err());
    }

    #[test]
    fn a_credential_is_kept_as_its_hash() {
        let (credential, hash) = new_credential().unwrap();
        assert_eq!(credential.len(), 64);
        assert_eq!(credential_hash(&credential), hash);
        assert_ne!(credential, hash);
    }

    #[test]
    fn a_label_is_the_given_one_else_the_agent() {
        assert_eq!(device_label(Some("  phone "), Some("agent")), "phone");
        assert_eq!(device_label(Some(" "), Some("agent")), "agent");
        assert_eq!(device_label(None, None), "a device");
        assert_eq!(device_label(Some(&"x".repeat(100)), None).len(), 64);
    }
}
