//! Baba Ayo at the room's tables: he thinks off the room's task, and his move comes back as a
//! command, played only if the table has not changed meanwhile.

use std::time::Duration;

use crate::house::House;

use super::{Room, RoomCommand};

/// How long Baba Ayo waits before trying a move again after a failure.
const HOUSE_RETRY: Duration = Duration::from_secs(1);

impl Room {
    /// If Baba Ayo is to move at table `t`, he starts thinking.
    pub(super) fn house_turn(&mut self, t: usize) {
        let table = &self.tables[t].table;
        let Some(player) = table.house_to_move() else {
            return;
        };
        let Some(level) = House::level_of(player.id.as_str()) else {
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
        tokio::spawn(async move {
            let command = match house.think(game, level, seed, clock_left).await {
                Some(pit) => RoomCommand::HouseMove {
                    table: table_id,
                    version,
                    pit,
                },
                // Not thought out (the service stops, or the search failed): again later
                // unless stopping.
                None if house.stopping() => return,
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
