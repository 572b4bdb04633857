//! A player's apartment: made on first need, its door, its guest list and the boards placed
//! in it. What the hotel allows here is decided here; the HTTP handlers only ask.
//!
//! Calls block on the store: async callers run them on the blocking pool.

use crate::common::{Door, TableId, User, UserId};
use crate::store::{RoomRow, Store, UserRow};

use super::hotel::HotelError;

/// An apartment as its owner sees it.
#[derive(Debug, Clone)]
pub struct Apartment {
    pub room: RoomRow,
    pub door: Door,
    pub guests: Vec<User>,
    /// Its tables: the boards placed.
    pub tables: Vec<TableId>,
}

/// The user behind a player token, or [`HotelError::UnknownUser`] when this service does not
/// know them.
pub fn known_user(store: &Store, id: &UserId) -> Result<UserRow, HotelError> {
    store.user(id)?.ok_or(HotelError::UnknownUser)
}

/// A user's apartment, made on first need.
pub fn apartment_of(store: &Store, user_id: &UserId) -> Result<RoomRow, HotelError> {
    let user = known_user(store, user_id)?;
    Ok(store.ensure_apartment(&user)?)
}

/// The apartment with its door, guests and boards.
pub fn apartment(store: &Store, room: &RoomRow) -> Result<Apartment, HotelError> {
    let (door, guests) = store.door(&room.id)?;
    let tables = store.tables(&room.id)?.into_iter().map(|t| t.id).collect();
    Ok(Apartment {
        room: room.clone(),
        door,
        guests: guests
            .into_iter()
            .map(|g| User {
                id: g.id,
                name: g.name,
                house: false,
                ratings: Default::default(),
            })
            .collect(),
        tables,
    })
}

/// Sets the door of `owner`'s apartment.
pub fn set_door(store: &Store, room: &RoomRow, door: Door) -> Result<(), HotelError> {
    Ok(store.set_door(&room.id, door)?)
}

/// Puts `guest` on the guest list of `owner`'s apartment: a person this service knows, not
/// the owner (who lives there) and not Baba Ayo.
pub fn invite(
    store: &Store,
    room: &RoomRow,
    owner: &UserId,
    guest: &UserId,
) -> Result<(), HotelError> {
    let guest = may_invite(store, owner, guest)?;
    Ok(store.add_guest(&room.id, &guest.id)?)
}

/// The guest `owner` may invite home: a person this service knows, not the owner (who lives
/// there) and not Baba Ayo.
pub fn may_invite(store: &Store, owner: &UserId, guest: &UserId) -> Result<User, HotelError> {
    if guest == owner {
        return Err(HotelError::Invalid {
            field: "user",
            message: "you live here: no need to invite yourself".into(),
        });
    }
    match store.user(guest)? {
        Some(guest) if !guest.house => Ok(User {
            id: guest.id,
            name: guest.name,
            house: false,
            ratings: Default::default(),
        }),
        _ => Err(HotelError::NoSuchUser(guest.to_string())),
    }
}

/// Takes `guest` off the guest list.
pub fn uninvite(store: &Store, room: &RoomRow, guest: &UserId) -> Result<(), HotelError> {
    if store.remove_guest(&room.id, guest)? {
        Ok(())
    } else {
        Err(HotelError::NotAGuest)
    }
}

/// Whether `owner` may place `board` at home: an Ayo board they own, not placed yet. (How
/// many boards an apartment holds the room decides, as it places it.)
pub fn may_place(store: &Store, owner: &UserId, board: &str) -> Result<(), HotelError> {
    match store.owned(owner, board)? {
        None => Err(HotelError::NoSuchBoard(board.to_owned())),
        Some((_, item)) if !item.is_board() => Err(HotelError::NotABoard(item.name)),
        Some((owned, _)) if owned.table_id.is_some() => Err(HotelError::BoardPlaced(owned.id)),
        Some(_) => Ok(()),
    }
}
