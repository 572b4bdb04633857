//! A finished game weighed move by move: each position's value before the move and after it,
//! the best move where another was played, and what the move played cost, in seeds. Pure: the
//! positions are weighed by whatever the caller passes in (Baba Ayo's search, exact where his
//! endgame database holds the position; a test's table of values).

use serde::{Deserialize, Serialize};

use super::board::{Pit, Position, Side};
use super::game::{Game, MoveError};

/// What a move that cost this many seeds or more is called: an inaccuracy from 2, a mistake
/// from 4, a blunder from 8 (a sixth of the board's 48 seeds).
pub const INACCURACY: i32 = 2;
pub const MISTAKE: i32 = 4;
pub const BLUNDER: i32 = 8;

/// One position weighed for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weighed {
    /// The move it found best.
    pub best: Pit,
    /// The margin it expects at the end, in seeds, for the side to move.
    pub value: i32,
    /// The value is proven (the endgame database, or searched to the end).
    pub exact: bool,
}

/// How bad a move was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Mark {
    /// The mark for a move that cost `loss` seeds, if any.
    pub fn of(loss: i32) -> Option<Mark> {
        match loss {
            l if l >= BLUNDER => Some(Mark::Blunder),
            l if l >= MISTAKE => Some(Mark::Mistake),
            l if l >= INACCURACY => Some(Mark::Inaccuracy),
            _ => None,
        }
    }
}

/// One move of the game weighed, values for the side that played it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveReview {
    /// The move's place in the game, from 1.
    pub ply: u32,
    pub side: Side,
    /// The pit played, 1-6 along the mover's row.
    pub played: u8,
    /// The best move where it was another, and its pit.
    pub best: Option<u8>,
    /// The position's value before the move (with the best move) and after the move played.
    pub before: i32,
    pub after: i32,
    /// Seeds the move gave away against the best (never below 0).
    pub loss: i32,
    /// Both values are proven.
    pub exact: bool,
    pub mark: Option<Mark>,
}

/// Why a game cannot be reviewed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReviewError {
    #[error("move {ply} is not legal: {error}")]
    Illegal { ply: u32, error: MoveError },
    /// The weigher gave up (the service stopping, the review called off).
    #[error("the review was called off")]
    CalledOff,
}

/// Weighs every move `moves` make from `start` (a stored game's is `Game::starting`), asking
/// `weigh` for each position before a move and the one after the last (each position once).
/// A position over on the board is valued by its final margin, not asked.
pub fn review(
    start: Game,
    moves: &[Pit],
    mut weigh: impl FnMut(&Game) -> Option<Weighed>,
) -> Result<Vec<MoveReview>, ReviewError> {
    let mut game = start;
    let mut now = value_of(&game, &mut weigh)?;
    let mut reviewed = Vec::with_capacity(moves.len());
    for (i, &pit) in moves.iter().enumerate() {
        let ply = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let side = game.position().to_move();
        let (before, best, exact_before) = match now {
            Some(w) => (w.value, Some(w.best), w.exact),
            // Over already: the record has a move the board does not allow.
            None => {
                return Err(ReviewError::Illegal {
                    ply,
                    error: MoveError::GameOver,
                })
            }
        };
        game.play(pit)
            .map_err(|error| ReviewError::Illegal { ply, error })?;
        let next = value_of(&game, &mut weigh)?;
        let (after, exact_after) = match next {
            Some(w) => (for_side(&game, side, w.value), w.exact),
            None => (final_margin(game.position(), side), true),
        };
        let loss = (before - after).max(0);
        let best = best.filter(|&b| b != pit);
        reviewed.push(MoveReview {
            ply,
            side,
            played: pit.number(),
            best: best.map(Pit::number),
            before,
            after,
            loss,
            exact: exact_before && exact_after,
            // A best move the weigher found no better than the one played is no lesson.
            mark: best.and_then(|_| Mark::of(loss)),
        });
        now = next;
    }
    Ok(reviewed)
}

/// The position's weight, `None` when it is over on the board.
fn value_of(
    game: &Game,
    weigh: &mut impl FnMut(&Game) -> Option<Weighed>,
) -> Result<Option<Weighed>, ReviewError> {
    if game.is_over() {
        return Ok(None);
    }
    weigh(game).map(Some).ok_or(ReviewError::CalledOff)
}

/// A value for the side to move in `game`, turned to `side`'s.
fn for_side(game: &Game, side: Side, value: i32) -> i32 {
    if game.position().to_move() == side {
        value
    } else {
        -value
    }
}

/// The margin at the end of a game over at `p`, for `side`: each side's row in its own store
/// unless a majority ended it (as the search counts it).
pub fn final_margin(p: &Position, side: Side) -> i32 {
    let mut end = *p;
    if end.majority().is_none() {
        end.sweep();
    }
    let stores = end.stores();
    i32::from(stores[side.index()]) - i32::from(stores[side.opponent().index()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ayo::endgame::Endgame;
    use crate::ayo::house::Level;
    use crate::ayo::search::Limits;
    use crate::ayo::{Preset, Rules};

    fn pit(n: u8) -> Pit {
        Pit::new(n).unwrap()
    }

    /// A weigher that finds pit 1 best and values every position at 0 but where told.
    fn flat(best: u8) -> impl FnMut(&Game) -> Option<Weighed> {
        move |_| {
            Some(Weighed {
                best: pit(best),
                value: 0,
                exact: false,
            })
        }
    }

    #[test]
    fn a_move_the_weigher_finds_best_costs_nothing() {
        let rules = Preset::Lagos.rules();
        let moves = [pit(1), pit(1)];
        let reviewed = review(Game::new(rules), &moves, flat(1)).unwrap();
        assert_eq!(reviewed.len(), 2);
        assert!(reviewed
            .iter()
            .all(|m| m.best.is_none() && m.loss == 0 && m.mark.is_none()));
        assert_eq!(reviewed[0].side, Side::South);
        assert_eq!(reviewed[1].side, Side::North);
    }

    #[test]
    fn the_value_after_a_move_is_the_next_position_seen_from_the_mover() {
        let rules = Preset::Lagos.rules();
        let moves = [pit(3), pit(4)];
        let mut asked = 0;
        // Before South's move +1 for South; after it, +5 for North to move (South -5); then
        // North's position after its move is -2 for South to move (+2 for North).
        let values = [1, 5, -2];
        let reviewed = review(Game::new(rules), &moves, |_| {
            let value = values[asked];
            asked += 1;
            Some(Weighed {
                best: pit(6),
                value,
                exact: false,
            })
        })
        .unwrap();
        assert_eq!(asked, 3, "each position weighed once");
        let south = &reviewed[0];
        assert_eq!((south.before, south.after, south.loss), (1, -5, 6));
        assert_eq!(south.best, Some(6));
        assert_eq!(south.mark, Some(Mark::Mistake));
        let north = &reviewed[1];
        assert_eq!((north.before, north.after, north.loss), (5, 2, 3));
        assert_eq!(north.mark, Some(Mark::Inaccuracy));
    }

    #[test]
    fn marks_start_at_their_thresholds() {
        assert_eq!(Mark::of(INACCURACY - 1), None);
        assert_eq!(Mark::of(INACCURACY), Some(Mark::Inaccuracy));
        assert_eq!(Mark::of(MISTAKE), Some(Mark::Mistake));
        assert_eq!(Mark::of(BLUNDER), Some(Mark::Blunder));
        assert_eq!(Mark::of(-3), None);
    }

    #[test]
    fn an_illegal_move_says_which() {
        let rules = Preset::Lagos.rules();
        // After South's 1 North's row is full; then South's pit 1 is empty.
        let moves = [pit(1), pit(2), pit(1)];
        let err = review(Game::new(rules), &moves, flat(1)).unwrap_err();
        assert!(
            matches!(err, ReviewError::Illegal { ply: 3, .. }),
            "{err:?}"
        );
    }

    /// The margin `pit` leaves the mover at `p` with, by the database: the position after it
    /// valued exactly, or its end.
    fn margin_after(rules: Rules, endgame: &Endgame, p: Position, pit: Pit) -> Option<i32> {
        let mut game = Game::from_position(rules, p);
        let side = p.to_move();
        game.play(pit).ok()?;
        if game.is_over() {
            return Some(final_margin(game.position(), side));
        }
        let after = *game.position();
        let stores = after.stores();
        let stored = i32::from(stores[side.index()]) - i32::from(stores[side.opponent().index()]);
        Some(stored - endgame.value(&after)?)
    }

    #[test]
    fn a_blunder_the_endgame_database_knows_is_marked_as_one_exactly() {
        let rules = Preset::Lagos.rules();
        let endgame = std::sync::Arc::new(Endgame::build(&rules, 8).unwrap());
        // Positions of 8 seeds on the board, drawn by a fixed sequence, until one has a move
        // the database says costs a blunder's worth against the best.
        let mut state: u64 = 7;
        let mut next = move |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let (start, worst, loss) = (0..20_000)
            .find_map(|_| {
                let mut pits = [0u8; 12];
                for _ in 0..8 {
                    pits[next(12) as usize] += 1;
                }
                let p = Position::new(pits, [20, 20], Side::South, 0).ok()?;
                let game = Game::from_position(rules, p);
                if game.is_over() {
                    return None;
                }
                let margins: Vec<(Pit, i32)> = game
                    .legal_moves()
                    .iter()
                    .map(|pit| Some((pit, margin_after(rules, &endgame, p, pit)?)))
                    .collect::<Option<_>>()?;
                let best = margins.iter().map(|&(_, m)| m).max()?;
                let (worst, m) = *margins.iter().min_by_key(|&&(_, m)| m)?;
                (best - m >= BLUNDER).then_some((p, worst, best - m))
            })
            .expect("a position with a blunder in it");
        let mut searcher = crate::ayo::house::mind(Level::Champion, &rules, Some(endgame));
        let reviewed = review(Game::from_position(rules, start), &[worst], |game| {
            let thought = searcher.think(game, Limits::depth(40))?;
            Some(Weighed {
                best: thought.best,
                value: thought.score,
                exact: thought.proven,
            })
        })
        .unwrap();
        let m = &reviewed[0];
        assert_eq!(m.loss, loss, "{m:?} at {start:?}");
        assert_eq!(m.mark, Some(Mark::Blunder));
        assert!(m.exact && m.best.is_some(), "{m:?}");
    }

    #[test]
    fn a_weigher_that_gives_up_calls_the_review_off() {
        let rules = Preset::Lagos.rules();
        let err = review(Game::new(rules), &[pit(1)], |_| None).unwrap_err();
        assert_eq!(err, ReviewError::CalledOff);
    }
}
