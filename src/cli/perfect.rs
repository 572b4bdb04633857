//! `lounge ayo perfect`: Baba Ayo's moves checked against the endgame database. Boards the
//! database covers, either drawn at random (every seed count from 1 to its largest alike) or
//! every one of them (`--every`), with stores short of a majority and either side to move,
//! are searched by the champion as he searches in play, and each move he picks must keep the
//! best result there is (a win a win, a draw at least a draw); how many also keep the best
//! margin is counted too. A majority ends a game at once, which the database leaves out on
//! purpose, so a won game may be won by a smaller margin than the database's play to the last
//! seed.
//!
//! Where the no-capture limit ends a run, each board is taken at a random number of plies since
//! the last capture. Where a repetition ends the game the database holds bounds over every
//! path: only boards whose bounds meet (the value known whatever the path) name a best result,
//! and they are taken as first entered, after a capture. There a move keeps the result when
//! the least it can gain by the bounds of the board it leads to still keeps it, and misses it
//! when even the most it can gain falls short; between the two the database cannot tell, and
//! the move is counted as undecided rather than guessed either way.

use std::io::{self, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::ayo::endgame::Endgame;
use crate::ayo::house::{self, Level};
use crate::ayo::search::{Limits, Searcher, MAX_PLY};
use crate::ayo::{Game, Position, Repetition, Rules, Side, HALF, PITS, SEEDS};

use super::matches::xorshift;

/// What a check found.
#[derive(Debug, Default)]
pub struct Check {
    /// Boards whose best result the database names, and so checked.
    pub positions: u64,
    /// Moves that kept the best result.
    pub perfect: u64,
    /// Moves that also kept the database's best margin.
    pub best_margin: u64,
    /// Moves the database's bounds can neither clear nor convict (repetition rules only).
    pub undecided: u64,
    /// Boards passed over: the game already over there, or (under repetition) the value not
    /// known whatever the path.
    pub passed: u64,
    /// The first boards where the result slipped, with what the move gained (at most) and the
    /// best.
    pub misses: Vec<(Position, i32, i32)>,
}

impl Check {
    fn add(&mut self, other: Check) {
        self.positions += other.positions;
        self.perfect += other.perfect;
        self.best_margin += other.best_margin;
        self.undecided += other.undecided;
        self.passed += other.passed;
        let room = 10usize.saturating_sub(self.misses.len());
        self.misses.extend(other.misses.into_iter().take(room));
    }

    /// Moves that lost the best result.
    pub fn missed(&self) -> u64 {
        self.positions - self.perfect - self.undecided
    }
}

/// The position of `board` (as its mover sees it: own row first) with `mover` to move, stores
/// short of a majority and a number of plies since the last capture, both drawn from `rng`;
/// `None` where the game is already over there.
fn position(rules: &Rules, board: [u8; PITS], mover: Side, rng: &mut u64) -> Option<Game> {
    let n: u8 = board.iter().sum();
    let mut pits = board;
    if mover == Side::North {
        pits.rotate_left(PITS / 2);
    }
    // Stores short of a majority: South takes from `rest - HALF` to `HALF`.
    let rest = SEEDS - n;
    let low = rest.saturating_sub(HALF);
    // Past 24 seeds on the board neither store can hold a majority.
    let high = HALF.min(rest);
    let south = low + (xorshift(rng) % u64::from(high - low + 1)) as u8;
    // Under repetition the board is as first entered: nothing before it can come round again.
    let since = match rules.no_capture_limit {
        _ if rules.repetition == Repetition::EndsGame => 0,
        0 => 0,
        limit => (xorshift(rng) % u64::from(limit)) as u16,
    };
    let p = Position::new(pits, [south, rest - south], mover, since).ok()?;
    let game = Game::from_position(*rules, p);
    (!game.is_over()).then_some(game)
}

/// A random board of 1 to `max_seeds` seeds, as its mover sees it, and its mover.
fn random_board(max_seeds: u8, rng: &mut u64) -> ([u8; PITS], Side) {
    let n = 1 + (xorshift(rng) % u64::from(max_seeds.max(1))) as u8;
    let mut pits = [0u8; PITS];
    for _ in 0..n {
        pits[(xorshift(rng) % PITS as u64) as usize] += 1;
    }
    let side = if xorshift(rng).is_multiple_of(2) {
        Side::South
    } else {
        Side::North
    };
    (pits, side)
}

/// The board of `n` seeds after `board` in lexicographic order (the database's rank order);
/// `false` after the last.
fn next_board(board: &mut [u8; PITS]) -> bool {
    // The last pit takes what the others leave; move one seed from it, or from the rightmost
    // pit before it that holds any, one pit to the left, and put the rest back at the end.
    let last = PITS - 1;
    let Some(i) = (0..last)
        .rev()
        .find(|&i| board[i + 1..].iter().any(|&v| v > 0))
    else {
        return false;
    };
    let rest: u8 = board[i + 1..].iter().sum();
    board[i] += 1;
    board[i + 1..].fill(0);
    board[last] = rest - 1;
    true
}

/// Judges the champion's move in `game` against `db`, into `found`; `None` where the database
/// names no best result there (the caller counts the board as passed over).
fn judge(
    searcher: &mut Searcher,
    db: &Endgame,
    game: &Game,
    movetime: Duration,
    found: &mut Check,
) -> Option<()> {
    let p = *game.position();
    let (best, hi) = db.bounds(&p)?;
    (best == hi).then_some(())?;
    let limits = Limits {
        max_depth: MAX_PLY as u32 - 1,
        deadline: Some(Instant::now() + movetime),
        stop: None,
        pause: None,
    };
    let thought = searcher.think(game, limits)?;
    let mut after = game.clone();
    let captured = i32::from(after.play(thought.best).ok()?.captured);
    let me = p.to_move().index();
    let margin = |s: [u8; 2]| i32::from(s[me]) - i32::from(s[1 - me]);
    // What the move gains, at least and at most: the game over, or the board it leads to.
    let (least, most) = if after.is_over() {
        // The game has swept what was left on the board (`Game::settle`): the stores are final.
        let g = margin(after.position().stores()) - margin(p.stores());
        (g, g)
    } else {
        let (lo, hi) = db.bounds(after.position())?;
        (captured - hi, captured - lo)
    };
    found.positions += 1;
    let result = |gain: i32| (margin(p.stores()) + gain).signum();
    found.best_margin += u64::from(least == best);
    if result(least) >= result(best) {
        found.perfect += 1;
    } else if result(most) >= result(best) {
        found.undecided += 1;
    } else if found.misses.len() < 10 {
        found.misses.push((p, most, best));
    }
    Some(())
}

/// Judges `game` if there is one (the game still going on at the board), else counts the
/// board as passed over.
fn judge_or_pass(
    searcher: &mut Searcher,
    db: &Endgame,
    game: Option<Game>,
    movetime: Duration,
    found: &mut Check,
) {
    let judged = game.and_then(|game| judge(searcher, db, &game, movetime, found));
    found.passed += u64::from(judged.is_none());
}

/// Checks `positions` random boards, each searched for at most `movetime`.
pub fn check(rules: Rules, db: &Arc<Endgame>, positions: u32, movetime: Duration) -> Check {
    let mut searcher = house::mind(Level::Champion, &rules, Some(db.clone()));
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut found = Check::default();
    while found.positions < u64::from(positions) {
        let (board, side) = random_board(db.max_seeds(), &mut rng);
        let Some(game) = position(&rules, board, side, &mut rng) else {
            continue;
        };
        judge_or_pass(&mut searcher, db, Some(game), movetime, &mut found);
        // Under repetition most boards are passed over (about seven for each one checked at 12
        // seeds); a database that knows few or none of them must not loop for ever.
        if found.passed > 1000 * u64::from(positions).max(100) {
            break;
        }
    }
    found
}

/// Checks every board of `n` seeds, on `threads` threads, each board searched for at most
/// `movetime`; its mover, stores and plies since a capture are drawn from the board's rank, so
/// the positions checked are the same however many threads share them (the moves may not be:
/// each thread's searcher keeps its table from board to board, and thinks against the clock).
pub fn check_every(
    rules: Rules,
    db: &Arc<Endgame>,
    n: u8,
    threads: usize,
    movetime: Duration,
) -> Check {
    let threads = threads.max(1);
    let work = |t: usize| {
        let mut searcher = house::mind(Level::Champion, &rules, Some(db.clone()));
        let mut found = Check::default();
        let mut board = [0u8; PITS];
        board[PITS - 1] = n;
        let mut rank = 0usize;
        loop {
            if rank % threads == t {
                let mut rng =
                    (u64::from(n) << 40 | rank as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
                let side = if xorshift(&mut rng).is_multiple_of(2) {
                    Side::South
                } else {
                    Side::North
                };
                let game = position(&rules, board, side, &mut rng);
                judge_or_pass(&mut searcher, db, game, movetime, &mut found);
            }
            rank += 1;
            if !next_board(&mut board) {
                break;
            }
        }
        found
    };
    let mut found = Check::default();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|t| s.spawn(move || work(t))).collect();
        for h in handles {
            found.add(h.join().expect("a checking thread panicked"));
        }
    });
    found
}

/// Runs [`check`] (or [`check_every`] for each seed count, when `every`) and prints what it
/// found; `Ok(false)` when a move fell short.
pub fn run(
    rules: Rules,
    db: &Arc<Endgame>,
    sample: Option<u32>,
    threads: usize,
    movetime: Duration,
    mut out: impl Write,
) -> io::Result<bool> {
    let started = Instant::now();
    let found = match sample {
        Some(positions) => check(rules, db, positions, movetime),
        None => {
            let mut all = Check::default();
            for n in 1..=db.max_seeds() {
                let at = Instant::now();
                let found = check_every(rules, db, n, threads, movetime);
                report(&mut out, &format!("{n} seeds, every board:"), &found, at)?;
                all.add(found);
            }
            all
        }
    };
    report(
        &mut out,
        &format!("1 to {} seeds, in all:", db.max_seeds()),
        &found,
        started,
    )?;
    for (p, gained, best) in &found.misses {
        writeln!(
            out,
            "result lost: {p:?}: the move gains {gained} at most, the best {best}"
        )?;
    }
    Ok(found.missed() == 0 && found.positions > 0)
}

fn report(out: &mut impl Write, what: &str, found: &Check, since: Instant) -> io::Result<()> {
    write!(
        out,
        "{what} {} of {} boards played perfectly by the champion against the database, {} of them for its best margin",
        found.perfect, found.positions, found.best_margin,
    )?;
    if found.undecided > 0 {
        write!(out, ", {} undecided by its bounds", found.undecided)?;
    }
    writeln!(
        out,
        "; {} passed over ({:.1} s)",
        found.passed,
        since.elapsed().as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::{judge_or_pass, next_board, position, Check};
    use crate::ayo::endgame::Endgame;
    use crate::ayo::search::Searcher;
    use crate::ayo::{Rules, Side, PITS};

    /// Every board of `n` seeds with South to move, judged with `searcher`.
    fn judge_all(searcher: &mut Searcher, db: &Endgame, n: u8, movetime: Duration) -> Check {
        let rules = *db.rules();
        let mut found = Check::default();
        let mut board = [0u8; PITS];
        board[PITS - 1] = n;
        let mut rng = 7;
        loop {
            let game = position(&rules, board, Side::South, &mut rng);
            judge_or_pass(searcher, db, game, movetime, &mut found);
            if !next_board(&mut board) {
                return found;
            }
        }
    }

    #[test]
    fn a_player_one_ply_deep_is_caught_and_the_champion_is_not() {
        let rules = Rules::default();
        let db = Arc::new(Endgame::build(&rules, 6).unwrap());
        // No time at all: the first ply only, and no database.
        let shallow = judge_all(&mut Searcher::new(rules, 12, None), &db, 6, Duration::ZERO);
        assert!(shallow.positions > 5000, "{shallow:?}");
        assert!(
            shallow.missed() > 0 && !shallow.misses.is_empty(),
            "{shallow:?}"
        );
        let mut champion = Searcher::new(rules, 16, Some(db.clone()));
        let found = judge_all(&mut champion, &db, 6, Duration::from_millis(50));
        assert_eq!(found.positions, shallow.positions);
        assert_eq!((found.missed(), found.undecided), (0, 0), "{found:?}");
    }

    #[test]
    fn next_board_walks_every_board_in_rank_order() {
        for n in 0..=5u8 {
            let mut board = [0u8; PITS];
            board[PITS - 1] = n;
            let mut seen = vec![board];
            while next_board(&mut board) {
                assert_eq!(board.iter().sum::<u8>(), n);
                assert!(seen.last().unwrap() < &board, "not in lexicographic order");
                seen.push(board);
            }
            // C(n + 11, 11) boards of n seeds over twelve pits.
            let expected = (1..=11u64).fold(1u64, |c, i| c * (u64::from(n) + i) / i);
            assert_eq!(seen.len() as u64, expected, "{n} seeds");
        }
    }
}
