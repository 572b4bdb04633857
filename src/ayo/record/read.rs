//! Reading records back, checked: tags, then moves played one by one, then the end.

use chrono::{NaiveDate, NaiveTime};

use super::{End, Player, Reason, Record, RecordError, RecordedMove};
use crate::ayo::clock::TimeControl;
use crate::ayo::{Forfeit, Game, Pit, Preset, Rules, Side, Status};

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

/// The lines of the tags that errors about the end point at.
#[derive(Default)]
struct Lines {
    result: usize,
    end: usize,
    stores: usize,
    last: usize,
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

const TAGS: [&str; 20] = [
    "Site",
    "Date",
    "Time",
    "TimeZone",
    "Match",
    "GameNumber",
    "GameId",
    "Rules",
    "Rule",
    "Clock",
    "South",
    "SouthId",
    "SouthRating",
    "North",
    "NorthId",
    "NorthRating",
    "First",
    "Result",
    "End",
    "Stores",
];

/// A tag line's name and value, unescaped.
fn tag_line(line: &str) -> Option<(&str, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let (name, quoted) = inner.split_once(' ')?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let body = quoted.strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next()? {
                e @ ('\\' | '"') => value.push(e),
                _ => return None,
            },
            '"' => return None,
            c if c.is_control() => return None,
            c => value.push(c),
        }
    }
    Some((name, value))
}

type Tagged = (Record, Option<[u8; 2]>, Lines);

fn read_tags(tags: &[(usize, &str)]) -> Result<Tagged, RecordError> {
    let mut seen: Vec<&str> = Vec::new();
    let mut record = Record {
        site: None,
        date: None,
        time: None,
        zone: None,
        match_id: None,
        game_number: None,
        game_id: None,
        rules: Rules::default(),
        clock: None,
        south: Player::default(),
        north: Player::default(),
        first: Side::South,
        result: Status::Draw,
        end: End::NotStarted,
        moves: Vec::new(),
    };
    let mut preset: Option<Preset> = None;
    let mut overrides: Vec<(usize, String)> = Vec::new();
    let mut stores = None;
    let mut lines = Lines::default();
    let at = |name: &'static str| {
        tags.iter()
            .find(|(_, l)| tag_name(l) == Some(name))
            .map(|(l, _)| *l)
    };
    for &(line, text) in tags {
        let err = |reason| RecordError { line, reason };
        let (name, value) =
            tag_line(text).ok_or_else(|| err(Reason::MalformedTag(text.to_owned())))?;
        let Some(name) = TAGS.iter().copied().find(|t| *t == name) else {
            return Err(err(Reason::UnknownTag(name.to_owned())));
        };
        if name != "Rule" {
            if seen.contains(&name) {
                return Err(err(Reason::DuplicateTag(name.to_owned())));
            }
            seen.push(name);
        }
        let bad = |expected: &'static str| {
            err(Reason::BadValue {
                tag: name,
                value: value.clone(),
                expected,
            })
        };
        match name {
            "Site" => record.site = Some(nonempty(&value).ok_or_else(|| bad("some text"))?),
            "Date" => {
                let date = NaiveDate::parse_from_str(&value, "%Y-%m-%d")
                    .ok()
                    .filter(|d| d.format("%Y-%m-%d").to_string() == value);
                record.date = Some(date.ok_or_else(|| bad("a date YYYY-MM-DD"))?);
            }
            "Time" => {
                let time = NaiveTime::parse_from_str(&value, "%H:%M:%S")
                    .ok()
                    .filter(|t| t.format("%H:%M:%S").to_string() == value);
                record.time = Some(time.ok_or_else(|| bad("a time HH:MM:SS"))?);
            }
            "TimeZone" => {
                if value.parse::<chrono_tz::Tz>().is_err() {
                    return Err(bad("an IANA time zone such as Africa/Lagos"));
                }
                record.zone = Some(value);
            }
            "Match" => record.match_id = Some(word(&value).ok_or_else(|| bad("an id"))?),
            "GameId" => record.game_id = Some(word(&value).ok_or_else(|| bad("an id"))?),
            "GameNumber" => {
                record.game_number = Some(
                    number(&value)
                        .filter(|n| *n >= 1)
                        .ok_or_else(|| bad("a number from 1"))?,
                )
            }
            "Rules" => preset = Some(value.parse().map_err(|e| err(Reason::Rules(e)))?),
            "Rule" => overrides.push((line, value)),
            "Clock" => {
                let clock: TimeControl = value.parse().map_err(|e| err(Reason::Clock(e)))?;
                if clock.to_string() != value {
                    return Err(bad("a time control as written: none, 90s, 3+2"));
                }
                record.clock = Some(clock);
            }
            "South" => record.south.name = nonempty(&value).ok_or_else(|| bad("a name"))?,
            "North" => record.north.name = nonempty(&value).ok_or_else(|| bad("a name"))?,
            "SouthId" => record.south.id = Some(word(&value).ok_or_else(|| bad("an id"))?),
            "NorthId" => record.north.id = Some(word(&value).ok_or_else(|| bad("an id"))?),
            "SouthRating" => {
                record.south.rating = Some(number(&value).ok_or_else(|| bad("a whole number"))?)
            }
            "NorthRating" => {
                record.north.rating = Some(number(&value).ok_or_else(|| bad("a whole number"))?)
            }
            "First" => {
                record.first = match value.as_str() {
                    "south" => Side::South,
                    "north" => Side::North,
                    _ => return Err(bad("south or north")),
                }
            }
            "Result" => {
                record.result = match value.as_str() {
                    "south_won" => Status::SouthWon,
                    "north_won" => Status::NorthWon,
                    "draw" => Status::Draw,
                    _ => return Err(bad("south_won, north_won or draw")),
                };
                lines.result = line;
            }
            "End" => {
                record.end = End::ALL
                    .into_iter()
                    .find(|e| e.word() == value)
                    .ok_or_else(|| bad("majority, no_capture_limit, repetition, no_legal_move, resigned, timeout, agreed_draw, abandoned or not_started"))?;
                lines.end = line;
            }
            "Stores" => {
                let pair = value
                    .split_once('-')
                    .and_then(|(s, n)| Some([small(s)?, small(n)?]))
                    .filter(|[s, n]| u32::from(*s) + u32::from(*n) <= 48);
                stores = Some(pair.ok_or_else(|| bad("South's store and North's, `25-13`"))?);
                lines.stores = line;
            }
            _ => unreachable!("every tag of TAGS is read"),
        }
    }
    let last = tags.last().map_or(1, |(l, _)| *l);
    let missing = |tag| RecordError {
        line: last,
        reason: Reason::MissingTag(tag),
    };
    for tag in ["Rules", "South", "North", "First", "Result", "End"] {
        if !seen.contains(&tag) {
            return Err(missing(tag));
        }
    }
    let needs = |tag: &'static str, other: &'static str| {
        if seen.contains(&tag) && !seen.contains(&other) {
            Err(RecordError {
                line: at(tag).unwrap_or(last),
                reason: Reason::NeedsTag(tag, other),
            })
        } else {
            Ok(())
        }
    };
    needs("Time", "Date")?;
    needs("Date", "TimeZone")?;
    needs("TimeZone", "Date")?;
    needs("GameNumber", "Match")?;
    let preset = preset.unwrap_or(Preset::Lagos);
    let mut rules = preset.rules();
    let mut set: Vec<String> = Vec::new();
    for (line, pair) in overrides {
        let err = |reason| RecordError { line, reason };
        let (key, _) = pair.split_once('=').ok_or_else(|| {
            err(Reason::Rules(crate::ayo::RulesError::Malformed(
                pair.clone(),
            )))
        })?;
        if set.iter().any(|k| k == key) {
            return Err(err(Reason::DuplicateTag(format!("Rule {key}"))));
        }
        let before = rules;
        if pair.trim() != pair || key.trim() != key {
            return Err(err(Reason::Rules(crate::ayo::RulesError::Malformed(
                pair.clone(),
            ))));
        }
        rules.set_pair(&pair).map_err(|e| err(Reason::Rules(e)))?;
        if rules == before {
            return Err(err(Reason::RuleUnchanged(pair.clone())));
        }
        set.push(key.to_owned());
    }
    record.rules = rules;
    Ok((record, stores, lines))
}

fn tag_name(line: &str) -> Option<&str> {
    line.strip_prefix('[')?.split_once(' ').map(|(n, _)| n)
}

fn nonempty(value: &str) -> Option<String> {
    (!value.trim().is_empty() && value.trim() == value).then(|| value.to_owned())
}

/// An id: printable, no spaces.
fn word(value: &str) -> Option<String> {
    (!value.is_empty() && !value.chars().any(char::is_whitespace)).then(|| value.to_owned())
}

/// A whole number as written: digits, no sign, no leading zero.
fn number(value: &str) -> Option<u32> {
    let n: u32 = value.parse().ok()?;
    (n.to_string() == value).then_some(n)
}

fn small(value: &str) -> Option<u8> {
    number(value).and_then(|n| u8::try_from(n).ok())
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
