//! How fast a client may go: token buckets (every WebSocket frame, sign-ups per address) and
//! the strikes that close a flooding connection, on one time line that a test's hand-driven
//! clock can move on without anyone sleeping.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::common::ServerClock;

/// Milliseconds on a steady time line: the monotonic clock, plus whatever a hand-driven server
/// clock has been moved on by (a test then refills buckets and ages strikes by `advance`).
#[derive(Clone, Debug)]
pub struct Ticker {
    start: Instant,
    clock: ServerClock,
    clock_start: u64,
}

impl Ticker {
    pub fn new(clock: ServerClock) -> Ticker {
        Ticker {
            start: Instant::now(),
            clock_start: clock.now_ms(),
            clock,
        }
    }

    pub fn now_ms(&self) -> u64 {
        let real = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        // The system clock already runs with the monotonic one: counted once.
        let moved = if self.clock.is_system() {
            0
        } else {
            self.clock.now_ms().saturating_sub(self.clock_start)
        };
        real.saturating_add(moved)
    }
}

/// A token bucket: `burst` tokens, refilled at `per_sec`.
#[derive(Clone, Copy, Debug)]
pub struct Bucket {
    per_sec: f64,
    burst: f64,
    tokens: f64,
    at: u64,
}

impl Bucket {
    pub fn full(per_sec: f64, burst: f64, now_ms: u64) -> Bucket {
        Bucket {
            per_sec,
            burst,
            tokens: burst,
            at: now_ms,
        }
    }

    fn refill(&mut self, now_ms: u64) {
        let secs = now_ms.saturating_sub(self.at) as f64 / 1000.0;
        self.tokens = (self.tokens + secs * self.per_sec).min(self.burst);
        self.at = self.at.max(now_ms);
    }

    /// Takes a token, or says how long until one is there.
    pub fn take(&mut self, now_ms: u64) -> Result<(), Duration> {
        self.refill(now_ms);
        // A hair of slack: 12 s at 5 a minute makes 0.999... of a token in floating point.
        if self.tokens + 1e-9 >= 1.0 {
            self.tokens = (self.tokens - 1.0).max(0.0);
            Ok(())
        } else if self.per_sec > 0.0 {
            let ms = ((1.0 - self.tokens) / self.per_sec * 1000.0).round();
            Err(Duration::from_millis(ms as u64))
        } else {
            Err(Duration::MAX)
        }
    }

    /// Whether it has refilled to the brim (nothing to remember about its owner).
    fn is_full(&mut self, now_ms: u64) -> bool {
        self.refill(now_ms);
        self.tokens >= self.burst
    }
}

/// A connection's pace: every frame takes a token; a frame without one is a strike; `max`
/// strikes within `window` close the connection. Strikes older than the window are forgotten,
/// so a bursty client that keeps to the average stays.
#[derive(Debug)]
pub struct Pace {
    bucket: Bucket,
    strikes: VecDeque<u64>,
    max: usize,
    window_ms: u64,
}

/// What became of a frame.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    /// Over the rate: dropped and answered `rate_limited`.
    Refused,
    /// Too many strikes within the window: the connection closes (1008).
    Flooding,
}

impl Pace {
    pub fn new(per_sec: f64, burst: f64, max: usize, window: Duration, now_ms: u64) -> Pace {
        Pace {
            bucket: Bucket::full(per_sec, burst, now_ms),
            strikes: VecDeque::with_capacity(max.min(64)),
            max: max.max(1),
            window_ms: u64::try_from(window.as_millis()).unwrap_or(u64::MAX),
        }
    }

    pub fn frame(&mut self, now_ms: u64) -> Verdict {
        if self.bucket.take(now_ms).is_ok() {
            return Verdict::Allowed;
        }
        while self
            .strikes
            .front()
            .is_some_and(|&at| now_ms.saturating_sub(at) >= self.window_ms)
        {
            self.strikes.pop_front();
        }
        self.strikes.push_back(now_ms);
        if self.strikes.len() >= self.max {
            Verdict::Flooding
        } else {
            Verdict::Refused
        }
    }
}

/// One bucket per key (an address): sign-ups a minute per address, say. Full buckets are
/// forgotten now and then, so the map holds only keys that asked recently.
pub struct Buckets<K> {
    per_sec: f64,
    burst: f64,
    map: Mutex<HashMap<K, Bucket>>,
}

/// Keys past which full buckets are swept out.
const SWEEP_AT: usize = 4096;

impl<K: Hash + Eq> Buckets<K> {
    pub fn new(per_sec: f64, burst: f64) -> Buckets<K> {
        Buckets {
            per_sec,
            burst,
            map: Mutex::new(HashMap::new()),
        }
    }

    /// Takes a token for `key`, or says how long until one is there.
    pub fn take(&self, key: K, now_ms: u64) -> Result<(), Duration> {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= SWEEP_AT {
            map.retain(|_, b| !b.is_full(now_ms));
        }
        map.entry(key)
            .or_insert_with(|| Bucket::full(self.per_sec, self.burst, now_ms))
            .take(now_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_lets_a_burst_through_then_refills_at_its_rate() {
        let mut b = Bucket::full(2.0, 3.0, 0);
        assert!((0..3).all(|_| b.take(0).is_ok()));
        assert_eq!(b.take(0), Err(Duration::from_millis(500)));
        assert!(b.take(500).is_ok());
        assert!(b.take(500).is_err());
    }

    #[test]
    fn a_bursty_client_within_the_average_is_never_closed() {
        // 15 a second on average, in bursts of 45 every 3 s, against 20 a second in bursts of
        // 40: 5 strikes a burst, forever.
        let mut pace = Pace::new(20.0, 40.0, 50, Duration::from_secs(10), 0);
        for burst in 0..100u64 {
            for _ in 0..45 {
                assert_ne!(pace.frame(burst * 3000), Verdict::Flooding, "burst {burst}");
            }
        }
    }

    #[test]
    fn a_sustained_flood_is_closed() {
        let mut pace = Pace::new(20.0, 40.0, 50, Duration::from_secs(10), 0);
        let verdicts: Vec<_> = (0..90).map(|_| pace.frame(0)).collect();
        assert_eq!(verdicts[39], Verdict::Allowed);
        assert_eq!(verdicts[40], Verdict::Refused);
        assert_eq!(verdicts[88], Verdict::Refused);
        assert_eq!(verdicts[89], Verdict::Flooding);
    }

    #[test]
    fn buckets_are_kept_per_key() {
        let buckets = Buckets::new(5.0 / 60.0, 5.0);
        assert!((0..5).all(|_| buckets.take("a", 0).is_ok()));
        let wait = buckets.take("a", 0).unwrap_err();
        assert_eq!(wait.as_secs(), 12);
        assert!(buckets.take("b", 0).is_ok());
        assert!(buckets.take("a", 12_000).is_ok());
    }
}
