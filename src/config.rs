//! Settings, layered: `config/default.toml` (built in), `config/local.toml`, `LOUNGE_*`
//! environment variables (and `DATABASE_URL`).

use serde::Deserialize;
use thiserror::Error;

use crate::ayo::{Preset, RulesError};

/// The built-in defaults: the same file operators read.
const DEFAULTS: &str = include_str!("../config/default.toml");

/// The development secret of `config/default.toml`, which a production service must replace.
pub const DEVELOPMENT_SECRET: &str = "lagos-hotel-development-secret-change-me";

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
    pub table_log_events: usize,
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
}

#[derive(Debug, Clone, Deserialize)]
pub struct DatabaseSettings {
    pub url: String,
    pub max_connections: u32,
}

#[derive(Clone, Deserialize)]
pub struct AuthSettings {
    pub secret: String,
    pub issuer: String,
    pub token_ttl_secs: u64,
}

impl std::fmt::Debug for AuthSettings {
    /// Never prints the secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthSettings")
            .field("issuer", &self.issuer)
            .field("token_ttl_secs", &self.token_ttl_secs)
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

    fn validate(&self) -> Result<(), ConfigError> {
        self.default_preset()?;
        if self.auth.secret.len() < 16 {
            return Err(ConfigError::Invalid {
                key: "auth.secret",
                message: "must be at least 16 characters".into(),
            });
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
