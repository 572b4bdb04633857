//! Baba Ayo's levels: how deep and how long he thinks, and how a beginner's opponent slips.

use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::board::{Moves, Pit, Side};
use super::book::BOOK;
use super::endgame::Endgame;
use super::game::Game;
use super::search::{Limits, Searcher, Thought, MAX_PLY, SEED};

/// How well Baba Ayo plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// One ply and what it captures, and one move in two a human-looking slip.
    Easy,
    /// A sound club player: a fixed horizon, no databases.
    Normal,
    /// All it has: as deep as its time allows, with the endgame databases.
    Champion,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Easy, Level::Normal, Level::Champion];

    pub fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Normal => "normal",
            Level::Champion => "champion",
        }
    }

    /// The deepest this level searches (plies).
    fn max_depth(self) -> u32 {
        match self {
            Level::Easy => 1,
            Level::Normal => 8,
            Level::Champion => MAX_PLY as u32 - 1,
        }
    }

    /// Transposition-table size, as a power of two.
    fn table_bits(self) -> u32 {
        match self {
            Level::Easy => 12,
            Level::Normal => 18,
            Level::Champion => 22,
        }
    }
}

impl FromStr for Level {
    type Err = String;

    fn from_str(s: &str) -> Result<Level, String> {
        Level::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| format!("unknown level `{s}`: expected easy, normal or champion"))
    }
}

/// One request to think.
pub struct Ask<'a> {
    pub game: &'a Game,
    pub level: Level,
    /// The time to think (the level's budget, or the caller's).
    pub movetime: Duration,
    /// Used by `champion` when it holds values for the game's rules ([`think`]; a searcher
    /// for [`think_with`] was given its database by [`mind`]).
    pub endgame: Option<Arc<Endgame>>,
    /// Seeds the easy level's slips, so a game can be replayed.
    pub seed: u64,
    pub stop: Option<Arc<AtomicBool>>,
    /// Whether the champion answers from his opening book where it holds the position (play
    /// does; an analysis searches).
    pub book: bool,
}

/// Baba Ayo's move for the side to move; `None` once the game is over.
pub fn think(ask: Ask<'_>) -> Option<Thought> {
    let mut searcher = mind(ask.level, ask.game.rules(), ask.endgame.clone());
    think_with(&mut searcher, ask)
}

/// A searcher for `level` under `rules`. Its table is large for `champion` (64 MiB): keep it
/// for the next move and [`think_with`] it, as the service does.
pub fn mind(level: Level, rules: &super::Rules, endgame: Option<Arc<Endgame>>) -> Searcher {
    let endgame = endgame.filter(|_| level == Level::Champion);
    Searcher::new(*rules, level.table_bits(), endgame)
}

/// [`think`] with a searcher made by [`mind`] for the same level and rules; what its table
/// learnt of earlier positions helps.
pub fn think_with(searcher: &mut Searcher, ask: Ask<'_>) -> Option<Thought> {
    let Ask {
        game,
        level,
        movetime,
        seed,
        stop,
        book,
        ..
    } = ask;
    debug_assert_eq!(searcher.rules(), game.rules());
    if book && level == Level::Champion {
        if let Some(entry) = BOOK.get(game) {
            return Some(Thought {
                best: entry.best,
                score: entry.score,
                value: entry.score * SEED,
                proven: false,
                depth: 0,
                nodes: 0,
                pv: vec![entry.best],
            });
        }
    }
    let limits = Limits {
        max_depth: level.max_depth(),
        deadline: Some(Instant::now() + movetime),
        stop: stop.clone(),
        pause: None,
    };
    let deadline = limits.deadline;
    let mut thought = searcher.think(game, limits)?;
    match level {
        Level::Easy => slip(searcher, game, seed, &mut thought),
        _ if thought.proven && thought.value < 0 => {
            swindle(searcher, game, &mut thought, deadline, stop.as_ref());
        }
        _ => {}
    }
    Some(thought)
}

/// Whether Baba Ayo, playing `side`, takes a draw offered in `game`: when, thinking for
/// `movetime` at `level`, the game is a proven draw or loss for him, or he stands worse by
/// more than a seed. A win he can see, or a position he likes, he plays on.
pub fn takes_draw(searcher: &mut Searcher, ask: Ask<'_>, side: Side) -> bool {
    debug_assert_eq!(searcher.rules(), ask.game.rules());
    let limits = Limits {
        max_depth: ask.level.max_depth(),
        deadline: Some(Instant::now() + ask.movetime),
        stop: ask.stop,
        pause: None,
    };
    let Some(t) = searcher.think(ask.game, limits) else {
        // Over already: nothing to take.
        return false;
    };
    // The search scores for the side to move.
    let value = if ask.game.to_move() == Some(side) {
        t.value
    } else {
        -t.value
    };
    if t.proven {
        value <= 0
    } else {
        value < -SEED
    }
}

/// A lost game played for the opponent's mistakes. Against perfect play every move loses, and
/// the search picked the one that loses by least; a person is not perfect, so Baba Ayo plays
/// the move after which most of the opponent's replies let the win slip (he is no longer
/// proven lost after them), and among those the one with the most replies to choose from.
/// Within what is left of the move's time; out of time, the search's move stands.
fn swindle(
    searcher: &mut Searcher,
    game: &Game,
    thought: &mut Thought,
    deadline: Option<Instant>,
    stop: Option<&Arc<AtomicBool>>,
) {
    let me = game.to_move();
    let depth = thought.depth.saturating_sub(1).max(1);
    let out_of_time = || {
        deadline.is_some_and(|d| Instant::now() >= d)
            || stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
    };
    // (escapes, replies, whether it is the search's own move): the most of each wins.
    let mut best: Option<((usize, usize, bool), Pit)> = None;
    for pit in game.legal_moves().iter() {
        let mut after = game.clone();
        if after.play(pit).is_err() {
            continue;
        }
        let replies = if after.is_over() {
            Moves::default()
        } else {
            after.legal_moves()
        };
        let mut escapes = 0;
        for reply in replies.iter() {
            if out_of_time() {
                return;
            }
            let mut next = after.clone();
            if next.play(reply).is_err() {
                continue;
            }
            let slips = if next.is_over() {
                next.status().winner() != me.map(|s| s.opponent())
            } else {
                let limits = Limits {
                    max_depth: depth,
                    deadline,
                    stop: stop.cloned(),
                    pause: None,
                };
                searcher
                    .think(&next, limits)
                    .is_some_and(|t| !(t.proven && t.value < 0))
            };
            escapes += usize::from(slips);
        }
        let rank = (escapes, replies.len(), pit == thought.best);
        if best.as_ref().is_none_or(|(r, _)| rank > *r) {
            best = Some((rank, pit));
        }
    }
    if out_of_time() {
        return;
    }
    if let Some(((escapes, _, _), pit)) = best {
        if escapes > 0 && pit != thought.best {
            thought.best = pit;
            thought.pv = vec![pit];
        }
    }
}

/// A beginner's mistakes: one move in two is not the best one but one that looks nearly as
/// good at a glance (within seven seeds a ply ahead, by the evaluation), and one in five of
/// those any move at all. Seven, not three: the fitted evaluation spreads moves wider than the
/// one this level was first tuned with, and with three `easy` beat `greedy` 86% of the time
/// instead of the 63% a beginner can still beat (BENCHMARKS.md).
fn slip(searcher: &mut Searcher, game: &Game, seed: u64, thought: &mut Thought) {
    let mut rng = seed | 1;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    if next() % 2 != 0 {
        return;
    }
    let ranked = searcher.rank_moves(game, 1);
    let Some(&(_, best)) = ranked.first() else {
        return;
    };
    let plausible: Vec<_> = if next() % 5 == 0 {
        ranked.clone()
    } else {
        ranked
            .iter()
            .copied()
            .filter(|&(_, v)| best - v <= 7 * SEED)
            .collect()
    };
    let (pit, value) = plausible[(next() % plausible.len() as u64) as usize];
    if pit != thought.best {
        let (score, proven) = super::search::seeds(value);
        thought.best = pit;
        thought.score = score;
        thought.value = value;
        thought.proven = proven;
        thought.pv = vec![pit];
    }
}
