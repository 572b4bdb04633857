//! Reading a record's tag lines: each known tag once, its value checked, with the line it
//! was on for what the moves are checked against later.

use chrono::{NaiveDate, NaiveTime};

use super::{End, Player, Reason, Record, RecordError};
use crate::ayo::clock::TimeControl;
use crate::ayo::{Preset, Rules, Side, Status};

/// The lines of the tags that errors about the end point at.
#[derive(Default)]
pub(super) struct Lines {
    pub(super) result: usize,
    pub(super) end: usize,
    pub(super) stores: usize,
    pub(super) last: usize,
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

pub(super) type Tagged = (Record, Option<[u8; 2]>, Lines);

pub(super) fn read_tags(tags: &[(usize, &str)]) -> Result<Tagged, RecordError> {
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
pub(super) fn number(value: &str) -> Option<u32> {
    let n: u32 = value.parse().ok()?;
    (n.to_string() == value).then_some(n)
}

fn small(value: &str) -> Option<u8> {
    number(value).and_then(|n| u8::try_from(n).ok())
}
