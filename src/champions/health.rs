//! Whether the wall answers. An outage is logged once when it begins and once when it ends,
//! however many calls fail meanwhile (every display and the outbox call the wall). Calls
//! overlap: an answer to a call begun before the last change (down or up) says nothing new
//! about the wall, so it changes nothing (else a slow success from before an outage would
//! log it over and log it again).

use std::sync::Mutex;
use std::time::Instant;

use super::WallError;

pub struct Health {
    /// Which wall, for the log.
    wall: &'static str,
    state: Mutex<State>,
}

struct State {
    /// When the outage under way began.
    down_since: Option<Instant>,
    /// When the wall last went down or came back.
    changed: Instant,
}

impl Health {
    pub fn new(wall: &'static str) -> Health {
        Health {
            wall,
            state: Mutex::new(State {
                down_since: None,
                changed: Instant::now(),
            }),
        }
    }

    /// Hears how a wall call begun at `asked` went. Only a failure to reach Redis is an
    /// outage; a wall that answers something unexpected is not.
    pub fn saw<T>(&self, asked: Instant, answer: &Result<T, WallError>) {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if asked < state.changed {
            return;
        }
        match (answer, state.down_since.is_some()) {
            (Err(WallError::Redis(e)), false) => {
                let now = Instant::now();
                state.down_since = Some(now);
                state.changed = now;
                tracing::warn!(wall = self.wall, error = %e, "the champions wall is unreachable: it is ranked from the database and results wait in the outbox");
            }
            (Ok(_), true) => {
                state.changed = Instant::now();
                let after = state.down_since.take().map_or(0, |s| s.elapsed().as_secs());
                tracing::info!(
                    wall = self.wall,
                    after_secs = after,
                    "the champions wall is reachable again"
                );
            }
            _ => {}
        }
    }
}
