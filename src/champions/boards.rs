//! What the database shows of a day beside the wall: the house board (wins against Baba
//! Ayo, a level each) and the wins that did not count for the wall, with why.

use chrono::NaiveDate;
use serde::Serialize;

use super::{Champions, MemoryWall, Standing, WallReason};
use crate::common::{User, UserId};
use crate::store::{blocking, StoreError};

/// The house board: wins against Baba Ayo today, a list a level.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct HouseBoard {
    pub date: String,
    pub timezone: String,
    /// `easy`, `normal`, `champion`: people ranked by wins, then the seeds in those wins.
    #[schema(value_type = Object)]
    pub levels: std::collections::BTreeMap<String, Vec<Standing>>,
}

/// A day's wins that did not count for the wall, and why: a winner a line, most first.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct UncountedView {
    pub date: String,
    pub timezone: String,
    pub entries: Vec<Uncounted>,
}

/// One winner's wins that did not count on a day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Uncounted {
    #[schema(value_type = Object)]
    pub user: User,
    /// Wins that did not count.
    pub wins: u32,
    /// How many for each reason (`too_few_moves`, `new_account`, `new_opponent`,
    /// `per_opponent_cap`).
    #[schema(value_type = Object)]
    pub reasons: std::collections::BTreeMap<WallReason, u32>,
}

impl Champions {
    /// A day's wins between people that did not count for the wall, a winner a line (most
    /// first, `limit` lines), with why; from the database.
    pub async fn uncounted(
        &self,
        day: NaiveDate,
        limit: usize,
    ) -> Result<UncountedView, StoreError> {
        let store = self.store.clone();
        let results = blocking(move || store.results_of_day(day)).await?;
        let mut by_winner: std::collections::HashMap<UserId, Uncounted> = Default::default();
        for (result, winner) in &results {
            let Some(reason) = WallReason::of(result).filter(|r| *r != WallReason::House) else {
                continue;
            };
            let line = by_winner
                .entry(result.winner_id.clone())
                .or_insert_with(|| Uncounted {
                    user: User {
                        id: winner.id.clone(),
                        name: winner.name.clone(),
                        house: false,
                        ratings: Default::default(),
                    },
                    wins: 0,
                    reasons: Default::default(),
                });
            line.wins += 1;
            *line.reasons.entry(reason).or_default() += 1;
        }
        let mut entries: Vec<_> = by_winner.into_values().collect();
        entries.sort_by(|a, b| b.wins.cmp(&a.wins).then(a.user.id.cmp(&b.user.id)));
        entries.truncate(limit);
        Ok(UncountedView {
            date: day.format("%Y-%m-%d").to_string(),
            timezone: self.clock.tz.name().to_owned(),
            entries,
        })
    }

    /// Wins against Baba Ayo on `day`, a board a level, scored by the seeds collected in
    /// the wins (then wins, then who got there first).
    pub async fn house_board(
        &self,
        day: NaiveDate,
        limit: usize,
    ) -> Result<HouseBoard, StoreError> {
        let store = self.store.clone();
        let results = blocking(move || store.results_of_day(day)).await?;
        let mut levels = std::collections::BTreeMap::new();
        for level in crate::ayo::house::Level::ALL {
            let name = level.name().to_owned();
            // No cap: the house does not farm.
            let board = MemoryWall::new(u32::MAX, 1);
            for (result, winner) in &results {
                if result.house_level.as_deref() == Some(name.as_str()) && !winner.house {
                    board.record(&self.win_record(result, winner));
                }
            }
            levels.insert(name, board.top_by_seeds(day, limit));
        }
        Ok(HouseBoard {
            date: day.format("%Y-%m-%d").to_string(),
            timezone: self.clock.tz.name().to_owned(),
            levels,
        })
    }
}
