//! What a command may need that chance or the clock decides, drawn outside the table: the
//! room draws it with the real random source and clock, tests and replays pass their own.
//! The table reads no clock and no random source, so the same commands with the same draws
//! always decide the same.

use crate::ayo::Side;
use crate::common::{GameId, MatchId};

/// The ids and the lot a command would use, should it start a match or a game. The room
/// draws them for every command, at its time: a match id sorts by when it was made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Draws {
    /// The id of a match the command starts.
    pub match_id: MatchId,
    /// The id of a game the command starts (one command starts at most one game).
    pub game_id: GameId,
    /// Who wins the lots when a match starts at sat seats: the one sitting there.
    pub lot: Side,
}

impl Default for Draws {
    /// Empty ids: what a table holds before its first command.
    fn default() -> Draws {
        Draws {
            match_id: MatchId::new(String::new()),
            game_id: GameId::new(String::new()),
            lot: Side::South,
        }
    }
}

impl Draws {
    /// The id of the `n`th game a command starts: `game_id` for the first; a further one, if
    /// a command ever started two, is made from it, so it still differs and still replays.
    pub(super) fn game_id(&self, n: u32) -> GameId {
        match n {
            0 => self.game_id.clone(),
            n => GameId::new(format!("{}{n}", self.game_id)),
        }
    }
}
