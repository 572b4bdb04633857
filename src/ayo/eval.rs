//! What Baba Ayo thinks of a position it cannot search to the end, from the mover's side,
//! in 1/256 seed.
//!
//! The seeds in the stores, a seed each, plus what each pit's seeds are worth where they
//! stand: one number for every pit of the mover's row and of the opponent's (counted along
//! each row in sowing order) and every count of seeds it may hold (a pit table). An empty
//! pit is a move the owner lacks, one or two seeds are a target, twelve or more lap the
//! board, and a pit's place on the row decides where its seeds land: the table holds all of
//! that at once. Its values are fitted by `lounge ayo fit` (src/cli/fit.rs) to the seeds that
//! positions went on to gain (docs/engine.md).

mod fitted;

use super::board::Position;
use super::rules::{Capture, Rules};

/// One seed, in score units: what the evaluation counts in, and the search after it.
pub const SEED: i32 = 256;

/// Seed counts a pit table tells apart: 0 to 14 each, then 15 or more together.
pub const BUCKETS: usize = 16;

/// A pit's value by whose row it is on (0 the mover's, 1 the opponent's), its number along
/// that row less one, and its seeds (bucketed), in 1/256 seed.
pub type PitTable = [[[i16; BUCKETS]; 6]; 2];

/// How many numbers a pit table holds: the terms `lounge ayo fit` fits.
pub const TERMS: usize = 2 * 6 * BUCKETS;

/// The evaluation's weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Weights {
    /// A seed in one's store (the score itself).
    pub store: i32,
    /// What the seeds in each pit are worth where they stand.
    pub pits: PitTable,
}

/// The few hand-set terms the evaluation was once made of, as a pit table: the starting point
/// of a fit and the evaluation under rules no fit was made for.
#[derive(Clone, Copy, Debug)]
pub struct Terms {
    /// A pit of the opponent's holding a capturable count (1 or 2; 3 when collecting fours).
    pub target: i16,
    /// A pit of one's own holding such a count.
    pub exposed: i16,
    /// A pit one may move from.
    pub mobility: i16,
    /// A pit of one's own holding 12 or more, which laps the board.
    pub kroo: i16,
}

impl Terms {
    /// The weights these terms come to under `capture`.
    pub fn pit_table(self, capture: Capture) -> PitTable {
        let capturable = |n: usize| match capture {
            Capture::TwoThree => n == 1 || n == 2,
            Capture::Four => n == 3,
        };
        let mut table = [[[0i16; BUCKETS]; 6]; 2];
        for (side, sign) in [(0, 1), (1, -1)] {
            for pit in &mut table[side] {
                for (n, value) in pit.iter_mut().enumerate() {
                    let mut v = 0;
                    if n > 0 {
                        v += self.mobility;
                    }
                    if n >= 12 {
                        v += self.kroo;
                    }
                    if capturable(n) {
                        v -= if side == 0 { self.exposed } else { self.target };
                    }
                    *value = sign * v;
                }
            }
        }
        table
    }
}

/// The terms Baba Ayo played with before the pit tables were fitted: a pit to move
/// from about two seeds, a capturable pit about one and a half, a kroo about one.
pub const HAND_SET: Terms = Terms {
    target: 370,
    exposed: 370,
    mobility: 550,
    kroo: 290,
};

impl Weights {
    /// The weights for `rules`: the fitted table where the game is Abapa's (captures of two
    /// and three), the hand-set terms for collecting fours.
    pub fn for_rules(rules: &Rules) -> Weights {
        let pits = match rules.capture {
            Capture::TwoThree => fitted::TWO_THREE,
            Capture::Four => HAND_SET.pit_table(Capture::Four),
        };
        Weights { store: SEED, pits }
    }

    /// The pit table as one list, in [`terms`]'s order.
    pub fn terms(&self) -> [i32; TERMS] {
        std::array::from_fn(|i| {
            i32::from(self.pits[i / (6 * BUCKETS)][i / BUCKETS % 6][i % BUCKETS])
        })
    }

    /// These weights with the pit table taken from a list in [`terms`]'s order.
    pub fn with_terms(mut self, terms: &[i32; TERMS]) -> Weights {
        for (i, &t) in terms.iter().enumerate() {
            self.pits[i / (6 * BUCKETS)][i / BUCKETS % 6][i % BUCKETS] =
                t.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        }
        self
    }
}

fn bucket(seeds: u8) -> usize {
    usize::from(seeds).min(BUCKETS - 1)
}

/// The pit-table entries `p` counts, as indices into [`Weights::terms`]: one for each of the
/// twelve pits, the mover's row first.
pub fn terms(p: &Position) -> [usize; 12] {
    let pits = p.pits();
    let mine = p.to_move().index() * 6;
    let theirs = 6 - mine;
    std::array::from_fn(|i| {
        let (row, pit, first) = if i < 6 {
            (0, i, mine)
        } else {
            (1, i - 6, theirs)
        };
        (row * 6 + pit) * BUCKETS + bucket(pits[first + pit])
    })
}

/// Whether the sweep is near enough that a seed on one's row is as good as a stored one.
pub fn sweep_near(p: &Position, rules: &Rules) -> bool {
    rules.no_capture_limit > 0 && rules.no_capture_limit.saturating_sub(p.since_capture()) <= 8
}

/// The evaluation of `p` for the side to move.
pub fn evaluate(p: &Position, rules: &Rules, w: &Weights) -> i32 {
    let me = p.to_move();
    let them = me.opponent();
    let stores = p.stores();
    let mut value = w.store * (i32::from(stores[me.index()]) - i32::from(stores[them.index()]));
    let pits = p.pits();
    let (mine, theirs) = (me.index() * 6, them.index() * 6);
    for i in 0..6 {
        value += i32::from(w.pits[0][i][bucket(pits[mine + i])]);
        value += i32::from(w.pits[1][i][bucket(pits[theirs + i])]);
    }
    // Near the no-capture limit the sweep decides: a seed on one's row is as good as stored.
    if sweep_near(p, rules) {
        value += w.store * (i32::from(p.row_seeds(me)) - i32::from(p.row_seeds(them)));
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ayo::{Game, Pit, Preset, Side};

    /// The hand-set terms as a pit table weigh a position as the terms did, counted by hand.
    #[test]
    fn the_hand_set_table_counts_the_terms() {
        let rules = Preset::Lagos.rules();
        let w = Weights {
            store: SEED,
            pits: HAND_SET.pit_table(Capture::TwoThree),
        };
        let mut game = Game::new(rules);
        for n in [3, 1, 6, 2, 5, 4, 1, 6, 2, 3] {
            let Some(pit) = Pit::new(n).filter(|&p| game.legal_moves().contains(p)) else {
                continue;
            };
            game.play(pit).expect("legal");
            let p = game.position();
            let me = p.to_move();
            let row = |side: Side| {
                let first = side.index() * 6;
                p.pits()[first..first + 6].to_vec()
            };
            let count = |side: Side, f: &dyn Fn(u8) -> bool| {
                row(side).into_iter().filter(|&n| f(n)).count() as i32
            };
            let capturable = |n: u8| n == 1 || n == 2;
            let store = i32::from(p.stores()[me.index()]) - i32::from(p.stores()[1 - me.index()]);
            let by_hand = SEED * store + 370 * count(me.opponent(), &capturable)
                - 370 * count(me, &capturable)
                + 550 * (count(me, &|n| n > 0) - count(me.opponent(), &|n| n > 0))
                + 290 * (count(me, &|n| n >= 12) - count(me.opponent(), &|n| n >= 12));
            assert_eq!(evaluate(p, &rules, &w), by_hand, "at {p:?}");
        }
        assert!(game.ply() >= 6, "the line was played");
    }

    /// The terms a position counts are the entries the evaluation adds up.
    #[test]
    fn the_evaluation_adds_the_entries_its_terms_name() {
        let rules = Preset::Oware.rules();
        let w = Weights::for_rules(&rules);
        let list = w.terms();
        assert_eq!(w.with_terms(&list), w, "terms and with_terms are inverses");
        let mut game = Game::new(rules);
        for n in [2, 5, 1, 3, 6, 4, 2, 1] {
            let Some(pit) = Pit::new(n).filter(|&p| game.legal_moves().contains(p)) else {
                continue;
            };
            game.play(pit).expect("legal");
            let p = game.position();
            let me = p.to_move().index();
            let store = i32::from(p.stores()[me]) - i32::from(p.stores()[1 - me]);
            let sum: i32 = terms(p).iter().map(|&t| list[t]).sum();
            assert_eq!(evaluate(p, &rules, &w), SEED * store + sum);
        }
    }
}
