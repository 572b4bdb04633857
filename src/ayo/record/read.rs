//! Reading records back, checked: tags, then moves played one by one, then the end.

use super::tags::{number, read_tags, Lines};
use super::{End, Reason, Record, RecordError, RecordedMove};
use crate::ayo::clock::TimeControl;
use crate::ayo::{Forfeit, Game, Pit};

/// Reads a text holding exactly one record.
pub fn read(text: &str) -> Result<Record, RecordError> {
    let mut all = read_all(text).into_iter().map(|(_, r)| r);
    let first = all.next().unwrap_or(Err(RecordError {
        line: 1,
        reason: Reason::MissingTag("Rules"),
    }))?;
    match all.next() {
        None => Ok(first),
        Some(Ok(_)) => Err(RecordError {
            line: text.lines().count(),
            reason: Reason::Malformed {
                expected: "one record",
                found: "another record".into(),
            },
        }),
        Some(Err(e)) => Err(e),
    }
}

/// Reads every record of a text (records separated by blank lines), each checked by itself:
/// one refused does not stop the next from being read. Each with the line it begins on;
/// lines are counted in the whole text.
pub fn read_all(text: &str) -> Vec<(usize, Result<Record, RecordError>)> {
    let mut paragraphs: Vec<Vec<(usize, &str)>> = Vec::new();
    let mut current: Vec<(usize, &str)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
        } else {
            current.push((i + 1, line));
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    let mut records = Vec::new();
    let mut paragraphs = paragraphs.into_iter().peekable();
    while let Some(tags) = paragraphs.next() {
        let is_tags = |p: &[(usize, &str)]| p.first().is_some_and(|(_, l)| l.starts_with('['));
        if !is_tags(&tags) {
            let (line, text) = tags[0];
            records.push((
                line,
                Err(RecordError {
                    line,
                    reason: Reason::Malformed {
                        expected: "a record's first tag line",
                        found: text.to_owned(),
                    },
                }),
            ));
            continue;
        }
        let moves = match paragraphs.peek() {
            Some(p) if !is_tags(p) => paragraphs.next(),
            _ => None,
        };
        records.push((tags[0].0, one(&tags, moves.as_deref())));
    }
    records
}

fn one(tags: &[(usize, &str)], moves: Option<&[(usize, &str)]>) -> Result<Record, RecordError> {
    let (record, stores, mut lines) = read_tags(tags)?;
    let Some(moves) = moves else {
        let line = tags.last().map_or(1, |(l, _)| l + 1);
        return Err(RecordError {
            line,
            reason: Reason::MissingMoves("no moves follow (a game without moves has its result)"),
        });
    };
    let (record, game) = read_moves(record, moves, &mut lines)?;
    let mut game = game;
    finish(&record, &mut game).map_err(|(at, reason)| RecordError {
        line: match at {
            At::Result => lines.result,
            At::End => lines.end,
            At::LastMove => lines.last,
        },
        reason,
    })?;
    if let Some(stated) = stores {
        let played = game.position().stores();
        if stated != played {
            return Err(RecordError {
                line: lines.stores,
                reason: Reason::WrongStores {
                    stated: format!("{}-{}", stated[0], stated[1]),
                    played: format!("{}-{}", played[0], played[1]),
                },
            });
        }
    }
    Ok(record)
}

/// A token of the moves and the line it is on.
#[derive(Debug)]
enum Token<'a> {
    Turn(&'a str),
    Word(&'a str),
    Clock(&'a str),
    Comment(&'a str),
}

fn tokens<'a>(lines: &[(usize, &'a str)]) -> Result<Vec<(usize, Token<'a>)>, RecordError> {
    let mut out = Vec::new();
    for &(line, text) in lines {
        let mut rest = text;
        loop {
            rest = rest.trim_start();
            let Some(c) = rest.chars().next() else { break };
            let (token, len) = match c {
                '{' | '(' => {
                    let close = if c == '{' { '}' } else { ')' };
                    let Some(end) = rest.find(close) else {
                        return Err(RecordError {
                            line,
                            reason: Reason::Malformed {
                                expected: if c == '{' {
                                    "a comment closed by `}` on its line"
                                } else {
                                    "a clock time closed by `)`"
                                },
                                found: rest.to_owned(),
                            },
                        });
                    };
                    let inner = &rest[1..end];
                    let token = if c == '{' {
                        Token::Comment(inner)
                    } else {
                        Token::Clock(inner)
                    };
                    (token, end + 1)
                }
                _ => {
                    let end = rest
                        .find(|c: char| c.is_whitespace() || c == '{' || c == '(')
                        .unwrap_or(rest.len());
                    let word = &rest[..end];
                    let token = match word.strip_suffix('.') {
                        Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                            Token::Turn(n)
                        }
                        _ => Token::Word(word),
                    };
                    (token, end)
                }
            };
            out.push((line, token));
            rest = &rest[len..];
        }
    }
    Ok(out)
}

/// `H:MM:SS.mmm` in milliseconds.
fn clock_time(text: &str) -> Option<u64> {
    let (hms, millis) = text.split_once('.')?;
    let mut parts = hms.split(':');
    let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || m.len() != 2 || s.len() != 2 || millis.len() != 3 {
        return None;
    }
    let digits = |p: &str| -> Option<u64> {
        (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())).then(|| p.parse().ok())?
    };
    let (h, m, s, ms) = (number(h)?, digits(m)?, digits(s)?, digits(millis)?);
    (m < 60 && s < 60).then_some(((u64::from(h) * 60 + m) * 60 + s) * 1000 + ms)
}

fn read_moves(
    mut record: Record,
    lines: &[(usize, &str)],
    at: &mut Lines,
) -> Result<(Record, Game), RecordError> {
    let tokens = tokens(lines)?;
    let mut game = Game::starting(record.rules, record.first);
    let timed = record.clock.is_some_and(|c| c != TimeControl::None);
    let mut turn = 0u32;
    // Moves in the turn being read: 0 before its first, 1, 2.
    let mut in_turn = 2u8;
    let mut ended = false;
    at.last = lines.first().map_or(at.result, |(l, _)| *l);
    for (line, token) in tokens {
        let err = |reason| RecordError { line, reason };
        let malformed = |expected: &'static str, found: &str| {
            err(Reason::Malformed {
                expected,
                found: found.to_owned(),
            })
        };
        if ended {
            let found = match token {
                Token::Turn(n) => format!("{n}."),
                Token::Word(w) => w.to_owned(),
                Token::Clock(c) => format!("({c})"),
                Token::Comment(c) => format!("{{{c}}}"),
            };
            return Err(malformed("nothing after the result", &found));
        }
        match token {
            Token::Turn(n) => {
                if in_turn == 1 {
                    return Err(malformed(
                        "the second move of the turn (only the last turn may have one)",
                        &format!("{n}."),
                    ));
                }
                if in_turn == 0 {
                    return Err(malformed(
                        "a move after the turn's number",
                        &format!("{n}."),
                    ));
                }
                turn += 1;
                if number(n) != Some(turn) {
                    return Err(err(Reason::TurnNumber {
                        expected: turn,
                        found: format!("{n}."),
                    }));
                }
                in_turn = 0;
            }
            Token::Word(w) if w.bytes().all(|b| b.is_ascii_digit()) => {
                if in_turn == 2 {
                    return Err(malformed("a turn's number `N.` before its moves", w));
                }
                let pit: Pit = w
                    .parse()
                    .map_err(|_| malformed("a pit number from 1 to 6", w))?;
                let ply = game.ply();
                game.play(pit)
                    .map_err(|error| err(Reason::IllegalMove { ply, error }))?;
                record.moves.push(RecordedMove::new(pit));
                in_turn += 1;
                at.last = line;
            }
            Token::Word(w) => {
                let result = super::result_word(record.result);
                if !matches!(w, "south_won" | "north_won" | "draw") {
                    return Err(malformed(
                        "a turn number, a pit, `(H:MM:SS.mmm)`, `{comment}` or the result",
                        w,
                    ));
                }
                if in_turn == 0 {
                    return Err(malformed("a move after the turn's number", w));
                }
                if w != result {
                    return Err(err(Reason::ResultMarker {
                        found: w.to_owned(),
                        tagged: result,
                    }));
                }
                ended = true;
            }
            Token::Clock(c) => {
                let Some(last) = record
                    .moves
                    .last_mut()
                    .filter(|_| in_turn == 1 || in_turn == 2)
                else {
                    return Err(malformed("a move before its clock time", &format!("({c})")));
                };
                if last.left_ms.is_some() || last.comment.is_some() {
                    return Err(malformed(
                        "one clock time after a move, before its comment",
                        &format!("({c})"),
                    ));
                }
                if !timed {
                    return Err(err(Reason::ClockWithoutControl));
                }
                last.left_ms =
                    Some(clock_time(c).ok_or_else(|| malformed("a clock time (H:MM:SS.mmm)", c))?);
            }
            Token::Comment(c) => {
                let Some(last) = record
                    .moves
                    .last_mut()
                    .filter(|_| in_turn == 1 || in_turn == 2)
                else {
                    return Err(malformed("a move before its comment", &format!("{{{c}}}")));
                };
                if last.comment.is_some() || c.contains('{') {
                    return Err(malformed("one comment after a move", &format!("{{{c}}}")));
                }
                last.comment = Some(c.to_owned());
            }
        }
    }
    if !ended {
        let line = lines.last().map_or(at.result, |(l, _)| *l);
        return Err(RecordError {
            line,
            reason: Reason::MissingMoves("the moves end with the result word"),
        });
    }
    Ok((record, game))
}

/// Which line an error of the end points at.
pub(super) enum At {
    Result,
    End,
    LastMove,
}

/// Checks the stated end and result against the game the moves played, and ends it so.
pub(super) fn finish(record: &Record, game: &mut Game) -> Result<(), (At, Reason)> {
    let stated = super::result_word(record.result).to_owned();
    let wrong = |why: String| {
        Err((
            At::Result,
            Reason::WrongResult {
                stated: stated.clone(),
                why,
            },
        ))
    };
    if let Some(reason) = game.end_reason() {
        let played = End::Game(reason);
        if record.end != played {
            return Err((
                At::LastMove,
                Reason::EndedOnBoard {
                    played,
                    ply: game.ply(),
                    stated: record.end,
                },
            ));
        }
        if game.status() != record.result {
            return wrong(format!(
                "the moves give {}",
                super::result_word(game.status())
            ));
        }
        return Ok(());
    }
    if record.end.on_board() {
        return Err((At::End, Reason::NotEnded(record.end)));
    }
    let winner = record.result.winner();
    let Some(to_move) = game.to_move() else {
        return wrong("the game is not over".into());
    };
    match record.end {
        End::Game(crate::ayo::EndReason::Resigned) => match winner {
            Some(w) => {
                game.forfeit(w.opponent(), Forfeit::Resigned);
            }
            None => return wrong("a resignation is a win, not a draw".into()),
        },
        End::Game(crate::ayo::EndReason::Timeout) => {
            let mut flagged = game.clone();
            flagged.time_out(to_move);
            if flagged.status() != record.result {
                return wrong(format!(
                    "{to_move}, to move, ran out of time: under these rules that gives {}",
                    super::result_word(flagged.status())
                ));
            }
            *game = flagged;
        }
        End::Game(crate::ayo::EndReason::AgreedDraw) => {
            if winner.is_some() {
                return wrong("an agreed draw is a draw".into());
            }
            game.agree_draw();
        }
        End::Game(crate::ayo::EndReason::Abandoned) => match winner {
            Some(w) => {
                game.forfeit(w.opponent(), Forfeit::Abandoned);
            }
            None => {
                game.call_off();
            }
        },
        End::NotStarted => {
            if game.ply() > 0 {
                return Err((
                    At::End,
                    Reason::Malformed {
                        expected: "no moves in a game not started",
                        found: format!("{} moves", game.ply()),
                    },
                ));
            }
            if winner.is_none() {
                return wrong("a game not started is lost by who did not start it".into());
            }
        }
        End::Game(_) => unreachable!("ends on the board are handled above"),
    }
    Ok(())
}
