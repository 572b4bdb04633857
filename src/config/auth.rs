//! The `[auth]` section: token lifetimes, the hotel's identity provider, and the signing
//! secret (configured, or generated once and kept beside a single instance).

use serde::Deserialize;

use super::ConfigError;

#[derive(Clone, Default, Deserialize)]
pub struct AuthSettings {
    /// The HS256 secret; empty for one kept in `secret_file` (see `signing_secret`).
    pub secret: String,
    pub issuer: String,
    pub token_ttl_secs: u64,
    /// Where a generated secret is kept when none is configured.
    #[serde(default)]
    pub secret_file: String,
    /// How long a device stays signed in without refreshing (slides on each refresh).
    #[serde(default)]
    pub refresh_ttl_secs: u64,
    /// How long a WebSocket ticket stays valid, in seconds.
    #[serde(default)]
    pub ws_ticket_secs: u64,
    /// The hotel's identity provider, when its tokens are accepted.
    #[serde(default)]
    pub hotel: Option<HotelIdpSettings>,
}

/// The hotel's identity provider: its tokens are checked against its public keys.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HotelIdpSettings {
    /// The `iss` its tokens must carry.
    pub issuer: String,
    /// The `aud` its tokens must carry (the lounge).
    pub audience: String,
    /// A JWKS file of its public keys (RSA or Ed25519), or...
    #[serde(default)]
    pub jwks_file: String,
    /// ...one PEM public key (RSA or Ed25519).
    #[serde(default)]
    pub pem_file: String,
}

/// The shortest secret taken: 32 bytes, what HS256 wants.
pub const MIN_SECRET_BYTES: usize = 32;

impl AuthSettings {
    /// The secret to sign with: the configured one, or (one instance: SQLite, no `[cluster]`)
    /// one generated at the first start and kept in `secret_file` (mode 0600), read back
    /// after. Several instances must share one, so PostgreSQL or `[cluster]` without a
    /// configured secret is refused. A champions wall in Redis is no second instance: one
    /// SQLite file has one instance, whatever holds the wall.
    pub fn signing_secret(&self, database_url: &str, cluster: bool) -> Result<String, ConfigError> {
        if !self.secret.is_empty() {
            return Ok(self.secret.clone());
        }
        let url = database_url.trim();
        if url.starts_with("postgres://") || url.starts_with("postgresql://") || cluster {
            return Err(ConfigError::Invalid {
                key: "auth.secret",
                message: "several instances may share this database: give them one secret \
                          (LOUNGE_AUTH__SECRET, 32 bytes or more)"
                    .into(),
            });
        }
        if self.secret_file.trim().is_empty() {
            return Err(ConfigError::Invalid {
                key: "auth.secret_file",
                message: "needed when auth.secret is empty".into(),
            });
        }
        kept_or_new(std::path::Path::new(self.secret_file.trim())).map_err(|e| {
            ConfigError::Invalid {
                key: "auth.secret_file",
                message: format!("{}: {e}", self.secret_file),
            }
        })
    }
}

impl std::fmt::Debug for AuthSettings {
    /// Never prints the secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthSettings")
            .field("issuer", &self.issuer)
            .field("token_ttl_secs", &self.token_ttl_secs)
            .field("refresh_ttl_secs", &self.refresh_ttl_secs)
            .field("ws_ticket_secs", &self.ws_ticket_secs)
            .field("secret_file", &self.secret_file)
            .field("hotel", &self.hotel)
            .finish_non_exhaustive()
    }
}

/// The secret kept at `path`, or a new random one written there first (mode 0600, created
/// exclusively: two processes starting at once agree on the one written first).
fn kept_or_new(path: &std::path::Path) -> std::io::Result<String> {
    use std::io::{ErrorKind, Read, Write};
    let read = |path: &std::path::Path| -> std::io::Result<String> {
        let mut text = String::new();
        std::fs::File::open(path)?.read_to_string(&mut text)?;
        let secret = text.trim().to_owned();
        if secret.len() < MIN_SECRET_BYTES {
            return Err(std::io::Error::new(
                ErrorKind::InvalidData,
                format!("holds fewer than {MIN_SECRET_BYTES} bytes"),
            ));
        }
        Ok(secret)
    };
    match read(path) {
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        done => return done,
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    let secret = hex::encode(bytes);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(mut file) => {
            file.write_all(secret.as_bytes())?;
            file.sync_all()?;
            tracing::info!(file = %path.display(), "generated the signing secret and kept it");
            Ok(secret)
        }
        // Another process wrote it first: take theirs.
        Err(e) if e.kind() == ErrorKind::AlreadyExists => read(path),
        Err(e) => Err(e),
    }
}
