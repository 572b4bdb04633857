//! Token buckets: a burst of tokens refilled at a rate, one for a client or one per key (an
//! address, a guest). Time comes in as milliseconds on whatever time line the caller keeps.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::Duration;

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
    pub(crate) fn is_full(&mut self, now_ms: u64) -> bool {
        self.refill(now_ms);
        self.tokens >= self.burst
    }
}

/// One bucket per key (an address): sign-ups a minute per address, say. Full buckets are
/// forgotten now and then, so the map holds only keys that asked recently.
#[derive(Debug)]
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
    fn buckets_are_kept_per_key() {
        let buckets = Buckets::new(5.0 / 60.0, 5.0);
        assert!((0..5).all(|_| buckets.take("a", 0).is_ok()));
        let wait = buckets.take("a", 0).unwrap_err();
        assert_eq!(wait.as_secs(), 12);
        assert!(buckets.take("b", 0).is_ok());
        assert!(buckets.take("a", 12_000).is_ok());
    }

    #[test]
    fn keys_with_a_full_bucket_are_forgotten() {
        let buckets = Buckets::new(0.1, 3.0);
        for n in 0..SWEEP_AT {
            buckets.take(n, 0).unwrap();
        }
        buckets.take(SWEEP_AT, 60_000).unwrap();
        assert_eq!(buckets.map.lock().unwrap().len(), 1);
    }
}
