//! A room's pool of guests asking for a game now: their seeks, the pairings offered to two
//! of them at a free table, and who cools down after letting one go. Pure, as a table is:
//! time comes in as server milliseconds and pairing ids from outside; the room sends and
//! seats (`room/seeks.rs`).

use std::collections::HashMap;

use crate::ayo::clock::TimeControl;
use crate::ayo::Family;
use crate::common::{PairingId, TableId, User, UserId};

/// The rating a guest without one in a family counts as: a newcomer's.
pub const UNRATED: u32 = 1500;

/// What kind of game a seek asks for: two seeks pair only when they ask for the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    pub family: Family,
    pub clock: TimeControl,
    pub rated: bool,
}

/// The opponents' ratings a seek takes, each bound where given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Range {
    pub min: Option<u32>,
    pub max: Option<u32>,
}

impl Range {
    pub fn holds(self, rating: u32) -> bool {
        self.min.is_none_or(|m| rating >= m) && self.max.is_none_or(|m| rating <= m)
    }
}

/// A guest asking for a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seek {
    pub user: User,
    pub kind: Kind,
    pub range: Range,
    /// When they asked (server ms): the longest waiting are paired first.
    pub since: u64,
    /// Baba Ayo was offered to them for this seek.
    house_offered: bool,
}

impl Seek {
    pub fn new(user: User, kind: Kind, range: Range, since: u64) -> Seek {
        Seek {
            user,
            kind,
            range,
            since,
            house_offered: false,
        }
    }

    /// Their rating in the family asked for.
    pub fn rating(&self) -> u32 {
        rating_of(&self.user, self.kind.family)
    }
}

/// A user's rating in `family` as shown beside their name ("1540?" is 1540), or
/// `UNRATED` without one.
pub fn rating_of(user: &User, family: Family) -> u32 {
    let shown = user.ratings.as_deref().and_then(|r| match family {
        Family::Abapa => r.abapa.as_deref(),
        Family::Ayoayo => r.ayoayo.as_deref(),
    });
    shown
        .and_then(|s| s.trim_end_matches('?').trim().parse().ok())
        .unwrap_or(UNRATED)
}

/// A game offered to two seekers at a table, waiting for both to accept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Offer {
    pub id: PairingId,
    /// The two seeks, the longer waiting first.
    pub seeks: [Seek; 2],
    pub table: TableId,
    /// Both accept before this (server ms), or it lapses.
    pub until: u64,
    pub accepted: [bool; 2],
}

impl Offer {
    fn side_of(&self, user: &UserId) -> Option<usize> {
        self.seeks.iter().position(|s| &s.user.id == user)
    }

    pub fn players(&self) -> [User; 2] {
        [self.seeks[0].user.clone(), self.seeks[1].user.clone()]
    }

    pub fn kind(&self) -> Kind {
        self.seeks[0].kind
    }
}

/// Why a pairing ended (`pairing_over`'s `reason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OfferEnd {
    Declined,
    Lapsed,
    Left,
    /// Both accepted but the table was taken meanwhile and no other was free: both wait
    /// again.
    TableTaken,
    Started,
}

impl OfferEnd {
    pub fn word(self) -> &'static str {
        match self {
            OfferEnd::Declined => "declined",
            OfferEnd::Lapsed => "lapsed",
            OfferEnd::Left => "left",
            OfferEnd::TableTaken => "table_taken",
            OfferEnd::Started => "started",
        }
    }
}

/// What the pool decided, for the room to tell or do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Tell both of the pairing.
    Offered(Offer),
    /// Tell both it ended.
    Over(Offer, OfferEnd),
    /// Both accepted: seat them at the table and start their match, then `started` (or
    /// `taken` when the table is not free).
    Agreed(Offer),
    /// The seeker waited `house_after_ms` with nobody: offer Baba Ayo.
    House {
        user: UserId,
        kind: Kind,
        waited_ms: u64,
    },
}

/// How long things take in the pool, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolTiming {
    /// Both answer a pairing within this.
    pub answer_ms: u64,
    /// One who declines or lets a pairing lapse may not seek for this long.
    pub cooldown_ms: u64,
    /// Baba Ayo is offered after this long with nobody.
    pub house_after_ms: u64,
}

/// Why a seek or an answer is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    /// Until when (server ms), and the seconds left then.
    #[error("you let a pairing go: you may seek again in {seconds}s")]
    Cooling { until: u64, seconds: u64 },
    #[error("you have a pairing open: answer it first")]
    Paired,
    #[error("that pairing is not open for you (it may have ended)")]
    NoSuchPairing,
}

/// How many wait for one kind of game (the lobby's counts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    pub kind: Kind,
    pub waiting: usize,
}

/// One room's pool.
#[derive(Clone, Debug)]
pub struct Pool {
    timing: PoolTiming,
    /// Waiting, in the order they asked.
    seeks: Vec<Seek>,
    offers: Vec<Offer>,
    /// Who may not seek before when (server ms).
    cooldowns: HashMap<UserId, u64>,
}

impl Pool {
    pub fn new(timing: PoolTiming) -> Pool {
        Pool {
            timing,
            seeks: Vec::new(),
            offers: Vec::new(),
            cooldowns: HashMap::new(),
        }
    }

    /// `seek` joins the pool, in place of its user's earlier seek.
    pub fn seek(&mut self, seek: Seek, now: u64) -> Result<(), PoolError> {
        let user = &seek.user.id;
        if let Some(&until) = self.cooldowns.get(user).filter(|&&u| u > now) {
            let seconds = until.saturating_sub(now).div_ceil(1000);
            return Err(PoolError::Cooling { until, seconds });
        }
        if self.offer_of(user).is_some() {
            return Err(PoolError::Paired);
        }
        self.seeks.retain(|s| &s.user.id != user);
        self.seeks.push(seek);
        Ok(())
    }

    /// The user's seek leaves the pool; a pairing of theirs is declined. Whether they had one
    /// of either.
    pub fn unseek(&mut self, user: &UserId, now: u64) -> (bool, Vec<Outcome>) {
        if let Some(id) = self.offer_of(user).map(|o| o.id.clone()) {
            let declined = self.answer(user, &id, false, now).unwrap_or_default();
            return (true, declined);
        }
        let before = self.seeks.len();
        self.seeks.retain(|s| &s.user.id != user);
        (self.seeks.len() < before, Vec::new())
    }

    /// The user is gone (out of the room, or seated): their seek leaves, and a pairing of
    /// theirs ends with the other back in the pool. No cooldown: they did not decline.
    pub fn leave(&mut self, user: &UserId) -> Vec<Outcome> {
        self.seeks.retain(|s| &s.user.id != user);
        let Some(i) = self.offers.iter().position(|o| o.side_of(user).is_some()) else {
            return Vec::new();
        };
        let offer = self.offers.remove(i);
        for s in &offer.seeks {
            if &s.user.id != user {
                self.back(s.clone());
            }
        }
        vec![Outcome::Over(offer, OfferEnd::Left)]
    }

    /// Pairs whom it can at `free` tables (in the room's order, with their rules' family),
    /// the longest waiting first, each with the nearest in rating of those compatible and not
    /// `apart` (one blocks the other, either way); `ids` gives each pairing its id.
    pub fn pair(
        &mut self,
        now: u64,
        free: &[(TableId, Family)],
        apart: impl Fn(&UserId, &UserId) -> bool,
        mut ids: impl FnMut() -> PairingId,
    ) -> Vec<Outcome> {
        let mut tables: Vec<&(TableId, Family)> = free
            .iter()
            .filter(|(t, _)| !self.offers.iter().any(|o| &o.table == t))
            .collect();
        let mut order: Vec<usize> = (0..self.seeks.len()).collect();
        order.sort_by_key(|&i| self.seeks[i].since);
        let mut taken = vec![false; self.seeks.len()];
        let mut made = Vec::new();
        for &a in &order {
            if taken[a] {
                continue;
            }
            let seek = &self.seeks[a];
            let Some(t) = tables.iter().position(|(_, f)| *f == seek.kind.family) else {
                continue;
            };
            let nearest = order
                .iter()
                .copied()
                .filter(|&b| b != a && !taken[b] && compatible(seek, &self.seeks[b]))
                .filter(|&b| !apart(&seek.user.id, &self.seeks[b].user.id))
                .min_by_key(|&b| seek.rating().abs_diff(self.seeks[b].rating()));
            let Some(b) = nearest else {
                continue;
            };
            taken[a] = true;
            taken[b] = true;
            let (table, _) = tables.remove(t);
            made.push(Offer {
                id: ids(),
                seeks: [self.seeks[a].clone(), self.seeks[b].clone()],
                table: table.clone(),
                until: now.saturating_add(self.timing.answer_ms),
                accepted: [false, false],
            });
        }
        let mut i = 0;
        self.seeks.retain(|_| {
            i += 1;
            !taken[i - 1]
        });
        self.offers.extend(made.iter().cloned());
        made.into_iter().map(Outcome::Offered).collect()
    }

    /// The user's answer to pairing `id`: a decline ends it (they cool down, the other waits
    /// again); the second accept agrees it.
    pub fn answer(
        &mut self,
        user: &UserId,
        id: &PairingId,
        accept: bool,
        now: u64,
    ) -> Result<Vec<Outcome>, PoolError> {
        let Some((i, side)) = self
            .offers
            .iter()
            .enumerate()
            .find_map(|(i, o)| Some((i, o.side_of(user)?)).filter(|_| &o.id == id))
        else {
            return Err(PoolError::NoSuchPairing);
        };
        if !accept {
            let offer = self.offers.remove(i);
            self.cool(user, now);
            self.back(offer.seeks[1 - side].clone());
            return Ok(vec![Outcome::Over(offer, OfferEnd::Declined)]);
        }
        self.offers[i].accepted[side] = true;
        if self.offers[i].accepted == [true, true] {
            return Ok(vec![Outcome::Agreed(self.offers.remove(i))]);
        }
        Ok(Vec::new())
    }

    /// An agreed pairing found its table taken: both wait again, as they were.
    pub fn unseat(&mut self, offer: Offer) {
        for s in offer.seeks {
            self.back(s);
        }
    }

    /// What time ended at `now`: pairings not answered in time (who did not accept cools
    /// down, who did waits again) and waits long enough for Baba Ayo.
    pub fn tick(&mut self, now: u64) -> Vec<Outcome> {
        let mut out = Vec::new();
        let (lapsed, open): (Vec<Offer>, Vec<Offer>) =
            self.offers.drain(..).partition(|o| o.until <= now);
        self.offers = open;
        for offer in lapsed {
            for (s, accepted) in offer.seeks.iter().zip(offer.accepted) {
                if accepted {
                    self.back(s.clone());
                } else {
                    self.cool(&s.user.id, now);
                }
            }
            out.push(Outcome::Over(offer, OfferEnd::Lapsed));
        }
        let house_after = self.timing.house_after_ms;
        for s in &mut self.seeks {
            let waited_ms = now.saturating_sub(s.since);
            if !s.house_offered && waited_ms >= house_after {
                s.house_offered = true;
                out.push(Outcome::House {
                    user: s.user.id.clone(),
                    kind: s.kind,
                    waited_ms,
                });
            }
        }
        self.cooldowns.retain(|_, until| *until > now);
        out
    }

    /// The soonest a tick has something to do: a pairing's end, a wait reaching Baba Ayo.
    pub fn next_deadline(&self) -> Option<u64> {
        let offers = self.offers.iter().map(|o| o.until);
        let house_after = self.timing.house_after_ms;
        let house = self
            .seeks
            .iter()
            .filter(|s| !s.house_offered)
            .map(|s| s.since.saturating_add(house_after));
        offers.chain(house).min()
    }

    /// How many wait for each kind of game, not counting those with a pairing open; by
    /// family, clock and rated, so the list reads the same every time.
    pub fn counts(&self) -> Vec<Count> {
        let mut counts: Vec<Count> = Vec::new();
        for s in &self.seeks {
            match counts.iter_mut().find(|c| c.kind == s.kind) {
                Some(c) => c.waiting += 1,
                None => counts.push(Count {
                    kind: s.kind,
                    waiting: 1,
                }),
            }
        }
        counts.sort_by_key(|c| (c.kind.family, c.kind.clock.to_string(), !c.kind.rated));
        counts
    }

    /// The user's seek waiting in the pool.
    pub fn seek_of(&self, user: &UserId) -> Option<&Seek> {
        self.seeks.iter().find(|s| &s.user.id == user)
    }

    /// The pairing open for the user.
    pub fn offer_of(&self, user: &UserId) -> Option<&Offer> {
        self.offers.iter().find(|o| o.side_of(user).is_some())
    }

    /// How many wait, paired with nobody yet.
    pub fn waiting(&self) -> usize {
        self.seeks.len()
    }

    /// Everyone in the pool, waiting or paired.
    pub fn users(&self) -> impl Iterator<Item = &UserId> {
        let waiting = self.seeks.iter().map(|s| &s.user.id);
        let paired = self
            .offers
            .iter()
            .flat_map(|o| o.seeks.iter().map(|s| &s.user.id));
        waiting.chain(paired)
    }

    /// Whether the user is in the pool at all: waiting or paired.
    pub fn has(&self, user: &UserId) -> bool {
        self.seek_of(user).is_some() || self.offer_of(user).is_some()
    }

    fn cool(&mut self, user: &UserId, now: u64) {
        self.seeks.retain(|s| &s.user.id != user);
        self.cooldowns
            .insert(user.clone(), now.saturating_add(self.timing.cooldown_ms));
    }

    /// A seek goes back to the pool as it was, keeping its place by `since`.
    fn back(&mut self, seek: Seek) {
        self.seeks.retain(|s| s.user.id != seek.user.id);
        let at = self.seeks.partition_point(|s| s.since <= seek.since);
        self.seeks.insert(at, seek);
    }
}

/// Two seeks may be paired: two guests, the same kind, each one's rating in the other's
/// range.
fn compatible(a: &Seek, b: &Seek) -> bool {
    a.user.id != b.user.id
        && a.kind == b.kind
        && a.range.holds(b.rating())
        && b.range.holds(a.rating())
}

#[cfg(test)]
mod tests;
