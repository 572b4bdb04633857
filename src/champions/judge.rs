//! Whether a win counts for the wall, and why not: judged when the game ends, inside the
//! transaction that stores its result (`store::Judge`), and kept with the result so a
//! rebuild counts the day exactly as it was counted.

use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use serde::Serialize;

use crate::common::UserId;
use crate::store::{Facts, Finished, GameResult, Judge, StoreError, Verdict, Win};

/// Why a game's end puts no win on the champions wall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WallReason {
    /// No winner: a draw, or a game called off. Never stored (such a game has no result).
    NoWin,
    /// One side was Baba Ayo: the house board, never the wall.
    House,
    /// A side made fewer than `champions.min_moves` moves: won by abandonment, resignation or
    /// the flag before the game was played.
    TooFewMoves,
    /// The winner's account was new: younger than `champions.new_account_secs` with fewer
    /// than `champions.new_account_games` played games.
    NewAccount,
    /// The loser's account was new (as above): a throwaway guest's losses count for nobody.
    NewOpponent,
    /// The winner already had `champions.per_opponent_cap` counted wins over this loser that
    /// day.
    PerOpponentCap,
}

impl WallReason {
    pub const ALL: [WallReason; 6] = [
        WallReason::NoWin,
        WallReason::House,
        WallReason::TooFewMoves,
        WallReason::NewAccount,
        WallReason::NewOpponent,
        WallReason::PerOpponentCap,
    ];

    /// The word on the wire and in the database.
    pub fn word(self) -> &'static str {
        match self {
            WallReason::NoWin => "no_win",
            WallReason::House => "house",
            WallReason::TooFewMoves => "too_few_moves",
            WallReason::NewAccount => "new_account",
            WallReason::NewOpponent => "new_opponent",
            WallReason::PerOpponentCap => "per_opponent_cap",
        }
    }

    pub fn from_word(word: &str) -> Option<WallReason> {
        WallReason::ALL.into_iter().find(|r| r.word() == word)
    }

    /// Why a stored result does not count, `None` when it counts.
    pub fn of(result: &GameResult) -> Option<WallReason> {
        result
            .wall_reason
            .as_deref()
            .and_then(WallReason::from_word)
    }

    /// What `game_over` says of a game's end as the store kept it: a game without a stored
    /// result is one without a winner, or won before a move was made.
    pub fn of_end(win: Option<&Win>, finished: &Finished) -> (bool, Option<WallReason>) {
        match (&finished.result, win) {
            (Some(v), _) => (v.counts, v.reason.and_then(WallReason::from_word)),
            (None, Some(_)) => (false, Some(WallReason::TooFewMoves)),
            (None, None) => (false, Some(WallReason::NoWin)),
        }
    }
}

/// What makes a win count for the wall (`[champions]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WallRules {
    /// Counted wins of one player over the same opponent a day.
    pub cap: u32,
    /// Moves each side must have made.
    pub min_moves: u32,
    /// An account this old (seconds) is no longer new...
    pub new_account_secs: u64,
    /// ...nor one with this many played games against people, won or lost.
    pub new_account_games: u32,
}

impl WallRules {
    /// Every win between people counts, up to `cap` (the rules before accounts and moves
    /// were looked at).
    pub fn cap_only(cap: u32) -> WallRules {
        WallRules {
            cap,
            min_moves: 0,
            new_account_secs: 0,
            new_account_games: 0,
        }
    }

    /// As `[champions]` says.
    pub fn of(settings: &crate::config::ChampionsSettings) -> WallRules {
        WallRules {
            cap: settings.per_opponent_cap,
            min_moves: settings.min_moves,
            new_account_secs: settings.new_account_secs,
            new_account_games: settings.new_account_games,
        }
    }

    /// Whether a win between these two may count, before the per-opponent cap: why not, or
    /// `None` (in the order of `WallReason`).
    pub fn before_cap(
        &self,
        facts: &mut Facts<'_>,
        win: &Win,
    ) -> Result<Option<WallReason>, StoreError> {
        if win.house_level.is_some() {
            return Ok(Some(WallReason::House));
        }
        if win.plies / 2 < self.min_moves {
            return Ok(Some(WallReason::TooFewMoves));
        }
        if !self.established(facts, &win.winner_id, win.ended_ms)? {
            return Ok(Some(WallReason::NewAccount));
        }
        if !self.established(facts, &win.loser_id, win.ended_ms)? {
            return Ok(Some(WallReason::NewOpponent));
        }
        Ok(None)
    }

    /// Whether `user`'s account is no longer new at `at_ms`: old enough, or with enough
    /// played games against people (results with both sides past the move minimum).
    fn established(
        &self,
        facts: &mut Facts<'_>,
        user: &UserId,
        at_ms: u64,
    ) -> Result<bool, StoreError> {
        let created: NaiveDateTime = facts.account_created(user)?;
        let at = i64::try_from(at_ms)
            .ok()
            .and_then(DateTime::<Utc>::from_timestamp_millis)
            .map_or(created, |t| t.naive_utc());
        let age = TimeDelta::seconds(i64::try_from(self.new_account_secs).unwrap_or(i64::MAX));
        if self.new_account_secs == 0
            || self.new_account_games == 0
            || at.signed_duration_since(created) >= age
        {
            return Ok(true);
        }
        let played = facts.results_between_people(user, WallReason::TooFewMoves.word())?;
        Ok(played >= i64::from(self.new_account_games))
    }
}

/// The wall's verdict on a win, with the per-opponent cap counted under the pair's lock.
impl Judge for WallRules {
    fn judge(&self, facts: &mut Facts<'_>, win: &Win, day: &str) -> Result<Verdict, StoreError> {
        let reason = match self.before_cap(facts, win)? {
            Some(reason) => Some(reason),
            None => (facts.counted_against(day, &win.winner_id, &win.loser_id)?
                >= i64::from(self.cap))
            .then_some(WallReason::PerOpponentCap),
        };
        Ok(Verdict {
            counts: reason.is_none(),
            reason: reason.map(WallReason::word),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::WallReason;

    #[test]
    fn every_wall_reason_reads_back_is_one_word_and_is_documented() {
        let doc = include_str!("../../docs/protocol.md");
        for reason in WallReason::ALL {
            assert_eq!(WallReason::from_word(reason.word()), Some(reason));
            assert_eq!(
                serde_json::to_string(&reason).unwrap(),
                format!("\"{}\"", reason.word())
            );
            assert!(
                doc.contains(&format!("| `{}` |", reason.word())),
                "docs/protocol.md explains `{}`",
                reason.word()
            );
        }
    }
}
