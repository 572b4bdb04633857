//! Arena tournaments' scores: the results' reader "tournaments" (its own cursor, run on one
//! instance at a time, woken by the bell rooms ring as they store a result) gives each game a
//! tournament paired its points (`arena.rs`), stores them with both players' scores and the
//! cursor in one transaction, then sets the standings (`standings.rs`: a sorted set per
//! tournament in Redis, or in this process), which are filled again from the database
//! whenever they were lost. The pairing itself is the room's (`world/room/arena.rs`).

pub mod arena;
mod standings;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

pub use standings::{Standing, Standings};

use crate::common::{TournamentId, UserId};
use crate::store::{blocking, PlayerRow, Scored, Store, StoreError};
use arena::Outcome;

/// The tournaments' name among the readers of the results: its cursor and its turn.
pub const TOURNAMENTS_READER: &str = "tournaments";

/// How often the outbox is read when no bell rang here.
const OUTBOX_EVERY: Duration = Duration::from_secs(2);

/// Results read at a time.
const BATCH: i64 = 100;

/// The reader.
pub struct Tournaments {
    store: Store,
    standings: Arc<Standings>,
    bell: Arc<Notify>,
    one: Mutex<()>,
    /// The cursor after this process's last pass: what a test waits on.
    read: tokio::sync::watch::Sender<i64>,
    /// The service stops: the reader ends after its pass.
    stopping: std::sync::atomic::AtomicBool,
}

impl Tournaments {
    pub fn new(store: Store, standings: Arc<Standings>) -> Tournaments {
        Tournaments {
            store,
            standings,
            bell: Arc::new(Notify::new()),
            one: Mutex::new(()),
            read: tokio::sync::watch::Sender::new(0),
            stopping: Default::default(),
        }
    }

    /// The service stops: no pass begins after this one.
    pub fn stop(&self) {
        self.stopping
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.bell.notify_one();
    }

    pub fn bell(&self) -> Arc<Notify> {
        self.bell.clone()
    }

    pub fn follow(&self) -> tokio::sync::watch::Receiver<i64> {
        self.read.subscribe()
    }

    pub fn standings(&self) -> Arc<Standings> {
        self.standings.clone()
    }

    /// Reads the outbox now and whenever the bell rings (or every `OUTBOX_EVERY`).
    pub fn start(self: &Arc<Self>) {
        let me = self.clone();
        tokio::spawn(async move {
            // No tournament played before this reader was: it starts at the results' end
            // (not read one by one from the first).
            let store = me.store.clone();
            if let Err(e) = blocking(move || store.start_cursor_at_end(TOURNAMENTS_READER)).await {
                tracing::warn!(error = %e, "the tournaments' reader starts from its cursor");
            }
            while !me.stopping.load(std::sync::atomic::Ordering::SeqCst) {
                let reader = me.clone();
                match blocking(move || reader.drain()).await {
                    Ok(changed) => me.show(changed).await,
                    Err(e) => {
                        tracing::warn!(error = %e, "results wait for their tournament points")
                    }
                }
                let _ = tokio::time::timeout(OUTBOX_EVERY, me.bell.notified()).await;
            }
        });
    }

    /// Sets the standings of the tournaments whose scores changed.
    async fn show(&self, changed: HashMap<TournamentId, Vec<(UserId, i32)>>) {
        for (id, scores) in changed {
            if let Err(e) = self.standings.set(&id, &scores).await {
                tracing::warn!(tournament = %id, error = %e, "the standings wait: filled from the database when read");
                // Unmarked, they are filled again from the database when next read.
                let _ = self.standings.forget(&id).await;
            }
        }
    }

    /// Scores the results not read yet, if this instance has the turn; the scores that
    /// changed, by tournament. Blocks on the database.
    pub fn drain(&self) -> Result<HashMap<TournamentId, Vec<(UserId, i32)>>, StoreError> {
        let _one = self.one.lock().unwrap_or_else(|e| e.into_inner());
        if !self.store.take_turn(TOURNAMENTS_READER)? {
            return Ok(HashMap::new());
        }
        let drained = self.drain_in_turn();
        self.store.end_turn(TOURNAMENTS_READER);
        drained
    }

    fn drain_in_turn(&self) -> Result<HashMap<TournamentId, Vec<(UserId, i32)>>, StoreError> {
        let mut changed: HashMap<TournamentId, Vec<(UserId, i32)>> = HashMap::new();
        loop {
            let from = self.store.cursor(TOURNAMENTS_READER)?;
            let batch = self.store.unread_results(TOURNAMENTS_READER, BATCH)?;
            let Some(last) = batch.last().map(|(r, _)| r.seq) else {
                self.read.send_replace(from);
                return Ok(changed);
            };
            // Players as this batch leaves them: one may play twice in it.
            let mut now: HashMap<(TournamentId, UserId), PlayerRow> = HashMap::new();
            let mut scored = Vec::new();
            for (result, _) in &batch {
                let Some((pairing, stored)) = self.store.pairing_of_game(&result.game_id)? else {
                    continue;
                };
                let players = stored.map(|p| {
                    now.get(&(p.tournament_id.clone(), p.user_id.clone()))
                        .cloned()
                        .unwrap_or(p)
                });
                let outcome = |user: &UserId| match (result.drawn, &result.winner_id == user) {
                    (true, _) => Outcome::Drawn,
                    (false, true) => Outcome::Won,
                    (false, false) => Outcome::Lost,
                };
                let mut points = [0; 2];
                let mut after = players.clone();
                for (i, p) in players.iter().enumerate() {
                    let (got, in_a_row) = arena::points(
                        p.wins_in_a_row,
                        outcome(&p.user_id),
                        pairing.berserk_of(&p.user_id),
                    );
                    points[i] = got;
                    after[i].score = p.score.saturating_add(got);
                    after[i].wins_in_a_row = in_a_row;
                    after[i].games = p.games.saturating_add(1);
                }
                for p in &after {
                    now.insert((p.tournament_id.clone(), p.user_id.clone()), p.clone());
                }
                scored.push(Scored {
                    match_id: pairing.match_id,
                    points,
                    players: after,
                });
            }
            if self
                .store
                .store_tournament_points(TOURNAMENTS_READER, from, last, &scored)?
            {
                for ((tournament, user), p) in now {
                    changed.entry(tournament).or_default().push((user, p.score));
                }
            }
        }
    }
}
