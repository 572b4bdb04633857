//! Today's champions: wins between people, counted on the hotel's day, shown on the lounge
//! wall. The database is the source of truth (a result row a game, written when the game
//! ends, with the wall's verdict on it: `judge.rs`); the wall (Redis, or this process without
//! Redis) is reader "wall" of the results, fed from where its cursor stands, so a Redis
//! outage delays the wall and loses nothing. A day the wall lost
//! (its marker gone) is filled again from the database before the wall answers or takes a win.

mod boards;
mod health;
mod judge;
mod rebuild;
mod wall;

use std::sync::Arc;
use std::time::Duration;

use chrono::{NaiveDate, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use tokio::sync::{broadcast, Notify};

pub use boards::{HouseBoard, Uncounted, UncountedView};
pub use judge::{WallReason, WallRules};
pub use rebuild::Rebuilt;
pub use wall::{MemoryWall, Recorded, RedisWall, Standing, Wall, WallError, WinRecord};

pub use crate::common::HotelDay;
use crate::common::ServerClock;
use crate::common::User;
use crate::store::{blocking, GameResult, Store, StoreError, UserRow};
use health::Health;

/// A wall as the API shows it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct WallView {
    /// `YYYY-MM-DD`, the hotel's day.
    pub date: String,
    pub timezone: String,
    pub entries: Vec<Standing>,
}

/// The champions service.
pub struct Champions {
    wall: Wall,
    store: Store,
    pub clock: HotelDay,
    /// The server's clock: which day is today (the day a stored result falls in is read on
    /// it too).
    now: ServerClock,
    rules: WallRules,
    /// Days the wall keeps (filled from the database at start).
    keep_days: u32,
    /// One filling at a time: the others wait for it and find the day filled.
    filling: tokio::sync::Mutex<()>,
    /// Whether the wall answers; an outage is logged once when it begins and once when it ends.
    health: Health,
    /// Told when the wall changed or a new day began: the displays redraw.
    updates: broadcast::Sender<()>,
    /// Told when a result waits in the outbox.
    pending: Arc<Notify>,
    /// True once the service stops: live streams end.
    stopping: tokio::sync::watch::Sender<bool>,
}

/// The wall's name among the readers of the results: its cursor and its turn.
pub const WALL_READER: &str = "wall";

/// Counted results the wall has not read yet, among the next `limit` it will read.
pub fn waiting(store: &Store, limit: i64) -> Result<Vec<(GameResult, UserRow)>, StoreError> {
    let mut unread = store.unread_results(WALL_READER, limit)?;
    unread.retain(|(r, _)| r.counts);
    Ok(unread)
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
    pub fn new(wall: Wall, store: Store, tz: Tz, rules: WallRules, keep_days: u32) -> Champions {
        let (updates, _) = broadcast::channel(64);
        let describe = wall.describe();
        Champions {
            wall,
            store,
            clock: HotelDay { tz },
            now: ServerClock::System,
            rules,
            keep_days: keep_days.max(1),
            filling: tokio::sync::Mutex::new(()),
            health: Health::new(describe),
            updates,
            pending: Arc::new(Notify::new()),
            stopping: tokio::sync::watch::Sender::new(false),
        }
    }

    /// Reads today on `clock` (the system's until told): the server's one clock.
    pub fn with_clock(mut self, clock: ServerClock) -> Champions {
        self.now = clock;
        self
    }

    /// The hotel's day now, on the server's clock.
    pub fn today(&self) -> NaiveDate {
        let ms = i64::try_from(self.now.now_ms()).unwrap_or(i64::MAX);
        self.clock
            .day_of(chrono::DateTime::from_timestamp_millis(ms).unwrap_or_default())
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
        self.rules.cap
    }

    /// What makes a win count.
    pub fn rules(&self) -> WallRules {
        self.rules
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
            let today = me.today();
            for back in 0..me.keep_days {
                let day = today - chrono::Days::new(u64::from(back));
                match me.reconcile(day).await {
                    // The outage is logged once, by the health watch.
                    Err(RebuildError::Wall(e)) => {
                        tracing::debug!(error = %e, %day, "the champions wall could not be filled")
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, %day, "the champions wall could not be filled")
                    }
                    Ok(_) => {}
                }
            }
            let mut reconciled = std::time::Instant::now();
            loop {
                let _ = tokio::time::timeout(OUTBOX_EVERY, me.pending.notified()).await;
                if reconciled.elapsed() >= RECONCILE_EVERY {
                    reconciled = std::time::Instant::now();
                    if let Err(e) = me.reconcile(me.today()).await {
                        tracing::debug!(error = %e, "checking the wall");
                    }
                }
                match me.drain().await {
                    Ok(0) => {}
                    Ok(_) => {
                        let _ = me.updates.send(());
                    }
                    // Logged by the health watch, once an outage.
                    Err(e) => tracing::debug!(error = %e, "results wait in the outbox"),
                }
            }
        });
        let me = self.clone();
        tokio::spawn(async move {
            let mut seen: Option<(NaiveDate, Vec<Standing>)> = None;
            loop {
                let day = me.today();
                // The wall itself; the database only while the wall does not answer.
                let entries = match me.wall_top(day, WATCHED).await {
                    Ok(entries) => {
                        tracing::trace!("the watcher read the wall");
                        Ok(entries)
                    }
                    Err(e) => {
                        // The outage is logged once, by the health watch.
                        tracing::debug!(error = %e, "the watcher reads the database: the wall does not answer");
                        me.ranked_from_results(day, WATCHED).await
                    }
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

    /// A wall call, watched: an outage is logged when it begins and when it ends.
    async fn watched<T>(
        &self,
        call: impl std::future::Future<Output = Result<T, WallError>>,
    ) -> Result<T, WallError> {
        let asked = std::time::Instant::now();
        let answer = call.await;
        self.health.saw(asked, &answer);
        answer
    }

    /// Sends the results the wall has not read to it, counted ones recorded; how many it
    /// sent. A day the wall lost is filled from the database first, so a win never lands on
    /// an empty day. One instance at a time reads (`Store::take_turn`); the others find
    /// nothing to do until their next try.
    pub async fn drain(&self) -> Result<usize, RebuildError> {
        let store = self.store.clone();
        if !blocking(move || store.take_turn(WALL_READER)).await? {
            return Ok(0);
        }
        let drained = self.drain_in_turn().await;
        let store = self.store.clone();
        let _ = blocking(move || {
            store.end_turn(WALL_READER);
            Ok::<_, StoreError>(())
        })
        .await;
        drained
    }

    async fn drain_in_turn(&self) -> Result<usize, RebuildError> {
        let mut sent = 0;
        loop {
            let store = self.store.clone();
            let batch = blocking(move || store.unread_results(WALL_READER, 100)).await?;
            let Some(last) = batch.last().map(|(r, _)| r.seq) else {
                return Ok(sent);
            };
            // Read up to here: the batch, or up to the result the wall would not take.
            let mut read = last;
            let mut failed = None;
            for (result, winner) in batch.iter().filter(|(r, _)| r.counts) {
                match self.record(&self.win_record(result, winner)).await {
                    Ok(_) => sent += 1,
                    Err(e) => {
                        read = result.seq - 1;
                        failed = Some(e);
                        break;
                    }
                }
            }
            let store = self.store.clone();
            blocking(move || store.set_cursor(WALL_READER, read)).await?;
            if let Some(e) = failed {
                return Err(e);
            }
        }
    }

    /// Records a win on a filled day: when the wall lost the day, it is filled first (the
    /// win with it, since it is stored) and the win recorded again, a duplicate then.
    async fn record(&self, win: &WinRecord) -> Result<Recorded, RebuildError> {
        match self.watched(self.wall.record_filled(win)).await? {
            Recorded::Unfilled => {
                self.fill_if_lost(win.day).await?;
                match self.watched(self.wall.record_filled(win)).await? {
                    // Lost again meanwhile: the next drain tries again.
                    Recorded::Unfilled => Err(WallError::Corrupt(format!(
                        "the day {} was lost again while it was filled",
                        win.day
                    ))
                    .into()),
                    recorded => Ok(recorded),
                }
            }
            recorded => Ok(recorded),
        }
    }

    /// Fills `day` from the database when the wall has lost it (no marker); true if it did.
    async fn fill_if_lost(&self, day: NaiveDate) -> Result<bool, RebuildError> {
        if self.watched(self.wall.filled(day)).await? {
            return Ok(false);
        }
        let _one = self.filling.lock().await;
        // Another filled it while this one waited.
        if self.watched(self.wall.filled(day)).await? {
            return Ok(false);
        }
        // At start (nothing filled yet), at a new day, or a Redis that lost its data.
        tracing::info!(%day, wall = self.wall.describe(), "the champions wall has not got this day: filling it from the database");
        self.fill(day).await?;
        Ok(true)
    }

    /// Makes a day's wall agree with the database when it does not: the wall is cleared and
    /// every counted result recorded again, in the order the games ended. Results the
    /// outbox sends meanwhile are counted once (the wall knows its games).
    pub async fn reconcile(&self, day: NaiveDate) -> Result<bool, RebuildError> {
        if self.fill_if_lost(day).await? {
            return Ok(true);
        }
        let store = self.store.clone();
        let results = blocking(move || store.results_of_day(day)).await?;
        let counted: Vec<_> = results.iter().filter(|(r, _)| r.counts).collect();
        let on_wall: u64 = self
            .watched(self.wall.top(day, usize::MAX))
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

    /// Clears a day's wall and records its counted results again; how many counted.
    async fn refill(&self, day: NaiveDate) -> Result<usize, RebuildError> {
        let _one = self.filling.lock().await;
        self.fill(day).await
    }

    /// Clears a day's wall (its marker too), records its counted results, read after the
    /// clearing so nothing the outbox sent meanwhile is lost, then sets the marker; the
    /// outbox's wins wait for the marker. The caller holds `filling`. How many counted.
    async fn fill(&self, day: NaiveDate) -> Result<usize, RebuildError> {
        self.watched(self.wall.clear(day)).await?;
        let store = self.store.clone();
        let results = blocking(move || store.results_of_day(day)).await?;
        let mut counted = 0;
        for (result, winner) in results.iter().filter(|(r, _)| r.counts) {
            let recorded = self
                .watched(self.wall.record(&self.win_record(result, winner)))
                .await?;
            if recorded == Recorded::Counted {
                counted += 1;
            }
        }
        self.watched(self.wall.mark_filled(day)).await?;
        let _ = self.updates.send(());
        Ok(counted)
    }

    /// Whether the wall keeps `day`: today and the `keep_days - 1` before it.
    fn kept(&self, day: NaiveDate) -> bool {
        let today = self.today();
        let oldest = today - chrono::Days::new(u64::from(self.keep_days - 1));
        (oldest..=today).contains(&day)
    }

    /// The top of a kept day's wall, filled first if the wall lost it.
    async fn wall_top(&self, day: NaiveDate, limit: usize) -> Result<Vec<Standing>, RebuildError> {
        self.fill_if_lost(day).await?;
        Ok(self.watched(self.wall.top(day, limit)).await?)
    }

    /// A day's wall. It comes from the wall, filled from the database first if it lost the
    /// day; a day the wall does not keep, or a wall that does not answer, is ranked from the
    /// stored results.
    pub async fn standings(&self, day: NaiveDate, limit: usize) -> Result<WallView, StoreError> {
        let entries = if self.kept(day) {
            match self.wall_top(day, limit).await {
                Ok(entries) => entries,
                Err(e) => {
                    tracing::debug!(error = %e, "the champions wall does not answer: ranking from the database");
                    self.ranked_from_results(day, limit).await?
                }
            }
        } else {
            self.ranked_from_results(day, limit).await?
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
        let wall = MemoryWall::new(self.rules.cap, 1);
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
                ratings: Default::default(),
            },
            loser_id: result.loser_id.clone(),
            seeds: result.seeds.max(0) as u32,
            at_ms: self.clock.ms_since_start(day, ended),
        }
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
