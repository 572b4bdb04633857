//! Writing a record: the tags in their one order, then the moves, wrapped.

use std::fmt::Write as _;

use unicode_normalization::UnicodeNormalization;

use super::{result_word, Record};
use crate::ayo::OVERRIDE_KEYS;

/// Lines of moves are wrapped before this many characters (a long comment may go past).
const WIDTH: usize = 80;

/// The record as text: tag lines, a blank line, the moves and the result, ending in a line
/// break. Records written one after another with a blank line between read back as a file
/// of several.
pub fn write(record: &Record) -> String {
    let mut out = String::new();
    let mut tag = |name: &str, value: &str| {
        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(out, "[{name} \"{escaped}\"]");
    };
    if let Some(site) = &record.site {
        tag("Site", site);
    }
    if let Some(date) = record.date {
        tag("Date", &date.format("%Y-%m-%d").to_string());
    }
    if let Some(time) = record.time {
        tag("Time", &time.format("%H:%M:%S").to_string());
    }
    if let Some(zone) = &record.zone {
        tag("TimeZone", zone);
    }
    if let Some(id) = &record.match_id {
        tag("Match", id);
    }
    if let Some(n) = record.game_number {
        tag("GameNumber", &n.to_string());
    }
    if let Some(id) = &record.game_id {
        tag("GameId", id);
    }
    tag("Rules", record.rules.preset.name());
    for pair in overrides(&record.rules) {
        tag("Rule", &pair);
    }
    if let Some(clock) = record.clock {
        tag("Clock", &clock.to_string());
    }
    for (side, player) in [("South", &record.south), ("North", &record.north)] {
        tag(side, &player.name);
        if let Some(id) = &player.id {
            tag(&format!("{side}Id"), id);
        }
        if let Some(rating) = player.rating {
            tag(&format!("{side}Rating"), &rating.to_string());
        }
    }
    tag("First", record.first.name());
    tag("Result", result_word(record.result));
    tag("End", record.end.word());
    if let Some(game) = record.game() {
        let [s, n] = game.position().stores();
        tag("Stores", &format!("{s}-{n}"));
    }
    out.push('\n');
    let mut line = String::new();
    let mut push = |unit: String, out: &mut String| {
        if !line.is_empty() && line.len() + 1 + unit.len() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&unit);
    };
    for (i, m) in record.moves.iter().enumerate() {
        let mut unit = String::new();
        if i % 2 == 0 {
            let _ = write!(unit, "{}. ", i / 2 + 1);
        }
        let _ = write!(unit, "{}", m.pit);
        if let Some(ms) = m.left_ms {
            let _ = write!(unit, " ({})", clock_time(ms));
        }
        if let Some(comment) = &m.comment {
            let _ = write!(unit, " {{{comment}}}");
        }
        push(unit, &mut out);
    }
    push(result_word(record.result).to_owned(), &mut out);
    out.push_str(&line);
    out.push('\n');
    out
}

/// Each switch that differs from the preset's, `key=value`, in the order of
/// [`OVERRIDE_KEYS`].
fn overrides(rules: &crate::ayo::Rules) -> Vec<String> {
    let base = rules.preset.rules();
    OVERRIDE_KEYS
        .iter()
        .filter_map(|(key, _)| {
            let (mine, theirs) = match *key {
                "no_capture_limit" => (
                    rules.no_capture_limit.to_string(),
                    base.no_capture_limit.to_string(),
                ),
                "repetition" => (word(&rules.repetition), word(&base.repetition)),
                "grand_slam" => (word(&rules.grand_slam), word(&base.grand_slam)),
                "sowing" => (word(&rules.sowing), word(&base.sowing)),
                "capture" => (word(&rules.capture), word(&base.capture)),
                "timeout" => (word(&rules.timeout), word(&base.timeout)),
                _ => return None,
            };
            (mine != theirs).then(|| format!("{key}={mine}"))
        })
        .collect()
}

/// A switch's value as `Rules::set` takes it: serde's word.
fn word<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Milliseconds as `H:MM:SS.mmm`.
fn clock_time(ms: u64) -> String {
    let (s, millis) = (ms / 1000, ms % 1000);
    format!("{}:{:02}:{:02}.{millis:03}", s / 3600, s / 60 % 60, s % 60)
}

/// A file name for the record: `lagos-hotel-<date>-<south>-vs-<north>.ayo`, in lower-case
/// ASCII letters, digits and hyphens (names folded to ASCII, anything else a hyphen), the
/// game's number in its match added when there is one.
pub fn filename(record: &Record) -> String {
    let mut name = String::from("lagos-hotel");
    if let Some(date) = record.date {
        let _ = write!(name, "-{}", date.format("%Y-%m-%d"));
    }
    let (south, north) = (slug(&record.south.name), slug(&record.north.name));
    let _ = write!(name, "-{south}-vs-{north}");
    if let Some(n) = record.game_number {
        let _ = write!(name, "-game-{n}");
    }
    name.push_str(".ayo");
    name
}

/// A name as lower-case ASCII: accents dropped, every other character a hyphen, no hyphen
/// twice, at the ends or more than 32 characters; `player` when nothing is left.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.nfkd() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !c.is_ascii() && unicode_normalization::char::is_combining_mark(c) {
            continue;
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= 32 {
            break;
        }
    }
    let out = out.trim_matches('-').to_owned();
    if out.is_empty() {
        "player".to_owned()
    } else {
        out
    }
}
