//! `lounge ayo uci`: Baba Ayo as an engine speaking the UCI-like protocol of Oware engines, the
//! other side of [`super::external`]. Another engine's tools can then play him, and one build
//! of him can play another (`lounge ayo match champion external --external 'OLD/lounge ayo
//! uci'`).
//!
//! It answers `uci` (`id name`, `id author`, `uciok`), `isready` (`readyok`), `ucinewgame`,
//! `position startpos [moves AdFb]`, `go movetime N` (one `info` line, then `bestmove X`, or
//! `bestmove 0000` when the game is over) and `quit`. It thinks on the thread that reads, so
//! `stop` is not needed and not read. A line it cannot use is answered with `info string` and
//! skipped, as the protocol asks.

use std::io::{self, BufRead, Write};
use std::time::Duration;

use super::external::{parse_pit, pit_letter};
use crate::ayo::eval::Weights;
use crate::ayo::house::{self, Ask, Level};
use crate::ayo::{Game, Rules};
use crate::house::{Budgets, Endgames};

/// Serves the protocol on `input` and `output` until `quit` or the end of the input.
pub fn serve(
    rules: Rules,
    level: Level,
    weights: Option<Weights>,
    budgets: &Budgets,
    endgames: &Endgames,
    input: impl BufRead,
    mut output: impl Write,
) -> io::Result<()> {
    let endgame = (level == Level::Champion)
        .then(|| endgames.get(&rules))
        .flatten();
    let mut searcher = house::mind(level, &rules, endgame);
    if let Some(weights) = weights {
        searcher = searcher.with_weights(weights);
    }
    let mut game = Game::new(rules);
    // The last `position` could not be read.
    let mut lost = false;
    for line in input.lines() {
        let line = line?;
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["uci", ..] => {
                writeln!(output, "id name Baba Ayo ({})", level.name())?;
                writeln!(output, "id author Lagos Hotel")?;
                writeln!(output, "uciok")?;
            }
            ["isready", ..] => writeln!(output, "readyok")?,
            ["ucinewgame", ..] => {
                game = Game::new(rules);
                lost = false;
            }
            ["position", "startpos", rest @ ..] => match replay(rules, rest) {
                Ok(g) => {
                    game = g;
                    lost = false;
                }
                Err(e) => {
                    // Never answer for the position before: no move until a good one comes.
                    writeln!(output, "info string {e}")?;
                    lost = true;
                }
            },
            ["go", ..] if lost => writeln!(output, "bestmove 0000")?,
            ["go", rest @ ..] => {
                let movetime = match rest {
                    ["movetime", ms, ..] => ms.parse().ok().map(Duration::from_millis),
                    _ => None,
                }
                .unwrap_or_else(|| budgets.of(level));
                let ask = Ask {
                    game: &game,
                    level,
                    movetime,
                    endgame: None,
                    seed: u64::from(game.ply()) + 1,
                    stop: None,
                    book: true,
                };
                match house::think_with(&mut searcher, ask) {
                    None => writeln!(output, "bestmove 0000")?,
                    Some(t) => {
                        let side = game.position().to_move();
                        writeln!(
                            output,
                            "info depth {} score cp {} nodes {}",
                            t.depth,
                            t.value * 100 / crate::ayo::search::SEED,
                            t.nodes
                        )?;
                        writeln!(output, "bestmove {}", pit_letter(side, t.best))?;
                    }
                }
            }
            ["quit", ..] => break,
            [] => continue,
            _ => writeln!(output, "info string not understood: {line}")?,
        }
        output.flush()?;
    }
    Ok(())
}

/// The game `moves AdFb` (or nothing) makes from the start.
fn replay(rules: Rules, words: &[&str]) -> Result<Game, String> {
    let mut game = Game::new(rules);
    let letters = match words {
        [] => "",
        ["moves", letters] => letters,
        ["moves"] => "",
        _ => {
            return Err(format!(
                "expected `moves` and one word of letters: {words:?}"
            ))
        }
    };
    for (i, letter) in letters.chars().enumerate() {
        let side = game.position().to_move();
        let pit = parse_pit(side, letter.encode_utf8(&mut [0; 4]))
            .ok_or_else(|| format!("move {}: `{letter}` is not {side}'s", i + 1))?;
        game.play(pit)
            .map_err(|e| format!("move {} (`{letter}`): {e}", i + 1))?;
    }
    Ok(game)
}
