//! The lounge service behind Lagos Hotel: the Surulere Games Lounge, its Ayo tables, Baba Ayo and
//! the champions wall. See `README.md` and `shared/design.md` for the shape.

pub mod app;
pub mod ayo;
pub mod champions;
pub mod cli;
pub mod common;
pub mod config;
pub mod house;
pub mod http;
pub mod metrics;
pub mod store;
pub mod world;
