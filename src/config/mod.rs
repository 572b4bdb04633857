//! Settings, layered: `config/default.toml` (built in), `config/local.toml`, `LOUNGE_*`
//! environment variables (and `DATABASE_URL`).

use serde::Deserialize;
use thiserror::Error;

use crate::ayo::{Preset, RulesError};

mod auth;
mod check;

pub use auth::{AuthSettings, HotelIdpSettings, MIN_SECRET_BYTES};

/// The built-in defaults: the same file operators read.
const DEFAULTS: &str = include_str!("../../config/default.toml");

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
    pub ratings: RatingsSettings,
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
    /// Changes one guest makes at the tables that the room hears (sitting, standing, match
    /// settings, rematch presses, draw offers...): a minute on average, and in a burst.
    pub table_changes_per_minute: u32,
    pub table_changes_burst: u32,
}

/// Glicko-2 ratings of games between people (`ratings/`): the same settings must be used by
/// the running reader and by `lounge ratings rebuild` for the two to agree.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct RatingsSettings {
    /// Glicko-2's tau: how much volatility may change.
    pub tau: f64,
    /// A newcomer's rating, deviation and volatility.
    pub initial_rating: f64,
    pub initial_deviation: f64,
    pub initial_volatility: f64,
    /// A rating is provisional while its deviation is at or above this.
    pub provisional_deviation: f64,
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
    /// Baba Ayo's time to review a whole game, in milliseconds, shared among its positions.
    pub review_ms: u64,
    /// Reviews a guest may ask for in a hotel day (operators have no allowance).
    pub reviews_per_day: u32,
    /// Whether Baba Ayo reviews every rated game by himself, read from the results as they
    /// end (after the reviews guests asked for).
    pub review_rated: bool,
    /// How long after the last move played here a review thinks: it waits while games are
    /// moving, so it never slows one (0: it thinks whatever is played).
    pub review_quiet_ms: u64,
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
    /// Seconds two guests the pool paired have to accept.
    pub pairing_answer_secs: u64,
    /// Seconds one who let a pairing go may not seek again.
    pub seek_cooldown_secs: u64,
    /// Seconds a seeker waits with nobody before Baba Ayo is offered.
    pub seek_house_after_secs: u64,
    /// Seconds a guest called from a table's queue has to take the seat.
    pub queue_call_secs: u64,
    /// Wins in a row after which a winner staying on at a queued table stands too.
    pub queue_straight_wins: u8,
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
    /// TCP connections one peer holds at once (trusted proxies aside).
    pub connections_per_address: usize,
    /// Event streams (`/champions/stream`) open at once from one address.
    pub streams_per_address: usize,
    /// Open files kept free of connections (the database, Redis, files): the server accepts
    /// no more connections than the open-file limit leaves after these.
    pub descriptor_reserve: usize,
    /// Seconds a request's body may take to arrive whole.
    pub body_timeout_secs: u64,
    /// HTTP requests from one address a second on average, and at once (health checks,
    /// metrics and the WebSocket's upgrade aside).
    pub requests_per_sec: f64,
    pub request_burst: f64,
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

    /// The preset named by `ayo.rules`.
    pub fn default_preset(&self) -> Result<Preset, RulesError> {
        self.ayo.rules.parse()
    }
}
