//! Baba Ayo at the room's tables: he thinks off the room's task, and his move (or his answer
//! to a draw) comes back as a command, played only if the table has not changed meanwhile.
//! Once it has (the opponent resigned or left, the game ended), the search is called off.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::ayo::Side;
use crate::house::House;

use super::{Room, RoomCommand};

/// How long Baba Ayo waits before trying a move again after a failure.
const HOUSE_RETRY: Duration = Duration::from_secs(1);

/// Baba Ayo thinking at a table as it was at `version`. Dropped, it calls the search off: the
/// room drops it when the table changes, or when the room itself ends.
pub(super) struct Search {
    pub(super) version: u64,
    called_off: Arc<AtomicBool>,
}

impl Search {
    fn new(version: u64) -> Search {
        Search {
            version,
            called_off: Arc::default(),
        }
    }
}

impl Drop for Search {
    fn drop(&mut self) {
        self.called_off.store(true, Ordering::Relaxed);
    }
}

impl Room {
    /// If Baba Ayo is to move at table `t`, he starts thinking.
    pub(super) fn house_turn(&mut self, t: usize) {
        let table = &self.tables[t].table;
        let Some(player) = table.house_to_move() else {
            return;
        };
        let Some(level) = House::level_of(&player.id) else {
            return;
        };
        let (Some(inbox), Some(live)) = (self.itself.upgrade(), table.game.as_ref()) else {
            return;
        };
        let (game, version, table_id) = (live.game.clone(), table.version, table.id.clone());
        let now = self.now();
        let clock_left = live.game.to_move().and_then(|side| {
            let left = live.clocks.as_ref()?.left(now)[side.index()];
            Some(Duration::from_millis(left))
        });
        let seed = version ^ u64::from(game.ply());
        let house = self.config.house.clone();
        let search = Search::new(version);
        let called_off = search.called_off.clone();
        self.tables[t].searches.push(search);
        tokio::spawn(async move {
            let thought = house
                .think(game, level, seed, clock_left, called_off.clone())
                .await;
            let command = match thought {
                Some(pit) => RoomCommand::HouseMove {
                    table: table_id,
                    version,
                    pit,
                },
                // Not thought out (the service stops, the table changed, or the search
                // failed): again later unless stopping or no longer wanted.
                None if house.stopping() || called_off.load(Ordering::Relaxed) => return,
                None => {
                    tracing::error!(table = %table_id, "Baba Ayo could not think; again in a second");
                    tokio::time::sleep(HOUSE_RETRY).await;
                    RoomCommand::HouseAgain {
                        table: table_id,
                        version,
                    }
                }
            };
            let _ = inbox.send(command).await;
        });
    }

    /// A draw was offered to Baba Ayo at table `t`: he judges the game in play, off the
    /// room's task, and his answer comes back as a command. Declined when he cannot think.
    pub(super) fn house_judges_draw(&mut self, t: usize) {
        let table = &self.tables[t].table;
        let Some(live) = table.game.as_ref() else {
            return;
        };
        let Some((side, level)) = Side::BOTH.into_iter().find_map(|side| {
            let player = &live.players[side.index()];
            Some((side, House::level_of(&player.id).filter(|_| player.house)?))
        }) else {
            return;
        };
        let Some(inbox) = self.itself.upgrade() else {
            return;
        };
        let (game, version, table_id) = (live.game.clone(), table.version, table.id.clone());
        let house = self.config.house.clone();
        let search = Search::new(version);
        let called_off = search.called_off.clone();
        self.tables[t].searches.push(search);
        tokio::spawn(async move {
            let accept = house.takes_draw(game, level, side, called_off).await;
            let _ = inbox
                .send(RoomCommand::HouseAnswersDraw {
                    table: table_id,
                    version,
                    accept: accept.unwrap_or(false),
                })
                .await;
        });
    }

    /// Asks Baba Ayo to think again at table `t` in a second.
    pub(super) fn house_turn_later(&self, t: usize) {
        let Some(inbox) = self.itself.upgrade() else {
            return;
        };
        let table = &self.tables[t].table;
        let (table, version) = (table.id.clone(), table.version);
        tokio::spawn(async move {
            tokio::time::sleep(HOUSE_RETRY).await;
            let _ = inbox.send(RoomCommand::HouseAgain { table, version }).await;
        });
    }
}
