//! The room's pool of guests asking for a game now (`seek`): the messages, and what the pool
//! decides made real: pairings told, agreed ones seated at a free table and started, Baba
//! Ayo offered after a wait, the lobby's counts told when they change. The pool is the
//! room's, so it lives wherever the room runs and sessions on other instances reach it
//! through the relay like any other message.

use serde_json::Value;

use crate::ayo::Family;
use crate::common::{ErrorCode, PairingId, Seating, TableId, User, UserId};

use super::super::matches::MatchChoice;
use super::super::protocol::{SeekCount, ServerMessage};
use super::super::seeks::{Kind, OfferEnd, Outcome, Pool, PoolError, PoolTiming, Range, Seek};
use super::super::series::BestOf;
use super::super::table::{choose, Command, Refusal};
use super::Room;

/// The clock a seek asks for where it says none.
const DEFAULT_CLOCK: &str = "5m";

/// The room's pool, with what it decided and the room has yet to act on, and the counts
/// last told.
pub(super) struct Seekers {
    pool: Pool,
    pending: Vec<Outcome>,
    shown: Vec<SeekCount>,
}

impl Seekers {
    pub(super) fn new(timing: PoolTiming) -> Seekers {
        Seekers {
            pool: Pool::new(timing),
            pending: Vec::new(),
            shown: Vec::new(),
        }
    }

    pub(super) fn next_deadline(&self) -> Option<u64> {
        self.pool.next_deadline()
    }

    /// How many wait, as the `room` snapshot and `seeks` show them.
    pub(super) fn counts(&self) -> Vec<SeekCount> {
        self.pool
            .counts()
            .into_iter()
            .map(|c| SeekCount {
                family: c.kind.family.word().to_owned(),
                clock: c.kind.clock.to_string(),
                rated: c.kind.rated,
                waiting: c.waiting,
            })
            .collect()
    }
}

/// A `seek` as the client sent it.
pub(super) struct Asked {
    pub(super) family: String,
    pub(super) clock: Option<String>,
    pub(super) rated: Option<bool>,
    pub(super) min_rating: Option<u32>,
    pub(super) max_rating: Option<u32>,
}

impl Asked {
    /// The kind of game and the range asked for, or why they cannot be.
    fn read(&self) -> Result<(Kind, Range), Refusal> {
        let family = Family::from_word(&self.family).ok_or_else(|| {
            Refusal::new(
                ErrorCode::BadSettings,
                format!("no rule family `{}`: abapa or ayoayo", self.family),
            )
        })?;
        let clock = choose(
            Some(self.clock.as_deref().unwrap_or(DEFAULT_CLOCK)),
            None,
            None,
        )?
        .clock
        .unwrap_or_default();
        let range = Range {
            min: self.min_rating,
            max: self.max_rating,
        };
        if let (Some(min), Some(max)) = (range.min, range.max) {
            if min > max {
                return Err(Refusal::new(
                    ErrorCode::BadSettings,
                    format!("min_rating {min} is above max_rating {max}"),
                ));
            }
        }
        let kind = Kind {
            family,
            clock,
            rated: self.rated.unwrap_or(true),
        };
        Ok((kind, range))
    }
}

impl Room {
    /// `user` asks for a game: they wait in the pool, in place of an earlier seek.
    pub(super) fn seek(
        &mut self,
        user: User,
        asked: &Asked,
        r#ref: Option<Value>,
    ) -> Result<(), Refusal> {
        let (kind, range) = asked.read()?;
        if self.seated_anywhere(&user.id) {
            return Err(Refusal::new(
                ErrorCode::AlreadySeated,
                "you have a seat in this room: stand first",
            ));
        }
        let now = self.now();
        let id = user.id.clone();
        let seek = Seek::new(user, kind, range, now);
        self.seekers.pool.seek(seek, now).map_err(refusal)?;
        self.send_to(
            &id,
            &ServerMessage::Seeking {
                family: kind.family.word(),
                clock: kind.clock.to_string(),
                rated: kind.rated,
                since: now,
                r#ref,
            },
        );
        Ok(())
    }

    /// `user` leaves the pool; a pairing of theirs is declined.
    pub(super) fn unseek(&mut self, user: &UserId) {
        let now = self.now();
        let (_, outcomes) = self.seekers.pool.unseek(user, now);
        self.seekers.pending.extend(outcomes);
    }

    /// `user`'s answer to a pairing.
    pub(super) fn answer_pairing(
        &mut self,
        user: &UserId,
        pairing: &PairingId,
        accept: bool,
    ) -> Result<(), Refusal> {
        let now = self.now();
        let outcomes = self
            .seekers
            .pool
            .answer(user, pairing, accept, now)
            .map_err(refusal)?;
        self.seekers.pending.extend(outcomes);
        Ok(())
    }

    /// After every command and tick: who is no longer free leaves the pool, time ends what
    /// it ends, those who can be are paired, what was decided is done, and the room hears
    /// the counts if they changed.
    pub(super) async fn see_to_pool(&mut self) {
        let now = self.now();
        let gone: Vec<UserId> = self
            .seekers
            .pool
            .users()
            .filter(|u| !self.members.contains_key(*u) || self.seated_anywhere(u))
            .cloned()
            .collect();
        for user in gone {
            let outcomes = self.seekers.pool.leave(&user);
            self.seekers.pending.extend(outcomes);
        }
        if self.seekers.pool.next_deadline().is_some_and(|d| d <= now) {
            let outcomes = self.seekers.pool.tick(now);
            self.seekers.pending.extend(outcomes);
        }
        // What was decided is acted on (a pairing both accepted takes its table) before
        // anyone else is offered a table.
        loop {
            for outcome in std::mem::take(&mut self.seekers.pending) {
                self.act_on(outcome).await;
            }
            self.pair_now(now);
            if self.seekers.pending.is_empty() {
                break;
            }
        }
        let counts = self.seekers.counts();
        if counts != self.seekers.shown {
            self.seekers.shown = counts.clone();
            self.broadcast(&ServerMessage::Seeks {
                room: self.info.id.clone(),
                counts,
            });
        }
    }

    /// The counts last told, for the `room` snapshot.
    pub(super) fn seek_counts(&self) -> Vec<SeekCount> {
        self.seekers.shown.clone()
    }

    /// Pairs whom the pool can at the room's free tables.
    fn pair_now(&mut self, now: u64) {
        // Most commands are moves with nobody seeking: no tables looked at.
        if self.closing || self.seekers.pool.waiting() < 2 {
            return;
        }
        let free = self.free_tables();
        let civility = &self.config.civility;
        let apart = |a: &UserId, b: &UserId| civility.blocks(a, b) || civility.blocks(b, a);
        let outcomes = self.seekers.pool.pair(now, &free, apart, PairingId::random);
        self.seekers.pending.extend(outcomes);
    }

    /// The tables the pool may seat two at, with their rules' family.
    fn free_tables(&self) -> Vec<(TableId, Family)> {
        self.tables
            .iter()
            .filter(|k| k.table.is_free())
            .filter_map(|k| Some((k.table.id.clone(), Family::of(&k.table.rules)?)))
            .collect()
    }

    async fn act_on(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Offered(offer) => {
                let kind = offer.kind();
                for (me, other) in [(0, 1), (1, 0)] {
                    let message = ServerMessage::Pairing {
                        pairing: offer.id.clone(),
                        table: offer.table.clone(),
                        opponent: offer.seeks[other].user.clone(),
                        family: kind.family.word(),
                        clock: kind.clock.to_string(),
                        rated: kind.rated,
                        until: offer.until,
                    };
                    self.send_to(&offer.seeks[me].user.id, &message);
                }
            }
            Outcome::Over(offer, why) => self.tell_over(&offer.id, offer.players(), why),
            Outcome::Agreed(offer) => {
                let kind = offer.kind();
                let choice = MatchChoice {
                    clock: Some(kind.clock),
                    best_of: Some(BestOf::default()),
                    seats: Some(Seating::Lots),
                    rated: Some(kind.rated),
                };
                // The table offered, or another of the family should it have been taken.
                let mut tables = self.free_tables();
                tables.retain(|(_, f)| *f == kind.family);
                tables.sort_by_key(|(t, _)| t != &offer.table);
                for (table, _) in tables {
                    let Ok(t) = self.table_index(&table) else {
                        continue;
                    };
                    let command = Command::Pair {
                        players: offer.players(),
                        choice,
                        rematch: true,
                        berserk: false,
                    };
                    if self.apply(t, command).await.is_none() {
                        for player in offer.players() {
                            self.unqueue_seated(&player.id).await;
                        }
                        self.tell_over(&offer.id, offer.players(), OfferEnd::Started);
                        return;
                    }
                }
                self.tell_over(&offer.id, offer.players(), OfferEnd::TableTaken);
                self.seekers.pool.unseat(offer);
            }
            Outcome::House {
                user,
                kind,
                waited_ms,
            } => self.send_to(
                &user,
                &ServerMessage::SeekHouse {
                    family: kind.family.word(),
                    waited_ms,
                },
            ),
        }
    }

    fn tell_over(&mut self, pairing: &PairingId, players: [User; 2], why: OfferEnd) {
        let message = ServerMessage::PairingOver {
            pairing: pairing.clone(),
            reason: why.word(),
        };
        for player in players {
            self.send_to(&player.id, &message);
        }
    }
}

/// The pool's refusal as the guest is told it.
fn refusal(e: PoolError) -> Refusal {
    match e {
        PoolError::Cooling { until, .. } => {
            Refusal::until(ErrorCode::SeekCooldown, e.to_string(), until)
        }
        PoolError::Paired => Refusal::new(ErrorCode::PairingOpen, e.to_string()),
        PoolError::NoSuchPairing => Refusal::new(ErrorCode::NoSuchPairing, e.to_string()),
    }
}
