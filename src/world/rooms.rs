//! Operators making, renaming and closing rooms: each decision is checked against the
//! hotel's rules (`hotel.rs`), stored and audited first, then the live room learns of it
//! through its handle. The HTTP handlers parse, authorize, call these and answer.

use crate::ayo::Rules;
use serde_json::Value;

use crate::common::{OperatorName, RoomId};

use crate::store::{at_ms, blocking, Actor, StoreError, StoredRoom};

use super::{
    new_room, operator_may_add_table, operator_may_close, CloseGames, HotelError, RoomHandle,
    RoomSummary, TableChange, World,
};

/// A room an operator asks for: its id and name as checked by the caller, the rest as given.
pub struct RoomOrder {
    pub id: String,
    pub name: String,
    /// `lounge` or `talk`; a lounge when absent.
    pub kind: Option<String>,
    /// How many tables; the kind's default when absent.
    pub tables: Option<u32>,
    pub rules: Rules,
}

impl World {
    /// Makes the room `order` asks for (`RoomExists` when its id is taken), stores and audits
    /// it with its tables as made by `actor`, and opens it: the room as `GET /rooms` shows it.
    pub async fn create_room(
        &self,
        actor: &OperatorName,
        order: RoomOrder,
    ) -> Result<RoomSummary, HotelError> {
        let created_at = at_ms(self.now_ms());
        let id = order.id.clone();
        let (room, tables) = new_room(
            order.id,
            order.name,
            order.kind.as_deref(),
            order.tables,
            order.rules,
            created_at,
        )?;
        let (store, actor) = (self.store.clone(), actor.clone());
        let (stored_room, stored_tables) = (room.clone(), tables.clone());
        blocking(move || store.create_room(&actor, &stored_room, &stored_tables))
            .await
            .map_err(|e| match e {
                StoreError::Conflict(_) => HotelError::RoomExists(id),
                e => e.into(),
            })?;
        let handle = self
            .add_room(StoredRoom {
                room,
                tables,
                closing: false,
                door: None,
                guests: Vec::new(),
            })
            .await?;
        handle.summary().await.ok_or(HotelError::Gone)
    }

    /// Renames an open room (`NoSuchRoom` when it is not), stored and audited as `actor`'s;
    /// everyone in it is told. The room as it is now.
    pub async fn rename_room(
        &self,
        actor: &OperatorName,
        id: &RoomId,
        name: String,
    ) -> Result<RoomSummary, HotelError> {
        let handle = self.live_room(id).await?;
        let (store, actor, room, new_name) =
            (self.store.clone(), actor.clone(), id.clone(), name.clone());
        blocking(move || store.rename_room(&actor, &room, &new_name)).await?;
        handle.rename(name).await;
        handle.summary().await.ok_or(HotelError::Gone)
    }

    /// Closes an open room (not an apartment), stored and audited as `actor`'s: everyone in
    /// it is told and moved out, games in play end or are finished first, as `games` says.
    /// How many are still in play (the room closes after them).
    pub async fn close_room(
        &self,
        actor: &OperatorName,
        id: &RoomId,
        games: CloseGames,
    ) -> Result<usize, HotelError> {
        let handle = self.live_room(id).await?;
        operator_may_close(handle.info.kind)?;
        let (store, actor, room) = (self.store.clone(), actor.clone(), id.clone());
        blocking(move || store.close_room(&actor, &room, games.as_str())).await?;
        handle.shut(games).await
    }

    /// Asks a room (opening it if need be: an idle apartment) to change its tables, as
    /// `actor` (an operator or the owner): the table as it is now, as the `table` message
    /// shows it (`None` when taken away).
    pub async fn change_tables(
        &self,
        room: &RoomId,
        actor: Actor,
        change: TableChange,
    ) -> Result<Option<Value>, HotelError> {
        let handle = self
            .open(room)
            .await?
            .ok_or_else(|| HotelError::NoSuchRoom(room.clone()))?;
        handle.change_tables(actor, change).await
    }

    /// An operator (`actor`) changes an open room's tables (`NoSuchRoom` when it is not
    /// open): a table is added only to a lounge. The table as it is now (`None` when taken
    /// away).
    pub async fn operator_changes_tables(
        &self,
        actor: &OperatorName,
        room: &RoomId,
        change: TableChange,
    ) -> Result<Option<Value>, HotelError> {
        let kind = self.live_room(room).await?.info.kind;
        if let TableChange::Add { .. } = change {
            operator_may_add_table(kind)?;
        }
        let actor = Actor::Operator(actor.clone());
        self.change_tables(room, actor, change).await
    }

    /// An open room, or `NoSuchRoom`.
    async fn live_room(&self, id: &RoomId) -> Result<RoomHandle, HotelError> {
        self.reach(id)
            .await
            .ok_or_else(|| HotelError::NoSuchRoom(id.clone()))
    }
}
