//! Several instances, one hotel, on the engines already in the stack: Redis
//! decides which instance runs a room, PostgreSQL refuses the writes of one that no longer
//! does. What is here so far:
//!
//! - `lease.rs`: a room's lease in Redis, one owner at a time, with a fencing number that
//!   only grows, and when its holder must renew it and stop acting on it, on the server's
//!   clock.
//! - the database's half is in `store/fences.rs`: a room taken under a lease's number, and
//!   writes refused once a later owner took it.
//!
//! - the world's `Owner` (`world/cluster/owner.rs`): a room opens on an instance only under its
//!   lease, a keeper renews it, and the room is dropped when a write is fenced off or the
//!   lease cannot be kept.
//!
//! - the world's relay (`world/cluster/relay.rs`, `world/cluster/remote.rs`): a session's commands go to the
//!   instance running its room, and the room's frames come back, over Redis pub/sub.

pub mod lease;
pub mod seal;

use std::time::Duration;

use redis::aio::ConnectionManager;

pub use lease::{Fence, Held, LeaseError, Leases};
pub use seal::Seal;

use crate::common::ServerClock;
use crate::config::Settings;

/// This instance in the cluster: its leases, and Redis for the relay between instances.
pub struct Connected {
    pub leases: Leases,
    /// For the relay's own subscription (pub/sub wants a connection of its own).
    pub client: redis::Client,
    /// For what it publishes.
    pub conn: ConnectionManager,
    pub prefix: String,
    /// The key of what the instances tell each other.
    pub seal: Seal,
}

/// This instance as `[cluster]` says (`None` when off), listening on `port`. Redis is
/// reached lazily: the instance starts while it is away, and opens rooms once it is back.
/// Leases run on the system clock, as Redis counts them.
pub fn connect(settings: &Settings, port: u16) -> Result<Option<Connected>, redis::RedisError> {
    let cluster = &settings.cluster;
    if !cluster.enabled {
        return Ok(None);
    }
    let client = redis::Client::open(cluster.redis_url(&settings.champions))?;
    // A lease renewal that waits longer than this is as good as lost anyway.
    let wait = Duration::from_millis((cluster.lease_ms / 5).clamp(100, 2_000));
    let manager = redis::aio::ConnectionManagerConfig::new()
        .set_connection_timeout(Some(wait))
        .set_response_timeout(Some(wait))
        .set_number_of_retries(1)
        .set_max_delay(Duration::from_secs(1));
    let conn = client.get_connection_manager_lazy(manager)?;
    let prefix = cluster.key_prefix(&settings.champions).to_owned();
    let leases = Leases::new(
        conn.clone(),
        &prefix,
        &cluster.instance(port),
        cluster.lease_ms,
        ServerClock::System,
    );
    // `auth.secret` is required with `[cluster]` on: every instance has the same.
    let seal = Seal::derived(settings.auth.secret.as_bytes());
    Ok(Some(Connected {
        leases,
        client,
        conn,
        prefix,
        seal,
    }))
}
