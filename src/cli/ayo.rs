//! `lounge ayo ...`: the rules engine and Baba Ayo from the command line (replaying games and
//! records, perft, the engine and UCI-like protocols, matches, the opening book, fitting the
//! evaluation, checking against perfect play, building endgame databases, the rules as JSON).

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::{book, engine, fit, matches, perfect, replay, uci, CliError, MatchPlan};
use crate::ayo::{perft, Position, Rules, RulesError};
use crate::config::Settings;

/// A side of the board as `--first` takes it.
fn parse_side(raw: &str) -> Result<crate::ayo::Side, String> {
    match raw {
        "south" => Ok(crate::ayo::Side::South),
        "north" => Ok(crate::ayo::Side::North),
        _ => Err(format!("`{raw}` is not a side: south or north")),
    }
}

#[derive(Debug, Subcommand)]
pub enum AyoCommand {
    /// Replays games read one a line from standard input (pit numbers 1-6, South first
    /// unless --first north) and writes each game's last state, or every state with --trace,
    /// as JSON lines. With --record FILE, reads game records (docs/records.md) instead and
    /// checks each: its moves under its own rules, its result and how it ended.
    Replay {
        /// A file of game records (`-`: standard input), one or several a blank line apart;
        /// each record's tags give its rules and first mover.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["trace", "first", "rules", "overrides"])]
        record: Option<std::path::PathBuf>,
        #[command(flatten)]
        rules: RulesArgs,
        /// Write the state after every ply, ply 0 included, not just the last.
        #[arg(long)]
        trace: bool,
        /// The side that moves first in every game: south, or north (a game's `first`).
        #[arg(long, default_value = "south", value_parser = parse_side)]
        first: crate::ayo::Side,
    },
    /// Counts the positions reachable from the start in exactly DEPTH plies.
    Perft {
        #[command(flatten)]
        rules: RulesArgs,
        /// Plies to look ahead.
        depth: u32,
    },
    /// Prints the switches of a rule set as JSON.
    Rules {
        #[command(flatten)]
        rules: RulesArgs,
    },
    /// Baba Ayo as a JSON-lines engine: each line of standard input a request
    /// (`{"moves": [3, 1], "rules": "lagos", "rule": {...}, "level": "champion",
    /// "movetime_ms": 200}`), each line out its move, score, depth, nodes and line.
    Engine,
    /// Baba Ayo as an engine speaking the UCI-like protocol of Oware engines on standard input
    /// and output (`position startpos moves AdFb`, `go movetime N`, `bestmove X`).
    Uci {
        #[command(flatten)]
        rules: RulesArgs,
        /// easy, normal or champion.
        #[arg(long, default_value = "champion")]
        level: String,
        /// The evaluation's weights as JSON, as `lounge ayo fit` prints them (default: the
        /// built-in ones): for measuring a fit against the weights in use.
        #[arg(long, value_name = "JSON")]
        weights: Option<String>,
    },
    /// Plays two players over many games, colours alternating, and prints wins, draws and
    /// losses for the first with a confidence interval.
    Match {
        #[command(flatten)]
        rules: RulesArgs,
        /// The first player: easy, normal, champion, random, greedy, or external (the engine
        /// --external starts).
        a: String,
        /// The second player.
        b: String,
        #[arg(long, default_value_t = 200)]
        games: u32,
        /// The time a move, for the house and an external engine (default: each level's
        /// configured budget; an external engine needs it).
        #[arg(long, value_name = "MS")]
        movetime_ms: Option<u64>,
        /// Games played at once (an external engine runs once a thread).
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// Random plies opening each pair of games: a number, or a range (2-4) drawn a pair.
        #[arg(long, value_name = "N|MIN-MAX", default_value = "4")]
        opening_plies: String,
        /// The external engine: a program and its arguments, split at spaces, speaking the
        /// UCI-like protocol of Oware engines (`position startpos moves ...`, `go movetime N`,
        /// `bestmove`).
        #[arg(long, value_name = "COMMAND")]
        external: Option<String>,
    },
    /// Makes Baba Ayo's opening book: every position within PLIES plies of the start searched
    /// by the champion for a fixed time. Prints the book (src/ayo/book.txt is one).
    Book {
        #[command(flatten)]
        rules: RulesArgs,
        #[arg(long, default_value_t = 4)]
        plies: u32,
        #[arg(long, default_value_t = 1000)]
        movetime_ms: u64,
        #[arg(long, default_value_t = 2)]
        threads: usize,
    },
    /// Fits the evaluation's weights by least squares to the gains that followed the quiet
    /// positions of self-play games (the database's values where it knows them) and prints them.
    Fit {
        #[command(flatten)]
        rules: RulesArgs,
        #[arg(long, default_value_t = 2000)]
        games: u32,
        /// The fixed search depth of the games.
        #[arg(long, default_value_t = 8)]
        depth: u32,
    },
    /// Checks the champion's moves against the rule set's endgame database (the largest
    /// stored) on random boards it covers, or on every one; exits with 1 when a move falls
    /// short.
    Perfect {
        #[command(flatten)]
        rules: RulesArgs,
        #[arg(long, default_value_t = 10_000)]
        positions: u32,
        /// Every board the database covers, seed count by seed count, instead of a sample.
        #[arg(long, conflicts_with = "positions")]
        every: bool,
        /// Threads sharing the boards of `--every` (1 to 64).
        #[arg(long, default_value_t = 2, requires = "every")]
        threads: usize,
        #[arg(long, default_value_t = 100)]
        movetime_ms: u64,
    },
    /// Builds the endgame database for a rule set up to SEEDS seeds on the board and stores it
    /// in the configured folder, where the service finds it at start.
    Endgame {
        #[command(flatten)]
        rules: RulesArgs,
        seeds: u8,
    },
}

/// `--rules NAME [--rule KEY=VALUE]...`
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// The rule preset: lagos, kontest, oware or ayoayo (default: the configured `ayo.rules`).
    #[arg(long, value_name = "NAME")]
    pub rules: Option<String>,
    /// A rule override, repeatable: no_capture_limit=N, repetition=ends_game|ignored,
    /// grand_slam=captures_nothing|illegal, sowing=single|relay, capture=two_three|four.
    #[arg(long = "rule", value_name = "KEY=VALUE")]
    pub overrides: Vec<String>,
}

impl RulesArgs {
    fn resolve(&self, settings: &Settings) -> Result<Rules, RulesError> {
        let name = self.rules.as_deref().unwrap_or(&settings.ayo.rules);
        Rules::build(name, self.overrides.iter().map(String::as_str))
    }
}

/// Runs `lounge ayo <command>`.
pub(super) fn run(command: AyoCommand, settings: &Settings) -> Result<ExitCode, CliError> {
    match command {
        AyoCommand::Replay {
            record: Some(path), ..
        } => {
            let text = if path.as_os_str() == "-" {
                let mut text = String::new();
                io::Read::read_to_string(&mut io::stdin().lock(), &mut text)?;
                text
            } else {
                std::fs::read_to_string(&path)?
            };
            let stdout = BufWriter::new(io::stdout().lock());
            let report = replay::replay_records(&text, stdout)?;
            Ok(if report.failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        AyoCommand::Replay {
            rules,
            trace,
            first,
            record: None,
        } => {
            let rules = rules.resolve(settings)?;
            let stdin = io::stdin().lock();
            let stdout = BufWriter::new(io::stdout().lock());
            let report = replay::replay_from(&rules, first, trace, stdin, stdout)?;
            Ok(if report.failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        AyoCommand::Perft { rules, depth } => {
            let rules = rules.resolve(settings)?;
            let mut out = io::stdout().lock();
            for d in 1..=depth {
                writeln!(out, "{d} {}", perft(&Position::start(), &rules, d))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        AyoCommand::Engine => {
            let (budgets, endgames) = house(settings);
            engine::engine(
                &settings.ayo.rules,
                &budgets,
                &endgames,
                io::stdin().lock(),
                io::stdout().lock(),
            )?;
            Ok(ExitCode::SUCCESS)
        }
        AyoCommand::Uci {
            rules,
            level,
            weights,
        } => {
            let rules = rules.resolve(settings)?;
            let level = level.parse().map_err(CliError::Usage)?;
            let weights = weights
                .map(|w| {
                    serde_json::from_str(&w).map_err(|e| {
                        CliError::Usage(format!("--weights is not the weights' JSON: {e}"))
                    })
                })
                .transpose()?;
            // Past 16 seeds' worth a store seed, a lead of 48 would read as a proven result.
            let most = 16 * crate::ayo::search::SEED;
            if let Some(w) = &weights {
                let w: &crate::ayo::eval::Weights = w;
                if !(0..=most).contains(&w.store) {
                    return Err(CliError::Usage(format!(
                        "--weights: store is 0 to {most} (a seed is {})",
                        crate::ayo::search::SEED
                    )));
                }
            }
            let (budgets, endgames) = house(settings);
            uci::serve(
                rules,
                level,
                weights,
                &budgets,
                &endgames,
                io::stdin().lock(),
                io::stdout().lock(),
            )?;
            Ok(ExitCode::SUCCESS)
        }
        AyoCommand::Match {
            rules,
            a,
            b,
            games,
            movetime_ms,
            threads,
            opening_plies,
            external,
        } => {
            let plan = MatchPlan {
                a: a.parse().map_err(CliError::Usage)?,
                b: b.parse().map_err(CliError::Usage)?,
                games,
                rules: rules.resolve(settings)?,
                movetime: movetime_ms.map(std::time::Duration::from_millis),
                threads,
                openings: opening_plies.parse().map_err(CliError::Usage)?,
                external,
            };
            let (budgets, endgames) = house(settings);
            matches::report_match(&plan, &budgets, &endgames, io::stdout().lock())?;
            Ok(ExitCode::SUCCESS)
        }
        AyoCommand::Book {
            rules,
            plies,
            movetime_ms,
            threads,
        } => {
            let rules = rules.resolve(settings)?;
            if !crate::ayo::book::Book::applies_to(&rules) {
                return Err(CliError::Usage(
                    "the book is for single sowing with captures of two and three, and no no-capture limit nearer than 60 plies".into(),
                ));
            }
            if !(1..=6).contains(&plies) || !(1..=600_000).contains(&movetime_ms) {
                return Err(CliError::Usage(
                    "--plies is 1 to 6 and --movetime-ms 1 to 600000".into(),
                ));
            }
            let endgame = crate::house::Endgames::new(&settings.house).get(&rules);
            book::run(
                rules,
                plies,
                std::time::Duration::from_millis(movetime_ms),
                threads.clamp(1, 64),
                endgame,
                io::stdout().lock(),
                io::stderr().lock(),
            )?;
            Ok(ExitCode::SUCCESS)
        }
        AyoCommand::Fit {
            rules,
            games,
            depth,
        } => {
            let rules = rules.resolve(settings)?;
            let endgame = crate::house::Endgames::new(&settings.house).get(&rules);
            fit::run(rules, games, depth, endgame, io::stdout().lock())?;
            Ok(ExitCode::SUCCESS)
        }
        AyoCommand::Perfect {
            rules,
            positions,
            every,
            threads,
            movetime_ms,
        } => {
            let rules = rules.resolve(settings)?;
            if !(1..=600_000).contains(&movetime_ms) {
                return Err(CliError::Usage("--movetime-ms is 1 to 600000".into()));
            }
            if positions == 0 {
                return Err(CliError::Usage("--positions is at least 1".into()));
            }
            let db = crate::house::Endgames::new(&settings.house)
                .get(&rules)
                .ok_or_else(|| {
                    CliError::Usage("no endgame database applies to these rules".into())
                })?;
            if db.max_seeds() == 0 {
                return Err(CliError::Usage(
                    "the endgame database covers no seeds (house.endgame_seeds is 0 and none is stored)".into(),
                ));
            }
            let perfect = perfect::run(
                rules,
                &db,
                (!every).then_some(positions),
                threads.clamp(1, 64),
                std::time::Duration::from_millis(movetime_ms),
                io::stdout().lock(),
            )?;
            Ok(if perfect {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        AyoCommand::Endgame { rules, seeds } => {
            let rules = rules.resolve(settings)?;
            if seeds > 20 {
                return Err(CliError::Usage(format!(
                    "{seeds} seeds is past the largest database built and checked; 20 at most"
                )));
            }
            // Refused before it starts rather than killed by the kernel minutes in.
            let needed = crate::ayo::endgame::Endgame::memory_to_build(&rules, seeds);
            if let (Some(needed), Some(available)) = (needed, available_memory()) {
                if needed > available {
                    return Err(CliError::Usage(format!(
                        "{seeds} seeds under these rules needs about {:.1} GB of memory to build; {:.1} GB is available",
                        needed as f64 / 1e9,
                        available as f64 / 1e9
                    )));
                }
            }
            let started = std::time::Instant::now();
            let endgames = crate::house::Endgames::new(&settings.house);
            let (path, db) = endgames
                .build_and_store(&rules, seeds)
                .map_err(CliError::Io)?;
            let (boards, bytes) = db.size();
            let gaps = db.gaps();
            // Under repetition, how far the bounds leave the value open, in gain.
            let apart = if gaps.len() > 1 {
                let sum = gaps.iter().enumerate().map(|(k, &b)| k * b).sum::<usize>();
                format!(
                    "; bounds {:.2} apart on average, {} at most, in gain",
                    sum as f64 / boards as f64,
                    gaps.len() - 1
                )
            } else {
                String::new()
            };
            writeln!(
                io::stdout().lock(),
                "{}: up to {seeds} seeds, {boards} boards ({} known whatever the path{apart}), {bytes} bytes, built in {:.1} s",
                path.display(),
                gaps[0],
                started.elapsed().as_secs_f64()
            )?;
            Ok(ExitCode::SUCCESS)
        }
        AyoCommand::Rules { rules } => {
            let rules = rules.resolve(settings)?;
            let json = serde_json::to_string_pretty(&rules).map_err(io::Error::other)?;
            writeln!(io::stdout().lock(), "{json}")?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The memory the kernel says is free to take (`MemAvailable` in `/proc/meminfo`), in bytes;
/// `None` where that cannot be read (not Linux).
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Baba Ayo as the settings make him: his thinking budgets and his endgame databases.
fn house(settings: &Settings) -> (crate::house::Budgets, crate::house::Endgames) {
    (
        crate::house::Budgets::from_settings(&settings.house),
        crate::house::Endgames::new(&settings.house),
    )
}
