//! The rule switches and their named presets.
//!
//! Every rule of the four pages the presets come from (docs/engine.md, "Rule presets and
//! switches") is one switch on [`Rules`]. A table plays a preset (`lagos` by default) with
//! optional `key=value` overrides.
//!
//! # Decisions the pages leave open
//!
//! These hold in every preset unless the preset says otherwise; each one has a test in
//! `tests/it/rules.rs` or `tests/it/rules/switches.rs` named after it.
//!
//! - **A "move" is a ply.** "60 moves go by with no capture" counts single turns, South's and
//!   North's alike. `moves_since_capture` counts the plies since the last ply that captured
//!   anything (a grand slam that captures nothing does not reset it). When it reaches the limit
//!   the game ends, before any other end but a majority.
//! - **The end sweep.** At every end but a majority (no legal move, the no-capture limit,
//!   repetition) each side adds the seeds on its own row to its store; the bigger store wins and
//!   24 all is a draw. A majority (25 or more) ends the game at once and the board stays as it is.
//! - **Feeding.** A move feeds when the opponent's row holds at least one seed once the move is
//!   over (captures included). When the opponent's row is empty and no move feeds, the player to
//!   move has no allowed move: the game ends (`no_legal_move`) and each side keeps its own row,
//!   as Lagos Hotel's guide and Kontest agree (all those seeds are on the mover's row, so the
//!   Oware page's "you take all remaining seeds" comes to the same).
//! - **Repetition** compares the twelve pits and the side to move among the positions since the
//!   last capture (the record forgets the rest at every capture, so the stores are equal too; the
//!   no-capture count is not compared). The first time a position comes round again the game
//!   ends, when the switch says so.
//! - **Ends that fall together**: the first of majority, the no-capture limit, repetition and
//!   no legal move names the end; all but a majority sweep the same way.
//! - **Agreed draws** (Oware's "fewer than 4 seeds remain and both agree", and a draw offer
//!   accepted at any time) are draws, the board left as it is.
//! - **Running out of time** (`timeout`) loses, except where the switch is
//!   `draw_if_cannot_win`: then, when the opponent could not end with more seeds than the side
//!   whose time ran out even by taking every seed still on the board, it is a draw (as a chess
//!   flag against a bare king is). Kontest's page says "run out and you lose", so `kontest`
//!   loses outright; the other presets draw when the opponent cannot win. Rules stored before
//!   the switch existed take their preset's.
//! - **Twelve or more seeds** skip the pit they were lifted from, on every lap; in relay sowing
//!   each lap skips the pit that lap was lifted from.
//!
//! ## `ayoayo` (relay sowing, collect on 4)
//!
//! - The "end-game sweep" of its page is the sweep above: when the game stops for want of a move
//!   or after 60 plies without a collection, each side keeps the seeds on its own row.
//! - A relay lap ends in the pit of its last seed. When that seed made the pit 4 (collected), or
//!   the pit was empty before it, the move ends; otherwise the pit is lifted and sowing goes on
//!   from the next pit.
//! - Every seed dropped that makes a pit exactly 4 (either row, the mover's own included) gives
//!   those 4 to the mover at once.
//! - There is no grand slam rule: collecting every seed of the opponent is allowed; the
//!   opponent then has no move and the game ends with the sweep. The `grand_slam` switch stays
//!   at its Abapa value and has no effect with collect on 4.
//! - The guard against an endless relay: a move sows at most [`MAX_RELAY_LAPS`] laps; the last
//!   seed of the last lap stays where it lands and the move ends there.
//!
//! ## Mixed switches
//!
//! Relay sowing with the 2-or-3 capture ends a lap, and captures, when its last seed makes 2 or 3
//! on the opponent's row; otherwise it relays as above. Single sowing with collect on 4 sows one
//! lap and collects every pit it makes 4. The grand slam switch applies to the 2-or-3 capture only.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The guard against an endless relay (see the module notes).
pub const MAX_RELAY_LAPS: u16 = 192;

/// How the seeds of a pit go round the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sowing {
    /// One lap: the move ends where the last seed lands.
    Single,
    /// Relay: a last seed landing in an occupied pit lifts it and sowing goes on.
    Relay,
}

/// What a move captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Capture {
    /// The last seed makes 2 or 3 on the opponent's row; then backwards while 2 or 3 there.
    TwoThree,
    /// Every pit a dropped seed makes exactly 4 is collected by the mover.
    Four,
}

/// A move that would capture every seed on the opponent's row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrandSlam {
    /// Allowed, and captures nothing.
    CapturesNothing,
    /// Not allowed unless every allowed move is one; then it captures nothing.
    Illegal,
}

/// What a position seen before does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Repetition {
    /// The game ends, each side keeping its own row.
    EndsGame,
    /// Nothing.
    Ignored,
}

/// What running out of time does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Timeout {
    /// The side whose time ran out loses.
    #[default]
    Loses,
    /// It loses unless the opponent cannot possibly win any more: then a draw.
    DrawIfCannotWin,
}

/// The named rule sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// Lagos Hotel's own guide, "How to play ayo".
    Lagos,
    /// Kontest's Abapa rules.
    Kontest,
    /// Oware as the mancala encyclopaedia's Ayo page gives it.
    Oware,
    /// The "standard rules" of an Ayo web game: relay sowing and collect on 4 (Anan-anan).
    Ayoayo,
}

impl Preset {
    pub const ALL: [Preset; 4] = [
        Preset::Lagos,
        Preset::Kontest,
        Preset::Oware,
        Preset::Ayoayo,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Lagos => "lagos",
            Preset::Kontest => "kontest",
            Preset::Oware => "oware",
            Preset::Ayoayo => "ayoayo",
        }
    }

    pub fn rules(self) -> Rules {
        let abapa = Rules {
            preset: self,
            sowing: Sowing::Single,
            capture: Capture::TwoThree,
            grand_slam: GrandSlam::CapturesNothing,
            no_capture_limit: 60,
            repetition: Repetition::Ignored,
            timeout: Timeout::DrawIfCannotWin,
        };
        match self {
            Preset::Lagos => abapa,
            Preset::Kontest => Rules {
                no_capture_limit: 100,
                timeout: Timeout::Loses,
                ..abapa
            },
            Preset::Oware => Rules {
                grand_slam: GrandSlam::Illegal,
                no_capture_limit: 0,
                repetition: Repetition::EndsGame,
                ..abapa
            },
            Preset::Ayoayo => Rules {
                sowing: Sowing::Relay,
                capture: Capture::Four,
                ..abapa
            },
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = RulesError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Preset::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| RulesError::UnknownPreset(s.to_owned()))
    }
}

/// A whole rule set: a preset's switches, each of which may have been overridden.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "StoredRules")]
pub struct Rules {
    /// The preset these switches started from.
    pub preset: Preset,
    pub sowing: Sowing,
    pub capture: Capture,
    pub grand_slam: GrandSlam,
    /// Plies without a capture that end the game; 0 means no limit.
    pub no_capture_limit: u16,
    pub repetition: Repetition,
    /// What running out of time does (a table with a clock).
    pub timeout: Timeout,
}

/// Rules as stored: those stored before the `timeout` switch existed take their preset's.
#[derive(Deserialize)]
struct StoredRules {
    preset: Preset,
    sowing: Sowing,
    capture: Capture,
    grand_slam: GrandSlam,
    no_capture_limit: u16,
    repetition: Repetition,
    timeout: Option<Timeout>,
}

impl From<StoredRules> for Rules {
    fn from(r: StoredRules) -> Rules {
        Rules {
            preset: r.preset,
            sowing: r.sowing,
            capture: r.capture,
            grand_slam: r.grand_slam,
            no_capture_limit: r.no_capture_limit,
            repetition: r.repetition,
            timeout: r.timeout.unwrap_or(r.preset.rules().timeout),
        }
    }
}

impl Default for Rules {
    fn default() -> Self {
        Preset::Lagos.rules()
    }
}

/// Why a rule set could not be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RulesError {
    #[error("unknown rules `{0}`: expected one of lagos, kontest, oware, ayoayo")]
    UnknownPreset(String),
    #[error(
        "unknown rule `{0}`: expected one of no_capture_limit, repetition, grand_slam, sowing, capture, timeout"
    )]
    UnknownKey(String),
    #[error("rule `{key}` cannot be `{value}`: expected {expected}")]
    BadValue {
        key: String,
        value: String,
        expected: &'static str,
    },
    #[error("a rule override looks like KEY=VALUE, not `{0}`")]
    Malformed(String),
}

/// The override keys, with what each takes.
pub const OVERRIDE_KEYS: [(&str, &str); 6] = [
    (
        "no_capture_limit",
        "a number of plies from 0 (no limit) to 10000",
    ),
    ("repetition", "ends_game or ignored"),
    ("grand_slam", "captures_nothing or illegal"),
    ("sowing", "single or relay"),
    ("capture", "two_three or four"),
    ("timeout", "loses or draw_if_cannot_win"),
];

impl Rules {
    /// The rules of a named preset.
    pub fn preset(name: &str) -> Result<Rules, RulesError> {
        Ok(name.parse::<Preset>()?.rules())
    }

    /// Applies one override, `key` to `value`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), RulesError> {
        let expected = OVERRIDE_KEYS
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, e)| *e)
            .ok_or_else(|| RulesError::UnknownKey(key.to_owned()))?;
        let bad = || RulesError::BadValue {
            key: key.to_owned(),
            value: value.to_owned(),
            expected,
        };
        match (key, value) {
            ("no_capture_limit", n) => {
                self.no_capture_limit = n.parse().ok().filter(|n| *n <= 10_000).ok_or_else(bad)?
            }
            ("repetition", "ends_game") => self.repetition = Repetition::EndsGame,
            ("repetition", "ignored") => self.repetition = Repetition::Ignored,
            ("grand_slam", "captures_nothing") => self.grand_slam = GrandSlam::CapturesNothing,
            ("grand_slam", "illegal") => self.grand_slam = GrandSlam::Illegal,
            ("sowing", "single") => self.sowing = Sowing::Single,
            ("sowing", "relay") => self.sowing = Sowing::Relay,
            ("capture", "two_three") => self.capture = Capture::TwoThree,
            ("capture", "four") => self.capture = Capture::Four,
            ("timeout", "loses") => self.timeout = Timeout::Loses,
            ("timeout", "draw_if_cannot_win") => self.timeout = Timeout::DrawIfCannotWin,
            _ => return Err(bad()),
        }
        Ok(())
    }

    /// Applies one override written `key=value`.
    pub fn set_pair(&mut self, pair: &str) -> Result<(), RulesError> {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| RulesError::Malformed(pair.to_owned()))?;
        self.set(key.trim(), value.trim())
    }

    /// A preset by name with `key=value` overrides applied in order.
    pub fn build<'a>(
        name: &str,
        overrides: impl IntoIterator<Item = &'a str>,
    ) -> Result<Rules, RulesError> {
        let mut rules = Rules::preset(name)?;
        for pair in overrides {
            rules.set_pair(pair)?;
        }
        Ok(rules)
    }

    /// True when the fast paths of single-lap sowing with the 2-or-3 capture apply.
    pub(crate) fn is_abapa(&self) -> bool {
        self.sowing == Sowing::Single && self.capture == Capture::TwoThree
    }
}
