//! Game clocks: the time control a table sets and the two clocks of a game under it. Pure:
//! time comes in as milliseconds on the caller's clock, so tests drive it without sleeping.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::Side;

/// How a table's games are timed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TimeControl {
    /// No clock (the lounge's default).
    #[default]
    None,
    /// Each move within `seconds`, from a minute to a day.
    PerMove { seconds: u32 },
    /// The whole game within `minutes`, plus `increment_seconds` after each move ("3 + 2").
    Game {
        minutes: u32,
        increment_seconds: u32,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ClockError {
    #[error("a time per move is from 60 seconds to a day (86400), not {0}")]
    PerMove(u32),
    #[error("a game's time is 1 to 180 minutes, not {0}")]
    Minutes(u32),
    #[error("an increment is 0 to 60 seconds, not {0}")]
    Increment(u32),
    #[error("`{0}` is not a time control: none, a time per move (`90s`, `5m`, `1d`) or a game's time with an increment (`3+2`)")]
    Malformed(String),
}

impl TimeControl {
    /// The control, checked: a clock a person can play on.
    pub fn checked(self) -> Result<TimeControl, ClockError> {
        match self {
            TimeControl::None => Ok(self),
            TimeControl::PerMove { seconds } if (60..=86_400).contains(&seconds) => Ok(self),
            TimeControl::PerMove { seconds } => Err(ClockError::PerMove(seconds)),
            TimeControl::Game { minutes, .. } if !(1..=180).contains(&minutes) => {
                Err(ClockError::Minutes(minutes))
            }
            TimeControl::Game {
                increment_seconds, ..
            } if increment_seconds > 60 => Err(ClockError::Increment(increment_seconds)),
            TimeControl::Game { .. } => Ok(self),
        }
    }

    /// What each side starts with, in milliseconds (`None` without a clock).
    pub fn initial_ms(self) -> Option<u64> {
        match self {
            TimeControl::None => None,
            TimeControl::PerMove { seconds } => Some(u64::from(seconds) * 1000),
            TimeControl::Game { minutes, .. } => Some(u64::from(minutes) * 60_000),
        }
    }
}

impl TimeControl {
    /// What going berserk takes from a side's time: half its start, under a clock for the
    /// whole game only.
    pub fn berserk_ms(self) -> Option<u64> {
        match self {
            TimeControl::Game { minutes, .. } => Some(u64::from(minutes) * 30_000),
            _ => None,
        }
    }
}

impl FromStr for TimeControl {
    type Err = ClockError;

    /// `none`; `90s`, `5m`, `2h`, `1d` (a time per move); `3+2` (minutes + seconds).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let malformed = || ClockError::Malformed(s.to_owned());
        if s == "none" {
            return Ok(TimeControl::None);
        }
        let control = if let Some((minutes, increment)) = s.split_once('+') {
            TimeControl::Game {
                minutes: minutes.trim().parse().map_err(|_| malformed())?,
                increment_seconds: increment.trim().parse().map_err(|_| malformed())?,
            }
        } else {
            let unit = s.chars().last().ok_or_else(malformed)?;
            let scale = match unit {
                's' => 1,
                'm' => 60,
                'h' => 3600,
                'd' => 86_400,
                _ => return Err(malformed()),
            };
            let n: u32 = s[..s.len() - 1].trim().parse().map_err(|_| malformed())?;
            TimeControl::PerMove {
                seconds: n.checked_mul(scale).ok_or_else(malformed)?,
            }
        };
        control.checked()
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::None => f.write_str("none"),
            TimeControl::PerMove { seconds } => write!(f, "{seconds}s"),
            TimeControl::Game {
                minutes,
                increment_seconds,
            } => write!(f, "{minutes}+{increment_seconds}"),
        }
    }
}

/// A side's time ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flagged(pub Side);

/// The two clocks of a game: South's and North's time left, and whose is running since when.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clocks {
    pub control: TimeControl,
    /// Milliseconds left, South's and North's, as of the last switch.
    left: [u64; 2],
    /// The side whose clock runs, and since when.
    running: Option<(Side, u64)>,
}

impl Clocks {
    /// Clocks under `control`, stopped; `None` for a game without a clock.
    pub fn new(control: TimeControl) -> Option<Clocks> {
        let start = control.initial_ms()?;
        Some(Clocks {
            control,
            left: [start, start],
            running: None,
        })
    }

    /// Starts `side`'s clock at `now` (the first move of a game, or after a pause).
    pub fn start(&mut self, side: Side, now: u64) {
        self.running = Some((side, now));
    }

    /// Milliseconds left for South and North at `now`.
    pub fn left(&self, now: u64) -> [u64; 2] {
        let mut left = self.left;
        if let Some((side, since)) = self.running {
            let i = side.index();
            left[i] = left[i].saturating_sub(now.saturating_sub(since));
        }
        left
    }

    /// The side whose clock runs, if any.
    pub fn running(&self) -> Option<Side> {
        self.running.map(|(side, _)| side)
    }

    /// When the running side's time runs out.
    pub fn deadline(&self) -> Option<u64> {
        self.running
            .map(|(side, since)| since.saturating_add(self.left[side.index()]))
    }

    /// The side whose time has run out at `now`.
    pub fn flagged(&self, now: u64) -> Option<Side> {
        let side = self.running()?;
        (self.left(now)[side.index()] == 0).then_some(side)
    }

    /// `side` moved at `now`: refused if its time had run out; otherwise its clock stops
    /// (with the increment, or reset to the time a move under a per-move clock) and the
    /// other side's starts.
    pub fn moved(&mut self, side: Side, now: u64) -> Result<(), Flagged> {
        if self.flagged(now) == Some(side) {
            return Err(Flagged(side));
        }
        let left = self.left(now);
        self.left = left;
        match self.control {
            TimeControl::None => {}
            TimeControl::PerMove { seconds } => {
                let full = u64::from(seconds) * 1000;
                self.left = [full, full];
            }
            TimeControl::Game {
                increment_seconds, ..
            } => self.left[side.index()] += u64::from(increment_seconds) * 1000,
        }
        self.running = Some((side.opponent(), now));
        Ok(())
    }

    /// `side` goes berserk: half its starting time is taken from what it has left. Only
    /// under a clock for the whole game (false, and nothing changed, otherwise); the
    /// increment stays.
    pub fn halve(&mut self, side: Side) -> bool {
        let Some(half) = self.control.berserk_ms() else {
            return false;
        };
        let i = side.index();
        self.left[i] = self.left[i].saturating_sub(half);
        true
    }

    /// Clocks put back after an outage: `left` as after the last move (or the start), `side`'s
    /// clock had run `ran_ms` of its move before the outage, and runs again from `now`.
    pub fn resumed(
        control: TimeControl,
        left: [u64; 2],
        side: Side,
        ran_ms: u64,
        now: u64,
    ) -> Option<Clocks> {
        let mut clocks = Clocks::new(control)?;
        clocks.left = left;
        clocks.left[side.index()] = left[side.index()].saturating_sub(ran_ms);
        clocks.running = Some((side, now));
        Some(clocks)
    }

    /// Stops both clocks at `now` (the game ended, or the service stops): what is left is
    /// kept, and nobody's time runs until `start`.
    pub fn stop(&mut self, now: u64) {
        self.left = self.left(now);
        self.running = None;
    }
}
