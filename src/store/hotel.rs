//! The hotel's rooms, tables and apartments as operators and owners change them, and the
//! operators' audit log. Every operator change is written with its audit entry in one
//! transaction.

use chrono::NaiveDateTime;
use diesel::dsl::max;
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::column::readable;
use super::outcomes::MatchStatus;
use super::schema::{
    apartment_guests, audit_log, ayo_tables, games, inventory, matches, rooms, users,
};
use super::shop::{Owned, ShopItem};
use super::{ordered_id, Db, RoomRow, Store, StoreError, TableRow, UserRow};
use crate::ayo::{Rules, Status};
use crate::common::{Door, OperatorName, RoomId, RoomKind, TableId, UserId};

/// Who changes the hotel: an operator (audited) or an apartment's owner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Actor {
    Operator(OperatorName),
    Owner(UserId),
}

/// One line of the audit log.
#[derive(
    Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable, Serialize, utoipa::ToSchema,
)]
#[diesel(table_name = audit_log)]
pub struct AuditEntry {
    pub id: String,
    /// The operator (the admin token's subject).
    pub actor: String,
    /// What was done, e.g. `room.create`, `table.remove`, `shop_item.change`, `coins.grant`.
    pub action: String,
    /// The id of what it was done to.
    pub target: String,
    /// The change, as JSON.
    pub details: String,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "super::utc")]
    pub created_at: NaiveDateTime,
}

/// A room to load at start: closed ones come back only to let their games finish.
#[derive(Debug, Clone)]
pub struct StoredRoom {
    pub room: RoomRow,
    pub tables: Vec<TableRow>,
    pub closing: bool,
    /// An apartment's door; `None` for rooms without one.
    pub door: Option<Door>,
    pub guests: Vec<UserId>,
}

/// The id of a user's apartment.
pub fn apartment_id(user_id: &UserId) -> RoomId {
    RoomId::new(format!("apartment-{user_id}"))
}

impl Store {
    /// Writes an audit entry in a transaction `conn` is in.
    pub(super) fn audit_in(
        &self,
        conn: &mut Db,
        actor: &OperatorName,
        action: &str,
        target: &str,
        details: &Value,
    ) -> Result<(), StoreError> {
        let entry = AuditEntry {
            id: ordered_id(),
            actor: actor.to_string(),
            action: action.to_owned(),
            target: target.to_owned(),
            details: details.to_string(),
            created_at: self.now(),
        };
        diesel::insert_into(audit_log::table)
            .values(&entry)
            .execute(conn)?;
        Ok(())
    }

    /// Writes an audit entry when `actor` is an operator.
    fn audit_by(
        &self,
        conn: &mut Db,
        actor: &Actor,
        action: &str,
        target: &str,
        details: &Value,
    ) -> Result<(), StoreError> {
        match actor {
            Actor::Operator(name) => self.audit_in(conn, name, action, target, details),
            Actor::Owner(_) => Ok(()),
        }
    }

    /// The audit log, newest first: `limit` entries older than `before` (an entry id).
    pub fn audit_log(
        &self,
        limit: i64,
        before: Option<&str>,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        let mut query = audit_log::table
            .order(audit_log::id.desc())
            .limit(limit)
            .select(AuditEntry::as_select())
            .into_boxed();
        if let Some(before) = before {
            query = query.filter(audit_log::id.lt(before.to_owned()));
        }
        Ok(query.load(&mut *self.conn()?)?)
    }

    /// The rooms to open at start: every open room but apartments (opened when someone comes),
    /// and any room with a game in play (a closed one only until its games end).
    pub fn rooms_to_open(&self) -> Result<Vec<StoredRoom>, StoreError> {
        let mut conn = self.conn()?;
        let mut busy: Vec<String> = ayo_tables::table
            .inner_join(games::table)
            .filter(games::status.eq(Status::Playing))
            .select(ayo_tables::room_id)
            .distinct()
            .load(&mut *conn)?;
        // A match between games has no game in play, and its room opens too.
        let matched: Vec<String> = ayo_tables::table
            .inner_join(matches::table.on(matches::table_id.eq(ayo_tables::id)))
            .filter(matches::status.eq(MatchStatus::Playing))
            .select(ayo_tables::room_id)
            .distinct()
            .load(&mut *conn)?;
        busy.extend(matched);
        // A room that does not read (an unknown kind) is logged and left closed.
        let rows = rooms::table
            .filter(
                rooms::closed_at
                    .is_null()
                    .and(rooms::kind.ne(RoomKind::Apartment))
                    .or(rooms::id.eq_any(&busy)),
            )
            .order((rooms::created_at.asc(), rooms::id.asc()))
            .select((RoomRow::as_select(), rooms::closed_at))
            .load_iter::<(RoomRow, Option<NaiveDateTime>), diesel::connection::DefaultLoadingMode>(
                &mut *conn,
            )?;
        let rows = readable(rows, "a room to open")?;
        drop(conn);
        let mut stored = Vec::with_capacity(rows.len());
        for (room, closed) in rows {
            let id = room.id.clone();
            match self.stored_room(room) {
                Ok(mut room) => {
                    room.closing = closed.is_some();
                    stored.push(room);
                }
                Err(StoreError::Query(diesel::result::Error::DeserializationError(e))) => {
                    tracing::error!(room = %id, error = %e, "a room to open does not read; it is left closed");
                }
                Err(e) => return Err(e),
            }
        }
        Ok(stored)
    }

    /// A room by id with what a room task needs: an open one, or a closed one whose matches let
    /// finish are still in play (`closing`); `None` otherwise.
    pub fn open_room(&self, id: &RoomId) -> Result<Option<StoredRoom>, StoreError> {
        let mut conn = self.conn()?;
        let found: Option<(RoomRow, Option<NaiveDateTime>)> = rooms::table
            .find(id)
            .select((RoomRow::as_select(), rooms::closed_at))
            .first(&mut *conn)
            .optional()?;
        let Some((room, closed)) = found else {
            return Ok(None);
        };
        if closed.is_some() {
            // A closed room opens again only while a match it let finish is in play.
            let in_play: i64 = ayo_tables::table
                .inner_join(matches::table.on(matches::table_id.eq(ayo_tables::id)))
                .filter(ayo_tables::room_id.eq(id))
                .filter(matches::status.eq(MatchStatus::Playing))
                .count()
                .get_result(&mut *conn)?;
            if in_play == 0 {
                return Ok(None);
            }
        }
        drop(conn);
        let mut stored = self.stored_room(room)?;
        stored.closing = closed.is_some();
        Ok(Some(stored))
    }

    fn stored_room(&self, room: RoomRow) -> Result<StoredRoom, StoreError> {
        let tables = self.tables(&room.id)?;
        let mut conn = self.conn()?;
        let door: Option<Door> = rooms::table
            .find(&room.id)
            .select(rooms::door)
            .first(&mut *conn)?;
        let guests = apartment_guests::table
            .filter(apartment_guests::room_id.eq(&room.id))
            .order(apartment_guests::invited_at.asc())
            .select(apartment_guests::user_id)
            .load(&mut *conn)?;
        Ok(StoredRoom {
            room,
            tables,
            closing: false,
            door,
            guests,
        })
    }

    /// The open rooms that are not apartments, oldest first: what the hotel lists.
    pub fn public_room_ids(&self) -> Result<Vec<RoomId>, StoreError> {
        Ok(rooms::table
            .filter(
                rooms::closed_at
                    .is_null()
                    .and(rooms::kind.ne(RoomKind::Apartment)),
            )
            .order((rooms::created_at.asc(), rooms::id.asc()))
            .select(rooms::id)
            .load(&mut *self.conn()?)?)
    }

    /// Any room, open or closed, with whether it is closed.
    pub fn room(&self, id: &RoomId) -> Result<Option<(RoomRow, bool)>, StoreError> {
        let row: Option<(RoomRow, Option<NaiveDateTime>)> = rooms::table
            .find(id)
            .select((RoomRow::as_select(), rooms::closed_at))
            .first(&mut *self.conn()?)
            .optional()?;
        Ok(row.map(|(room, closed)| (room, closed.is_some())))
    }

    /// A new room with its tables, audited.
    pub fn create_room(
        &self,
        actor: &OperatorName,
        room: &RoomRow,
        tables: &[TableRow],
    ) -> Result<(), StoreError> {
        self.write(|conn| {
            diesel::insert_into(rooms::table)
                .values(room)
                .execute(conn)?;
            for table in tables {
                diesel::insert_into(ayo_tables::table)
                    .values(table)
                    .execute(conn)?;
            }
            self.audit_in(
                conn,
                actor,
                "room.create",
                room.id.as_str(),
                &serde_json::json!({"name": room.name, "kind": room.kind, "tables": tables.len()}),
            )
        })
    }

    /// Renames an open room, audited.
    pub fn rename_room(
        &self,
        actor: &OperatorName,
        id: &RoomId,
        name: &str,
    ) -> Result<(), StoreError> {
        self.write(|conn| {
            let changed = diesel::update(rooms::table.find(id).filter(rooms::closed_at.is_null()))
                .set(rooms::name.eq(name))
                .execute(conn)?;
            if changed == 0 {
                return Err(StoreError::NotFound(format!("room `{id}`")));
            }
            self.audit_in(
                conn,
                actor,
                "room.rename",
                id.as_str(),
                &serde_json::json!({"name": name}),
            )
        })
    }

    /// Marks a room closed, audited; `games` says what happens to games in play.
    pub fn close_room(
        &self,
        actor: &OperatorName,
        id: &RoomId,
        games: &str,
    ) -> Result<(), StoreError> {
        self.write(|conn| {
            // Closing again (to end the games a first close let finish) keeps the first time.
            diesel::update(rooms::table.find(id).filter(rooms::closed_at.is_null()))
                .set(rooms::closed_at.eq(self.now()))
                .execute(conn)?;
            let exists: i64 = rooms::table.find(id).count().get_result(conn)?;
            if exists == 0 {
                return Err(StoreError::NotFound(format!("room `{id}`")));
            }
            self.audit_in(
                conn,
                actor,
                "room.close",
                id.as_str(),
                &serde_json::json!({"games": games}),
            )
        })
    }

    /// A new table at the end of a room (placing `board`, an owned Ayo board, when given);
    /// under the room's `fence` when it is leased (`write_under`), as all a table change.
    pub fn add_table(
        &self,
        actor: &Actor,
        room_id: &RoomId,
        rules: Rules,
        board: Option<&str>,
        fence: Option<u64>,
    ) -> Result<TableRow, StoreError> {
        self.write_under(fence.map(|f| (room_id, f)), |conn| {
            let last: Option<i32> = ayo_tables::table
                .filter(ayo_tables::room_id.eq(room_id))
                .select(max(ayo_tables::position))
                .first(conn)?;
            let position = last.unwrap_or(0).saturating_add(1);
            let table = TableRow {
                id: TableId::new(format!("{room_id}-{position}")),
                room_id: room_id.clone(),
                position,
                rules,
                queue: None,
            };
            diesel::insert_into(ayo_tables::table)
                .values(&table)
                .execute(conn)?;
            if let Some(board) = board {
                let placed = diesel::update(
                    inventory::table
                        .find(board)
                        .filter(inventory::table_id.is_null()),
                )
                .set(inventory::table_id.eq(&table.id))
                .execute(conn)?;
                if placed == 0 {
                    return Err(StoreError::Conflict(format!(
                        "board `{board}` is already placed"
                    )));
                }
            }
            self.audit_by(
                conn,
                actor,
                "table.add",
                table.id.as_str(),
                &serde_json::json!({"room": room_id, "rules": rules}),
            )?;
            Ok(table)
        })
    }

    /// Takes a table away (a board placed there goes back to its owner's inventory).
    pub fn remove_table(
        &self,
        actor: &Actor,
        table_id: &TableId,
        fence: Option<(&RoomId, u64)>,
    ) -> Result<(), StoreError> {
        self.write_under(fence, |conn| {
            let changed = diesel::update(
                ayo_tables::table
                    .find(table_id)
                    .filter(ayo_tables::removed_at.is_null()),
            )
            .set(ayo_tables::removed_at.eq(self.now()))
            .execute(conn)?;
            if changed == 0 {
                return Err(StoreError::NotFound(format!("table `{table_id}`")));
            }
            diesel::update(inventory::table.filter(inventory::table_id.eq(table_id)))
                .set(inventory::table_id.eq(None::<TableId>))
                .execute(conn)?;
            self.audit_by(
                conn,
                actor,
                "table.remove",
                table_id.as_str(),
                &serde_json::json!({}),
            )
        })
    }

    /// Turns a table's queue on or off, audited.
    pub fn set_table_queue(
        &self,
        actor: &Actor,
        table_id: &TableId,
        on: bool,
        fence: Option<(&RoomId, u64)>,
    ) -> Result<(), StoreError> {
        self.write_under(fence, |conn| {
            let changed = diesel::update(
                ayo_tables::table
                    .find(table_id)
                    .filter(ayo_tables::removed_at.is_null()),
            )
            .set(ayo_tables::queue.eq(Some(on)))
            .execute(conn)?;
            if changed == 0 {
                return Err(StoreError::NotFound(format!("table `{table_id}`")));
            }
            self.audit_by(
                conn,
                actor,
                "table.queue",
                table_id.as_str(),
                &serde_json::json!({"queue": on}),
            )
        })
    }

    /// Changes the rules a table plays.
    pub fn set_table_rules(
        &self,
        actor: &Actor,
        table_id: &TableId,
        rules: Rules,
        fence: Option<(&RoomId, u64)>,
    ) -> Result<(), StoreError> {
        self.write_under(fence, |conn| {
            let changed = diesel::update(
                ayo_tables::table
                    .find(table_id)
                    .filter(ayo_tables::removed_at.is_null()),
            )
            .set(ayo_tables::rules.eq(rules))
            .execute(conn)?;
            if changed == 0 {
                return Err(StoreError::NotFound(format!("table `{table_id}`")));
            }
            self.audit_by(
                conn,
                actor,
                "table.rules",
                table_id.as_str(),
                &serde_json::json!({"rules": rules}),
            )
        })
    }

    /// A user's apartment, made on first need: a room of kind `apartment` with its door
    /// closed to all but invited guests.
    pub fn ensure_apartment(&self, user: &UserRow) -> Result<RoomRow, StoreError> {
        let id = apartment_id(&user.id);
        if let Some((room, _)) = self.room(&id)? {
            return Ok(room);
        }
        let room = RoomRow {
            id: id.clone(),
            name: format!("{}'s apartment", user.name),
            kind: RoomKind::Apartment,
            owner_id: Some(user.id.clone()),
            created_at: self.now(),
        };
        let made = diesel::insert_into(rooms::table)
            .values((&room, rooms::door.eq(Door::Invited)))
            .execute(&mut *self.conn()?);
        match made.map_err(StoreError::from) {
            // Made meanwhile by another request: that one is the apartment.
            Ok(_) | Err(StoreError::Conflict(_)) => {}
            Err(e) => return Err(e),
        }
        Ok(self.room(&id)?.map(|(r, _)| r).unwrap_or(room))
    }

    /// An apartment's door and guests.
    pub fn door(&self, room_id: &RoomId) -> Result<(Door, Vec<UserRow>), StoreError> {
        let mut conn = self.conn()?;
        let door: Option<Door> = rooms::table
            .find(room_id)
            .select(rooms::door)
            .first(&mut *conn)?;
        let guests = apartment_guests::table
            .inner_join(users::table)
            .filter(apartment_guests::room_id.eq(room_id))
            .order(apartment_guests::invited_at.asc())
            .select(UserRow::as_select())
            .load(&mut *conn)?;
        // An apartment made before doors were stored: invited guests only.
        Ok((door.unwrap_or_default(), guests))
    }

    pub fn set_door(&self, room_id: &RoomId, door: Door) -> Result<(), StoreError> {
        diesel::update(rooms::table.find(room_id))
            .set(rooms::door.eq(door))
            .execute(&mut *self.conn()?)?;
        Ok(())
    }

    /// Adds a guest to an apartment's list; already there is fine.
    pub fn add_guest(&self, room_id: &RoomId, user_id: &UserId) -> Result<(), StoreError> {
        let added = diesel::insert_into(apartment_guests::table)
            .values((
                apartment_guests::room_id.eq(room_id),
                apartment_guests::user_id.eq(user_id),
                apartment_guests::invited_at.eq(self.now()),
            ))
            .execute(&mut *self.conn()?);
        match added.map_err(StoreError::from) {
            Ok(_) | Err(StoreError::Conflict(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Takes a guest off the list; true when they were on it.
    pub fn remove_guest(&self, room_id: &RoomId, user_id: &UserId) -> Result<bool, StoreError> {
        let removed = diesel::delete(
            apartment_guests::table
                .filter(apartment_guests::room_id.eq(room_id))
                .filter(apartment_guests::user_id.eq(user_id)),
        )
        .execute(&mut *self.conn()?)?;
        Ok(removed > 0)
    }

    /// One thing a user owns, with its item.
    pub fn owned(
        &self,
        user_id: &UserId,
        id: &str,
    ) -> Result<Option<(Owned, ShopItem)>, StoreError> {
        Ok(self
            .inventory(user_id)?
            .into_iter()
            .find(|(owned, _)| owned.id == id))
    }
}
