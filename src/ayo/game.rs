//! A game record: the rules, the moves, the position they lead to and how the game stands.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::board::{EndReason, IllegalReason, Moves, Pit, Position, Side, Status, PITS};
use super::rules::{Repetition, Rules, Timeout};

/// The game state as every client sees it (docs/protocol.md, "Game state").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    pub ply: u32,
    pub pits: [u8; PITS],
    pub stores: [u8; 2],
    pub to_move: Option<Side>,
    pub legal: Moves,
    pub moves_since_capture: u16,
    pub status: Status,
    pub end_reason: Option<EndReason>,
}

/// Why a move was refused. The game is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MoveError {
    #[error("the game is over")]
    GameOver,
    #[error("pit {pit} cannot be played: {reason}")]
    Illegal { pit: Pit, reason: IllegalReason },
}

/// The ways a player loses a game off the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forfeit {
    Resigned,
    Timeout,
    Abandoned,
}

/// What one ply did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    pub side: Side,
    pub pit: Pit,
    /// Seeds the move captured (not counting the end sweep).
    pub captured: u8,
}

/// A game from its first position to its end.
#[derive(Clone, Debug)]
pub struct Game {
    rules: Rules,
    start: Position,
    position: Position,
    moves: Vec<Pit>,
    legal: Moves,
    /// Positions since the last capture: only they can come round again.
    seen: Vec<u128>,
    end: Option<(Status, EndReason)>,
}

impl Game {
    /// A new game from the start position, South to move.
    pub fn new(rules: Rules) -> Game {
        Game::starting(rules, Side::South)
    }

    /// A new game from the start position with `first` to move.
    pub fn starting(rules: Rules, first: Side) -> Game {
        Game::from_position(rules, Position::opening(first))
    }

    /// A game from any position (puzzles, tests, analysis).
    pub fn from_position(rules: Rules, start: Position) -> Game {
        let mut game = Game {
            rules,
            start,
            position: start,
            moves: Vec::new(),
            legal: Moves::NONE,
            seen: Vec::new(),
            end: None,
        };
        game.settle(false);
        game
    }

    /// Plays `moves` from the start, South first; on the first refused move, says which (from
    /// 0) and why.
    pub fn replay(
        rules: Rules,
        moves: impl IntoIterator<Item = Pit>,
    ) -> Result<Game, (usize, MoveError)> {
        Game::replay_from(rules, Side::South, moves)
    }

    /// Plays `moves` from the start with `first` to move: a stored game is replayed from the
    /// side that began it, or every pit number names the other row.
    pub fn replay_from(
        rules: Rules,
        first: Side,
        moves: impl IntoIterator<Item = Pit>,
    ) -> Result<Game, (usize, MoveError)> {
        let mut game = Game::starting(rules, first);
        for (i, pit) in moves.into_iter().enumerate() {
            game.play(pit).map_err(|e| (i, e))?;
        }
        Ok(game)
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The side that moved first.
    pub fn first(&self) -> Side {
        self.start.to_move()
    }

    /// Repetition keys of the positions since the last capture, this one last; kept only
    /// where repetition ends the game.
    pub fn seen_since_capture(&self) -> &[u128] {
        &self.seen
    }

    pub fn moves(&self) -> &[Pit] {
        &self.moves
    }

    pub fn ply(&self) -> u32 {
        self.moves.len() as u32
    }

    pub fn legal_moves(&self) -> Moves {
        self.legal
    }

    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    pub fn status(&self) -> Status {
        self.end.map_or(Status::Playing, |(s, _)| s)
    }

    pub fn end_reason(&self) -> Option<EndReason> {
        self.end.map(|(_, r)| r)
    }

    /// The side to move, `None` once the game is over.
    pub fn to_move(&self) -> Option<Side> {
        (!self.is_over()).then(|| self.position.to_move())
    }

    /// Sows `pit` for the side to move.
    pub fn play(&mut self, pit: Pit) -> Result<Played, MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        if !self.legal.contains(pit) {
            let reason = self
                .position
                .why_illegal(&self.rules, pit)
                .unwrap_or(IllegalReason::EmptyPit);
            return Err(MoveError::Illegal { pit, reason });
        }
        let side = self.position.to_move();
        let sown = self.position.sow(&self.rules, pit);
        self.moves.push(pit);
        if sown.captured > 0 {
            self.seen.clear();
        }
        let key = self.position.repetition_key();
        let repeated = self.rules.repetition == Repetition::EndsGame && self.seen.contains(&key);
        self.settle(repeated);
        Ok(Played {
            side,
            pit,
            captured: sown.captured,
        })
    }

    /// Works out the legal moves and whether the game has ended, after a move or at the start.
    fn settle(&mut self, repeated: bool) {
        self.legal = self.position.legal_moves(&self.rules);
        if self.rules.repetition == Repetition::EndsGame {
            self.seen.push(self.position.repetition_key());
        }
        let Some(reason) = self.position.end_reason(&self.rules, self.legal, repeated) else {
            return;
        };
        let status = match self.position.majority() {
            Some(winner) => Status::won_by(winner),
            None => {
                self.position.sweep();
                self.position.result()
            }
        };
        self.finish(status, reason);
    }

    fn finish(&mut self, status: Status, reason: EndReason) {
        self.legal = Moves::NONE;
        self.seen = Vec::new();
        self.end = Some((status, reason));
    }

    /// `side` loses by resigning, running out of time or leaving for good; the board stays as it
    /// is. Returns false, changing nothing, once the game is over.
    pub fn forfeit(&mut self, side: Side, forfeit: Forfeit) -> bool {
        if self.is_over() {
            return false;
        }
        let reason = match forfeit {
            Forfeit::Resigned => EndReason::Resigned,
            Forfeit::Timeout => EndReason::Timeout,
            Forfeit::Abandoned => EndReason::Abandoned,
        };
        self.finish(Status::won_by(side.opponent()), reason);
        true
    }

    /// `side`'s time ran out: it loses, or, where the rules say so and the opponent cannot
    /// possibly win any more, the game is drawn (`timeout` either way). Returns false,
    /// changing nothing, once the game is over.
    pub fn time_out(&mut self, side: Side) -> bool {
        if self.is_over() {
            return false;
        }
        let status = if self.rules.timeout == Timeout::DrawIfCannotWin
            && !self.position.can_still_win(side.opponent())
        {
            Status::Draw
        } else {
            Status::won_by(side.opponent())
        };
        self.finish(status, EndReason::Timeout);
        true
    }

    /// Both players agreed to a draw. Nothing happens once the game is over.
    pub fn agree_draw(&mut self) -> bool {
        if self.is_over() {
            return false;
        }
        self.finish(Status::Draw, EndReason::AgreedDraw);
        true
    }

    /// Called off from outside the board (an operator closed the room): a draw, `abandoned`.
    /// Nothing happens once the game is over.
    pub fn call_off(&mut self) -> bool {
        if self.is_over() {
            return false;
        }
        self.finish(Status::Draw, EndReason::Abandoned);
        true
    }

    /// The state as clients see it.
    pub fn state(&self) -> State {
        State {
            ply: self.ply(),
            pits: self.position.pits(),
            stores: self.position.stores(),
            to_move: self.to_move(),
            legal: self.legal,
            moves_since_capture: self.position.since_capture(),
            status: self.status(),
            end_reason: self.end_reason(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ayo::Preset;

    /// The board seen from the other side: North's row where South's was, stores swapped.
    fn mirrored(state: &State) -> ([u8; PITS], [u8; 2]) {
        let mut pits = [0; PITS];
        pits[..6].copy_from_slice(&state.pits[6..]);
        pits[6..].copy_from_slice(&state.pits[..6]);
        (pits, [state.stores[1], state.stores[0]])
    }

    #[test]
    fn a_game_north_starts_plays_as_the_mirror_of_south_starting_and_replays_the_same() {
        let rules = Preset::Lagos.rules();
        let mut north = Game::starting(rules, Side::North);
        let mut south = Game::new(rules);
        assert_eq!(north.first(), Side::North);
        assert_eq!(north.to_move(), Some(Side::North));
        assert_eq!(south.first(), Side::South);
        // The same pit numbers, each side's own row: a spread of choices, to the end.
        let mut i = 0usize;
        while !north.is_over() {
            let legal = north.legal_moves();
            let pit = legal.nth((i * 7 + 3) % legal.len()).unwrap();
            let played = north.play(pit).unwrap();
            let mirror = south.play(pit).unwrap();
            assert_eq!(played.side, mirror.side.opponent());
            assert_eq!(played.captured, mirror.captured);
            assert_eq!(mirrored(&north.state()), {
                let s = south.state();
                (s.pits, s.stores)
            });
            i += 1;
        }
        assert!(south.is_over());
        assert_eq!(
            north.status().winner(),
            south.status().winner().map(Side::opponent)
        );
        assert!(
            north.ply() > 10,
            "a real game was played: {} plies",
            north.ply()
        );
        let again = Game::replay_from(rules, Side::North, north.moves().to_vec()).unwrap();
        assert_eq!(again.state(), north.state());
        assert_eq!(again.first(), Side::North);
        // From the wrong side the same pits are another game.
        let wrong = Game::replay(rules, north.moves().to_vec());
        assert!(wrong.map_or(true, |g| g.state() != north.state()));
    }
}
