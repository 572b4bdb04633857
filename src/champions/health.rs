//! Whether the wall answers. An outage is logged once when it begins and once when it ends,
//! however many calls fail meanwhile (every display and the outbox call the wall).

use std::sync::Mutex;
use std::time::Instant;

use super::WallError;

pub struct Health {
    /// Which wall, for the log.
    wall: &'static str,
    /// When the outage under way began.
    down_since: Mutex<Option<Instant>>,
}

impl Health {
    pub fn new(wall: &'static str) -> Health {
        Health {
            wall,
            down_since: Mutex::new(None),
        }
    }

    /// Hears how a wall call went. Only a failure to reach Redis is an outage; a wall that
    /// answers something unexpected is not.
    pub fn saw<T>(&self, answer: &Result<T, WallError>) {
        let mut since = self
            .down_since
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match (answer, since.is_some()) {
            (Err(WallError::Redis(e)), false) => {
                *since = Some(Instant::now());
                tracing::warn!(wall = self.wall, error = %e, "the champions wall is unreachable: it is ranked from the database and results wait in the outbox");
            }
            (Ok(_), true) => {
                let after = since.take().map_or(0, |s| s.elapsed().as_secs());
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
