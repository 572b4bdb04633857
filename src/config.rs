//! Settings, layered: `config/default.toml` (built in), `config/local.toml`, `LOUNGE_*`
//! environment variables (and `DATABASE_URL`).

use serde::Deserialize;
use thiserror::Error;

use crate::ayo::{Preset, RulesError};

/// The built-in defaults: the same file operators read.
const DEFAULTS: &str = include_str!("../config/default.toml");

#[derive(Debug, Clone, Deserialize)]
pub struct Settings {
    pub server: ServerSettings,
    pub database: DatabaseSettings,
    pub auth: AuthSettings,
    pub world: WorldSettings,
    pub ayo: AyoSettings,
    pub house: HouseSettings,
    pub hotel: HotelSettings,
    pub shop: ShopSettings,
    pub apartment: ApartmentSettings,
    pub champions: ChampionsSettings,
    pub civility: CivilitySettings,
    pub cluster: ClusterSettings,
}

/// Several instances, one hotel (ARCHITECTURE.md, `cluster/`): rooms leased through Redis, writes fenced
/// in PostgreSQL. Off, this process runs every room itself.
#[derive(Debug, Clone, Deserialize)]
pub struct ClusterSettings {
    pub enabled: bool,
    /// How this instance names itself in leases; empty: the host name and the port it
    /// listens on.
    pub instance_id: String,
    /// How long a room's lease lives unrenewed (ms): the longest a room is without an owner
    /// after its owner dies.
    pub lease_ms: u64,
    /// Redis for the leases; empty: the champions' (`champions.redis_url`, `REDIS_URL`).
    pub redis_url: String,
    /// Before every cluster key; empty: `champions.redis_key_prefix`.
    pub redis_key_prefix: String,
}

impl ClusterSettings {
    /// The Redis URL the leases use, given the champions'.
    pub fn redis_url<'a>(&'a self, champions: &'a ChampionsSettings) -> &'a str {
        if self.redis_url.trim().is_empty() {
            champions.redis_url.trim()
        } else {
            self.redis_url.trim()
        }
    }

    pub fn key_prefix<'a>(&'a self, champions: &'a ChampionsSettings) -> &'a str {
        if self.redis_key_prefix.is_empty() {
            &champions.redis_key_prefix
        } else {
            &self.redis_key_prefix
        }
    }

    /// This instance's id, listening on `port`.
    pub fn instance(&self, port: u16) -> String {
        let id = self.instance_id.trim();
        if !id.is_empty() {
            return id.replace(char::is_whitespace, "_");
        }
        let host = std::env::var("HOSTNAME")
            .ok()
            .filter(|h| !h.trim().is_empty())
            .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
            .map(|h| h.trim().to_owned())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "localhost".to_owned());
        format!("{host}:{port}")
    }
}

/// Keeping the lounge civil: invitations, a room's chat, moderation.
#[derive(Debug, Clone, Deserialize)]
pub struct CivilitySettings {
    /// Invitations one guest may send one other guest in a minute.
    pub invitations_per_minute: u32,
    /// Chat lines a room broadcasts a second on average, everyone together, and in a burst.
    pub room_chat_per_sec: f64,
    pub room_chat_burst: f64,
    /// Once a room spends that budget, slow mode is on by itself for this long, at one line
    /// per guest every `auto_slow_mode_secs`.
    pub auto_slow_mode_for_secs: u64,
    pub auto_slow_mode_secs: u32,
    /// How long a guest put out of a room stays out, unless the operator says.
    pub put_out_secs: u64,
}

/// Today's champions.
#[derive(Debug, Clone, Deserialize)]
pub struct ChampionsSettings {
    /// The hotel's time zone: its day runs from one local midnight to the next.
    pub timezone: String,
    /// Wins of one player over the same opponent that count a day.
    pub per_opponent_cap: u32,
    /// Days a wall is kept in Redis.
    pub keep_days: u32,
    /// `redis://...`; empty for the in-process wall. `REDIS_URL` overrides it.
    pub redis_url: String,
    /// Put before every Redis key (several services can share one Redis).
    pub redis_key_prefix: String,
    /// Moves each side must have made for a win to count.
    pub min_moves: u32,
    /// An account this old (seconds) is no longer new: its wins (and losses) count...
    pub new_account_secs: u64,
    /// ...as do those of an account with this many played games against people.
    pub new_account_games: u32,
}

impl ChampionsSettings {
    /// What makes a win count for the wall.
    pub fn wall_rules(&self) -> crate::store::WallRules {
        crate::store::WallRules {
            cap: self.per_opponent_cap,
            min_moves: self.min_moves,
            new_account_secs: self.new_account_secs,
            new_account_games: self.new_account_games,
        }
    }

    pub fn tz(&self) -> Result<chrono_tz::Tz, ConfigError> {
        self.timezone.parse().map_err(|_| ConfigError::Invalid {
            key: "champions.timezone",
            message: format!("`{}` is not an IANA time zone", self.timezone),
        })
    }
}

/// The furniture shop and coins.
#[derive(Debug, Clone, Deserialize)]
pub struct ShopSettings {
    /// Coins every new avatar starts with.
    pub welcome_coins: i64,
    /// Items the shop starts with.
    pub items: Vec<ItemSeed>,
}

/// An item the shop holds from the first start.
#[derive(Debug, Clone, Deserialize)]
pub struct ItemSeed {
    pub id: String,
    pub name: String,
    pub kind: crate::store::ItemKind,
    #[serde(default)]
    pub wood: Option<String>,
    #[serde(default)]
    pub finish: Option<String>,
    pub price: i64,
    #[serde(default)]
    pub stock: Option<i32>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ApartmentSettings {
    /// Ayo boards an apartment holds at most.
    pub max_boards: usize,
    /// Invitations home an owner sends a minute at most (in a burst as many).
    pub invitations_per_minute: u32,
}

/// Baba Ayo, the house champion.
#[derive(Debug, Clone, Deserialize)]
pub struct HouseSettings {
    pub easy_ms: u64,
    pub normal_ms: u64,
    pub champion_ms: u64,
    /// House games that may think at once; more wait their turn.
    pub max_thinking: usize,
    /// Seeds on the board up to which the start-up endgame databases go.
    pub endgame_seeds: u8,
    /// Where larger databases are stored and found.
    pub endgame_dir: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct WorldSettings {
    pub invitation_ttl_secs: u64,
    pub grace_secs: u64,
    pub chat_max_chars: usize,
    /// Chat lines a room keeps for the `room` snapshot (in memory).
    pub chat_backlog: usize,
    pub table_log_events: usize,
    /// Seconds at least between two `table_status` messages of a room.
    pub status_every_secs: u64,
    /// Seconds an apartment with nobody in it and no game in play stays open.
    pub apartment_idle_secs: u64,
    /// Seconds both players of an untimed match have to press start between games.
    pub untimed_start_secs: u64,
    /// Seconds a rematch stays on offer after a match.
    pub rematch_secs: u64,
    /// Milliseconds between heartbeats (an outage without a clean stop began at the last).
    pub heartbeat_ms: u64,
    /// The time game clocks run on: the system's, or a test's hand-driven one.
    #[serde(skip)]
    pub clock: crate::common::ServerClock,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ServerSettings {
    pub bind: String,
    pub workers: usize,
    pub shutdown_timeout_secs: u64,
    pub ws_messages_per_sec: f64,
    pub ws_burst: f64,
    /// Refused frames within `ws_strike_window_secs` that close a connection (1008).
    pub ws_strikes: usize,
    pub ws_strike_window_secs: u64,
    /// Seconds a write to a WebSocket may take before the connection is cut.
    pub ws_write_timeout_secs: u64,
    /// Microseconds a connection waits after a room's frame for more to send with it (0: it
    /// sends what is waiting at once).
    pub ws_flush_micros: u64,
    /// WebSocket connections open at once from one address.
    pub ws_connections_per_address: usize,
    /// Proxies whose `X-Forwarded-For` is believed: addresses separated by commas (a string,
    /// so one environment variable sets them); read by `proxies()`.
    pub trusted_proxies: String,
    /// Sign-ups from one address a minute on average, and at once.
    pub signups_per_minute: f64,
    pub signup_burst: f64,
    /// Sign-ups writing to the database at once.
    pub signup_writers: usize,
    /// Password sign-ins from one address a minute on average, and at once.
    pub sign_ins_per_minute: f64,
    pub sign_in_burst: f64,
}

impl ServerSettings {
    /// The trusted proxies' addresses.
    pub fn proxies(&self) -> Result<Vec<std::net::IpAddr>, ConfigError> {
        self.trusted_proxies
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(|a| {
                a.parse().map_err(|_| ConfigError::Invalid {
                    key: "server.trusted_proxies",
                    message: format!("`{a}` is not an IP address"),
                })
            })
            .collect()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct DatabaseSettings {
    pub url: String,
    pub max_connections: u32,
}

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
    /// The secret to sign with: the configured one, or (one instance, SQLite, no Redis) one
    /// generated at the first start and kept in `secret_file` (mode 0600), read back after.
    /// Several instances must share one, so a PostgreSQL database or a Redis URL without a
    /// configured secret is refused.
    pub fn signing_secret(
        &self,
        database_url: &str,
        redis_url: &str,
    ) -> Result<String, ConfigError> {
        if !self.secret.is_empty() {
            return Ok(self.secret.clone());
        }
        let url = database_url.trim();
        if url.starts_with("postgres://")
            || url.starts_with("postgresql://")
            || !redis_url.trim().is_empty()
        {
            return Err(ConfigError::Invalid {
                key: "auth.secret",
                message: "several instances may share this database or Redis: give them one \
                          secret (LOUNGE_AUTH__SECRET, 32 bytes or more)"
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

#[derive(Debug, Clone, Deserialize)]
pub struct AyoSettings {
    /// The preset a game plays unless told otherwise.
    pub rules: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct HotelSettings {
    pub rooms: Vec<RoomSeed>,
}

/// A room the hotel makes on first start.
#[derive(Debug, Clone, Deserialize)]
pub struct RoomSeed {
    pub id: String,
    pub name: String,
    pub kind: crate::common::RoomKind,
    pub tables: u32,
}

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("configuration: {0}")]
    Load(#[from] config::ConfigError),
    #[error("configuration `ayo.rules`: {0}")]
    Rules(#[from] RulesError),
    #[error("configuration `{key}`: {message}")]
    Invalid { key: &'static str, message: String },
}

impl Settings {
    /// Reads the layers from the working directory and the process environment.
    pub fn load() -> Result<Settings, ConfigError> {
        let mut settings = Settings::load_from(Settings::environment())?;
        if let Ok(url) = std::env::var("DATABASE_URL") {
            if !url.trim().is_empty() {
                settings.database.url = url;
            }
        }
        if let Ok(url) = std::env::var("REDIS_URL") {
            settings.champions.redis_url = url.trim().to_owned();
        }
        Ok(settings)
    }

    /// The `LOUNGE_SECTION__KEY` environment layer.
    pub fn environment() -> config::Environment {
        config::Environment::with_prefix("LOUNGE")
            .prefix_separator("_")
            .separator("__")
    }

    /// Reads the layers with `env` as the environment layer (tests pass their own).
    pub fn load_from(env: config::Environment) -> Result<Settings, ConfigError> {
        let settings: Settings = config::Config::builder()
            .add_source(config::File::from_str(DEFAULTS, config::FileFormat::Toml))
            .add_source(config::File::with_name("config/local.toml").required(false))
            .add_source(env)
            .build()?
            .try_deserialize()?;
        settings.validate()?;
        Ok(settings)
    }

    /// Several instances need a shared database and Redis: checked as the service starts,
    /// with the URLs every layer (and `DATABASE_URL`, `REDIS_URL`) gave.
    pub fn check_cluster(&self) -> Result<(), ConfigError> {
        if !self.cluster.enabled {
            return Ok(());
        }
        if self.cluster.redis_url(&self.champions).is_empty() {
            return Err(ConfigError::Invalid {
                key: "cluster.redis_url",
                message: "several instances need Redis: set it, or champions.redis_url".into(),
            });
        }
        if !matches!(
            self.database.url.parse(),
            Ok(crate::store::DatabaseUrl::Postgres(_))
        ) {
            return Err(ConfigError::Invalid {
                key: "database.url",
                message: "several instances share one PostgreSQL database (postgres://...)".into(),
            });
        }
        Ok(())
    }

    fn validate(&self) -> Result<(), ConfigError> {
        self.default_preset()?;
        if !self.auth.secret.is_empty() && self.auth.secret.len() < MIN_SECRET_BYTES {
            return Err(ConfigError::Invalid {
                key: "auth.secret",
                message: format!("must be at least {MIN_SECRET_BYTES} bytes"),
            });
        }
        if !(60..=30 * 86_400).contains(&self.auth.token_ttl_secs) {
            return Err(ConfigError::Invalid {
                key: "auth.token_ttl_secs",
                message: "60 to 2,592,000 (30 days)".into(),
            });
        }
        if !(60..=3650 * 86_400).contains(&self.auth.refresh_ttl_secs) {
            return Err(ConfigError::Invalid {
                key: "auth.refresh_ttl_secs",
                message: "60 to 315,360,000 (10 years)".into(),
            });
        }
        if !(1..=300).contains(&self.auth.ws_ticket_secs) {
            return Err(ConfigError::Invalid {
                key: "auth.ws_ticket_secs",
                message: "1 to 300".into(),
            });
        }
        if let Some(hotel) = &self.auth.hotel {
            if hotel.issuer.trim().is_empty()
                || hotel.audience.trim().is_empty()
                || hotel.jwks_file.trim().is_empty() == hotel.pem_file.trim().is_empty()
            {
                return Err(ConfigError::Invalid {
                    key: "auth.hotel",
                    message: "needs issuer, audience, and one of jwks_file or pem_file".into(),
                });
            }
        }
        self.champions.tz()?;
        if !(1..=1000).contains(&self.champions.per_opponent_cap) {
            return Err(ConfigError::Invalid {
                key: "champions.per_opponent_cap",
                message: "1 to 1000".into(),
            });
        }
        if self.champions.min_moves > 1000 {
            return Err(ConfigError::Invalid {
                key: "champions.min_moves",
                message: "0 to 1000".into(),
            });
        }
        if self.champions.new_account_secs > 10 * 365 * 86_400 {
            return Err(ConfigError::Invalid {
                key: "champions.new_account_secs",
                message: "0 to ten years".into(),
            });
        }
        if !(1..=60).contains(&self.apartment.invitations_per_minute) {
            return Err(ConfigError::Invalid {
                key: "apartment.invitations_per_minute",
                message: "1 to 60".into(),
            });
        }
        if !(1..=3600).contains(&self.world.status_every_secs) {
            return Err(ConfigError::Invalid {
                key: "world.status_every_secs",
                message: "1 to 3600".into(),
            });
        }
        if self.server.ws_flush_micros > 10_000 {
            return Err(ConfigError::Invalid {
                key: "server.ws_flush_micros",
                message: "0 to 10000 (10 ms)".into(),
            });
        }
        if self.world.chat_backlog > 1000 {
            return Err(ConfigError::Invalid {
                key: "world.chat_backlog",
                message: "0 to 1000".into(),
            });
        }
        if !(500..=600_000).contains(&self.cluster.lease_ms) {
            return Err(ConfigError::Invalid {
                key: "cluster.lease_ms",
                message: "500 to 600000 (10 minutes)".into(),
            });
        }
        if !(1..=3650).contains(&self.champions.keep_days) {
            return Err(ConfigError::Invalid {
                key: "champions.keep_days",
                message: "1 to 3650".into(),
            });
        }
        if !(0..=1_000_000_000).contains(&self.shop.welcome_coins) {
            return Err(ConfigError::Invalid {
                key: "shop.welcome_coins",
                message: "0 to 1,000,000,000".into(),
            });
        }
        if let Some(item) = self
            .shop
            .items
            .iter()
            .find(|i| i.price < 0 || i.stock.is_some_and(|s| s < 0) || i.id.trim().is_empty())
        {
            return Err(ConfigError::Invalid {
                key: "shop.items",
                message: format!("`{}` needs an id, a price and stock of 0 or more", item.id),
            });
        }
        for room in &self.hotel.rooms {
            if room.kind == crate::common::RoomKind::Apartment {
                return Err(ConfigError::Invalid {
                    key: "hotel.rooms.kind",
                    message: format!("`{}` is not lounge or talk", room.kind),
                });
            }
        }
        Ok(())
    }

    /// The preset named by `ayo.rules`.
    pub fn default_preset(&self) -> Result<Preset, RulesError> {
        self.ayo.rules.parse()
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
