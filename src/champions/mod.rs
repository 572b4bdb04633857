//! Today's champions: wins between people, counted on the hotel's day, shown on the lounge
//! wall. The database is the source of truth (a result row a game, written when the game
//! ends, is the gate); the wall (Redis, or this process without Redis) is fed from the
//! results' outbox, so a Redis outage delays the wall and loses nothing.

mod wall;

use std::sync::Arc;
use std::time::Duration;

use chrono::{NaiveDate, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use tokio::sync::{broadcast, Notify};

pub use wall::{MemoryWall, Recorded, RedisWall, Standing, Wall, WallError, WinRecord};

use crate::ayo::{Game, Pit, Side, Status};
pub use crate::common::HotelDay;
use crate::common::User;
use crate::house::House;
use crate::store::{blocking, GameResult, Store, StoreError, UserRow};

/// A wall as the API shows it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct WallView {
    /// `YYYY-MM-DD`, the hotel's day.
    pub date: String,
    pub timezone: String,
    pub entries: Vec<Standing>,
}

/// The house board: wins against Baba Ayo today, a list a level.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct HouseBoard {
    pub date: String,
    pub timezone: String,
    /// `easy`, `normal`, `champion`: people ranked by wins, then the seeds in those wins.
    #[schema(value_type = Object)]
    pub levels: std::collections::BTreeMap<String, Vec<Standing>>,
}

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

/// The champions service.
pub struct Champions {
    wall: Wall,
    store: Store,
    pub clock: HotelDay,
    cap: u32,
    /// Days the wall keeps (filled from the database at start).
    keep_days: u32,
    /// Told when the wall changed or a new day began: the displays redraw.
    updates: broadcast::Sender<()>,
    /// Told when a result waits in the outbox.
    pending: Arc<Notify>,
    /// True once the service stops: live streams end.
    stopping: tokio::sync::watch::Sender<bool>,
}

/// How often the outbox is tried even when nobody says so (Redis came back).
const OUTBOX_EVERY: Duration = Duration::from_secs(2);
/// How often the wall is read to tell displays it changed: another instance may have
/// recorded a game, or Redis came back.
const WATCH_EVERY: Duration = Duration::from_secs(1);
/// How often today's wall is checked against the database (a Redis that lost its data).
const RECONCILE_EVERY: Duration = Duration::from_secs(30);
/// Wall entries shown unless asked for another number.
pub const DEFAULT_LIMIT: usize = 10;
/// Entries the watcher compares: a change below them does not show on any display.
const WATCHED: usize = 100;

impl Champions {
    pub fn new(wall: Wall, store: Store, tz: Tz, cap: u32, keep_days: u32) -> Champions {
        let (updates, _) = broadcast::channel(64);
        Champions {
            wall,
            store,
            clock: HotelDay { tz },
            cap,
            keep_days: keep_days.max(1),
            updates,
            pending: Arc::new(Notify::new()),
            stopping: tokio::sync::watch::Sender::new(false),
        }
    }

    /// The service stops: live streams end.
    pub fn stop(&self) {
        self.stopping.send_replace(true);
    }

    /// Watches for the service stopping.
    pub fn stopping(&self) -> tokio::sync::watch::Receiver<bool> {
        self.stopping.subscribe()
    }

    pub fn wall_kind(&self) -> &'static str {
        self.wall.describe()
    }

    /// The bell rooms ring when a counted result is stored.
    pub fn pending(&self) -> Arc<Notify> {
        self.pending.clone()
    }

    pub fn cap(&self) -> u32 {
        self.cap
    }

    /// A receiver told of every change of the wall and of each new day.
    pub fn subscribe(&self) -> broadcast::Receiver<()> {
        self.updates.subscribe()
    }

    /// Fills the wall from the database, then starts the outbox task, the watcher and the
    /// midnight bell. Must run inside a tokio runtime.
    pub fn start(self: &Arc<Self>) {
        let me = self.clone();
        tokio::spawn(async move {
            // The kept days as the database has them: an in-process wall starts empty, and
            // a Redis may have lost its data.
            let today = me.clock.today();
            for back in 0..me.keep_days {
                let day = today - chrono::Days::new(u64::from(back));
                if let Err(e) = me.reconcile(day).await {
                    tracing::warn!(error = %e, %day, "the champions wall could not be filled");
                }
            }
            let mut down_since: Option<std::time::Instant> = None;
            let mut reconciled = std::time::Instant::now();
            loop {
                let _ = tokio::time::timeout(OUTBOX_EVERY, me.pending.notified()).await;
                if reconciled.elapsed() >= RECONCILE_EVERY {
                    reconciled = std::time::Instant::now();
                    if let Err(e) = me.reconcile(me.clock.today()).await {
                        tracing::debug!(error = %e, "checking the wall");
                    }
                }
                match me.drain().await {
                    Ok(0) => {}
                    Ok(_) => {
                        let _ = me.updates.send(());
                    }
                    Err(e) => {
                        if down_since.is_none() {
                            tracing::warn!(error = %e, "the champions wall is unreachable; results wait in the outbox");
                            down_since = Some(std::time::Instant::now());
                        }
                        continue;
                    }
                }
                if let Some(since) = down_since.take() {
                    tracing::info!(
                        after_secs = since.elapsed().as_secs(),
                        "the champions wall caught up"
                    );
                    // Redis may have come back empty.
                    reconciled = std::time::Instant::now();
                    let _ = me.reconcile(me.clock.today()).await;
                }
            }
        });
        let me = self.clone();
        tokio::spawn(async move {
            let mut seen: Option<(NaiveDate, Vec<Standing>)> = None;
            loop {
                let day = me.clock.today();
                // The wall itself; the database only while the wall does not answer.
                let entries = match me.wall.top(day, WATCHED).await {
                    Ok(entries) => Ok(entries),
                    Err(_) => me.ranked_from_results(day, WATCHED).await,
                };
                if let Ok(entries) = entries {
                    let now = Some((day, entries));
                    if seen.is_some() && now != seen {
                        let _ = me.updates.send(());
                    }
                    seen = now;
                }
                tokio::select! {
                    _ = tokio::time::sleep(WATCH_EVERY) => {}
                    _ = me.midnight() => {}
                }
            }
        });
    }

    /// Sleeps until the next midnight of the hotel.
    async fn midnight(&self) {
        let now = Utc::now();
        let next = self.clock.window(self.clock.day_of(now)).1;
        let wait = (next - now).to_std().unwrap_or(Duration::from_secs(1));
        tokio::time::sleep(wait + Duration::from_millis(5)).await;
    }

    /// Sends what waits in the outbox to the wall; how many it sent.
    pub async fn drain(&self) -> Result<usize, WallError> {
        let mut sent = 0;
        loop {
            let store = self.store.clone();
            let batch = blocking(move || store.wall_outbox(100))
                .await
                .map_err(|e| WallError::Corrupt(e.to_string()))?;
            if batch.is_empty() {
                return Ok(sent);
            }
            let mut done = Vec::new();
            let mut failed = None;
            for (result, winner) in &batch {
                match self.wall.record(&self.win_record(result, winner)).await {
                    Ok(_) => done.push(result.game_id.clone()),
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            sent += done.len();
            let store = self.store.clone();
            blocking(move || store.walled(&done))
                .await
                .map_err(|e| WallError::Corrupt(e.to_string()))?;
            if let Some(e) = failed {
                return Err(e);
            }
        }
    }

    /// Makes a day's wall agree with the database when it does not: the wall is cleared and
    /// every counted result recorded again, in the order the games ended. Results the
    /// outbox sends meanwhile are counted once (the wall knows its games).
    pub async fn reconcile(&self, day: NaiveDate) -> Result<bool, RebuildError> {
        let store = self.store.clone();
        let results = blocking(move || store.results_of_day(day)).await?;
        let counted: Vec<_> = results.iter().filter(|(r, _)| r.counts).collect();
        let on_wall: u64 = self
            .wall
            .top(day, usize::MAX)
            .await?
            .iter()
            .map(|s| u64::from(s.wins))
            .sum();
        if on_wall == counted.len() as u64 {
            return Ok(false);
        }
        tracing::info!(%day, on_wall, stored = counted.len(), "the champions wall differs from the database: filling it again");
        self.refill(day).await?;
        Ok(true)
    }

    /// Clears a day's wall and records its counted results again, read after the clearing so
    /// nothing the outbox sent meanwhile is lost. How many counted.
    async fn refill(&self, day: NaiveDate) -> Result<usize, RebuildError> {
        self.wall.clear(day).await?;
        let store = self.store.clone();
        let results = blocking(move || store.results_of_day(day)).await?;
        let mut counted = 0;
        for (result, winner) in results.iter().filter(|(r, _)| r.counts) {
            if self.wall.record(&self.win_record(result, winner)).await? == Recorded::Counted {
                counted += 1;
            }
        }
        let _ = self.updates.send(());
        Ok(counted)
    }

    /// A day's wall. It comes from the wall; when the wall cannot answer, or has nothing
    /// for the day (a past day it no longer keeps, or a wall that lost its data), it is
    /// ranked from the stored results.
    pub async fn standings(&self, day: NaiveDate, limit: usize) -> Result<WallView, StoreError> {
        let entries = match self.wall.top(day, limit).await {
            Ok(entries) if !entries.is_empty() => entries,
            Ok(_) => self.ranked_from_results(day, limit).await?,
            Err(e) => {
                tracing::debug!(error = %e, "the champions wall does not answer: ranking from the database");
                self.ranked_from_results(day, limit).await?
            }
        };
        Ok(WallView {
            date: day.format("%Y-%m-%d").to_string(),
            timezone: self.clock.tz.name().to_owned(),
            entries,
        })
    }

    /// A day's wall ranked from the stored results, as the wall would rank them.
    async fn ranked_from_results(
        &self,
        day: NaiveDate,
        limit: usize,
    ) -> Result<Vec<Standing>, StoreError> {
        let store = self.store.clone();
        let results = blocking(move || store.results_of_day(day)).await?;
        let wall = MemoryWall::new(self.cap, 1);
        for (result, winner) in results.iter().filter(|(r, _)| r.counts) {
            wall.record(&self.win_record(result, winner));
        }
        Ok(wall.top(day, limit))
    }

    /// A stored result as the wall takes it; "got there" is measured from the start of the
    /// result's own day.
    fn win_record(&self, result: &GameResult, winner: &UserRow) -> WinRecord {
        let ended = result.ended_at.and_utc();
        let day = parse_day(&result.day).unwrap_or_else(|| self.clock.day_of(ended));
        WinRecord {
            game_id: result.game_id.clone(),
            day,
            winner: User {
                id: winner.id.clone(),
                name: winner.name.clone(),
                house: false,
            },
            loser_id: result.loser_id.clone(),
            seeds: result.seeds.max(0) as u32,
            at_ms: self.clock.ms_since_start(day, ended),
        }
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
            let replayed = Game::replay(game.rules, moves.iter().filter_map(|&n| Pit::new(n)))
                .map_err(|(ply, e)| {
                    RebuildError::Replay(game.id.to_string(), format!("ply {ply}: {e}"))
                })?;
            let (winner, loser) = match game.status {
                Status::SouthWon => (Side::South, Side::North),
                _ => (Side::North, Side::South),
            };
            let ids = [game.south_id.clone(), game.north_id.clone()];
            let house_level = ids
                .iter()
                .find_map(|id| House::level_of(id.as_str()))
                .map(|l| l.name().to_owned());
            let ended = game.ended_at.unwrap_or(from.naive_utc());
            let result = GameResult {
                game_id: game.id.to_string(),
                day: report.date.clone(),
                winner_id: ids[winner.index()].to_string(),
                loser_id: ids[loser.index()].to_string(),
                seeds: i32::from(replayed.position().stores()[winner.index()]),
                // Decided below with the cap; until then nothing waits for the wall.
                counts: false,
                house_level,
                ended_at: ended,
                walled_at: Some(ended),
            };
            let store = self.store.clone();
            if blocking(move || store.insert_result(&result)).await? {
                report.recovered += 1;
            }
        }
        // The cap again, in the order the games ended; the database first, then the wall.
        let store = self.store.clone();
        let results = blocking(move || store.results_of_day(day)).await?;
        let mut pairs: std::collections::HashMap<(String, String), u32> = Default::default();
        for (result, winner) in &results {
            let eligible = result.house_level.is_none() && !winner.house;
            let n = pairs
                .entry((result.winner_id.clone(), result.loser_id.clone()))
                .or_default();
            if eligible {
                *n += 1;
            }
            let counts = eligible && *n <= self.cap;
            if counts != result.counts {
                report.recounted += 1;
                let (store, id) = (self.store.clone(), result.game_id.clone());
                blocking(move || store.set_counts(&id, counts)).await?;
            }
        }
        report.counted = self.refill(day).await?;
        let store = self.store.clone();
        let ids: Vec<String> = results.iter().map(|(r, _)| r.game_id.clone()).collect();
        blocking(move || store.walled(&ids)).await?;
        Ok(report)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RebuildError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Wall(#[from] WallError),
    #[error("game {0} does not replay: {1}")]
    Replay(String, String),
}

/// Parses a `YYYY-MM-DD` date.
pub fn parse_day(raw: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(raw, "%Y-%m-%d").ok()
}
