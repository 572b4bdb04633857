//! The `lounge` command line.

mod ayo;
mod book;
mod engine;
mod external;
mod fit;
mod matches;
mod perfect;
mod ratings;
mod replay;
mod uci;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use thiserror::Error;

use crate::ayo::RulesError;
use crate::common::OperatorName;
use crate::config::{ConfigError, Settings};

pub use ayo::{AyoCommand, RulesArgs};
pub use external::{parse_pit, pit_letter, position_line, External, ExternalError};
pub use matches::{play_match, MatchError, MatchPlan, MatchResult, Openings, Player, Tally};
pub use replay::{replay, replay_from, ReplayReport, MAX_LINE};

#[derive(Debug, Parser)]
#[command(
    name = "lounge",
    version,
    about = "The lounge service behind Lagos Hotel"
)]
pub struct Cli {
    /// What to do; `serve` when none is given.
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serves the lounge: HTTP API, WebSocket and the rooms (the default).
    Serve {
        /// The address to listen on (default: the configured `server.bind`).
        #[arg(long, value_name = "ADDR")]
        bind: Option<String>,
    },
    /// The Ayo rules engine.
    #[command(subcommand)]
    Ayo(AyoCommand),
    /// Operators' tools.
    #[command(subcommand)]
    Admin(AdminCommand),
    /// Today's champions.
    #[command(subcommand)]
    Champions(ChampionsCommand),
    /// Players' ratings.
    #[command(subcommand)]
    Ratings(ratings::RatingsCommand),
    /// Prints the OpenAPI document of every HTTP route (what `GET /api/v1/openapi.json`
    /// serves), so it can be read without a running service.
    Openapi,
}

#[derive(Debug, Subcommand)]
pub enum ChampionsCommand {
    /// Recomputes a day's wall from the stored games (the database is the source of truth)
    /// and writes it to the configured wall.
    Rebuild {
        /// The hotel's day, YYYY-MM-DD.
        #[arg(long, value_name = "YYYY-MM-DD")]
        date: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Prints an admin token (a JWT with the admin role) signed with the service's secret (the
    /// configured one, or the one kept in `auth.secret_file`).
    Token {
        /// Who the token is for: every admin action is audited under this name.
        #[arg(long, value_name = "NAME")]
        subject: String,
        /// How long it lasts: a number with s, m, h or d (`90m`, `1h`, `7d`), 30 days at most.
        #[arg(long, value_name = "DURATION", default_value = "1h")]
        ttl: String,
    },
}

/// `90s`, `30m`, `1h`, `7d`, or plain seconds; from a second to 30 days.
pub fn parse_ttl(raw: &str) -> Result<std::time::Duration, String> {
    let raw = raw.trim();
    let (number, unit) = match raw.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => raw.split_at(i),
        None => (raw, "s"),
    };
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(format!("`{raw}` is not a duration like 90m, 1h or 7d")),
    };
    let seconds = number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|s| (1..=30 * 86_400).contains(s))
        .ok_or_else(|| format!("`{raw}` is not a duration from 1s to 30d"))?;
    Ok(std::time::Duration::from_secs(seconds))
}

/// What stops a command before it does its work.
#[derive(Debug, Error)]
pub enum CliError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Rules(#[from] RulesError),
    #[error("i/o: {0}")]
    Io(#[from] io::Error),
    #[error("cannot start: {0}")]
    Startup(#[from] crate::app::StartupError),
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Match(#[from] MatchError),
}

/// Serves until SIGINT or SIGTERM.
fn serve(settings: Settings) -> Result<(), CliError> {
    let filter = tracing_subscriber::EnvFilter::try_from_env("LOUNGE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let ansi = std::io::IsTerminal::is_terminal(&io::stdout());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .try_init();
    actix_web::rt::System::new().block_on(async move {
        let app = crate::app::Application::build(&settings).await?;
        tracing::info!(bind = %settings.server.bind, port = app.port(), "the lounge is open");
        app.run_until_stopped().await?;
        tracing::info!("the lounge is closed");
        Ok(())
    })
}

fn print_openapi() -> Result<ExitCode, CliError> {
    let doc = crate::http::openapi()
        .to_pretty_json()
        .map_err(io::Error::other)?;
    println!("{doc}");
    Ok(ExitCode::SUCCESS)
}

/// Runs a parsed command line; the exit code follows the command's own rules.
pub fn run(cli: Cli) -> Result<ExitCode, CliError> {
    // The document is the code's: it needs no settings (and no signing secret).
    if let Some(Command::Openapi) = cli.command {
        return print_openapi();
    }
    let mut settings = Settings::load()?;
    match cli.command.unwrap_or(Command::Serve { bind: None }) {
        Command::Serve { bind } => {
            if let Some(bind) = bind {
                settings.server.bind = bind;
            }
            serve(settings)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Openapi => print_openapi(),
        Command::Champions(ChampionsCommand::Rebuild { date }) => {
            let day = crate::champions::parse_day(&date)
                .ok_or_else(|| CliError::Usage(format!("--date `{date}` is not YYYY-MM-DD")))?;
            let report = actix_web::rt::System::new().block_on(async move {
                let url: crate::store::DatabaseUrl = settings
                    .database
                    .url
                    .parse()
                    .map_err(|e: crate::store::StoreError| CliError::Usage(e.to_string()))?;
                let store = crate::store::Store::open(&url, 2)
                    .map_err(|e| CliError::Usage(e.to_string()))?;
                let champions = crate::app::champions(&settings, store)?;
                champions
                    .rebuild(day)
                    .await
                    .map_err(|e| CliError::Usage(format!("rebuilding {date}: {e}")))
            })?;
            let json = serde_json::to_string(&report).map_err(io::Error::other)?;
            writeln!(io::stdout().lock(), "{json}")?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Ratings(command) => ratings::run(command, &settings),
        Command::Admin(AdminCommand::Token { subject, ttl }) => {
            let ttl = parse_ttl(&ttl).map_err(CliError::Usage)?;
            let subject = subject.trim();
            if subject.is_empty() || subject.len() > 64 || subject.chars().any(char::is_control) {
                return Err(CliError::Usage(
                    "--subject is a name of 1 to 64 characters".into(),
                ));
            }
            // The same secret as `lounge serve` in this folder: configured, or kept in the data
            // folder.
            let auth = crate::app::signer(&settings).map_err(|e| CliError::Usage(e.to_string()))?;
            let operator = crate::http::auth::Subject::Operator(OperatorName::new(subject));
            let token = auth
                .issue(&operator, subject, Some(ttl))
                .map_err(|e| CliError::Usage(e.to_string()))?;
            writeln!(io::stdout().lock(), "{token}")?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Ayo(command) => ayo::run(command, &settings),
    }
}
