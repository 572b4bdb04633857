//! What this instance has for each other one, sent together: the messages waiting for an
//! instance go out in one PUBLISH (`Wire::Batch`), in the order they were posted. A move
//! watched by several members whose sessions are on one instance costs one Redis round trip
//! there, not one a member: at 900 moves a second over three instances, one PUBLISH a frame
//! took more than Redis answered in time.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;

use super::wire::Wire;

/// What carries a batch to another instance (the relay, on Redis): named here so that this
/// file needs nothing of the relay's.
pub(in crate::world) trait Publisher: Clone + Send + Sync + 'static {
    /// Publishes `text` on `instance`'s channel: how many read it, `None` when it could not
    /// be sent.
    fn publish(&self, instance: &str, text: &str) -> impl Future<Output = Option<i64>> + Send;
    /// The queues this publisher's batches come from.
    fn outgoing(&self) -> &Outgoing;
}

/// Messages that may wait for one instance; past it, that instance is too far behind and
/// what would be posted to it is refused (its members drop, as a session that stops reading).
const WAITING: usize = 65_536;
/// Messages in one PUBLISH at most.
const BATCH: usize = 512;

/// The queues to the other instances, and those found gone.
#[derive(Default)]
pub(in crate::world) struct Outgoing {
    queues: Mutex<HashMap<String, mpsc::Sender<Wire>>>,
    /// Instances the last PUBLISH to reached nobody (or Redis twice refused): until one
    /// reaches them again, what is posted to them is refused.
    gone: Mutex<HashSet<String>>,
}

impl Outgoing {
    /// Queues `wire` for `instance`: false when it is gone or too far behind.
    pub(in crate::world) fn post(
        &self,
        relay: &impl Publisher,
        instance: &str,
        wire: Wire,
    ) -> bool {
        if self.is_gone(instance) {
            return false;
        }
        let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
        let queue = queues.entry(instance.to_owned()).or_insert_with(|| {
            let (queue, waiting) = mpsc::channel(WAITING);
            tokio::spawn(carry(relay.clone(), instance.to_owned(), waiting));
            queue
        });
        queue.try_send(wire).is_ok()
    }

    pub(in crate::world) fn is_gone(&self, instance: &str) -> bool {
        self.gone
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(instance)
    }

    /// `instance` read a message or sent one: it is there.
    pub(in crate::world) fn heard_from(&self, instance: &str) {
        self.mark(instance, true);
    }

    fn mark(&self, instance: &str, reached: bool) {
        let mut gone = self.gone.lock().unwrap_or_else(PoisonError::into_inner);
        if reached {
            gone.remove(instance);
        } else {
            gone.insert(instance.to_owned());
        }
    }
}

/// Publishes what waits for `instance`, all that waits at once, for as long as this
/// instance runs.
async fn carry(relay: impl Publisher, instance: String, mut waiting: mpsc::Receiver<Wire>) {
    while let Some(first) = waiting.recv().await {
        let mut wires = vec![first];
        while wires.len() < BATCH {
            match waiting.try_recv() {
                Ok(wire) => wires.push(wire),
                Err(_) => break,
            }
        }
        let wire = match wires.len() {
            1 => wires.pop().expect("one"),
            _ => Wire::Batch { wires },
        };
        let Ok(text) = serde_json::to_string(&wire) else {
            continue;
        };
        // A Redis error is tried once more before the instance counts as out of reach.
        let readers = match relay.publish(&instance, &text).await {
            Some(readers) => Some(readers),
            None => relay.publish(&instance, &text).await,
        };
        relay
            .outgoing()
            .mark(&instance, readers.is_some_and(|n| n > 0));
    }
}

/// The outgoing queues a relay shares among its clones.
pub(in crate::world) type Shared = Arc<Outgoing>;
