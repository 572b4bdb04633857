//! The game of Ayo: pure rules, no I/O, no async. Everything else in the service asks this
//! module what a move does; nothing else decides.
//!
//! Nothing here touches files, the network or the environment: endgame databases go in and
//! out as bytes ([`endgame::Endgame::as_bytes`], [`endgame::Endgame::from_bytes`]) and the
//! service stores them (`src/house.rs`). The one thing read from outside is the monotonic
//! clock, for a search's deadline. docs/engine.md describes the whole engine.

mod board;
pub mod book;
pub mod clock;
pub mod endgame;
pub mod eval;
mod family;
mod game;
pub mod house;
pub mod record;
pub mod review;
mod rules;
pub mod search;

pub use board::{
    perft, EndReason, IllegalReason, Moves, Pit, PitError, Position, PositionError, Side, Sown,
    Status, HALF, PITS, SEEDS,
};
pub use family::Family;
pub use game::{Forfeit, Game, MoveError, Played, State};
pub use rules::{
    Capture, GrandSlam, Preset, Repetition, Rules, RulesError, Sowing, Timeout, MAX_RELAY_LAPS,
    OVERRIDE_KEYS,
};
