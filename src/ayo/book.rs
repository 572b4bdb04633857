//! Baba Ayo's opening book: for every position the first plies of a game can reach, the move
//! his own deep analysis chose there (`lounge ayo book`, src/cli/book.rs; how it was made is
//! in BENCHMARKS.md). The champion plays it at once instead of searching.
//!
//! The book ships with the binary as text (`book.txt`), a line a position: the moves that
//! reach it from the start, as pit numbers written together (`316`; nothing for the start),
//! then the book move and the analysis' score in seeds for the side to move:
//!
//! ```text
//! 316 4 +1
//! ```
//!
//! It is read once, on first use, by replaying each line under single sowing with captures of
//! two and three: its moves hold under every rule set that sows and captures so (`lagos`,
//! `kontest`, `oware`, Abapa), whose openings are the same game: no repetition can come in
//! its few plies, and it is kept from rules whose no-capture limit is nearer than
//! [`Book::SHORTEST_LIMIT`] plies (a limit of 1 ends the game at the first move).

use std::collections::HashMap;
use std::sync::LazyLock;

use thiserror::Error;

use super::board::{Pit, Position, Side};
use super::game::Game;
use super::rules::{Capture, Preset, Rules, Sowing};

/// The book shipped with the binary.
pub static BOOK: LazyLock<Book> =
    LazyLock::new(|| Book::parse(include_str!("book.txt")).unwrap_or_default());

/// A book move and what the analysis thought of it, in seeds for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub best: Pit,
    pub score: i32,
}

/// Positions and their book moves.
#[derive(Clone, Debug, Default)]
pub struct Book {
    moves: HashMap<u128, Entry>,
}

/// A book line that cannot be read.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum BookError {
    #[error("line {line}: {what}")]
    Line { line: usize, what: String },
}

/// The key of a position in the book: its pits, side to move and stores.
fn key(p: &Position) -> u128 {
    let [south, north] = p.stores();
    (p.repetition_key() << 12) | (u128::from(south) << 6) | u128::from(north)
}

impl Book {
    /// The nearest no-capture limit the book's moves are played under: its analysis (about
    /// 20 plies deep) saw no closer one than lagos's 60.
    pub const SHORTEST_LIMIT: u16 = 60;

    /// Whether the book's moves hold under `rules`.
    pub fn applies_to(rules: &Rules) -> bool {
        rules.sowing == Sowing::Single
            && rules.capture == Capture::TwoThree
            && (rules.no_capture_limit == 0 || rules.no_capture_limit >= Book::SHORTEST_LIMIT)
    }

    /// The book move for the side to move in `game`, if the book holds its position.
    pub fn get(&self, game: &Game) -> Option<Entry> {
        if !Book::applies_to(game.rules()) || game.is_over() {
            return None;
        }
        // The book's lines start with South; a game North began is the same game mirrored,
        // and a pit's number is along the mover's own row, so the move is the same.
        let position = match game.first() {
            Side::South => *game.position(),
            Side::North => game.position().mirrored(),
        };
        self.moves
            .get(&key(&position))
            .copied()
            .filter(|e| game.legal_moves().contains(e.best))
    }

    pub fn len(&self) -> usize {
        self.moves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// Adds the book move for the position `line` reaches from the start.
    pub fn insert(&mut self, line: &[Pit], entry: Entry) -> Result<(), String> {
        let game = replay(line)?;
        if !game.legal_moves().contains(entry.best) {
            return Err(format!("{} is not a legal move there", entry.best.number()));
        }
        self.moves.insert(key(game.position()), entry);
        Ok(())
    }

    /// Reads a book from its text.
    pub fn parse(text: &str) -> Result<Book, BookError> {
        let mut book = Book::default();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |what: String| BookError::Line { line: i + 1, what };
            let fields: Vec<&str> = line.split_whitespace().collect();
            // The start has no moves before it: its line is the book move and the score.
            let (moves, best, score) = match fields[..] {
                [best, score] => ("", best, score),
                [moves, best, score] => (moves, best, score),
                _ => return Err(bad(format!("expected moves, a move and a score: `{line}`"))),
            };
            if best.chars().count() != 1 {
                return Err(bad(format!("the move is one pit, not `{best}`")));
            }
            let pits = moves
                .chars()
                .chain(best.chars())
                .map(|c| {
                    c.to_digit(10)
                        .and_then(|d| Pit::new(d as u8))
                        .ok_or_else(|| bad(format!("`{c}` is not a pit from 1 to 6")))
                })
                .collect::<Result<Vec<Pit>, BookError>>()?;
            let (best, line_moves) = pits.split_last().expect("the move is there");
            let score: i32 = score
                .parse()
                .map_err(|_| bad(format!("`{score}` is not a score in seeds")))?;
            book.insert(line_moves, Entry { best: *best, score })
                .map_err(bad)?;
        }
        Ok(book)
    }
}

/// The game after `line` from the start, under the rules the book is read with.
pub fn replay(line: &[Pit]) -> Result<Game, String> {
    let mut game = Game::new(Preset::Lagos.rules());
    for &pit in line {
        game.play(pit)
            .map_err(|e| format!("{} cannot be played: {e}", pit.number()))?;
    }
    if game.is_over() {
        return Err("the game is over there".into());
    }
    Ok(game)
}

/// One book line for the position `line` reaches.
pub fn line_text(line: &[Pit], entry: Entry) -> String {
    let moves: String = line.iter().map(|p| p.number().to_string()).collect();
    let best = entry.best.number();
    if moves.is_empty() {
        format!("{best} {:+}", entry.score)
    } else {
        format!("{moves} {best} {:+}", entry.score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pits(s: &str) -> Vec<Pit> {
        s.chars()
            .map(|c| Pit::new(c.to_digit(10).unwrap() as u8).unwrap())
            .collect()
    }

    #[test]
    fn a_book_reads_back_what_it_writes() {
        let mut book = Book::default();
        let start = Entry {
            best: Pit::new(6).unwrap(),
            score: 0,
        };
        let later = Entry {
            best: Pit::new(4).unwrap(),
            score: -2,
        };
        let text = [line_text(&[], start), line_text(&pits("316"), later)].join("\n");
        assert_eq!(text, "6 +0\n316 4 -2");
        book = Book::parse(&text).unwrap_or(book);
        assert_eq!(book.len(), 2);
        let game = replay(&pits("316")).unwrap();
        assert_eq!(book.get(&game), Some(later));
        assert_eq!(book.get(&Game::new(Preset::Lagos.rules())), Some(start));
        // A game North begins is the same game mirrored: the same move.
        let mut north = Game::starting(Preset::Lagos.rules(), crate::ayo::Side::North);
        assert_eq!(book.get(&north), Some(start));
        for p in pits("316") {
            north.play(p).unwrap();
        }
        assert_eq!(book.get(&north), Some(later));
        // Another rule set whose openings are the same game finds it too; collecting fours does not.
        let mut oware = Game::new(Preset::Oware.rules());
        for p in pits("316") {
            oware.play(p).unwrap();
        }
        assert_eq!(book.get(&oware), Some(later));
        assert_eq!(book.get(&Game::new(Preset::Ayoayo.rules())), None);
        // Nor does a no-capture limit near enough to end the opening (1: the first move).
        let mut near = Preset::Lagos.rules();
        near.no_capture_limit = 1;
        assert_eq!(book.get(&Game::new(near)), None);
        near.no_capture_limit = Book::SHORTEST_LIMIT;
        assert_eq!(book.get(&Game::new(near)), Some(start));
    }

    #[test]
    fn bad_lines_are_refused_with_their_number() {
        for (text, what) in [
            ("6 +0\n31x 4 +1", "`x` is not a pit"),
            ("6 +0\n316 44 +1", "the move is one pit"),
            ("316 4 many", "is not a score"),
            ("1", "expected moves"),
        ] {
            let err = Book::parse(text).unwrap_err().to_string();
            assert!(err.contains(what), "{text:?}: {err}");
        }
        // A move that is not legal where the line leads.
        assert!(Book::parse("\n\n1111111 1 +0")
            .unwrap_err()
            .to_string()
            .starts_with("line 3"));
    }

    /// The shipped book reads, and holds every position within four plies of the start.
    #[test]
    fn the_shipped_book_holds_every_position_of_the_first_four_plies() {
        let book = Book::parse(include_str!("book.txt")).expect("the shipped book reads");
        let mut frontier = vec![Game::new(Preset::Lagos.rules())];
        for plies in 0..=4 {
            for game in &frontier {
                assert!(
                    book.get(game).is_some(),
                    "{plies} plies: {:?}",
                    game.position()
                );
            }
            frontier = frontier
                .iter()
                .flat_map(|g| {
                    g.legal_moves().iter().filter_map(move |pit| {
                        let mut next = g.clone();
                        next.play(pit).ok()?;
                        (!next.is_over()).then_some(next)
                    })
                })
                .collect();
        }
        assert_eq!(book.len(), BOOK.len(), "the static is the same book");
    }
}
