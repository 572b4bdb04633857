//! `lounge ratings rebuild`: every rating recomputed from the stored results.

use std::io::{self, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::Subcommand;

use super::CliError;
use crate::config::Settings;
use crate::ratings::Ratings;
use crate::store::{DatabaseUrl, Store, StoreError};

#[derive(Debug, Subcommand)]
pub enum RatingsCommand {
    /// Forgets every rating and rates every stored result again, in the order the results
    /// were stored, with the configured `[ratings]`: the ratings the running service keeps.
    /// Prints what it did as JSON (`{"results", "rated", "ratings"}`).
    Rebuild,
}

/// How long a rebuild waits for an instance that is rating results just then.
const WAIT_FOR_TURN: Duration = Duration::from_secs(30);

pub fn run(command: RatingsCommand, settings: &Settings) -> Result<ExitCode, CliError> {
    match command {
        RatingsCommand::Rebuild => {
            let url: DatabaseUrl = settings
                .database
                .url
                .parse()
                .map_err(|e: StoreError| CliError::Usage(e.to_string()))?;
            let store = Store::open(&url, 2).map_err(|e| CliError::Usage(e.to_string()))?;
            let ratings = Ratings::new(store, crate::app::rating_rules(&settings.ratings));
            let report = ratings
                .rebuild(WAIT_FOR_TURN)
                .map_err(|e| CliError::Usage(format!("rebuilding the ratings: {e}")))?;
            let json = serde_json::to_string(&report).map_err(io::Error::other)?;
            writeln!(io::stdout().lock(), "{json}")?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
