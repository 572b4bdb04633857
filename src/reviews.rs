//! Baba Ayo's reviews of finished games. A guest (within a daily allowance) or an operator asks
//! for one; it is stored waiting, and worked one at a time in the whole hotel by the instance
//! whose turn it is (`store/turns.rs`, reader "reviews"), on a thread of its own that the
//! operating system runs only when no game in play wants a core (`SCHED_IDLE`): a review never
//! delays a move. Baba Ayo weighs each position with the game's share of `house.review_ms`,
//! exactly where an endgame database holds it (`ayo/review.rs` says what a move cost); the
//! review is kept and served again, never computed twice. With `house.review_rated` the
//! worker also reads the results (its own cursor, under the same turn) and queues a review of
//! each rated game, worked after those guests asked for.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

use crate::ayo::house::Level;
use crate::ayo::review::{review, MoveReview, ReviewError, Weighed};
use crate::ayo::search::{Limits, Pause, Searcher, MAX_PLY};
use crate::ayo::{Game, Pit};
use crate::common::{Activity, GameId, HotelDay, UserId};
use crate::config::HouseSettings;
use crate::house::{Endgames, House};
use crate::store::{self, Asked, Asker, GameRow, ReviewRow, ReviewStatus, Store, StoreError};

/// The reviews' name among the readers that take turns.
pub const REVIEW_READER: &str = "reviews";

/// How often the waiting reviews are looked at when nobody here said one was asked for (one
/// asked on another instance, or this one's turn come).
const LOOK_EVERY: Duration = Duration::from_secs(2);

/// The review's search table: 2^16 entries (1 MiB). A review weighs one position after
/// another for a few hundred milliseconds each and needs none of the champion's 64 MiB; a
/// small table keeps its memory small (it was not what slowed the games: `wait_for_quiet`).
const REVIEW_TABLE_BITS: u32 = 16;

/// How often a review waiting for quiet looks again.
const LOOK_QUIET_EVERY: Duration = Duration::from_millis(50);

/// The least time a position is weighed, however long the game.
const LEAST_A_POSITION: Duration = Duration::from_millis(20);

/// A review as kept and served: the moves weighed, for the side that played each.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Weighing {
    pub moves: Vec<MoveReview>,
    /// Positions whose value Baba Ayo proved (an endgame database, or searched to the end).
    pub exact: usize,
}

/// Who asks for a review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Who {
    Guest(UserId),
    Operator,
}

/// What asking answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Asked for before (by anyone): as it stands.
    Known(Review),
    /// Asked for now: it waits its turn.
    Queued(Review),
}

/// A review as it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    pub row: ReviewRow,
    /// The moves weighed, once done.
    pub weighing: Option<Weighing>,
}

/// Why a review cannot be asked for or read.
#[derive(Debug, thiserror::Error)]
pub enum ReviewsError {
    #[error("there is no game by that id")]
    NoSuchGame,
    #[error("the game is still in play: a review is of a finished game")]
    InPlay,
    /// The guest's reviews for the day are used; the next day begins in `retry_after`.
    #[error("you have asked for {per_day} reviews today, all a day allows")]
    NoneLeft { per_day: u32, retry_after: Duration },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The reviews service: asking, reading, and the worker.
pub struct Reviews {
    store: Store,
    endgames: Arc<Endgames>,
    day: HotelDay,
    budget: Duration,
    per_day: u32,
    /// Whether rated games are reviewed unasked.
    rated_too: bool,
    /// The games' moves, and how long after the last one a review may think.
    activity: Activity,
    quiet: Duration,
    /// Told when a review was asked for here.
    asked: Notify,
    /// Moved on each time a review is worked here (stored, or found ended by another
    /// meanwhile): who waits for one hears it.
    worked: tokio::sync::watch::Sender<u64>,
    /// Set when the service stops: the review under way gives up (and waits for the next).
    stopping: Arc<AtomicBool>,
}

impl Reviews {
    pub fn new(
        store: Store,
        endgames: Arc<Endgames>,
        (day, activity): (HotelDay, Activity),
        settings: &HouseSettings,
    ) -> Reviews {
        Reviews {
            store,
            endgames,
            day,
            budget: Duration::from_millis(settings.review_ms),
            per_day: settings.reviews_per_day,
            rated_too: settings.review_rated,
            activity,
            quiet: Duration::from_millis(settings.review_quiet_ms),
            asked: Notify::new(),
            worked: tokio::sync::watch::channel(0).0,
            stopping: Arc::default(),
        }
    }

    /// Asks for a review of `game`: the one there is, or a new one within `who`'s allowance.
    pub async fn ask(&self, game: &GameId, who: Who) -> Result<Answer, ReviewsError> {
        let now = self.store.now().and_utc();
        let (began, ends) = self.day.window(self.day.day_of(now));
        let asker = match who {
            Who::Operator => Asker::Operator,
            Who::Guest(id) => Asker::Guest {
                id,
                per_day: self.per_day,
                day_began: began.naive_utc(),
            },
        };
        let budget_ms = self.budget_ms();
        let (store, game) = (self.store.clone(), game.clone());
        let house = House::user(Level::Champion).id;
        let asked =
            store::blocking(move || store.ask_review(&game, &asker, budget_ms, &house)).await?;
        match asked {
            Asked::Known(row) => Ok(Answer::Known(read(row))),
            Asked::Queued(row) => {
                self.asked.notify_one();
                Ok(Answer::Queued(read(row)))
            }
            Asked::NoneLeft { per_day } => Err(ReviewsError::NoneLeft {
                per_day,
                retry_after: (ends - now).to_std().unwrap_or_default(),
            }),
            Asked::NoSuchGame => Err(ReviewsError::NoSuchGame),
            Asked::InPlay => Err(ReviewsError::InPlay),
        }
    }

    /// Told each time a review is worked here: the count of reviews worked here.
    pub fn follow(&self) -> tokio::sync::watch::Receiver<u64> {
        self.worked.subscribe()
    }

    fn budget_ms(&self) -> i64 {
        i64::try_from(self.budget.as_millis()).unwrap_or(i64::MAX)
    }

    /// The review of `game`, if one was asked for.
    pub async fn get(&self, game: &GameId) -> Result<Option<Review>, ReviewsError> {
        let (store, game) = (self.store.clone(), game.clone());
        Ok(store::blocking(move || store.review(&game))
            .await?
            .map(read))
    }

    /// The review of `game`, waiting up to `wait` for it to end when it waits its turn (one
    /// worked on another instance is seen when the time is up).
    pub async fn get_when_ended(
        &self,
        game: &GameId,
        wait: Duration,
    ) -> Result<Option<Review>, ReviewsError> {
        let deadline = tokio::time::Instant::now() + wait;
        // Heard before reading: an end between the read and the wait is not missed.
        let mut ended = self.worked.subscribe();
        loop {
            let review = self.get(game).await?;
            let waiting = matches!(&review, Some(r) if r.row.status == ReviewStatus::Waiting);
            if !waiting || tokio::time::Instant::now() >= deadline {
                return Ok(review);
            }
            if tokio::time::timeout_at(deadline, ended.changed())
                .await
                .is_err()
            {
                return self.get(game).await;
            }
        }
    }

    /// Starts the worker: whenever a review waits and it is this instance's turn, it works
    /// the waiting reviews, oldest first, one at a time.
    pub fn start(self: &Arc<Self>) {
        let me = self.clone();
        tokio::spawn(async move {
            while !me.stopping.load(Ordering::Relaxed) {
                match me.work_waiting().await {
                    Ok(0) => {}
                    Ok(done) => tracing::debug!(done, "reviews worked"),
                    Err(e) => tracing::warn!(error = %e, "the reviews waiting could not be worked"),
                }
                let _ = tokio::time::timeout(LOOK_EVERY, me.asked.notified()).await;
            }
        });
    }

    /// Stops the review under way (it waits for the next start, here or elsewhere).
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Relaxed);
        self.asked.notify_one();
    }

    /// Works every waiting review when it is this instance's turn; how many it ended.
    async fn work_waiting(&self) -> Result<usize, StoreError> {
        let store = self.store.clone();
        if !store::blocking(move || store.take_turn(REVIEW_READER)).await? {
            return Ok(0);
        }
        let worked = self.work_in_turn().await;
        let store = self.store.clone();
        store::blocking(move || {
            store.end_turn(REVIEW_READER);
            Ok(())
        })
        .await?;
        worked
    }

    async fn work_in_turn(&self) -> Result<usize, StoreError> {
        if self.rated_too {
            let (store, budget) = (self.store.clone(), self.budget_ms());
            let queued = store::blocking(move || queue_rated(&store, budget)).await?;
            if queued > 0 {
                tracing::debug!(queued, "reviews of rated games queued");
            }
        }
        let mut ended = 0;
        while !self.stopping.load(Ordering::Relaxed) {
            let store = self.store.clone();
            let house = House::user(Level::Champion).id;
            let Some((row, game, moves)) =
                store::blocking(move || store.next_review(&house)).await?
            else {
                break;
            };
            let (status, body) = match self.weigh(&game, &moves).await {
                Ok(weighing) => (
                    ReviewStatus::Done,
                    serde_json::to_string(&weighing).unwrap_or_default(),
                ),
                // Stopping: left waiting for the next turn.
                Err(ReviewError::CalledOff) => break,
                Err(e) => {
                    tracing::warn!(game = %game.id, error = %e, "a review failed");
                    (ReviewStatus::Failed, e.to_string())
                }
            };
            let store = self.store.clone();
            let id = row.game_id.clone();
            let stored = store::blocking(move || store.end_review(&id, status, &body)).await?;
            self.worked.send_modify(|n| *n += 1);
            if stored {
                ended += 1;
                tracing::info!(game = %row.game_id, status = ?status, "a review ended");
            }
        }
        Ok(ended)
    }

    /// Weighs `game`'s moves on a thread the system runs only when nothing else wants a core,
    /// and that waits while the games in play are moving (`house.review_quiet_ms`).
    async fn weigh(&self, game: &GameRow, moves: &[u8]) -> Result<Weighing, ReviewError> {
        let pits: Vec<Pit> = moves.iter().filter_map(|&n| Pit::new(n)).collect();
        if pits.len() != moves.len() {
            return Err(ReviewError::Illegal {
                ply: u32::try_from(pits.len() + 1).unwrap_or(u32::MAX),
                error: crate::ayo::MoveError::GameOver,
            });
        }
        let rules = game.rules;
        let first = game.first_side;
        let positions = u32::try_from(pits.len() + 1).unwrap_or(u32::MAX);
        let each = (self.budget / positions).max(LEAST_A_POSITION);
        let endgames = self.endgames.clone();
        let stop = self.stopping.clone();
        let pause = {
            let (activity, quiet, stop) = (self.activity.clone(), self.quiet, stop.clone());
            Pause(Arc::new(move || wait_for_quiet(&activity, quiet, &stop)))
        };
        let (answer, answered) = tokio::sync::oneshot::channel();
        let spawned = std::thread::Builder::new()
            .name("baba-ayo-review".into())
            .spawn(move || {
                idle_priority();
                let mut searcher = Searcher::new(rules, REVIEW_TABLE_BITS, endgames.ready(&rules));
                let weighed = review(Game::starting(rules, first), &pits, |position| {
                    let thought = searcher.think(
                        position,
                        Limits {
                            max_depth: MAX_PLY as u32 - 1,
                            deadline: Some(Instant::now() + each),
                            stop: Some(stop.clone()),
                            pause: Some(pause.clone()),
                        },
                    )?;
                    // A search stopped before its first depth was done knows nothing.
                    (!stop.load(Ordering::Relaxed)).then_some(Weighed {
                        best: thought.best,
                        value: thought.score,
                        exact: thought.proven,
                    })
                });
                let _ = answer.send(weighed.map(|moves| Weighing {
                    exact: moves.iter().filter(|m| m.exact).count(),
                    moves,
                }));
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "no thread for a review");
            return Err(ReviewError::CalledOff);
        }
        answered.await.unwrap_or(Err(ReviewError::CalledOff))
    }
}

/// Holds a review's search up until no move has been played for `quiet` (or the service
/// stops); how long it waited. Zero `quiet` never waits.
fn wait_for_quiet(activity: &Activity, quiet: Duration, stop: &AtomicBool) -> Duration {
    let began = Instant::now();
    loop {
        let now = Instant::now();
        let still = activity.quiet_at(now);
        if still >= quiet || stop.load(Ordering::Relaxed) {
            return now - began;
        }
        std::thread::sleep((quiet - still).min(LOOK_QUIET_EVERY));
    }
}

/// Queues a review of each rated game among the results not read yet by the reviews (in
/// their turn); how many it queued. A game reviewed already is left as it is.
fn queue_rated(store: &Store, budget_ms: i64) -> Result<usize, StoreError> {
    // Turned on for the first time: from the games that end after, not every game before.
    if store.start_cursor_at_end(REVIEW_READER)? {
        return Ok(0);
    }
    let house = House::user(Level::Champion).id;
    let mut queued = 0;
    loop {
        let batch = store.unread_results(REVIEW_READER, 100)?;
        let Some(last) = batch.last().map(|(r, _)| r.seq) else {
            return Ok(queued);
        };
        for (result, _) in &batch {
            let game = store.rated_game(&result.game_id)?;
            // As the ratings decide it: a game of theirs, not between two accounts of one
            // device.
            if crate::ratings::family_of(result, game.as_ref()).is_err()
                || store.share_a_device(&result.winner_id, &result.loser_id)?
            {
                continue;
            }
            let asker = Asker::House(house.clone());
            if let Asked::Queued(_) =
                store.ask_review(&result.game_id, &asker, budget_ms, &house)?
            {
                queued += 1;
            }
        }
        store.set_cursor(REVIEW_READER, last)?;
    }
}

/// A stored review read: its weighing parsed once done.
fn read(row: ReviewRow) -> Review {
    let weighing = match (row.status, &row.body) {
        (ReviewStatus::Done, Some(body)) => serde_json::from_str(body).ok(),
        _ => None,
    };
    Review { row, weighing }
}

/// Puts the calling thread where the system runs it only when no other thread wants the
/// core (`SCHED_IDLE`), or, where that is refused, at the lowest priority there is.
fn idle_priority() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: sets the calling thread's scheduling policy (on Linux `pid` 0 is this thread);
    // `param` lives across the call and no memory of ours is written.
    #[allow(unsafe_code)]
    let idle = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
    if idle != 0 {
        // SAFETY: as in `house.rs`, this thread's own nice value; no memory is touched.
        #[allow(unsafe_code)]
        let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 19) };
    }
}
