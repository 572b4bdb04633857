//! Keeping a room civil, as pure state: time comes in as `now` (server ms). A room's chat
//! gate (slow mode set by an operator, a per-room budget of chat lines that turns slow mode
//! on by itself when spent) and the hotel's invitation quota (one guest to another, a few a
//! minute). The room asks and announces; nothing here sends or stores.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, RwLock};

use serde::Serialize;

use crate::common::{Buckets, UserId};

/// How chat and invitations are limited (settings `[civility]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CivilityLimits {
    /// Invitations one guest may send one other guest in a minute.
    pub invitations_per_minute: u32,
    /// Chat lines a room broadcasts a second on average, everyone together...
    pub room_chat_per_sec: f64,
    /// ...in bursts of this many.
    pub room_chat_burst: f64,
    /// Once that budget is spent, slow mode is on by itself for this long (ms)...
    pub auto_slow_ms: u64,
    /// ...at one line per guest every this many seconds.
    pub auto_slow_secs: u32,
    /// How long a guest put out of a room stays out unless the operator says (ms).
    pub put_out_ms: u64,
    /// What one guest's changes at the tables (sitting, standing, match settings, a rematch
    /// press, a draw offer...) may make the room hear: this many a minute on average...
    pub table_changes_per_minute: u32,
    /// ...in bursts of this many.
    pub table_changes_burst: u32,
}

impl Default for CivilityLimits {
    fn default() -> CivilityLimits {
        CivilityLimits {
            invitations_per_minute: 5,
            room_chat_per_sec: 10.0,
            room_chat_burst: 30.0,
            auto_slow_ms: 60_000,
            auto_slow_secs: 5,
            put_out_ms: 600_000,
            table_changes_per_minute: 30,
            table_changes_burst: 12,
        }
    }
}

/// The hotel's civility: its limits, who invited whom lately (shared by every room, so
/// moving to another room does not start a fresh allowance) and who is muted (in every room).
#[derive(Debug, Clone)]
pub struct Civility {
    pub limits: CivilityLimits,
    pub invitations: Arc<Mutex<InvitationQuota>>,
    /// Each guest's budget of changes at the tables, for every room of this instance (a guest
    /// moving to another room brings an empty budget along). Every change a guest makes at a
    /// table is sent to everyone in the room, so one guest churning seats would otherwise cost
    /// every other member a message each time.
    table_changes: Arc<Buckets<UserId>>,
    /// Muted guests, with the end of their mute (server ms), as stored.
    mutes: Arc<RwLock<HashMap<UserId, u64>>>,
    /// Whom each guest blocks, as stored: every room reads it as it sends.
    blocks: Arc<RwLock<HashMap<UserId, HashSet<UserId>>>>,
}

impl Default for Civility {
    fn default() -> Civility {
        Civility::new(CivilityLimits::default())
    }
}

impl Civility {
    pub fn new(limits: CivilityLimits) -> Civility {
        let per_sec = f64::from(limits.table_changes_per_minute.max(1)) / 60.0;
        let burst = f64::from(limits.table_changes_burst.max(1));
        Civility {
            limits,
            invitations: Arc::default(),
            table_changes: Arc::new(Buckets::new(per_sec, burst)),
            mutes: Arc::default(),
            blocks: Arc::default(),
        }
    }

    /// Takes one of `user`'s changes at the tables at `now` (server ms): `Err(when)` their
    /// budget has one again.
    pub fn take_table_change(&self, user: &UserId, now: u64) -> Result<(), u64> {
        self.table_changes.take(user.clone(), now).map_err(|wait| {
            let wait = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
            now.saturating_add(wait.max(1))
        })
    }

    /// Until when `user` is muted, if they are at `now`.
    pub fn muted_until(&self, user: &UserId, now: u64) -> Option<u64> {
        let mutes = self
            .mutes
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        mutes.get(user).copied().filter(|until| *until > now)
    }

    /// Whether `user` blocks `other`.
    pub fn blocks(&self, user: &UserId, other: &UserId) -> bool {
        let blocks = self
            .blocks
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        blocks.get(user).is_some_and(|b| b.contains(other))
    }

    /// Which of `members` block `sender`, read under one lock.
    pub fn blocking_of<'a>(
        &self,
        sender: &UserId,
        members: impl Iterator<Item = &'a UserId>,
    ) -> HashSet<UserId> {
        let blocks = self
            .blocks
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        members
            .filter(|m| blocks.get(*m).is_some_and(|b| b.contains(sender)))
            .cloned()
            .collect()
    }

    /// `user` blocks `other` (`on`), or no longer does.
    pub fn set_block(&self, user: &UserId, other: &UserId, on: bool) {
        let mut blocks = self
            .blocks
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if on {
            blocks
                .entry(user.clone())
                .or_default()
                .insert(other.clone());
        } else if let Some(b) = blocks.get_mut(user) {
            b.remove(other);
            if b.is_empty() {
                blocks.remove(user);
            }
        }
    }

    /// `user` is muted until `until` (server ms); `None` lifts it.
    pub fn set_mute(&self, user: &UserId, until: Option<u64>) {
        let mut mutes = self
            .mutes
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match until {
            Some(until) => mutes.insert(user.clone(), until),
            None => mutes.remove(user),
        };
    }
}

/// A minute, in ms.
const MINUTE_MS: u64 = 60_000;

/// Invitations sent lately, one guest to another: at most `per_minute` in any minute.
#[derive(Debug, Default)]
pub struct InvitationQuota {
    sent: HashMap<(UserId, UserId), VecDeque<u64>>,
}

impl InvitationQuota {
    /// `Ok` when `from` may invite `to` now; otherwise the time (server ms) they may again.
    pub fn check(
        &mut self,
        from: &UserId,
        to: &UserId,
        per_minute: u32,
        now: u64,
    ) -> Result<(), u64> {
        if let Some(cutoff) = now.checked_sub(MINUTE_MS) {
            self.forget_before(cutoff);
        }
        match self.sent.get(&(from.clone(), to.clone())) {
            Some(times) if times.len() >= per_minute as usize => {
                // The oldest of the last `per_minute` leaves the window a minute after it.
                let oldest = times[times.len() - per_minute.max(1) as usize];
                Err(oldest.saturating_add(MINUTE_MS))
            }
            _ => Ok(()),
        }
    }

    /// `from` sent `to` an invitation at `now`.
    pub fn record(&mut self, from: &UserId, to: &UserId, now: u64) {
        self.sent
            .entry((from.clone(), to.clone()))
            .or_default()
            .push_back(now);
    }

    /// Forgets what is as old as `cutoff` or older, so the map holds only the last minute.
    fn forget_before(&mut self, cutoff: u64) {
        self.sent.retain(|_, times| {
            while times.front().is_some_and(|t| *t <= cutoff) {
                times.pop_front();
            }
            !times.is_empty()
        });
    }
}

/// Slow mode as members see it (`slow_mode` message, and in the `room` snapshot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SlowMode {
    /// One chat line per guest every this many seconds; 0 when off.
    pub seconds: u32,
    /// Set by the room itself because its chat was too busy (not by an operator).
    pub auto: bool,
    /// When the room's own slow mode ends (server ms); `None` for an operator's, or off.
    pub until: Option<u64>,
}

/// Why a chat line was refused, and when its sender may speak again (server ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooSoon {
    pub until: u64,
    /// The room's budget was spent (rather than the guest's own slow-mode interval).
    pub room_busy: bool,
}

/// A room's chat: who spoke when, the room's budget, and slow mode.
#[derive(Debug, Clone)]
pub struct ChatGate {
    limits: CivilityLimits,
    /// Slow mode an operator set (seconds, 0 off): stored with the room.
    set_secs: u32,
    /// Until when the room's own slow mode lasts.
    auto_until: Option<u64>,
    /// The room's budget: lines it may still broadcast now, and when it was last filled.
    tokens: f64,
    filled_at: u64,
    /// When each guest last spoke (only kept while some slow mode is on).
    last_line: HashMap<UserId, u64>,
}

impl ChatGate {
    pub fn new(limits: CivilityLimits, set_secs: u32, now: u64) -> ChatGate {
        ChatGate {
            limits,
            set_secs,
            auto_until: None,
            tokens: limits.room_chat_burst,
            filled_at: now,
            last_line: HashMap::new(),
        }
    }

    /// Slow mode now.
    pub fn slow_mode(&self) -> SlowMode {
        match self.auto_until {
            Some(until) if self.limits.auto_slow_secs > self.set_secs => SlowMode {
                seconds: self.limits.auto_slow_secs,
                auto: true,
                until: Some(until),
            },
            _ => SlowMode {
                seconds: self.set_secs,
                auto: false,
                until: None,
            },
        }
    }

    /// An operator sets slow mode (0: off). Returns the new one when it changed.
    pub fn set(&mut self, secs: u32) -> Option<SlowMode> {
        let before = self.slow_mode();
        self.set_secs = secs;
        self.changed(before)
    }

    /// `user` would say a line at `now`: `Ok` (and counted) or when they may. The line that
    /// spends the room's budget turns the room's own slow mode on: the new slow mode comes
    /// back beside the refusal, to announce.
    pub fn speak(&mut self, user: &UserId, now: u64) -> Result<(), (TooSoon, Option<SlowMode>)> {
        let interval_ms = u64::from(self.slow_mode().seconds) * 1000;
        if interval_ms > 0 {
            if let Some(last) = self.last_line.get(user) {
                let until = last.saturating_add(interval_ms);
                if now < until {
                    let soon = TooSoon {
                        until,
                        room_busy: false,
                    };
                    return Err((soon, None));
                }
            }
        }
        self.refill(now);
        if self.tokens < 1.0 {
            let before = self.slow_mode();
            // Once on, it runs its course (announced once), and comes on again if still busy.
            self.auto_until
                .get_or_insert(now.saturating_add(self.limits.auto_slow_ms));
            let until = now.saturating_add(u64::from(self.limits.auto_slow_secs.max(1)) * 1000);
            let soon = TooSoon {
                until,
                room_busy: true,
            };
            return Err((soon, self.changed(before)));
        }
        self.tokens -= 1.0;
        self.last_line.insert(user.clone(), now);
        Ok(())
    }

    /// When the room's own slow mode ends, if on.
    pub fn next_deadline(&self) -> Option<u64> {
        self.auto_until
    }

    /// Time passed: the room's own slow mode may be over (the new slow mode, to announce).
    pub fn tick(&mut self, now: u64) -> Option<SlowMode> {
        let before = self.slow_mode();
        if self.auto_until.is_some_and(|until| until <= now) {
            self.auto_until = None;
        }
        if self.slow_mode().seconds == 0 {
            self.last_line.clear();
        } else {
            // Lines older than the interval no longer hold anyone back.
            let interval_ms = u64::from(self.slow_mode().seconds) * 1000;
            self.last_line
                .retain(|_, at| at.saturating_add(interval_ms) > now);
        }
        self.changed(before)
    }

    /// The budget grows back with time, up to a burst.
    fn refill(&mut self, now: u64) {
        let elapsed = now.saturating_sub(self.filled_at) as f64 / 1000.0;
        self.tokens = (self.tokens + elapsed * self.limits.room_chat_per_sec)
            .min(self.limits.room_chat_burst);
        self.filled_at = now;
    }

    fn changed(&self, before: SlowMode) -> Option<SlowMode> {
        let now = self.slow_mode();
        (now != before).then_some(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> CivilityLimits {
        CivilityLimits {
            invitations_per_minute: 3,
            room_chat_per_sec: 2.0,
            room_chat_burst: 4.0,
            auto_slow_ms: 30_000,
            auto_slow_secs: 5,
            put_out_ms: 600_000,
            table_changes_per_minute: 6,
            table_changes_burst: 3,
        }
    }

    #[test]
    fn a_guests_table_changes_come_in_bursts_then_at_the_rate() {
        let civility = Civility::new(limits());
        for _ in 0..3 {
            assert_eq!(civility.take_table_change(&id("ade"), 0), Ok(()));
        }
        // Six a minute: the next token comes in ten seconds.
        assert_eq!(civility.take_table_change(&id("ade"), 0), Err(10_000));
        assert_eq!(civility.take_table_change(&id("ade"), 9_999), Err(10_000));
        assert_eq!(civility.take_table_change(&id("ade"), 10_000), Ok(()));
        // Another guest has a budget of their own.
        assert_eq!(civility.take_table_change(&id("bisi"), 10_000), Ok(()));
        // A long pause refills the burst, no more.
        for _ in 0..3 {
            assert_eq!(civility.take_table_change(&id("ade"), 1_000_000), Ok(()));
        }
        assert!(civility.take_table_change(&id("ade"), 1_000_000).is_err());
    }

    fn id(s: &str) -> UserId {
        UserId::new(s)
    }

    #[test]
    fn invitations_are_a_few_a_minute_per_pair() {
        let mut q = InvitationQuota::default();
        let (a, b, c) = (id("a"), id("b"), id("c"));
        for t in [0, 1_000, 2_000] {
            assert_eq!(q.check(&a, &b, 3, t), Ok(()));
            q.record(&a, &b, t);
        }
        // The fourth within the minute waits until the first leaves it.
        assert_eq!(q.check(&a, &b, 3, 10_000), Err(60_000));
        // Someone else is another pair.
        assert_eq!(q.check(&a, &c, 3, 10_000), Ok(()));
        assert_eq!(q.check(&b, &a, 3, 10_000), Ok(()));
        assert_eq!(q.check(&a, &b, 3, 60_000), Ok(()));
    }

    #[test]
    fn an_operators_slow_mode_holds_each_guest_back() {
        let mut gate = ChatGate::new(limits(), 0, 0);
        assert_eq!(gate.set(10).map(|s| s.seconds), Some(10));
        assert!(gate.speak(&id("a"), 0).is_ok());
        let (soon, change) = gate.speak(&id("a"), 3_000).unwrap_err();
        assert_eq!((soon.until, soon.room_busy, change), (10_000, false, None));
        // Others are not held back by a's line.
        assert!(gate.speak(&id("b"), 3_000).is_ok());
        assert!(gate.speak(&id("a"), 10_000).is_ok());
        assert_eq!(gate.set(0).map(|s| s.seconds), Some(0));
        assert!(gate.speak(&id("a"), 10_001).is_ok());
    }

    #[test]
    fn a_spent_budget_turns_slow_mode_on_for_a_while() {
        let mut gate = ChatGate::new(limits(), 0, 0);
        for who in ["a", "b", "c", "d"] {
            assert!(gate.speak(&id(who), 0).is_ok());
        }
        let (soon, change) = gate.speak(&id("e"), 0).unwrap_err();
        assert!(soon.room_busy);
        let on = change.expect("slow mode comes on");
        assert_eq!((on.seconds, on.auto, on.until), (5, true, Some(30_000)));
        assert_eq!(gate.next_deadline(), Some(30_000));
        // Still busy: refused, nothing new to announce.
        let (soon, change) = gate.speak(&id("f"), 100).unwrap_err();
        assert!(soon.room_busy);
        assert_eq!(change, None);
        // A second later the budget has two lines again, one each at most.
        assert!(gate.speak(&id("e"), 1_000).is_ok());
        assert!(gate.speak(&id("e"), 1_500).is_err());
        assert_eq!(gate.tick(29_999), None);
        let off = gate.tick(30_000).expect("slow mode ends");
        assert_eq!(off.seconds, 0);
        assert!(!off.auto);
    }

    #[test]
    fn an_operators_longer_slow_mode_wins_over_the_rooms() {
        let mut gate = ChatGate::new(limits(), 20, 0);
        for who in ["a", "b", "c", "d"] {
            assert!(gate.speak(&id(who), 0).is_ok());
        }
        let (_, change) = gate.speak(&id("e"), 0).unwrap_err();
        // 20 s beats the room's 5 s: nothing new to announce.
        assert_eq!(change, None);
        assert_eq!(gate.slow_mode().seconds, 20);
    }
}
