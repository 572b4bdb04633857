//! `lounge ayo replay`: checks and replays whole archives of games, one a line, or game
//! records (docs/records.md), each checked as a reader checks it.

use std::io::{self, BufRead, Read, Write};

use serde::Serialize;

use crate::ayo::{Game, Pit, PitError, Rules, Side, State};

/// The longest line read as one game: far more plies than any game lasts.
pub const MAX_LINE: usize = 1 << 20;

/// What a replay run saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReplayReport {
    /// Games read.
    pub games: usize,
    /// Games stopped by a malformed or illegal move.
    pub failed: usize,
}

#[derive(Serialize)]
struct StateLine<'a> {
    game: usize,
    #[serde(flatten)]
    state: &'a State,
}

#[derive(Serialize)]
struct ErrorLine<'a> {
    game: usize,
    ply: u32,
    error: &'static str,
    #[serde(rename = "move")]
    mv: &'a str,
    message: String,
}

/// Reads games from `input`, one a line, and writes JSON lines to `output` as
/// docs/protocol.md specifies. Each game's lines are flushed as soon as it is done, so results
/// stream while the input is still coming.
pub fn replay(
    rules: &Rules,
    trace: bool,
    input: impl BufRead,
    output: impl Write,
) -> io::Result<ReplayReport> {
    replay_from(rules, Side::South, trace, input, output)
}

/// [`replay`], every game begun by `first`: games of a match whose seats were kept may have
/// been begun by North.
pub fn replay_from(
    rules: &Rules,
    first: Side,
    trace: bool,
    mut input: impl BufRead,
    mut output: impl Write,
) -> io::Result<ReplayReport> {
    let mut report = ReplayReport::default();
    let mut line = Vec::new();
    loop {
        line.clear();
        let mut bounded = Read::take(&mut input, MAX_LINE as u64 + 1);
        if bounded.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if line.len() > MAX_LINE && line.last() != Some(&b'\n') {
            // Refuse the game rather than hold an endless line in memory.
            input.skip_until(b'\n')?;
            let message = format!("a game is at most {MAX_LINE} bytes on one line");
            let refused = ErrorLine {
                game: report.games,
                ply: 0,
                error: "line_too_long",
                mv: "",
                message,
            };
            serde_json::to_writer(&mut output, &refused)?;
            output.write_all(b"\n")?;
            report.failed += 1;
            report.games += 1;
            continue;
        }
        let text = String::from_utf8_lossy(&line);
        if !replay_game((rules, first), trace, report.games, &text, &mut output)? {
            report.failed += 1;
        }
        report.games += 1;
        output.flush()?;
    }
    output.flush()?;
    Ok(report)
}

/// Replays one game; false when a move stopped it.
fn replay_game(
    (rules, first): (&Rules, Side),
    trace: bool,
    index: usize,
    text: &str,
    out: &mut impl Write,
) -> io::Result<bool> {
    let mut game = Game::starting(*rules, first);
    if trace {
        write_state(out, index, &game.state())?;
    }
    for token in text.split_whitespace() {
        let refused = match token.parse::<Pit>() {
            Ok(pit) => game
                .play(pit)
                .err()
                .map(|e| ("illegal_move", e.to_string())),
            Err(e @ PitError::OutOfRange(_)) => Some(("illegal_move", e.to_string())),
            Err(e @ PitError::NotANumber(_)) => Some(("malformed_move", e.to_string())),
        };
        if let Some((error, message)) = refused {
            let line = ErrorLine {
                game: index,
                ply: game.ply(),
                error,
                mv: token,
                message,
            };
            serde_json::to_writer(&mut *out, &line)?;
            out.write_all(b"\n")?;
            return Ok(false);
        }
        if trace {
            write_state(out, index, &game.state())?;
        }
    }
    if !trace {
        write_state(out, index, &game.state())?;
    }
    Ok(true)
}

fn write_state(out: &mut impl Write, game: usize, state: &State) -> io::Result<()> {
    serde_json::to_writer(&mut *out, &StateLine { game, state })?;
    out.write_all(b"\n")
}

#[derive(Serialize)]
struct RecordLine<'a> {
    game: usize,
    /// The line of the record's first tag.
    line: usize,
    result: &'static str,
    end: &'static str,
    #[serde(flatten)]
    state: &'a State,
}

#[derive(Serialize)]
struct BadRecordLine {
    game: usize,
    line: usize,
    error: &'static str,
    message: String,
}

/// Reads game records (one or several, a blank line between) from `text`, checks each (every
/// move legal under its rules, its result and end what the moves give) and writes one JSON
/// line a record: its last state with `result` and `end`, or `{"game", "line", "error":
/// "bad_record", "message"}`.
pub fn replay_records(text: &str, mut output: impl Write) -> io::Result<ReplayReport> {
    let mut report = ReplayReport::default();
    for (index, (line, read)) in crate::ayo::record::read_all(text).into_iter().enumerate() {
        report.games += 1;
        match read.map(|r| (r.game(), r)) {
            Ok((Some(game), record)) => {
                let out = RecordLine {
                    game: index,
                    line,
                    result: crate::ayo::record::result_word(record.result),
                    end: record.end.word(),
                    state: &game.state(),
                };
                serde_json::to_writer(&mut output, &out)?;
            }
            Ok((None, _)) => unreachable!("a record read is a game"),
            Err(e) => {
                report.failed += 1;
                let out = BadRecordLine {
                    game: index,
                    line: e.line,
                    error: "bad_record",
                    message: e.to_string(),
                };
                serde_json::to_writer(&mut output, &out)?;
            }
        }
        output.write_all(b"\n")?;
    }
    output.flush()?;
    Ok(report)
}
