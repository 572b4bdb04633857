//! Building positions and games for the engine's tests.

use lounge::ayo::{Game, Pit, Position, Preset, Rules, Side, Sown, SEEDS};

/// A position with `pits`; the stores share the rest of the 48 seeds, South taking the odd one.
pub fn position(pits: [u8; 12], to_move: Side) -> Position {
    let rest = SEEDS - pits.iter().sum::<u8>();
    Position::new(pits, [rest - rest / 2, rest / 2], to_move, 0).expect("48 seeds")
}

pub fn position_with(pits: [u8; 12], stores: [u8; 2], to_move: Side, since: u16) -> Position {
    Position::new(pits, stores, to_move, since).expect("48 seeds")
}

pub fn pit(n: u8) -> Pit {
    Pit::new(n).expect("a pit from 1 to 6")
}

/// Sows `n` for the side to move of `position`, under `rules`, and returns the new position.
pub fn sow(rules: &Rules, position: Position, n: u8) -> (Position, Sown) {
    let mut next = position;
    let sown = next.sow(rules, pit(n));
    (next, sown)
}

/// A game of `preset` from `position`, with `moves` played; panics on a refused move.
pub fn game_from(preset: Preset, position: Position, moves: &[u8]) -> Game {
    let mut game = Game::from_position(preset.rules(), position);
    for &n in moves {
        game.play(pit(n))
            .unwrap_or_else(|e| panic!("move {n} at ply {}: {e}", game.ply()));
    }
    game
}

/// The legal pits of a game, as numbers.
pub fn legal(game: &Game) -> Vec<u8> {
    game.legal_moves().iter().map(u8::from).collect()
}

pub fn lagos() -> Rules {
    Preset::Lagos.rules()
}

pub fn seeds_in(position: &Position) -> u8 {
    position.pits().iter().chain(position.stores().iter()).sum()
}
