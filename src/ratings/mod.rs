//! Ratings: Glicko-2 for games between people, one rating a rule family (`glicko.rs`),
//! updated game by game as the results' reader "ratings": a cursor of its own
//! (`store/cursors.rs`), run on one instance at a time (`store/turns.rs`), woken by the bell a
//! room rings when it stores a result (and every few seconds, for results another instance
//! stored). The ratings after a game, its changes and the cursor past it are stored in one
//! transaction (`Store::store_ratings`): a result is rated once, whichever instance reads it.
//! `lounge ratings rebuild` forgets every rating and reads every result again, in `seq`
//! order, with the same code: it comes to the same numbers.
//!
//! What is not rated, each for a reason logged at debug (`Skip`): Baba Ayo's games, casual
//! matches (the host's choice; at home by default), games aborted (a side made fewer than
//! `MIN_MOVES_EACH` moves), games under rules of no family, and games between two accounts
//! that signed in from one device. A draw is half a win to each side (a result with `drawn`:
//! South and North in the winner's and loser's places).

mod glicko;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::Notify;

pub use glicko::{Family, Rating, RatingRules};

use crate::common::{ShownRatings, UserId};
use crate::store::{
    blocking, GameResult, RatedGame, RatingChangeRow, RatingRow, Store, StoreError,
};

/// The ratings' name among the readers of the results: its cursor and its turn.
pub const RATINGS_READER: &str = "ratings";

/// Moves each side must have made for a game to be rated: a game with fewer (fewer than 4
/// plies) was aborted.
pub const MIN_MOVES_EACH: i64 = 2;

/// How often the outbox is read even when no bell rang here: a result another instance
/// stored, or a turn another instance held.
const OUTBOX_EVERY: Duration = Duration::from_secs(2);

/// Results read at a time.
const BATCH: i64 = 100;

/// Why a result changes no rating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// Baba Ayo played.
    House,
    /// The match was casual (or the game was of no match: played before matches were).
    Casual,
    /// A side made fewer than `MIN_MOVES_EACH` moves.
    Aborted,
    /// Its rules are of neither family.
    NoFamily,
    /// The two accounts signed in from one device.
    OneDevice,
    /// The game is not stored.
    NoGame,
}

impl Skip {
    pub fn word(self) -> &'static str {
        match self {
            Skip::House => "house",
            Skip::Casual => "casual",
            Skip::Aborted => "aborted",
            Skip::NoFamily => "no_family",
            Skip::OneDevice => "one_device",
            Skip::NoGame => "no_game",
        }
    }
}

/// The family a result is rated in, or why it is not rated, from what is stored of it; all
/// but the devices (`Store::share_a_device`, asked last).
pub fn family_of(result: &GameResult, game: Option<&RatedGame>) -> Result<Family, Skip> {
    let game = game.ok_or(Skip::NoGame)?;
    if game.house || result.house_level.is_some() {
        return Err(Skip::House);
    }
    if game.rated != Some(true) {
        return Err(Skip::Casual);
    }
    // The sides alternate: the one that moved second made `plies / 2` moves.
    if game.plies / 2 < MIN_MOVES_EACH {
        return Err(Skip::Aborted);
    }
    Family::of(&game.rules).ok_or(Skip::NoFamily)
}

/// A rating as shown beside a name: rounded, with "?" while provisional (`"1662?"`).
pub fn shown(rules: &RatingRules, row: &RatingRow) -> String {
    let provisional = rules.provisional(&rating(row));
    format!(
        "{}{}",
        row.rating.round(),
        if provisional { "?" } else { "" }
    )
}

/// A player's ratings (their rows) as shown beside their name.
pub fn shown_ratings(rules: &RatingRules, rows: &[RatingRow]) -> ShownRatings {
    let mut shown = ShownRatings::default();
    for row in rows {
        match Family::from_word(&row.family) {
            Some(Family::Abapa) => shown.abapa = Some(self::shown(rules, row)),
            Some(Family::Ayoayo) => shown.ayoayo = Some(self::shown(rules, row)),
            None => {}
        }
    }
    shown
}

/// What `lounge ratings rebuild` did.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Rebuilt {
    /// Results read.
    pub results: usize,
    /// Of them, rated.
    pub rated: usize,
    /// Players with a rating now, in any family.
    pub ratings: usize,
}

/// What reading the outbox did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Drained {
    pub read: usize,
    pub rated: usize,
}

/// The ratings' reader.
pub struct Ratings {
    store: Store,
    rules: RatingRules,
    /// Rung when a result is stored.
    bell: Arc<Notify>,
    /// One reading at a time in this process (a PostgreSQL turn is its session's: two threads
    /// of one process would both have it).
    one: Mutex<()>,
    /// The last result this process has read (its cursor after its last pass): what a test,
    /// or anything that waits for a game to be rated, follows.
    read: tokio::sync::watch::Sender<i64>,
    /// The service stops: the reader ends after its pass.
    stopping: std::sync::atomic::AtomicBool,
}

impl Ratings {
    pub fn new(store: Store, rules: RatingRules) -> Ratings {
        Ratings {
            store,
            rules,
            bell: Arc::new(Notify::new()),
            one: Mutex::new(()),
            read: tokio::sync::watch::Sender::new(0),
            stopping: Default::default(),
        }
    }

    /// Told the reader's cursor each time this process has read results (or found none left).
    pub fn follow(&self) -> tokio::sync::watch::Receiver<i64> {
        self.read.subscribe()
    }

    pub fn rules(&self) -> RatingRules {
        self.rules
    }

    /// The bell rooms ring when they store a result.
    pub fn bell(&self) -> Arc<Notify> {
        self.bell.clone()
    }

    /// Reads the outbox now, then each time the bell rings (or every `OUTBOX_EVERY`). Must
    /// run inside a tokio runtime.
    pub fn start(self: &Arc<Self>) {
        let me = self.clone();
        tokio::spawn(async move {
            while !me.stopping.load(std::sync::atomic::Ordering::SeqCst) {
                let reader = me.clone();
                match blocking(move || reader.drain()).await {
                    Ok(Drained { read: 0, .. }) => {}
                    Ok(d) => tracing::debug!(read = d.read, rated = d.rated, "rated results"),
                    Err(e) => tracing::warn!(error = %e, "results wait for their ratings"),
                }
                let _ = tokio::time::timeout(OUTBOX_EVERY, me.bell.notified()).await;
            }
        });
    }

    /// The service stops: no pass begins after this one.
    pub fn stop(&self) {
        self.stopping
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.bell.notify_one();
    }

    /// Rates the results not read yet, if this instance has the turn (else the one that has
    /// it does). Blocks on the database.
    pub fn drain(&self) -> Result<Drained, StoreError> {
        let _one = self.one.lock().unwrap_or_else(|e| e.into_inner());
        if !self.store.take_turn(RATINGS_READER)? {
            return Ok(Drained::default());
        }
        let drained = self.drain_in_turn();
        self.store.end_turn(RATINGS_READER);
        drained
    }

    /// Forgets every rating and rates every result again, in the order they were stored,
    /// holding the turn throughout (waiting up to `wait` for an instance that has it).
    pub fn rebuild(&self, wait: Duration) -> Result<Rebuilt, StoreError> {
        let _one = self.one.lock().unwrap_or_else(|e| e.into_inner());
        let until = std::time::Instant::now() + wait;
        while !self.store.take_turn(RATINGS_READER)? {
            if std::time::Instant::now() >= until {
                return Err(StoreError::Task(
                    "another instance is rating results: try again".into(),
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let rebuilt = self.store.forget_ratings(RATINGS_READER).and_then(|()| {
            let drained = self.drain_in_turn()?;
            Ok(Rebuilt {
                results: drained.read,
                rated: drained.rated,
                ratings: self.store.all_ratings()?.len(),
            })
        });
        self.store.end_turn(RATINGS_READER);
        rebuilt
    }

    fn drain_in_turn(&self) -> Result<Drained, StoreError> {
        let mut drained = Drained::default();
        loop {
            let from = self.store.cursor(RATINGS_READER)?;
            let batch = self.store.unread_results(RATINGS_READER, BATCH)?;
            let Some(last) = batch.last().map(|(r, _)| r.seq) else {
                let at = self.store.cursor(RATINGS_READER)?;
                self.read.send_replace(at);
                return Ok(drained);
            };
            // The ratings as this batch leaves them: a player may play twice in one.
            let mut now: HashMap<(UserId, Family), RatingRow> = HashMap::new();
            let mut rated = Vec::new();
            let mut this = Drained::default();
            for (result, _) in &batch {
                this.read += 1;
                let family = match self.family(result)? {
                    Ok(family) => family,
                    Err(skip) => {
                        tracing::debug!(game = %result.game_id, seq = result.seq, reason = skip.word(), "a result that changes no rating");
                        continue;
                    }
                };
                let [winner, loser] = [&result.winner_id, &result.loser_id]
                    .map(|user| self.current(&mut now, user, family));
                let (winner, loser) = (winner?, loser?);
                let score = if result.drawn { 0.5 } else { 1.0 };
                let (won, lost) = self.rules.game(rating(&winner), rating(&loser), score);
                for (before, after, score) in [(winner, won, score), (loser, lost, 1.0 - score)] {
                    let row = RatingRow {
                        rating: after.rating,
                        deviation: after.deviation,
                        volatility: after.volatility,
                        games: before.games + 1,
                        updated_at: result.ended_at,
                        ..before.clone()
                    };
                    rated.push((
                        row.clone(),
                        RatingChangeRow {
                            game_id: result.game_id.clone(),
                            user_id: before.user_id.clone(),
                            family: family.word().to_owned(),
                            seq: result.seq,
                            score,
                            before_rating: before.rating,
                            before_deviation: before.deviation,
                            before_volatility: before.volatility,
                            after_rating: after.rating,
                            after_deviation: after.deviation,
                            after_volatility: after.volatility,
                            at: result.ended_at,
                        },
                    ));
                    now.insert((row.user_id.clone(), family), row);
                }
                this.rated += 1;
            }
            if self
                .store
                .store_ratings(RATINGS_READER, from, last, &rated)?
            {
                drained.read += this.read;
                drained.rated += this.rated;
            } else {
                // Another reader moved the cursor meanwhile (a rebuild run beside this
                // instance on SQLite, which has no turns between processes): read again.
                tracing::debug!(
                    "the ratings' cursor moved while results were rated: reading again"
                );
            }
        }
    }

    /// The family `result` is rated in, or why it is not rated.
    fn family(&self, result: &GameResult) -> Result<Result<Family, Skip>, StoreError> {
        let game = self.store.rated_game(&result.game_id)?;
        let family = match family_of(result, game.as_ref()) {
            Ok(family) => family,
            skipped => return Ok(skipped),
        };
        if self
            .store
            .share_a_device(&result.winner_id, &result.loser_id)?
        {
            return Ok(Err(Skip::OneDevice));
        }
        Ok(Ok(family))
    }

    /// `user`'s rating in `family` as this batch has it, else as stored, else a newcomer's.
    fn current(
        &self,
        now: &mut HashMap<(UserId, Family), RatingRow>,
        user: &UserId,
        family: Family,
    ) -> Result<RatingRow, StoreError> {
        if let Some(row) = now.get(&(user.clone(), family)) {
            return Ok(row.clone());
        }
        let stored = self.store.rating(user, family.word())?;
        Ok(stored.unwrap_or_else(|| RatingRow {
            user_id: user.clone(),
            family: family.word().to_owned(),
            rating: self.rules.initial.rating,
            deviation: self.rules.initial.deviation,
            volatility: self.rules.initial.volatility,
            games: 0,
            updated_at: chrono::DateTime::UNIX_EPOCH.naive_utc(),
        }))
    }
}

fn rating(row: &RatingRow) -> Rating {
    Rating {
        rating: row.rating,
        deviation: row.deviation,
        volatility: row.volatility,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ayo::Preset;
    use crate::common::GameId;

    fn result(house_level: Option<&str>) -> GameResult {
        GameResult {
            game_id: GameId::new("g"),
            day: "2026-12-07".into(),
            winner_id: UserId::new("a"),
            loser_id: UserId::new("b"),
            seeds: 30,
            house_level: house_level.map(str::to_owned),
            counts: true,
            ended_at: chrono::DateTime::UNIX_EPOCH.naive_utc(),
            wall_reason: None,
            seq: 1,
            drawn: false,
        }
    }

    fn game(rated: Option<bool>, plies: i64) -> RatedGame {
        RatedGame {
            rules: Preset::Lagos.rules(),
            house: false,
            rated,
            plies,
        }
    }

    #[test]
    fn a_rated_game_between_people_is_rated_in_its_family() {
        assert_eq!(
            family_of(&result(None), Some(&game(Some(true), 40))),
            Ok(Family::Abapa)
        );
        let ayoayo = RatedGame {
            rules: Preset::Ayoayo.rules(),
            ..game(Some(true), 40)
        };
        assert_eq!(family_of(&result(None), Some(&ayoayo)), Ok(Family::Ayoayo));
    }

    #[test]
    fn house_casual_aborted_and_familyless_games_are_skipped_each_for_its_reason() {
        let house = RatedGame {
            house: true,
            ..game(Some(true), 40)
        };
        assert_eq!(family_of(&result(None), Some(&house)), Err(Skip::House));
        assert_eq!(
            family_of(&result(Some("easy")), Some(&game(Some(true), 40))),
            Err(Skip::House)
        );
        assert_eq!(
            family_of(&result(None), Some(&game(Some(false), 40))),
            Err(Skip::Casual)
        );
        assert_eq!(
            family_of(&result(None), Some(&game(None, 40))),
            Err(Skip::Casual)
        );
        let mixed = RatedGame {
            rules: crate::ayo::Rules {
                sowing: crate::ayo::Sowing::Relay,
                ..Preset::Lagos.rules()
            },
            ..game(Some(true), 40)
        };
        assert_eq!(family_of(&result(None), Some(&mixed)), Err(Skip::NoFamily));
        assert_eq!(family_of(&result(None), None), Err(Skip::NoGame));
    }

    #[test]
    fn a_game_is_aborted_until_each_side_has_made_two_moves() {
        for plies in 0..4 {
            assert_eq!(
                family_of(&result(None), Some(&game(Some(true), plies))),
                Err(Skip::Aborted),
                "{plies} plies"
            );
        }
        assert_eq!(
            family_of(&result(None), Some(&game(Some(true), 4))),
            Ok(Family::Abapa)
        );
    }
}
