//! Passwords: argon2id, hashed on the blocking pool a few at a time.
//!
//! Why argon2id: memory-hard, so a stolen table of hashes is slow to guess through on GPUs.

use std::sync::{Arc, LazyLock};

use actix_web::web;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use tokio::sync::Semaphore;

use super::error::ApiError;
use crate::store::UserRow;

/// Argon2id hashes and checks at once at most: each takes ~19 MiB and a core for tens of
/// milliseconds, on the blocking pool, so a wave of sign-ins waits here instead of starving
/// the database calls of moves.
const HASHING_AT_ONCE: usize = 2;

/// Passwords: argon2id (OWASP's parameters, the crate's default: 19 MiB, 2 passes), hashed off
/// the async workers, a few at a time.
pub struct Passwords {
    permits: Arc<Semaphore>,
}

/// A hash checked when nobody by that name has a password, so an unknown name costs the same
/// time as a wrong password.
static DECOY: LazyLock<String> = LazyLock::new(|| {
    salt()
        .and_then(|salt| {
            Argon2::default()
                .hash_password(b"no one has this password", &salt)
                .map(|h| h.to_string())
                .map_err(|e| e.to_string())
        })
        .unwrap_or_default()
});

/// 128 random bits of salt.
fn salt() -> Result<SaltString, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| e.to_string())?;
    SaltString::encode_b64(&bytes).map_err(|e| e.to_string())
}

impl Default for Passwords {
    fn default() -> Self {
        Passwords::new()
    }
}

impl Passwords {
    pub fn new() -> Passwords {
        Passwords {
            permits: Arc::new(Semaphore::new(HASHING_AT_ONCE)),
        }
    }

    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        Ok(web::block(work).await?)
    }

    /// The PHC string of `password`, salted.
    pub async fn hash(&self, password: String) -> Result<String, ApiError> {
        self.run(move || {
            let salt = salt().map_err(|e| ApiError::Internal(format!("a salt: {e}")))?;
            Argon2::default()
                .hash_password(password.as_bytes(), &salt)
                .map(|h| h.to_string())
                .map_err(|e| ApiError::Internal(format!("hashing a password: {e}")))
        })
        .await?
    }

    /// Which of `candidates` (a user and their PHC string) `password` opens, if any; the decoy
    /// is checked when there are none.
    pub async fn open(
        &self,
        candidates: Vec<(UserRow, String)>,
        password: String,
    ) -> Result<Option<UserRow>, ApiError> {
        self.run(move || {
            let check = |phc: &str| {
                PasswordHash::new(phc).is_ok_and(|hash| {
                    Argon2::default()
                        .verify_password(password.as_bytes(), &hash)
                        .is_ok()
                })
            };
            if candidates.is_empty() {
                check(&DECOY);
                return None;
            }
            candidates
                .into_iter()
                .find_map(|(user, phc)| check(&phc).then_some(user))
        })
        .await
    }
}
