//! `lounge ayo book`: Baba Ayo's opening book made by his own analysis. Every position the
//! first plies of a game can reach is searched by the champion, with the rule set's endgame
//! database, for a fixed time; the move he settles on goes in the book (src/ayo/book.rs,
//! which reads what this prints).

use std::collections::HashSet;
use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::ayo::book::{self, Book, Entry};
use crate::ayo::endgame::Endgame;
use crate::ayo::house::{self, Level};
use crate::ayo::search::Limits;
use crate::ayo::{Pit, Rules};

/// The lines from the start of `plies` moves or fewer, one a position (the first line found
/// to reach it), shortest first.
pub fn positions(plies: u32) -> Vec<Vec<Pit>> {
    let mut seen = HashSet::new();
    let mut lines: Vec<Vec<Pit>> = vec![Vec::new()];
    let mut frontier = lines.clone();
    for _ in 0..plies {
        let mut next = Vec::new();
        for line in &frontier {
            let game = book::replay(line).expect("the lines are played from the start");
            for pit in game.legal_moves().iter() {
                let mut after = game.clone();
                after.play(pit).expect("a legal move");
                if after.is_over() || !seen.insert(*after.position()) {
                    continue;
                }
                let mut longer = line.clone();
                longer.push(pit);
                next.push(longer);
            }
        }
        lines.extend(next.iter().cloned());
        frontier = next;
    }
    lines
}

/// Searches every position of [`positions`] for `movetime` on `threads` threads and prints a
/// book line for each, in the order of the positions; a progress line to `progress` now and
/// then.
pub fn run(
    rules: Rules,
    plies: u32,
    movetime: Duration,
    threads: usize,
    endgame: Option<Arc<Endgame>>,
    mut out: impl Write,
    mut progress: impl Write,
) -> io::Result<Book> {
    let lines = positions(plies);
    let next = AtomicUsize::new(0);
    let found: Mutex<Vec<Option<Entry>>> = Mutex::new(vec![None; lines.len()]);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut searcher = house::mind(Level::Champion, &rules, endgame.clone());
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(line) = lines.get(i) else { break };
                    let mut game = crate::ayo::Game::new(rules);
                    for &pit in line {
                        game.play(pit)
                            .expect("the lines are legal under these rules");
                    }
                    let limits = Limits {
                        max_depth: crate::ayo::search::MAX_PLY as u32 - 1,
                        deadline: Some(Instant::now() + movetime),
                        stop: None,
                        pause: None,
                    };
                    if let Some(t) = searcher.think(&game, limits) {
                        found.lock().expect("no panics")[i] = Some(Entry {
                            best: t.best,
                            score: t.score,
                        });
                    }
                }
            });
        }
        // Progress from this thread while the others think.
        let mut told = 0;
        while next.load(Ordering::Relaxed) < lines.len() {
            std::thread::sleep(Duration::from_millis(200));
            let done = next.load(Ordering::Relaxed).min(lines.len());
            if done >= told + lines.len() / 20 {
                told = done;
                let _ = writeln!(
                    progress,
                    "{done} of {} positions, {:.0} s",
                    lines.len(),
                    started.elapsed().as_secs_f64()
                );
            }
        }
    });
    let mut book = Book::default();
    writeln!(
        out,
        "# Baba Ayo's opening book (src/ayo/book.rs): every position within {plies} plies of the start, {} ms of the champion each",
        movetime.as_millis()
    )?;
    for (line, entry) in lines.iter().zip(found.into_inner().unwrap_or_default()) {
        let Some(entry) = entry else { continue };
        writeln!(out, "{}", book::line_text(line, entry))?;
        book.insert(line, entry).map_err(io::Error::other)?;
    }
    Ok(book)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions within two plies: the start, its six children, and their distinct children.
    #[test]
    fn positions_are_every_board_the_first_plies_reach_once() {
        let lines = positions(2);
        assert_eq!(lines[0], Vec::<Pit>::new());
        assert_eq!(lines.iter().filter(|l| l.len() == 1).count(), 6);
        assert_eq!(lines.iter().filter(|l| l.len() == 2).count(), 36);
        let mut book = Vec::new();
        run(
            crate::ayo::Preset::Lagos.rules(),
            1,
            Duration::from_millis(5),
            2,
            None,
            &mut book,
            io::sink(),
        )
        .expect("writes to memory");
        let text = String::from_utf8(book).expect("text");
        let read = Book::parse(&text).expect("what it prints reads back");
        assert_eq!(read.len(), 7, "{text}");
    }
}
