//! Moved to `helpers`: these names stay here for the modules that still import them from
//! `support` (room.rs for `TestDb`, rules.rs for the position builders).

pub use crate::helpers::game::{
    game_from, lagos, legal, pit, position, position_with, seeds_in, sow,
};
pub use crate::helpers::TestDb;
