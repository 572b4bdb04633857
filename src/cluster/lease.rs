//! A room's lease: which instance runs it. Redis holds it (`SET ... PX`, granted only where
//! nobody holds it), and every grant takes the next fencing number of the room (`INCR`), so
//! a later owner always holds a larger one: the database refuses a write whose number is
//! not the room's latest, and an owner paused past its lease (a GC pause, SIGSTOP, a cut to
//! Redis) cannot write after its successor took over.
//!
//! The holder counts its lease from when it *sent* the request, on its own clock: Redis
//! started the time to live later than that, never earlier. It renews once a third of the
//! time has passed, and stops acting as owner a margin before the end (clocks run at
//! slightly different rates), so it lets go before Redis does.

use redis::aio::ConnectionManager;
use thiserror::Error;

use crate::common::{RoomId, ServerClock};

/// A room's fencing number: it grows with every grant of the room's lease, whoever gets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fence(pub u64);

#[derive(Debug, Error)]
pub enum LeaseError {
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// The lease key holds something this code did not write.
    #[error("the lease of room {room} reads {value:?}")]
    Unreadable { room: RoomId, value: String },
}

/// A lease this instance holds, as its own clock sees it (milliseconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    pub room: RoomId,
    pub fence: Fence,
    /// When the request behind the last grant or renewal was sent.
    since: u64,
    ttl: u64,
}

impl Held {
    /// A lease granted (or renewed) by a request sent at `sent_at`, for `ttl` ms.
    pub fn new(room: RoomId, fence: Fence, sent_at: u64, ttl: u64) -> Held {
        Held {
            room,
            fence,
            since: sent_at,
            ttl,
        }
    }

    /// Time to renew: a third of the time to live has gone, leaving two tries' worth.
    pub fn renew_due(&self, now: u64) -> bool {
        now >= self.renew_at()
    }

    /// When it is time to renew.
    pub fn renew_at(&self) -> u64 {
        self.since.saturating_add(self.ttl / 3)
    }

    /// Whether the holder may still act as the room's owner: until a tenth of the time to
    /// live (at least 50 ms) before the lease runs out, for clocks that run at different rates.
    pub fn valid(&self, now: u64) -> bool {
        now < self.until()
    }

    /// When the holder stops acting on it, unless renewed.
    pub fn until(&self) -> u64 {
        let margin = (self.ttl / 10).max(50).min(self.ttl);
        self.since.saturating_add(self.ttl - margin)
    }

    /// Renewed by a request sent at `sent_at`.
    pub fn renewed(&mut self, sent_at: u64) {
        self.since = self.since.max(sent_at);
    }

    /// What the lease key holds while this holder has it.
    fn value(&self, instance: &str) -> String {
        format!("{instance} {}", self.fence.0)
    }
}

/// Granted only where nobody holds the lease: the next fencing number, above `floor`, then
/// the lease. KEYS: the lease, the room's fence counter. ARGV: instance id, ttl (ms), floor.
/// The counter lives a day past its last grant: the floor (the database's number) keeps the
/// numbers growing once it is gone, as after Redis restarts empty, and nothing stays for ever.
const ACQUIRE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local fence = redis.call('INCR', KEYS[2])
local floor = tonumber(ARGV[3])
if fence <= floor then
  fence = floor + 1
  redis.call('SET', KEYS[2], fence)
end
redis.call('PEXPIRE', KEYS[2], 86400000)
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. fence, 'PX', ARGV[2])
return fence
";

/// Renewed only by its holder. KEYS: the lease. ARGV: its value, ttl (ms).
const RENEW: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
";

/// Let go only by its holder. KEYS: the lease. ARGV: its value.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
";

/// The leases of one instance, in Redis under `prefix`.
#[derive(Clone)]
pub struct Leases {
    conn: ConnectionManager,
    prefix: String,
    instance: String,
    ttl: u64,
    clock: ServerClock,
    /// The scripts, hashed once (`ACQUIRE`, `RENEW`, `RELEASE`).
    scripts: std::sync::Arc<[redis::Script; 3]>,
}

impl Leases {
    /// `instance` names this instance in the leases it holds (no spaces); `ttl` is how long
    /// a lease lives unrenewed (ms).
    pub fn new(
        conn: ConnectionManager,
        prefix: &str,
        instance: &str,
        ttl: u64,
        clock: ServerClock,
    ) -> Leases {
        Leases {
            conn,
            prefix: prefix.to_owned(),
            instance: instance.replace(char::is_whitespace, "_"),
            ttl: ttl.max(1),
            clock,
            scripts: std::sync::Arc::new([ACQUIRE, RENEW, RELEASE].map(redis::Script::new)),
        }
    }

    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// How long a lease lives unrenewed (ms).
    pub fn ttl(&self) -> u64 {
        self.ttl
    }

    /// The clock its leases are counted on.
    pub fn clock(&self) -> &ServerClock {
        &self.clock
    }

    /// A room's two keys share a hash tag: one node of a Redis cluster holds both.
    fn keys(&self, room: &RoomId) -> [String; 2] {
        let tag = format!("{}{{room:{room}}}", self.prefix);
        [format!("{tag}:lease"), format!("{tag}:fence")]
    }

    /// The room's lease, if nobody holds it, under a fencing number above `floor`: the
    /// largest the database has seen for the room. Redis here keeps nothing on disk; after
    /// it restarts, its counter starts again, and the floor keeps the numbers growing (a
    /// number granted but not yet taken can be granted twice: `Store::take_room` lets only
    /// one instance have it).
    pub async fn acquire(&self, room: &RoomId, floor: Fence) -> Result<Option<Held>, LeaseError> {
        let sent_at = self.clock.now_ms();
        let [lease, fence] = self.keys(room);
        let granted: Option<u64> = self.scripts[0]
            .key(lease)
            .key(fence)
            .arg(&self.instance)
            .arg(self.ttl)
            .arg(floor.0)
            .invoke_async(&mut self.conn.clone())
            .await?;
        Ok(granted.map(|f| Held::new(room.clone(), Fence(f), sent_at, self.ttl)))
    }

    /// Renews `held`: false when it is no longer ours (it ran out, and perhaps another
    /// instance holds the room now): the holder stops acting as owner at once.
    pub async fn renew(&self, held: &mut Held) -> Result<bool, LeaseError> {
        let sent_at = self.clock.now_ms();
        let [lease, _] = self.keys(&held.room);
        let renewed: i64 = self.scripts[1]
            .key(lease)
            .arg(held.value(&self.instance))
            .arg(self.ttl)
            .invoke_async(&mut self.conn.clone())
            .await?;
        if renewed == 1 {
            held.renewed(sent_at);
        }
        Ok(renewed == 1)
    }

    /// Lets the room go (a clean stop): another instance may take it at once. False when it
    /// was no longer ours.
    pub async fn release(&self, held: &Held) -> Result<bool, LeaseError> {
        let [lease, _] = self.keys(&held.room);
        let released: i64 = self.scripts[2]
            .key(lease)
            .arg(held.value(&self.instance))
            .invoke_async(&mut self.conn.clone())
            .await?;
        Ok(released == 1)
    }

    /// Whether Redis answers.
    pub async fn ping(&self) -> bool {
        let pong: Result<String, _> = redis::cmd("PING").query_async(&mut self.conn.clone()).await;
        pong.is_ok()
    }

    /// Who holds the room's lease now, and under which fencing number.
    pub async fn owner(&self, room: &RoomId) -> Result<Option<(String, Fence)>, LeaseError> {
        let [lease, _] = self.keys(room);
        let value: Option<String> = redis::cmd("GET")
            .arg(lease)
            .query_async(&mut self.conn.clone())
            .await?;
        value
            .map(|v| {
                v.rsplit_once(' ')
                    .and_then(|(who, f)| Some((who.to_owned(), Fence(f.parse().ok()?))))
                    .ok_or_else(|| LeaseError::Unreadable {
                        room: room.clone(),
                        value: v.clone(),
                    })
            })
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(sent_at: u64, ttl: u64) -> Held {
        Held::new(RoomId::new("lounge"), Fence(7), sent_at, ttl)
    }

    #[test]
    fn a_lease_is_renewed_after_a_third_of_its_time_and_acted_on_until_a_margin_before_its_end() {
        let clock = ServerClock::manual(1_000);
        let mut lease = held(clock.now_ms(), 3_000);
        assert!(!lease.renew_due(clock.now_ms()));
        assert!(lease.valid(clock.now_ms()));
        clock.advance(999);
        assert!(!lease.renew_due(clock.now_ms()));
        clock.advance(1);
        assert!(lease.renew_due(clock.now_ms()), "a third of 3 s gone");
        // Unrenewed, it is given up 300 ms (a tenth) before Redis lets it go.
        clock.advance(1_699);
        assert!(lease.valid(clock.now_ms()));
        clock.advance(1);
        assert!(!lease.valid(clock.now_ms()));
        assert_eq!(lease.until(), 1_000 + 2_700);
        // Renewed by a request sent now: counted from the request, not from its answer.
        let sent = clock.now_ms();
        clock.advance(40);
        lease.renewed(sent);
        assert!(lease.valid(clock.now_ms()));
        assert_eq!(lease.until(), sent + 2_700);
        assert!(!lease.renew_due(clock.now_ms()));
    }

    #[test]
    fn a_late_answer_to_an_older_renewal_does_not_move_the_lease_back() {
        let mut lease = held(5_000, 1_000);
        lease.renewed(4_000);
        assert_eq!(lease.until(), 5_000 + 900);
    }

    #[test]
    fn a_short_lease_keeps_a_margin_of_at_least_50_ms_and_never_outlives_itself() {
        assert_eq!(held(0, 200).until(), 150);
        assert_eq!(
            held(0, 30).until(),
            0,
            "shorter than the margin: never acted on"
        );
        assert!(!held(0, 30).valid(0));
    }
}
