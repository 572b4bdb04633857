//! The times rows are stamped with: read off the server's clock (`ServerClock`, so a test's
//! hand-driven clock too), never the same stamp twice in one process, so rows written one
//! after another keep their order even while a test's clock stands still.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::RwLock;

use chrono::{DateTime, NaiveDateTime};

use crate::common::ServerClock;

#[derive(Debug, Default)]
pub(super) struct Stamps {
    clock: RwLock<ServerClock>,
    /// The last stamp given, in microseconds since 1970.
    last: AtomicI64,
}

impl Stamps {
    pub(super) fn set_clock(&self, clock: ServerClock) {
        *self.clock.write().unwrap_or_else(|e| e.into_inner()) = clock;
    }

    /// Now, to the microsecond (what both databases keep), a microsecond past the last
    /// stamp when the clock has not moved since.
    pub(super) fn now(&self) -> NaiveDateTime {
        let ms = self
            .clock
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .now_ms();
        let micros = i64::try_from(ms).unwrap_or(i64::MAX).saturating_mul(1_000);
        let last = self
            .last
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |last| {
                Some(micros.max(last.saturating_add(1)))
            })
            .unwrap_or(micros);
        at_micros(micros.max(last.saturating_add(1)))
    }
}

/// The time `micros` after 1970 as stored (the latest time chrono knows when past it).
pub(super) fn at_micros(micros: i64) -> NaiveDateTime {
    DateTime::from_timestamp_micros(micros).map_or(NaiveDateTime::MAX, |t| t.naive_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_that_stands_still_still_stamps_in_order() {
        let stamps = Stamps::default();
        let clock = ServerClock::manual(1_700_000_000_000);
        stamps.set_clock(clock.clone());
        let first = stamps.now();
        let second = stamps.now();
        assert_eq!(first, at_micros(1_700_000_000_000_000));
        assert_eq!(second, at_micros(1_700_000_000_000_001));
        clock.advance(1_000);
        assert_eq!(stamps.now(), at_micros(1_700_000_001_000_000));
    }
}
