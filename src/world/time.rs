//! The server's time for game clocks, in milliseconds since 1970: the system's, or one a test
//! sets and moves on by hand, so clocks run out without anyone sleeping.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Clone, Debug, Default)]
pub enum ServerClock {
    /// The system clock.
    #[default]
    System,
    /// A clock that stands still until moved on.
    Manual(Arc<AtomicU64>),
}

impl ServerClock {
    /// A hand-driven clock showing `ms`.
    pub fn manual(ms: u64) -> ServerClock {
        ServerClock::Manual(Arc::new(AtomicU64::new(ms)))
    }

    /// A hand-driven clock starting at the system's time now.
    pub fn manual_from_now() -> ServerClock {
        ServerClock::manual(system_ms())
    }

    pub fn now_ms(&self) -> u64 {
        match self {
            ServerClock::System => system_ms(),
            ServerClock::Manual(ms) => ms.load(Ordering::SeqCst),
        }
    }

    /// Moves a hand-driven clock on by `ms` (the system clock goes on by itself).
    pub fn advance(&self, ms: u64) {
        if let ServerClock::Manual(now) = self {
            now.fetch_add(ms, Ordering::SeqCst);
        }
    }

    /// Whether it runs by itself: the room can then sleep until the next deadline.
    pub fn is_system(&self) -> bool {
        matches!(self, ServerClock::System)
    }
}

fn system_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
