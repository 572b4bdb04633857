//! The bans this instance knows, in memory: every request with a player token and every
//! `/ws` upgrade asks here, so it must be cheap. Read from the database at start; a ban or a
//! lift made here changes it at once, and one made on another instance when it says so
//! (`notices.rs`).

use std::collections::HashMap;
use std::sync::RwLock;

use chrono::{DateTime, NaiveDateTime};

use crate::common::{ServerClock, UserId};
use crate::store::Ban;

pub struct Banlist {
    /// Banned users: the reason and when it ends (never when `None`).
    bans: RwLock<HashMap<UserId, (String, Option<NaiveDateTime>)>>,
    clock: ServerClock,
}

impl Banlist {
    pub fn new(bans: Vec<Ban>, clock: ServerClock) -> Banlist {
        let bans = bans
            .into_iter()
            .map(|b| (b.user_id, (b.reason, b.until)))
            .collect();
        Banlist {
            bans: RwLock::new(bans),
            clock,
        }
    }

    /// Now, on the server's clock (a test's bans run out when it moves it on).
    pub fn now(&self) -> NaiveDateTime {
        let ms = i64::try_from(self.clock.now_ms()).unwrap_or(i64::MAX);
        DateTime::from_timestamp_millis(ms)
            .unwrap_or_default()
            .naive_utc()
    }

    /// The reason `user` is banned, if they are.
    pub fn reason(&self, user: &UserId) -> Option<String> {
        let bans = self.bans.read().unwrap_or_else(|e| e.into_inner());
        let (reason, until) = bans.get(user)?;
        until
            .is_none_or(|until| self.now() < until)
            .then(|| reason.clone())
    }

    pub fn add(&self, ban: &Ban) {
        self.set(&ban.user_id, &ban.reason, ban.until);
    }

    /// `user` is banned for `reason` until `until` (never when `None`).
    pub fn set(&self, user: &UserId, reason: &str, until: Option<NaiveDateTime>) {
        let mut bans = self.bans.write().unwrap_or_else(|e| e.into_inner());
        bans.insert(user.clone(), (reason.to_owned(), until));
    }

    pub fn lift(&self, user: &UserId) {
        let mut bans = self.bans.write().unwrap_or_else(|e| e.into_inner());
        bans.remove(user);
    }
}
