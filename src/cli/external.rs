//! An engine outside the lounge as a player in `lounge ayo match`: a child process that speaks
//! the UCI-like protocol Oware engines use, one line a command, as Aalina (the Samurai
//! framework's `UCIService`) reads and writes it:
//!
//! | we send | it answers |
//! | --- | --- |
//! | `uci` (once, at start) | `id ...`, `option ...`, then `uciok` |
//! | `ucinewgame`, `isready` (before each game) | `readyok` |
//! | `position startpos` or `position startpos moves AdFb` (the whole game, every move) | nothing |
//! | `go movetime N` | `info ...` lines, then `bestmove X` (maybe `ponder Y` after it) |
//! | `quit` (at the end) | it exits |
//!
//! A move is one letter: `A`-`F` South's pits 1-6 in sowing order, `a`-`f` North's. After
//! `moves` they are written with no space between them (`AdFb`): Aalina splits that word into
//! letters, and a space would be read as a move. `bestmove 0000` means the engine thinks the
//! game is over. Lines we do not know (`info`, `id`, `option`, anything else) are skipped, as
//! the protocol asks.
//!
//! Aalina accepts `position` only when it is not thinking, and it thinks until it has sent
//! `bestmove`: we never send anything between `go` and `bestmove`.

use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::ayo::{Game, Pit, Side};

/// How long an engine may take to start (a Java engine loads its books) and to say it is ready.
const STARTUP: Duration = Duration::from_secs(60);
/// How much longer than its move time an engine may think before it is taken for hung.
const GRACE: Duration = Duration::from_secs(30);

/// What went wrong with an external engine. Any of these ends the match: a result with a
/// misbehaving engine in it would not measure anything.
#[derive(Debug, Error)]
pub enum ExternalError {
    #[error("the external engine's command is empty")]
    NoCommand,
    #[error("cannot start `{command}`: {source}")]
    Start { command: String, source: io::Error },
    #[error("the engine closed its output (did it exit?) while we waited for `{waiting}`")]
    Closed { waiting: &'static str },
    #[error("the engine said nothing for {} s while we waited for `{waiting}`", .after.as_secs())]
    Silent {
        waiting: &'static str,
        after: Duration,
    },
    #[error("the engine answered `bestmove 0000`: it takes the game for over")]
    NoMove,
    #[error(
        "the engine's move `{0}` is not one of the mover's pits (A-F for South, a-f for North)"
    )]
    NotAPit(String),
    #[error("the engine's move `{0}` is not legal here")]
    Illegal(String),
    #[error("writing to the engine: {0}")]
    Io(#[from] io::Error),
}

/// The letter of `side`'s pit `pit`: `A`-`F` for South, `a`-`f` for North.
pub fn pit_letter(side: Side, pit: Pit) -> char {
    let first = match side {
        Side::South => b'A',
        Side::North => b'a',
    };
    char::from(first + pit.number() - 1)
}

/// The pit a move's letter names, if it is one of `side`'s.
pub fn parse_pit(side: Side, word: &str) -> Option<Pit> {
    let [letter] = word.as_bytes() else {
        return None;
    };
    let first = match side {
        Side::South => b'A',
        Side::North => b'a',
    };
    Pit::new(letter.wrapping_sub(first).wrapping_add(1))
}

/// `position startpos [moves ...]` for a game played from the start.
pub fn position_line(game: &Game) -> String {
    let mut side = Side::South;
    let mut moves = String::with_capacity(game.moves().len());
    for &pit in game.moves() {
        moves.push(pit_letter(side, pit));
        side = side.opponent();
    }
    if moves.is_empty() {
        "position startpos".to_owned()
    } else {
        format!("position startpos moves {moves}")
    }
}

/// A running external engine, started once and kept for every game one match thread plays.
pub struct External {
    child: Child,
    input: ChildStdin,
    /// Its output, line by line, from a thread of its own: a hung engine is then a timeout,
    /// not a match that never ends.
    lines: Receiver<String>,
}

impl External {
    /// Starts `command` (a program and its arguments, split at spaces: wrap anything fancier in
    /// a script) and waits for its `uciok`.
    pub fn start(command: &str) -> Result<External, ExternalError> {
        let mut words = command.split_whitespace();
        let program = words.next().ok_or(ExternalError::NoCommand)?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|source| ExternalError::Start {
                command: command.to_owned(),
                source,
            })?;
        let input = child.stdin.take().expect("piped");
        let output = child.stdout.take().expect("piped");
        // Bounded: an engine that floods its output waits for us instead of filling memory.
        let (tx, lines) = mpsc::sync_channel(1024);
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = External {
            child,
            input,
            lines,
        };
        engine.send("uci")?;
        engine.wait_for("uciok", STARTUP)?;
        Ok(engine)
    }

    /// Tells the engine a new game starts and waits until it is ready.
    pub fn new_game(&mut self) -> Result<(), ExternalError> {
        self.send("ucinewgame")?;
        self.send("isready")?;
        self.wait_for("readyok", STARTUP)?;
        Ok(())
    }

    /// The engine's move in `game` (played from the start), thinking `movetime`.
    pub fn best_move(&mut self, game: &Game, movetime: Duration) -> Result<Pit, ExternalError> {
        let side = game.position().to_move();
        self.send(&position_line(game))?;
        self.send(&format!("go movetime {}", movetime.as_millis().max(1)))?;
        let answer = self.wait_for("bestmove", movetime + GRACE)?;
        let word = answer.split_whitespace().nth(1).unwrap_or_default();
        if word == "0000" {
            return Err(ExternalError::NoMove);
        }
        let pit = parse_pit(side, word).ok_or_else(|| ExternalError::NotAPit(word.to_owned()))?;
        if !game.legal_moves().contains(pit) {
            return Err(ExternalError::Illegal(word.to_owned()));
        }
        Ok(pit)
    }

    fn send(&mut self, line: &str) -> io::Result<()> {
        writeln!(self.input, "{line}")?;
        self.input.flush()
    }

    /// Skips lines until one whose first word is `word`, and returns it.
    fn wait_for(&mut self, word: &'static str, within: Duration) -> Result<String, ExternalError> {
        let deadline = Instant::now() + within;
        loop {
            // Checked before each line: an engine that never stops talking still runs out.
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ExternalError::Silent {
                    waiting: word,
                    after: within,
                });
            }
            match self.lines.recv_timeout(left) {
                Ok(line) if line.split_whitespace().next() == Some(word) => return Ok(line),
                Ok(_) => continue,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(ExternalError::Silent {
                        waiting: word,
                        after: within,
                    })
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(ExternalError::Closed { waiting: word })
                }
            }
        }
    }
}

impl Drop for External {
    /// Asks the engine to quit, and ends it if it has not within a second.
    fn drop(&mut self) {
        let _ = self.send("quit");
        let until = Instant::now() + Duration::from_secs(1);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
