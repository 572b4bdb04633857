//! What Baba Ayo thinks of a position it cannot search to the end, from the mover's side,
//! in 1/256 seed.

use super::board::{Position, Side};
use super::rules::{Capture, Rules};
use super::search::SEED;

/// The weights of the evaluation's terms, in 1/256 seed. The defaults were tuned by self-play
/// (`lounge ayo tune --rounds 3 --games 400 --depth 4`, from hand-set ones; BENCHMARKS.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Weights {
    /// A seed in one's store (the score itself).
    pub store: i32,
    /// A seed on one's own row (kept at a sweep, and material to sow).
    pub row: i32,
    /// A pit of the opponent's that a seed would make capturable (1 or 2 seeds; 3 when
    /// capturing fours).
    pub target: i32,
    /// A pit of one's own that is such a target.
    pub exposed: i32,
    /// A move one may make.
    pub mobility: i32,
    /// A pit of one's own holding 12 or more (a "kroo" that laps the board).
    pub kroo: i32,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            store: SEED,
            row: 0,
            target: 370,
            exposed: 370,
            mobility: 550,
            kroo: 290,
        }
    }
}

/// The evaluation of `p` for the side to move.
pub fn evaluate(p: &Position, rules: &Rules, w: &Weights) -> i32 {
    let me = p.to_move();
    let them = me.opponent();
    let stores = p.stores();
    let pits = p.pits();
    let row = |side: Side| &pits[side.index() * 6..side.index() * 6 + 6];
    let vulnerable = |n: u8| match rules.capture {
        Capture::TwoThree => n == 1 || n == 2,
        Capture::Four => n == 3,
    };
    let count =
        |side: Side, f: &dyn Fn(u8) -> bool| row(side).iter().filter(|&&n| f(n)).count() as i32;
    let store = i32::from(stores[me.index()]) - i32::from(stores[them.index()]);
    let seeds_row = i32::from(p.row_seeds(me)) - i32::from(p.row_seeds(them));
    // Near the no-capture limit the sweep decides: a seed on one's row is as good as stored.
    let row_weight = match rules.no_capture_limit {
        0 => w.row,
        limit if limit.saturating_sub(p.since_capture()) <= 8 => w.store,
        _ => w.row,
    };
    let targets = count(them, &vulnerable) - count(me, &vulnerable);
    let exposed_weight_gap = w.exposed - w.target;
    let mobility = count(me, &|n| n > 0) - count(them, &|n| n > 0);
    let kroo = count(me, &|n| n >= 12) - count(them, &|n| n >= 12);
    w.store * store + row_weight * seeds_row + w.target * targets
        - exposed_weight_gap * count(me, &vulnerable)
        + w.mobility * mobility
        + w.kroo * kroo
}
