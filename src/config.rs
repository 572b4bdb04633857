//! Settings, layered: `config/default.toml` (built in), `config/local.toml`, `LOUNGE_*`
//! environment variables.

use serde::Deserialize;
use thiserror::Error;

use crate::ayo::{Preset, RulesError};

/// The built-in defaults: the same file operators read.
const DEFAULTS: &str = include_str!("../config/default.toml");

#[derive(Debug, Clone, Deserialize)]
pub struct Settings {
    pub ayo: AyoSettings,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AyoSettings {
    /// The preset a game plays unless told otherwise.
    pub rules: String,
}

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("configuration: {0}")]
    Load(#[from] config::ConfigError),
    #[error("configuration `ayo.rules`: {0}")]
    Rules(#[from] RulesError),
}

impl Settings {
    /// Reads the layers from the working directory and the process environment.
    pub fn load() -> Result<Settings, ConfigError> {
        Settings::load_from(Settings::environment())
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
        settings.default_preset()?;
        Ok(settings)
    }

    /// The preset named by `ayo.rules`.
    pub fn default_preset(&self) -> Result<Preset, RulesError> {
        self.ayo.rules.parse()
    }
}
