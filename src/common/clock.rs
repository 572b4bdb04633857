//! The server's one clock, in milliseconds since 1970: the system's, or one a test sets and
//! moves on by hand. Game clocks, grace periods, invitations, start and rematch windows and
//! idle apartments all read it, so a test sees any timeout without sleeping.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::watch;

#[derive(Clone, Debug, Default)]
pub enum ServerClock {
    /// The system clock.
    #[default]
    System,
    /// A clock that stands still until moved on.
    Manual(Arc<Manual>),
}

/// A hand-driven clock; whoever waits on it hears when it moves.
#[derive(Debug)]
pub struct Manual {
    now: AtomicU64,
    moved: watch::Sender<u64>,
}

impl ServerClock {
    /// A hand-driven clock showing `ms`.
    pub fn manual(ms: u64) -> ServerClock {
        let (moved, _) = watch::channel(ms);
        ServerClock::Manual(Arc::new(Manual {
            now: AtomicU64::new(ms),
            moved,
        }))
    }

    /// A hand-driven clock starting at the system's time now.
    pub fn manual_from_now() -> ServerClock {
        ServerClock::manual(system_ms())
    }

    pub fn now_ms(&self) -> u64 {
        match self {
            ServerClock::System => system_ms(),
            ServerClock::Manual(m) => m.now.load(Ordering::SeqCst),
        }
    }

    /// Moves a hand-driven clock on by `ms` and wakes whoever waits on it (the system clock
    /// goes on by itself).
    pub fn advance(&self, ms: u64) {
        if let ServerClock::Manual(m) = self {
            let now = m.now.fetch_add(ms, Ordering::SeqCst) + ms;
            m.moved.send_replace(now);
        }
    }

    /// Whether it runs by itself: a waiter can then sleep until its next deadline.
    pub fn is_system(&self) -> bool {
        matches!(self, ServerClock::System)
    }

    /// What to wait on to hear a hand-driven clock move (`None` for the system clock).
    pub fn watch(&self) -> Option<watch::Receiver<u64>> {
        match self {
            ServerClock::System => None,
            ServerClock::Manual(m) => Some(m.moved.subscribe()),
        }
    }
}

/// The system's time as milliseconds since 1970, read once, then carried on by the monotonic
/// clock: a step of the wall clock (NTP, an operator) neither ends a grace early nor stops a
/// game clock.
fn system_ms() -> u64 {
    static START: std::sync::LazyLock<(std::time::Instant, u64)> = std::sync::LazyLock::new(|| {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        (std::time::Instant::now(), wall)
    });
    let (at, wall) = *START;
    wall.saturating_add(u64::try_from(at.elapsed().as_millis()).unwrap_or(u64::MAX))
}
