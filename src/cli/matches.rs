//! `lounge ayo match`: two players over many games, colours swapped in pairs, each pair from
//! the same random opening, and A's wins, draws and losses with the score.
//!
//! A player is a house level, a stand-in (random, greedy), or an engine outside the lounge
//! ([`super::external`]). The lounge referees every game under the match's rules, whoever
//! plays: an outside engine's move is checked against them, and its idea of the result is
//! never asked.

use std::collections::HashMap;
use std::io::Write;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use thiserror::Error;

use super::external::{position_line, External, ExternalError};
use crate::ayo::endgame::Endgame;
use crate::ayo::house::{self, Ask, Level};
use crate::ayo::{Game, Pit, Rules, Side};
use crate::house::{Budgets, Endgames};

/// Searchers kept between moves, by level and rules.
pub(super) type Minds = HashMap<(Level, String), crate::ayo::search::Searcher>;

/// A player in a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
    House(Level),
    /// A uniformly random legal move.
    Random,
    /// The move that captures most now (the lowest pit among equals).
    Greedy,
    /// The engine `MatchPlan::external` starts, one process a match thread.
    External,
}

impl FromStr for Player {
    type Err = String;

    fn from_str(s: &str) -> Result<Player, String> {
        match s {
            "random" => Ok(Player::Random),
            "greedy" => Ok(Player::Greedy),
            "external" => Ok(Player::External),
            level => level.parse().map(Player::House).map_err(|_| {
                format!(
                    "unknown player `{s}`: expected easy, normal, champion, random, greedy or external"
                )
            }),
        }
    }
}

impl std::fmt::Display for Player {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Player::House(l) => f.write_str(l.name()),
            Player::Random => f.write_str("random"),
            Player::Greedy => f.write_str("greedy"),
            Player::External => f.write_str("external"),
        }
    }
}

/// How a match went, for the first player.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The score (a draw is half) and its 95% confidence half-width.
    pub fn score(&self) -> (f64, f64) {
        let n = f64::from(self.games().max(1));
        let mean = (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / n;
        let var = (f64::from(self.wins) * (1.0 - mean).powi(2)
            + f64::from(self.draws) * (0.5 - mean).powi(2)
            + f64::from(self.losses) * mean.powi(2))
            / n;
        (mean, 1.96 * (var / n).sqrt())
    }
}

/// How many random plies open each pair of games: `4`, or a range such as `2-4` (the count
/// drawn for each pair).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Openings {
    pub fewest: u32,
    pub most: u32,
}

impl FromStr for Openings {
    type Err = String;

    fn from_str(s: &str) -> Result<Openings, String> {
        let bad = || format!("opening plies are a number (4) or a range (2-4), not `{s}`");
        let (fewest, most) = match s.split_once('-') {
            Some((a, b)) => (a.trim().parse(), b.trim().parse()),
            None => (s.trim().parse(), s.trim().parse()),
        };
        let (fewest, most) = (fewest.map_err(|_| bad())?, most.map_err(|_| bad())?);
        if fewest > most {
            return Err(bad());
        }
        Ok(Openings { fewest, most })
    }
}

impl std::fmt::Display for Openings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.fewest == self.most {
            write!(f, "{}", self.most)
        } else {
            write!(f, "{}-{}", self.fewest, self.most)
        }
    }
}

pub struct MatchPlan {
    pub a: Player,
    pub b: Player,
    pub games: u32,
    pub rules: Rules,
    /// The time a move, for the house and an external engine; `None` for each level's budget
    /// (an external engine then needs it).
    pub movetime: Option<Duration>,
    pub threads: usize,
    /// Random plies that open each pair of games, so deterministic players meet new games.
    pub openings: Openings,
    /// The command that starts the external engine, when a player is one.
    pub external: Option<String>,
}

/// A match that could not be played to the end.
#[derive(Debug, Error)]
#[error("game {game} ({position}): {source}; the match stopped at +{} ={} -{}", .so_far.wins, .so_far.draws, .so_far.losses)]
pub struct MatchError {
    /// Numbered from 1.
    pub game: u32,
    /// Where it was: the `position` line an external engine would be sent.
    pub position: String,
    pub so_far: Tally,
    pub source: ExternalError,
}

/// A match played: A's tally, and each player's longest move as the match saw it (an
/// external engine's includes its pipe).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchResult {
    pub tally: Tally,
    pub longest: [Duration; 2],
}

pub(super) fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// What one match thread keeps between games: house searchers, and an external engine for
/// each player that is one (started at the first game that needs it).
struct Seat {
    /// The champion's endgame database, when one applies.
    endgame: Option<Arc<Endgame>>,
    minds: Minds,
    external: [Option<External>; 2],
}

/// Plays `plan.games` games, A taking South in the even ones; each pair shares its opening.
/// Stops at an external engine's first fault, and says in which game.
pub fn play_match(
    plan: &MatchPlan,
    budgets: &Budgets,
    endgames: &Endgames,
    progress: impl Fn(u32, Tally) + Sync,
) -> Result<MatchResult, MatchError> {
    let next = AtomicUsize::new(0);
    let result = Mutex::new(MatchResult {
        tally: Tally::default(),
        longest: [Duration::ZERO; 2],
    });
    let failed = AtomicBool::new(false);
    let fault: Mutex<Option<MatchError>> = Mutex::new(None);
    let champion = Player::House(Level::Champion);
    let endgame = (plan.a == champion || plan.b == champion)
        .then(|| endgames.get(&plan.rules))
        .flatten();
    std::thread::scope(|scope| {
        for _ in 0..plan.threads.max(1) {
            scope.spawn(|| {
                let mut seat = Seat {
                    endgame: endgame.clone(),
                    minds: Minds::new(),
                    external: [None, None],
                };
                while !failed.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed) as u32;
                    if i >= plan.games {
                        break;
                    }
                    let (mut game, mut rng) = opening(plan, i);
                    let mut longest = [Duration::ZERO; 2];
                    let played = play_game(
                        plan,
                        budgets,
                        &mut seat,
                        i,
                        &mut rng,
                        &mut game,
                        &mut longest,
                    );
                    let mut r = result.lock().expect("no thread panics holding it");
                    for (l, this) in r.longest.iter_mut().zip(longest) {
                        *l = (*l).max(this);
                    }
                    if let Err(source) = played {
                        failed.store(true, Ordering::Relaxed);
                        let mut f = fault.lock().expect("no thread panics holding it");
                        f.get_or_insert(MatchError {
                            game: i + 1,
                            position: position_line(&game),
                            so_far: r.tally,
                            source,
                        });
                        break;
                    }
                    let t = &mut r.tally;
                    match game.status().winner() {
                        None => t.draws += 1,
                        Some(side) if (side == Side::South) == i.is_multiple_of(2) => t.wins += 1,
                        Some(_) => t.losses += 1,
                    }
                    progress(t.games(), *t);
                }
            });
        }
    });
    match fault.into_inner().unwrap_or_default() {
        Some(e) => Err(e),
        None => Ok(result.into_inner().expect("no thread panicked")),
    }
}

/// Game `i`'s opening, and the generator after it (which seeds the easy level's slips and the
/// random player): random plies from a generator seeded by its pair, so both games of a pair
/// start alike. With a fixed count nothing more is drawn than before ranges existed, so the
/// matches measured then repeat.
fn opening(plan: &MatchPlan, i: u32) -> (Game, u64) {
    let mut rng = pair_rng(i);
    let Openings { fewest, most } = plan.openings;
    let plies = if fewest == most {
        most
    } else {
        fewest + (xorshift(&mut rng) % u64::from(most - fewest + 1)) as u32
    };
    let mut game = Game::new(plan.rules);
    for _ in 0..plies {
        let legal = game.legal_moves();
        if game.is_over() || legal.is_empty() {
            break;
        }
        let pit = legal.nth((xorshift(&mut rng) % legal.len() as u64) as usize);
        game.play(pit.expect("within the set")).expect("legal");
    }
    (game, rng)
}

fn pair_rng(i: u32) -> u64 {
    0x2545_F491_4F6C_DD1Du64 ^ u64::from(i / 2 + 1).wrapping_mul(0x9E37_79B9)
}

/// Plays game `i` on from its opening to the end.
fn play_game(
    plan: &MatchPlan,
    budgets: &Budgets,
    seat: &mut Seat,
    i: u32,
    rng: &mut u64,
    game: &mut Game,
    longest: &mut [Duration; 2],
) -> Result<(), ExternalError> {
    let a_south = i.is_multiple_of(2);
    for (who, player) in [plan.a, plan.b].into_iter().enumerate() {
        if let Player::House(level) = player {
            // Made before any move is timed: a first move pays nothing for its table.
            seat.minds
                .entry((level, String::new()))
                .or_insert_with(|| house::mind(level, game.rules(), seat.endgame.clone()));
        }
        if player == Player::External {
            let engine = match seat.external[who].take() {
                Some(engine) => engine,
                None => External::start(plan.external.as_deref().unwrap_or_default())?,
            };
            let engine = seat.external[who].insert(engine);
            engine.new_game()?;
        }
    }
    while !game.is_over() {
        let south = game.position().to_move() == Side::South;
        let who = usize::from(south != a_south);
        let player = [plan.a, plan.b][who];
        let seed = xorshift(rng);
        let started = Instant::now();
        let pit = choose(player, who, game, plan, budgets, seat, seed)?;
        longest[who] = longest[who].max(started.elapsed());
        game.play(pit).expect("moves are checked legal");
    }
    Ok(())
}

fn choose(
    player: Player,
    who: usize,
    game: &Game,
    plan: &MatchPlan,
    budgets: &Budgets,
    seat: &mut Seat,
    mut seed: u64,
) -> Result<Pit, ExternalError> {
    let legal = game.legal_moves();
    Ok(match player {
        Player::Random => legal
            .nth((xorshift(&mut seed) % legal.len() as u64) as usize)
            .expect("within the set"),
        Player::Greedy => legal
            .iter()
            .max_by_key(|&pit| {
                let mut p = *game.position();
                (p.sow(game.rules(), pit).captured, std::cmp::Reverse(pit))
            })
            .expect("a move"),
        Player::House(level) => {
            let searcher = seat
                .minds
                .entry((level, String::new()))
                .or_insert_with(|| house::mind(level, game.rules(), seat.endgame.clone()));
            house::think_with(
                searcher,
                Ask {
                    game,
                    level,
                    movetime: plan.movetime.unwrap_or_else(|| budgets.of(level)),
                    endgame: None,
                    seed,
                    stop: None,
                    book: true,
                },
            )
            .expect("the game goes on")
            .best
        }
        Player::External => {
            let engine = seat.external[who].as_mut().expect("started for the game");
            let movetime = plan.movetime.expect("checked before the match");
            engine.best_move(game, movetime)?
        }
    })
}

/// Prints a match as it goes and its result.
pub fn report_match(
    plan: &MatchPlan,
    budgets: &Budgets,
    endgames: &Endgames,
    mut out: impl Write,
) -> Result<MatchResult, super::CliError> {
    let uses_external = plan.a == Player::External || plan.b == Player::External;
    if uses_external && plan.external.as_deref().is_none_or(|c| c.trim().is_empty()) {
        return Err(super::CliError::Usage(
            "an `external` player needs --external COMMAND (the engine and its arguments)".into(),
        ));
    }
    if uses_external && plan.movetime.is_none() {
        return Err(super::CliError::Usage(
            "an `external` player needs --movetime-ms".into(),
        ));
    }
    let started = Instant::now();
    let result = play_match(plan, budgets, endgames, |n, t| {
        if n % 20 == 0 || uses_external {
            eprintln!("{n} games: +{} ={} -{}", t.wins, t.draws, t.losses);
        }
    })?;
    let MatchResult { tally, longest } = result;
    let (score, ci) = tally.score();
    writeln!(
        out,
        "{} vs {} ({}, {} games, colours alternating, {} random opening plies): {} wins, {} draws, {} losses; score {:.1}% ± {:.1}% (95%); longest move {} ms and {} ms; {:.0} s",
        plan.a,
        plan.b,
        plan.rules.preset.name(),
        tally.games(),
        plan.openings,
        tally.wins,
        tally.draws,
        tally.losses,
        score * 100.0,
        ci * 100.0,
        longest[0].as_millis(),
        longest[1].as_millis(),
        started.elapsed().as_secs_f64()
    )?;
    Ok(result)
}
