//! Every test helper in one place: a fresh database of either kind (`db`), and positions and
//! games for the engine's tests (`game`).

pub mod db;
pub mod game;

pub use db::TestDb;
