//! The game of Ayo: pure rules, no I/O, no async. Everything else in the service asks this
//! module what a move does; nothing else decides.

mod board;
pub mod clock;
pub mod endgame;
pub mod eval;
mod game;
pub mod house;
mod rules;
pub mod search;

pub use board::{
    perft, EndReason, IllegalReason, Moves, Pit, PitError, Position, PositionError, Side, Sown,
    Status, HALF, PITS, SEEDS,
};
pub use game::{Forfeit, Game, MoveError, Played, State};
pub use rules::{
    Capture, GrandSlam, Preset, Repetition, Rules, RulesError, Sowing, Timeout, MAX_RELAY_LAPS,
    OVERRIDE_KEYS,
};
