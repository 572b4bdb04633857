//! Baba Ayo's search: iterative deepening negamax with principal-variation search, a
//! two-tier transposition table over Zobrist keys, captures first then killers and history,
//! late quiet moves reduced, a quiescence search over capture sequences, endgame-database
//! values where they apply, and a hard time limit.
//!
//! Scores are from the mover's side in units of 1/256 seed. A finished game is worth
//! `MATE` plus its seed margin (less the plies it takes, so a quicker win is preferred), so a
//! proven result is told apart from an estimate.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::board::{Moves, Pit, Position, Side};
use super::endgame::Endgame;
use super::eval::{evaluate, Weights};
use super::game::Game;
use super::rules::{Repetition, Rules};

mod table;

use table::{Entry, Table, EXACT, LOWER, UPPER, ZOBRIST};

/// One seed, in score units (the evaluation's unit, named here too for the search's users).
pub use super::eval::SEED;
/// What a won game is worth before its margin.
pub const MATE: i32 = 1 << 20;
/// Scores at least this far from zero are results, not estimates.
const PROVEN: i32 = MATE - 4096;
const INF: i32 = MATE * 2;
/// The deepest a search goes, extensions included (scores keep the ply below `SEED`).
pub const MAX_PLY: usize = 120;
/// Capture plies the quiescence search follows past the horizon.
const QUIESCENCE_PLIES: u32 = 12;

/// How long and how deep to think.
#[derive(Clone, Debug)]
pub struct Limits {
    pub max_depth: u32,
    pub deadline: Option<Instant>,
    /// Stop at once when this is set (a stopping service).
    pub stop: Option<Arc<AtomicBool>>,
    /// Asked now and then whether to wait (for the cores to be free of games in play).
    pub pause: Option<Pause>,
}

/// Called every few hundred nodes of a search; it may hold the search up (a review waiting
/// while games are played) and says for how long, which is added to the deadline: a search
/// that waited loses none of its time to think.
#[derive(Clone)]
pub struct Pause(pub Arc<dyn Fn() -> std::time::Duration + Send + Sync>);

impl std::fmt::Debug for Pause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pause")
    }
}

impl Limits {
    pub fn depth(max_depth: u32) -> Limits {
        Limits {
            max_depth,
            deadline: None,
            stop: None,
            pause: None,
        }
    }
}

/// What the search concluded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thought {
    pub best: Pit,
    /// From the mover's side, in seeds: the margin at the end if `proven`, else an estimate.
    pub score: i32,
    /// The raw score, in 1/256 seeds.
    pub value: i32,
    pub proven: bool,
    /// The last depth searched to the end.
    pub depth: u32,
    pub nodes: u64,
    pub pv: Vec<Pit>,
}

/// Converts a raw score to seeds, and whether it is a proven result.
pub fn seeds(value: i32) -> (i32, bool) {
    if value.abs() >= PROVEN {
        let margin = value - value.signum() * MATE;
        // The ply count (under SEED) rounds away.
        ((margin + value.signum() * (SEED / 2)) / SEED, true)
    } else {
        ((value + value.signum() * (SEED / 2)) / SEED, false)
    }
}

/// Baba Ayo's mind for one rule set: a transposition table and what it learnt of move order.
pub struct Searcher {
    rules: Rules,
    weights: Weights,
    table: Table,
    endgame: Option<Arc<Endgame>>,
    history: [[u32; 6]; 2],
    /// Two quiet moves a ply that last caused a cut-off there (pit numbers, 0 for none).
    killers: [[u8; 2]; MAX_PLY],
    nodes: u64,
    limits: Limits,
    stopped: bool,
    /// Repetition keys of the positions since the last capture, the game's then the search's.
    path: Vec<u128>,
    /// The root's best move in the last iteration, or in the one cut off by the clock when a
    /// move searched whole there beat the first.
    root_best: Option<Pit>,
    /// Depth 1 is searched whole whatever the clock says.
    must_finish: bool,
    /// Estimates the iteration leant on; none means its value is exact (a proven draw too).
    guesses: u64,
    /// Games ended by a repetition, counted as they are met: a value that met one depends
    /// on the path to it and is not kept in the table for another path.
    repeats: std::cell::Cell<u64>,
}

impl Searcher {
    /// A searcher with a table of `2^table_bits` entries (16 bytes each, two a bucket).
    pub fn new(rules: Rules, table_bits: u32, endgame: Option<Arc<Endgame>>) -> Searcher {
        Searcher {
            rules,
            weights: Weights::for_rules(&rules),
            table: Table::new(1 << table_bits.clamp(8, 28)),
            endgame: endgame.filter(|e| e.applies_to(&rules)),
            history: [[0; 6]; 2],
            killers: [[0; 2]; MAX_PLY],
            nodes: 0,
            limits: Limits::depth(1),
            stopped: false,
            path: Vec::new(),
            root_best: None,
            must_finish: false,
            guesses: 0,
            repeats: std::cell::Cell::new(0),
        }
    }

    /// Whether it reads an endgame database.
    pub fn has_endgame(&self) -> bool {
        self.endgame.is_some()
    }

    /// Gives it an endgame database made since it was (one for other rules is not taken).
    /// What its table holds stays true: the database only proves sooner what the search found.
    pub fn set_endgame(&mut self, endgame: Option<Arc<Endgame>>) {
        self.endgame = endgame.filter(|e| e.applies_to(&self.rules));
    }

    pub fn with_weights(mut self, weights: Weights) -> Searcher {
        self.weights = weights;
        self
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The best move for the side to move in `game`, searched deeper until the limits say
    /// stop; `None` when the game is over. Depth 1 is always searched whole, so there is
    /// always a legal move to play.
    pub fn think(&mut self, game: &Game, limits: Limits) -> Option<Thought> {
        let root = *game.position();
        let legal = game.legal_moves();
        if game.is_over() || legal.is_empty() {
            return None;
        }
        self.limits = limits;
        self.nodes = 0;
        self.stopped = false;
        self.history = [[0; 6]; 2];
        self.killers = [[0; 2]; MAX_PLY];
        self.table.next_generation();
        self.path.clear();
        self.path.extend_from_slice(game.seen_since_capture());
        // The root itself is the last entry of the game's list: a repetition is against the
        // ones before it.
        self.path.pop();
        let mut best: Option<Thought> = None;
        let max_depth = self.limits.max_depth.clamp(1, MAX_PLY as u32 - 1);
        for depth in 1..=max_depth {
            self.must_finish = depth == 1;
            self.root_best = None;
            self.guesses = 0;
            let value = self.negamax(&root, depth, -INF, INF, 0);
            if self.stopped {
                // A move the unfinished iteration searched whole and found better than the
                // one it began with is a better guess than the last iteration's.
                if let (Some(t), Some(pit)) = (best.as_mut(), self.root_best) {
                    if pit != t.best {
                        t.best = pit;
                        t.pv = vec![pit];
                    }
                }
                break;
            }
            let Some(first) = self.root_best else { break };
            let mut after = root;
            after.sow(&self.rules, first);
            let mut pv = vec![first];
            if self.terminal(&after, 1).is_ok() {
                pv.extend(self.principal_variation(&after, depth as usize - 1));
            }
            let (score, proven) = seeds(value);
            let proven = proven || self.guesses == 0;
            best = Some(Thought {
                best: first,
                score,
                value,
                proven,
                depth,
                nodes: self.nodes,
                pv,
            });
            // A proven result will not change with depth.
            if proven || self.stopped {
                break;
            }
        }
        if let Some(t) = best.as_mut() {
            t.nodes = self.nodes;
        }
        best
    }

    /// Each legal move's score searched to `depth` with a full window, best first: for the
    /// easy level's human slips.
    pub fn rank_moves(&mut self, game: &Game, depth: u32) -> Vec<(Pit, i32)> {
        let root = *game.position();
        self.limits = Limits::depth(depth);
        self.stopped = false;
        self.path.clear();
        self.path.extend_from_slice(game.seen_since_capture());
        self.path.pop();
        let mut ranked: Vec<(Pit, i32)> = game
            .legal_moves()
            .iter()
            .map(|pit| {
                let mut child = root;
                child.sow(&self.rules, pit);
                self.path.push(root.repetition_key());
                let value = -self.negamax(&child, depth.saturating_sub(1), -INF, INF, 1);
                self.path.pop();
                (pit, value)
            })
            .collect();
        ranked.sort_by_key(|&(_, v)| std::cmp::Reverse(v));
        ranked
    }

    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn key(&self, p: &Position) -> u64 {
        let z = &*ZOBRIST;
        let mut key = p
            .pits()
            .iter()
            .enumerate()
            .fold(0, |k, (i, &n)| k ^ z.pits[i][usize::from(n).min(48)]);
        key ^= z.store[usize::from(p.stores()[0]).min(48)];
        if p.to_move() == Side::North {
            key ^= z.north;
        }
        // The no-capture count matters only near the limit, or where database values (which
        // depend on the plies left) may be read: elsewhere it is left out, so positions
        // reached by different paths still meet.
        let limit = self.rules.no_capture_limit;
        let since = p.since_capture();
        if limit > 0
            && (self.endgame.is_some() || usize::from(since) + MAX_PLY >= usize::from(limit))
        {
            key ^= z.since[usize::from(since) & 255]
                ^ (u64::from(since) >> 8).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        key
    }

    fn out_of_time(&mut self) -> bool {
        // Every 256 nodes: a few hundredths of a millisecond apart, so a move ends on time.
        if self.nodes & 255 == 0 && !self.must_finish {
            if let Some(pause) = &self.limits.pause {
                let waited = (pause.0)();
                if let Some(deadline) = &mut self.limits.deadline {
                    *deadline += waited;
                }
            }
            let late = self.limits.deadline.is_some_and(|d| Instant::now() >= d);
            let told = self
                .limits
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed));
            self.stopped |= late || told;
        }
        self.stopped
    }

    /// The score of a finished game, from the mover's side, `ply` plies from the root.
    fn final_value(&self, p: &Position, ply: usize) -> i32 {
        let mut end = *p;
        if end.majority().is_none() {
            end.sweep();
        }
        let me = p.to_move().index();
        let margin = i32::from(end.stores()[me]) - i32::from(end.stores()[1 - me]);
        match margin.signum() {
            1 => MATE + margin * SEED - ply as i32,
            -1 => -MATE + margin * SEED + ply as i32,
            _ => 0,
        }
    }

    fn repeated(&self, p: &Position) -> bool {
        if self.rules.repetition != Repetition::EndsGame {
            return false;
        }
        let since = usize::from(p.since_capture()).min(self.path.len());
        let key = p.repetition_key();
        let repeated = self.path[self.path.len() - since..].contains(&key);
        self.repeats.set(self.repeats.get() + u64::from(repeated));
        repeated
    }

    /// The legal moves at `p`, or the game's value when it is over there.
    fn terminal(&self, p: &Position, ply: usize) -> Result<Moves, i32> {
        let legal = p.legal_moves(&self.rules);
        match p.end_reason(&self.rules, legal, self.repeated(p)) {
            Some(_) => Err(self.final_value(p, ply)),
            None => Ok(legal),
        }
    }

    /// The database's bounds on the value of `p` as scores, the lower first: equal where it
    /// knows the value (where repetition ends the game it may know only bounds).
    fn endgame_bounds(&self, p: &Position, ply: usize) -> Option<(i32, i32)> {
        let endgame = self.endgame.as_ref()?;
        let (lo, hi) = endgame.bounds(p)?;
        let me = p.to_move().index();
        let seeds_on_board = i32::from(p.row_seeds(Side::South) + p.row_seeds(Side::North));
        debug_assert!(lo.abs() <= seeds_on_board && hi.abs() <= seeds_on_board);
        let stored = i32::from(p.stores()[me]) - i32::from(p.stores()[1 - me]);
        let score = |gain: i32| {
            let margin = stored + gain;
            match margin.signum() {
                1 => MATE + margin * SEED - ply as i32,
                -1 => -MATE + margin * SEED + ply as i32,
                _ => 0,
            }
        };
        Some((score(lo), score(hi)))
    }

    fn negamax(&mut self, p: &Position, depth: u32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        let legal = match self.terminal(p, ply) {
            Ok(legal) => legal,
            Err(value) => return value,
        };
        // At the root the moves themselves are wanted: their children are looked up.
        if ply > 0 {
            if let Some((lo, hi)) = self.endgame_bounds(p, ply) {
                if lo == hi || lo >= beta {
                    return lo;
                }
                if hi <= alpha {
                    return hi;
                }
            }
        }
        if ply > 0 && self.out_of_time() {
            return 0;
        }
        if depth == 0 || ply >= MAX_PLY - QUIESCENCE_PLIES as usize - 1 {
            return self.quiescence(p, alpha, beta, ply, QUIESCENCE_PLIES);
        }
        let key = self.key(p);
        let mut tt_move = 0u8;
        if let Some(entry) = self.table.probe(key) {
            tt_move = entry.best;
            if u32::from(entry.depth) >= depth && ply > 0 {
                let v = entry.value;
                self.guesses += u64::from(v.abs() < PROVEN);
                match entry.bound {
                    EXACT => return v,
                    LOWER if v >= beta => return v,
                    UPPER if v <= alpha => return v,
                    _ => {}
                }
            }
        }
        let side = p.to_move().index();
        let mut children = [(Pit::ALL[0], *p, 0u8, 0u32); 6];
        let mut n = 0;
        for pit in legal.iter() {
            let mut child = *p;
            let sown = child.sow(&self.rules, pit);
            let killers = self.killers[ply];
            let order = if pit.number() == tt_move {
                u32::MAX
            } else if sown.captured > 0 {
                u32::from(sown.captured) << 24
            } else if pit.number() == killers[0] {
                0xFF_FFFF
            } else if pit.number() == killers[1] {
                0xFF_FFFE
            } else {
                self.history[side][usize::from(pit.number() - 1)].min(0xFF_FFFD)
            };
            children[n] = (pit, child, sown.captured, order);
            n += 1;
        }
        let children = &mut children[..n];
        children.sort_unstable_by_key(|c| std::cmp::Reverse(c.3));
        let alpha_before = alpha;
        let repeats_before = self.repeats.get();
        let mut best_value = -INF;
        let mut best_pit = children[0].0;
        self.path.push(p.repetition_key());
        for (i, &(pit, child, captured, _)) in children.iter().enumerate() {
            // A capture sequence is followed one ply further.
            let next_depth = if captured > 0 && depth == 1 {
                1
            } else {
                depth - 1
            };
            // Late quiet moves are looked at a ply shallower first; only one that then beats
            // alpha is searched to full depth.
            let late = i >= 2 && depth >= 3 && ply > 0 && captured == 0;
            let value = if i == 0 {
                -self.negamax(&child, next_depth, -beta, -alpha, ply + 1)
            } else {
                let mut probe = if late {
                    -self.negamax(&child, next_depth - 1, -alpha - 1, -alpha, ply + 1)
                } else {
                    alpha + 1
                };
                if probe > alpha {
                    probe = -self.negamax(&child, next_depth, -alpha - 1, -alpha, ply + 1);
                }
                if probe > alpha && probe < beta {
                    -self.negamax(&child, next_depth, -beta, -alpha, ply + 1)
                } else {
                    probe
                }
            };
            if self.stopped {
                break;
            }
            if value > best_value {
                best_value = value;
                best_pit = pit;
            }
            if value > alpha {
                alpha = value;
            }
            if alpha >= beta {
                if captured == 0 {
                    let h = &mut self.history[side][usize::from(pit.number() - 1)];
                    *h = h.saturating_add(depth * depth);
                    let k = &mut self.killers[ply];
                    if k[0] != pit.number() {
                        *k = [pit.number(), k[0]];
                    }
                }
                break;
            }
        }
        self.path.pop();
        if self.stopped {
            if ply == 0 && best_value > -INF && best_pit != children[0].0 {
                self.root_best = Some(best_pit);
            }
            return best_value.max(-INF + 1);
        }
        if ply == 0 {
            self.root_best = Some(best_pit);
        }
        let bound = if best_value <= alpha_before {
            UPPER
        } else if best_value >= beta {
            LOWER
        } else {
            EXACT
        };
        // A value that met a repetition below holds for this path only: the move is kept,
        // never the value (depth 0 is never enough for a cut).
        let kept_depth = if self.repeats.get() == repeats_before {
            depth.min(255) as u8
        } else {
            0
        };
        self.table.store(Entry::new(
            key,
            best_value,
            kept_depth,
            bound,
            best_pit.number(),
        ));
        best_value
    }

    /// Past the horizon: the mover may stand on the evaluation or follow a capture.
    fn quiescence(
        &mut self,
        p: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        left: u32,
    ) -> i32 {
        self.nodes += 1;
        let legal = match self.terminal(p, ply) {
            Ok(legal) => legal,
            Err(value) => return value,
        };
        let known = self.endgame_bounds(p, ply);
        if let Some((lo, hi)) = known {
            if lo == hi || lo >= beta {
                return lo;
            }
            if hi <= alpha {
                return hi;
            }
        }
        let mut stand = evaluate(p, &self.rules, &self.weights);
        if let Some((lo, hi)) = known {
            stand = stand.clamp(lo, hi);
        }
        self.guesses += 1;
        if stand >= beta || left == 0 || self.out_of_time() {
            return stand;
        }
        alpha = alpha.max(stand);
        let mut best = stand;
        self.path.push(p.repetition_key());
        for pit in legal.iter() {
            let mut child = *p;
            if child.sow(&self.rules, pit).captured == 0 {
                continue;
            }
            let value = -self.quiescence(&child, -beta, -alpha, ply + 1, left - 1);
            best = best.max(value);
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        self.path.pop();
        best
    }

    /// The line the table holds from `root`, legal move by legal move.
    fn principal_variation(&self, root: &Position, max: usize) -> Vec<Pit> {
        let mut pv = Vec::new();
        let mut p = *root;
        while pv.len() < max {
            let legal = p.legal_moves(&self.rules);
            let Some(pit) = self
                .table
                .probe(self.key(&p))
                .and_then(|entry| Pit::new(entry.best))
                .filter(|&pit| legal.contains(pit))
            else {
                break;
            };
            pv.push(pit);
            p.sow(&self.rules, pit);
            if self.terminal(&p, 0).is_err() {
                break;
            }
        }
        pv
    }
}
