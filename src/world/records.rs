//! A stored game as its record (`ayo::record`): the tags from its rows, the date and time in
//! the hotel's time zone, the time left on the mover's clock after each move.

use chrono::Timelike;
use chrono_tz::Tz;
use thiserror::Error;

use crate::ayo::clock::TimeControl;
use crate::ayo::record::{End, Player, Record, RecordedMove};
use crate::ayo::{Pit, Side, Status};
use crate::store::{GameEnd, StoredGame, UserRow};

/// Where the records say the games were played.
pub const SITE: &str = "Lagos Hotel lounge";

/// Why a stored game has no record (yet).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RecordRefusal {
    /// The game is still in play: its record is written once it is over.
    #[error("the game is still in play: its record is written once it is over")]
    InPlay,
    /// A stored move is not a pit number (never written so).
    #[error("a stored move of the game is not a pit: {0}")]
    BadMove(u8),
}

/// The ratings of South and North before the game, where known.
pub type Ratings = [Option<u32>; 2];

/// The record of a game that is over, its date and time in `zone`.
pub fn record(stored: &StoredGame, zone: Tz, ratings: Ratings) -> Result<Record, RecordRefusal> {
    let game = &stored.game;
    let (Some(end), false) = (game.end_reason, game.status == Status::Playing) else {
        return Err(RecordRefusal::InPlay);
    };
    let end = match end {
        GameEnd::Game(reason) => End::Game(reason),
        GameEnd::NotStarted => End::NotStarted,
    };
    let timed = stored.clock.is_some_and(|c| c != TimeControl::None);
    let other = game.first_side.opponent();
    let moves = stored
        .moves
        .iter()
        .enumerate()
        .map(|(ply, m)| {
            let mover = if ply % 2 == 0 { game.first_side } else { other };
            Ok(RecordedMove {
                pit: Pit::new(m.pit).ok_or(RecordRefusal::BadMove(m.pit))?,
                left_ms: m.left.filter(|_| timed).map(|left| left[mover.index()]),
                comment: None,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let started = game.started_at.and_utc().with_timezone(&zone);
    let player = |row: &UserRow, side: Side| Player {
        name: row.name.clone(),
        id: Some(row.id.to_string()),
        rating: ratings[side.index()],
    };
    Ok(Record {
        site: Some(SITE.to_owned()),
        date: Some(started.date_naive()),
        time: Some(started.time().with_nanosecond(0).unwrap_or_default()),
        zone: Some(zone.name().to_owned()),
        match_id: game.match_id.as_ref().map(ToString::to_string),
        game_number: game
            .match_id
            .as_ref()
            .and(game.number)
            .and_then(|n| u32::try_from(n).ok()),
        game_id: Some(game.id.to_string()),
        rules: game.rules,
        clock: stored.clock,
        south: player(&stored.south, Side::South),
        north: player(&stored.north, Side::North),
        first: game.first_side,
        result: game.status,
        end,
        moves,
    })
}
