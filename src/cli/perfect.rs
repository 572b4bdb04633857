//! `lounge ayo perfect`: Baba Ayo's moves checked against the endgame database. Random boards
//! the database covers (every seed count from 1 to its largest alike, stores short of a
//! majority, any number of capture-less plies before the limit, either side to move) are
//! searched by the champion as he searches in play, and each move he picks must keep the best
//! result there is (a win a win, a draw at least a draw); how many also keep the best margin
//! is counted too. A majority ends a game at once, which the database leaves out on purpose,
//! so a won game may be won by a smaller margin than the database's play to the last seed.

use std::io::{self, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::ayo::endgame::Endgame;
use crate::ayo::house::{self, Level};
use crate::ayo::search::{Limits, MAX_PLY};
use crate::ayo::{Game, Position, Rules, Side, HALF, SEEDS};

use super::matches::xorshift;

/// What a check found.
#[derive(Debug, Default)]
pub struct Check {
    pub positions: u32,
    /// Moves that kept the best result.
    pub perfect: u32,
    /// Moves that also kept the database's best margin.
    pub best_margin: u32,
    /// The first boards where the result slipped, with what the move gained and the best.
    pub misses: Vec<(Position, i32, i32)>,
}

/// A random board `db` covers, with the game still going on there.
fn board(rules: &Rules, max_seeds: u8, rng: &mut u64) -> Game {
    loop {
        let n = 1 + (xorshift(rng) % u64::from(max_seeds.max(1))) as u8;
        let mut pits = [0u8; 12];
        for _ in 0..n {
            pits[(xorshift(rng) % 12) as usize] += 1;
        }
        // Stores short of a majority: South takes from `rest - HALF` to `HALF`.
        let rest = SEEDS - n;
        let low = rest.saturating_sub(HALF);
        // Past 24 seeds on the board neither store can hold a majority.
        let high = HALF.min(rest);
        let south = low + (xorshift(rng) % u64::from(high - low + 1)) as u8;
        let since = match rules.no_capture_limit {
            0 => 0,
            limit => (xorshift(rng) % u64::from(limit)) as u16,
        };
        let side = if xorshift(rng).is_multiple_of(2) {
            Side::South
        } else {
            Side::North
        };
        let Ok(p) = Position::new(pits, [south, rest - south], side, since) else {
            continue;
        };
        let game = Game::from_position(*rules, p);
        if !game.is_over() {
            return game;
        }
    }
}

/// Checks `positions` boards, each searched for at most `movetime`.
pub fn check(rules: Rules, db: &Arc<Endgame>, positions: u32, movetime: Duration) -> Check {
    let mut searcher = house::mind(Level::Champion, &rules, Some(db.clone()));
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut found = Check::default();
    for _ in 0..positions {
        let game = board(&rules, db.max_seeds(), &mut rng);
        let p = *game.position();
        let limits = Limits {
            max_depth: MAX_PLY as u32 - 1,
            deadline: Some(Instant::now() + movetime),
            stop: None,
        };
        let (Some(thought), Some((_, best))) = (searcher.think(&game, limits), db.best_move(&p))
        else {
            continue;
        };
        let mut after = p;
        let captured = i32::from(after.sow(&rules, thought.best).captured);
        let Some(rest) = db.value(&after) else {
            continue;
        };
        found.positions += 1;
        let gained = captured - rest;
        let me = p.to_move().index();
        let stored = i32::from(p.stores()[me]) - i32::from(p.stores()[1 - me]);
        found.best_margin += u32::from(gained == best);
        if (stored + gained).signum() == (stored + best).signum() {
            found.perfect += 1;
        } else if found.misses.len() < 10 {
            found.misses.push((p, gained, best));
        }
    }
    found
}

/// Runs [`check`] and prints what it found; `Ok(false)` when a move fell short.
pub fn run(
    rules: Rules,
    db: &Arc<Endgame>,
    positions: u32,
    movetime: Duration,
    mut out: impl Write,
) -> io::Result<bool> {
    let started = Instant::now();
    let found = check(rules, db, positions, movetime);
    writeln!(
        out,
        "{} of {} boards of 1 to {} seeds played perfectly by the champion against the database, {} of them for the database's best margin ({:.1} s)",
        found.perfect,
        found.positions,
        db.max_seeds(),
        found.best_margin,
        started.elapsed().as_secs_f64()
    )?;
    for (p, gained, best) in &found.misses {
        writeln!(
            out,
            "result lost: {p:?}: the move gains {gained}, the best {best}"
        )?;
    }
    Ok(found.perfect == found.positions)
}
