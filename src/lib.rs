//! The lounge service behind Lagos Hotel: the Surulere Games Lounge, its Ayo tables, Baba Ayo and
//! the champions wall. `ARCHITECTURE.md` gives the shape, `docs/protocol.md` the wire contract.

pub mod app;
pub mod ayo;
pub mod champions;
pub mod cli;
/// Several instances, one hotel: rooms' leases in Redis.
pub mod cluster;
/// The leaf: small types every layer shares.
pub mod common;
pub mod config;
pub mod house;
pub mod http;
pub mod metrics;
/// Glicko-2 ratings, the results' reader "ratings".
pub mod ratings;
/// Baba Ayo's reviews of finished games.
pub mod reviews;
pub mod store;
pub mod tournaments;
pub mod world;
