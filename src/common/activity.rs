//! When the games in play last needed the cores: rooms mark each move played, and work that
//! must never slow a game (Baba Ayo's reviews) waits while the last mark is recent. On a
//! small machine a review's thread slows the games beside it even at the lowest priority
//! (the two share more than the scheduler: the processor's caches and cores underneath the
//! virtual ones), so it gives the cores back instead.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

/// Where this process's marks count from.
static EPOCH: LazyLock<Instant> = LazyLock::new(Instant::now);

/// One instance's games' activity, shared by its rooms and its reviews.
#[derive(Clone, Debug, Default)]
pub struct Activity {
    /// Nanoseconds from `EPOCH` to the last mark, plus one (0: never marked).
    last: Arc<AtomicU64>,
}

impl Activity {
    /// A move was played now.
    pub fn mark(&self) {
        self.last
            .store(since_epoch(Instant::now()) + 1, Ordering::Relaxed);
    }

    /// How long it has been quiet at `now`: since the last mark, or for ever.
    pub fn quiet_at(&self, now: Instant) -> Duration {
        match self.last.load(Ordering::Relaxed) {
            0 => Duration::MAX,
            last => Duration::from_nanos(since_epoch(now).saturating_sub(last - 1)),
        }
    }
}

fn since_epoch(at: Instant) -> u64 {
    u64::try_from(at.saturating_duration_since(*EPOCH).as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_for_ever_until_marked_then_for_the_time_since() {
        let activity = Activity::default();
        let now = Instant::now();
        assert_eq!(activity.quiet_at(now), Duration::MAX);
        activity.mark();
        let later = Instant::now() + Duration::from_millis(300);
        let quiet = activity.quiet_at(later);
        assert!(quiet >= Duration::from_millis(300) && quiet < Duration::from_secs(60));
        // Marks are shared by every clone: the rooms' and the reviews'.
        let theirs = activity.clone();
        theirs.mark();
        assert!(activity.quiet_at(Instant::now()) < Duration::from_secs(60));
    }
}
