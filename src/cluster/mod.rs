//! Several instances, one hotel (issue 19), on the engines already in the stack: Redis
//! decides which instance runs a room, PostgreSQL refuses the writes of one that no longer
//! does. What is here so far:
//!
//! - `lease.rs`: a room's lease in Redis, one owner at a time, with a fencing number that
//!   only grows, and when its holder must renew it and stop acting on it, on the server's
//!   clock.
//! - the database's half is in `store/fences.rs`: a room taken under a lease's number, and
//!   writes refused once a later owner took it.
//!
//! The rooms do not take leases yet: one process still runs every room, as before.

pub mod lease;

pub use lease::{Fence, Held, LeaseError, Leases};
