//! `lounge champions rebuild`: a day recomputed from the stored games.

use chrono::NaiveDate;
use serde::Serialize;

use super::{Champions, RebuildError, WallReason};
use crate::ayo::{Game, Pit, Side, Status};
use crate::common::UserId;
use crate::house::House;
use crate::store::{blocking, GameResult};

/// What `lounge champions rebuild` did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Rebuilt {
    pub date: String,
    /// Results found again from stored games that had none.
    pub recovered: usize,
    /// Results whose counting changed under the per-opponent cap.
    pub recounted: usize,
    pub counted: usize,
}

impl Champions {
    /// Recomputes a day from the stored games: results missing for games won that day are
    /// found again by replaying their moves, the per-opponent cap is applied again in the
    /// order the games ended, and the day's wall is written afresh.
    pub async fn rebuild(&self, day: NaiveDate) -> Result<Rebuilt, RebuildError> {
        let mut report = Rebuilt {
            date: day.format("%Y-%m-%d").to_string(),
            ..Rebuilt::default()
        };
        let (from, to) = self.clock.window(day);
        let store = self.store.clone();
        let missing =
            blocking(move || store.won_games_without_result(from.naive_utc(), to.naive_utc()))
                .await?;
        for game in missing {
            let store = self.store.clone();
            let moves = {
                let id = game.id.clone();
                blocking(move || store.moves(&id)).await?
            };
            // Abandoned before the first move: no result.
            if moves.is_empty() {
                continue;
            }
            let moves = moves.iter().filter_map(|&n| Pit::new(n));
            let replayed =
                Game::replay_from(game.rules, game.first_side, moves).map_err(|(ply, e)| {
                    RebuildError::Replay(game.id.to_string(), format!("ply {ply}: {e}"))
                })?;
            let (winner, loser) = match game.status {
                Status::SouthWon => (Side::South, Side::North),
                _ => (Side::North, Side::South),
            };
            let ids = [game.south_id.clone(), game.north_id.clone()];
            let house_level = ids
                .iter()
                .find_map(House::level_of)
                .map(|l| l.name().to_owned());
            let ended = game.ended_at.unwrap_or(from.naive_utc());
            let win = crate::store::Win {
                winner_id: ids[winner.index()].clone(),
                loser_id: ids[loser.index()].clone(),
                seeds: replayed.position().stores()[winner.index()],
                house_level,
                plies: replayed.ply(),
                ended_ms: u64::try_from(ended.and_utc().timestamp_millis()).unwrap_or(0),
            };
            // Judged as when it ended (the cap below); nothing is stored to say otherwise.
            let (store, rules) = (self.store.clone(), self.rules);
            let reason = {
                let win = win.clone();
                blocking(move || store.with_facts(|facts| rules.before_cap(facts, &win))).await?
            };
            let result = GameResult {
                game_id: game.id.clone(),
                day: report.date.clone(),
                winner_id: win.winner_id,
                loser_id: win.loser_id,
                seeds: i32::from(win.seeds),
                // Decided below with the cap.
                counts: false,
                house_level: win.house_level,
                ended_at: ended,
                wall_reason: reason.map(|r| r.word().to_owned()),
                // The next when it is appended.
                seq: 0,
                drawn: false,
            };
            let store = self.store.clone();
            if blocking(move || store.insert_result(&result)).await? {
                report.recovered += 1;
            }
        }
        // The cap again, in the order the games ended; the database first, then the wall.
        // What was judged when a game ended (moves, accounts) stands: only the cap is counted
        // again.
        let store = self.store.clone();
        let results = blocking(move || store.results_of_day(day)).await?;
        let mut pairs: std::collections::HashMap<(UserId, UserId), u32> = Default::default();
        for (result, winner) in &results {
            let before_cap = if result.house_level.is_some() || winner.house {
                Some(WallReason::House)
            } else {
                WallReason::of(result).filter(|r| *r != WallReason::PerOpponentCap)
            };
            let n = pairs
                .entry((result.winner_id.clone(), result.loser_id.clone()))
                .or_default();
            if before_cap.is_none() {
                *n += 1;
            }
            let reason = before_cap.or((*n > self.rules.cap).then_some(WallReason::PerOpponentCap));
            let counts = reason.is_none();
            if counts != result.counts || reason != WallReason::of(result) {
                report.recounted += 1;
                let (store, id) = (self.store.clone(), result.game_id.clone());
                let reason = reason.map(WallReason::word);
                blocking(move || store.set_counts(&id, counts, reason)).await?;
            }
        }
        // The wall's cursor stays: what it reads again of this day (the results found again
        // are appended after every other) it has, and counts once.
        report.counted = self.refill(day).await?;
        // The results found again are read now (this instance's turn allowing; else whoever
        // has it reads them), not left waiting for the wall they are on already.
        self.drain().await?;
        Ok(report)
    }
}
