//! What a move does: the legal moves of a position, sowing (one lap or relay), and the
//! captures (2-or-3 backwards, or collecting fours) with the grand slam rule; and perft, which
//! counts where they lead.

use std::fmt;

use super::{Moves, Pit, Position, PITS};
use crate::ayo::rules::{Capture, GrandSlam, Rules, Sowing, MAX_RELAY_LAPS};

/// What a move did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sown {
    /// Seeds the move put in the mover's store.
    pub captured: u8,
    /// The move would have taken every seed on the opponent's row, and so took none.
    pub grand_slam: bool,
    /// Laps sown: 1 but for relay sowing, at most [`MAX_RELAY_LAPS`].
    pub laps: u16,
}

/// Why a pit may not be sown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalReason {
    EmptyPit,
    MustFeed,
    GrandSlam,
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IllegalReason::EmptyPit => "that pit is empty",
            IllegalReason::MustFeed => {
                "the opponent has no seeds and another move gives them some: you must feed them"
            }
            IllegalReason::GrandSlam => {
                "that move would capture every seed the opponent has (a grand slam), and another move does not"
            }
        })
    }
}

impl Position {
    /// The pits the side to move may sow under `rules`.
    ///
    /// Empty when the mover's row is empty, or when the opponent's row is empty and no move
    /// feeds it: both end the game.
    pub fn legal_moves(&self, rules: &Rules) -> Moves {
        let mut moves = self.occupied();
        if moves.is_empty() {
            return moves;
        }
        let them = self.to_move.opponent();
        if self.row_seeds(them) == 0 {
            moves = if rules.is_abapa() {
                // One lap reaches their row when the seeds outnumber the pits left on ours,
                // and the grand slam rule never takes back what a feeding move gave.
                let row = self.row(self.to_move);
                moves.filter(|p| row[p.0 as usize - 1] > 6 - p.0)
            } else {
                moves.filter(|p| self.after(rules, p).0.row_seeds(them) > 0)
            };
        }
        if rules.capture == Capture::TwoThree && rules.grand_slam == GrandSlam::Illegal {
            // Only a single lap whose last seed makes 2 or 3 on their row can capture at all;
            // sow the rest on a copy to see.
            let fair = moves.filter(|p| {
                let origin = p.index_for(self.to_move);
                if rules.sowing == Sowing::Single {
                    let (last, makes) = self.abapa_landing(origin);
                    if self.to_move.owns(last) || !(2..=3).contains(&makes) {
                        return true;
                    }
                    // A pit of theirs past the last seed keeps what it holds, plus a seed a lap.
                    let row_end = them.first_pit() + 6;
                    let laps = self.pits[origin] / 11;
                    if last + 1 < row_end
                        && (laps > 0 || self.pits[last + 1..row_end].iter().any(|&n| n > 0))
                    {
                        return true;
                    }
                }
                !self.after(rules, p).1.grand_slam
            });
            if !fair.is_empty() {
                moves = fair;
            }
        }
        moves
    }

    /// Why `pit` is not a legal move here, or `None` when it is.
    pub fn why_illegal(&self, rules: &Rules, pit: Pit) -> Option<IllegalReason> {
        let legal = self.legal_moves(rules);
        if legal.contains(pit) {
            None
        } else if !self.occupied().contains(pit) {
            Some(IllegalReason::EmptyPit)
        } else if self.after(rules, pit).0.row_seeds(self.to_move.opponent()) == 0 {
            // The move would leave the opponent with nothing: it does not feed.
            Some(IllegalReason::MustFeed)
        } else {
            Some(IllegalReason::GrandSlam)
        }
    }

    /// Where the last seed of one lap from `origin` lands and what it makes that pit hold.
    fn abapa_landing(&self, origin: usize) -> (usize, u8) {
        let seeds = self.pits[origin];
        let last = abapa_last_pit(origin, seeds);
        // Every whole lap drops one seed in it; a part lap ending there one more.
        (
            last,
            self.pits[last] + seeds / 11 + u8::from(!seeds.is_multiple_of(11)),
        )
    }

    /// The position after the side to move sows `pit`, legal or not.
    fn after(&self, rules: &Rules, pit: Pit) -> (Position, Sown) {
        let mut next = *self;
        let sown = next.sow(rules, pit);
        (next, sown)
    }

    /// Sows `pit` for the side to move and captures; the other side moves next.
    ///
    /// Checks nothing: call it with a pit from [`Position::legal_moves`]. An empty pit passes
    /// the turn without changing the board.
    pub fn sow(&mut self, rules: &Rules, pit: Pit) -> Sown {
        let origin = pit.index_for(self.to_move);
        let sown = if rules.is_abapa() {
            self.sow_abapa(origin)
        } else {
            self.sow_general(rules, origin)
        };
        self.stores[self.to_move.index()] += sown.captured;
        self.since_capture = if sown.captured > 0 {
            0
        } else {
            self.since_capture.saturating_add(1)
        };
        self.to_move = self.to_move.opponent();
        sown
    }

    /// One lap, then the 2-or-3 capture: the rules of every Abapa preset.
    fn sow_abapa(&mut self, origin: usize) -> Sown {
        let seeds = self.pits[origin];
        if seeds == 0 {
            return Sown::default();
        }
        self.pits[origin] = 0;
        // Eleven seeds go once round the other eleven pits; do whole laps at once.
        let (laps, rest) = (seeds / 11, seeds % 11);
        if laps > 0 {
            for n in self.pits.iter_mut() {
                *n += laps;
            }
            self.pits[origin] -= laps;
        }
        let mut at = origin;
        for _ in 0..rest {
            at = next_pit(at);
            self.pits[at] += 1;
        }
        Sown {
            laps: 1,
            ..self.capture_two_three(abapa_last_pit(origin, seeds))
        }
    }

    /// Relay sowing and collect-on-4, and their mixes with the Abapa switches.
    fn sow_general(&mut self, rules: &Rules, origin: usize) -> Sown {
        let mut from = origin;
        let mut hand = self.pits[from];
        if hand == 0 {
            return Sown::default();
        }
        self.pits[from] = 0;
        let mut at = from;
        let mut collected = 0u8;
        let mut laps = 0u16;
        loop {
            laps += 1;
            let mut made_four = false;
            while hand > 0 {
                at = next_pit(at);
                if at == from {
                    at = next_pit(at);
                }
                self.pits[at] += 1;
                hand -= 1;
                made_four = rules.capture == Capture::Four && self.pits[at] == 4;
                if made_four {
                    self.pits[at] = 0;
                    collected += 4;
                }
            }
            let landed = self.pits[at];
            let stops = rules.sowing == Sowing::Single
                || made_four
                || landed == 1
                || (rules.capture == Capture::TwoThree
                    && !self.to_move.owns(at)
                    && (2..=3).contains(&landed))
                || laps >= MAX_RELAY_LAPS;
            if stops {
                break;
            }
            hand = landed;
            self.pits[at] = 0;
            from = at;
        }
        match rules.capture {
            Capture::Four => Sown {
                captured: collected,
                grand_slam: false,
                laps,
            },
            Capture::TwoThree => Sown {
                laps,
                ..self.capture_two_three(at)
            },
        }
    }

    /// The last seed landed in `last`: take 2s and 3s backwards along the opponent's row, unless
    /// that would take every seed there (a grand slam, which takes nothing).
    fn capture_two_three(&mut self, last: usize) -> Sown {
        let them = self.to_move.opponent();
        if !them.owns(last) {
            return Sown::default();
        }
        let first = them.first_pit();
        let mut taken = 0u8;
        let mut i = last;
        loop {
            let n = self.pits[i];
            if n != 2 && n != 3 {
                break;
            }
            taken += n;
            if i == first {
                break;
            }
            i -= 1;
        }
        if taken == 0 {
            return Sown::default();
        }
        if taken == self.row_seeds(them) {
            return Sown {
                grand_slam: true,
                ..Sown::default()
            };
        }
        let mut i = last;
        while self.pits[i] == 2 || self.pits[i] == 3 {
            self.pits[i] = 0;
            if i == first {
                break;
            }
            i -= 1;
        }
        Sown {
            captured: taken,
            ..Sown::default()
        }
    }
}

fn next_pit(i: usize) -> usize {
    if i == PITS - 1 {
        0
    } else {
        i + 1
    }
}

/// Where the last of `seeds` (at least 1) sown in one lap from `origin` lands, skipping `origin`.
fn abapa_last_pit(origin: usize, seeds: u8) -> usize {
    match seeds % 11 {
        // Whole laps of the other eleven pits end just before the origin.
        0 => (origin + PITS - 1) % PITS,
        rest => (origin + rest as usize) % PITS,
    }
}

/// Counts the positions reachable in exactly `depth` plies, an ended game counting as one.
///
/// Repetition needs a history and is not looked at; every other end is.
pub fn perft(position: &Position, rules: &Rules, depth: u32) -> u64 {
    let legal = position.legal_moves(rules);
    if depth == 0 || position.end_reason(rules, legal, false).is_some() {
        return 1;
    }
    if depth == 1 {
        return legal.len() as u64;
    }
    legal
        .iter()
        .map(|pit| {
            let mut next = *position;
            next.sow(rules, pit);
            perft(&next, rules, depth - 1)
        })
        .sum()
}
