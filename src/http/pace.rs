//! How fast a client may go: token buckets (every WebSocket frame, sign-ups per address) and
//! the strikes that close a flooding connection, on one time line that a test's hand-driven
//! clock can move on without anyone sleeping.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::common::ServerClock;
pub use crate::common::{Bucket, Buckets};

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
