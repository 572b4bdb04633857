//! Guests following others, to find them in the hotel: no consent asked, as on most game
//! sites; a block either way ends it and stops it starting again. A guest may hide which room
//! they are in (`hidden_whereabouts`): followers then see only that they are online.

use diesel::prelude::*;

use super::schema::{blocks, follows, hidden_whereabouts, rooms, users};
use super::{Store, StoreError};
use crate::common::{RoomId, UserId};

/// A guest follows this many others at most.
pub const MAX_FOLLOWING: i64 = 500;

/// Why a follow could not be made.
#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    #[error("there is no user `{0}`")]
    NoSuchUser(String),
    #[error("you cannot follow yourself")]
    Oneself,
    /// One of the two blocks the other.
    #[error("one of you blocks the other")]
    Blocked,
    #[error("you follow {MAX_FOLLOWING} guests already: stop following one first")]
    TooMany,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<diesel::result::Error> for FollowError {
    fn from(e: diesel::result::Error) -> Self {
        FollowError::Store(e.into())
    }
}

/// Someone a guest follows, as their list shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Followed {
    pub id: UserId,
    pub name: String,
    /// They hide which room they are in.
    pub hidden: bool,
}

impl Store {
    /// `user` follows `other` (again is fine, at the same time too: the one that finds the
    /// row made meanwhile has what it asked for).
    pub fn follow(&self, user: &UserId, other: &UserId) -> Result<(), FollowError> {
        if user == other {
            return Err(FollowError::Oneself);
        }
        match self.follow_once(user, other) {
            Err(FollowError::Store(StoreError::Conflict(_))) => Ok(()),
            done => done,
        }
    }

    fn follow_once(&self, user: &UserId, other: &UserId) -> Result<(), FollowError> {
        self.write(|conn| {
            let known: i64 = users::table
                .find(other)
                .filter(users::house.eq(false))
                .count()
                .get_result(conn)?;
            if known == 0 {
                return Err(FollowError::NoSuchUser(other.to_string()));
            }
            let blocked: i64 = blocks::table
                .filter(
                    (blocks::user_id.eq(user).and(blocks::blocked_id.eq(other)))
                        .or(blocks::user_id.eq(other).and(blocks::blocked_id.eq(user))),
                )
                .count()
                .get_result(conn)?;
            if blocked > 0 {
                return Err(FollowError::Blocked);
            }
            let already: i64 = follows::table
                .find((user, other))
                .count()
                .get_result(conn)?;
            if already > 0 {
                return Ok(());
            }
            let count: i64 = follows::table
                .filter(follows::follower_id.eq(user))
                .count()
                .get_result(conn)?;
            if count >= MAX_FOLLOWING {
                return Err(FollowError::TooMany);
            }
            diesel::insert_into(follows::table)
                .values((
                    follows::follower_id.eq(user),
                    follows::followed_id.eq(other),
                    follows::created_at.eq(self.now()),
                ))
                .execute(conn)?;
            Ok(())
        })
    }

    /// `user` stops following `other`; false when they did not.
    pub fn unfollow(&self, user: &UserId, other: &UserId) -> Result<bool, StoreError> {
        let gone =
            diesel::delete(follows::table.find((user, other))).execute(&mut *self.conn()?)?;
        Ok(gone > 0)
    }

    /// Whom `user` follows, oldest first, each with whether they hide their room.
    pub fn following(&self, user: &UserId) -> Result<Vec<Followed>, StoreError> {
        let rows: Vec<(UserId, String, Option<UserId>)> = follows::table
            .inner_join(users::table.on(users::id.eq(follows::followed_id)))
            .left_join(
                hidden_whereabouts::table.on(hidden_whereabouts::user_id.eq(follows::followed_id)),
            )
            .filter(follows::follower_id.eq(user))
            // Never one a block stands between, whichever way (a follow that raced a block).
            .filter(diesel::dsl::not(diesel::dsl::exists(
                blocks::table.filter(
                    (blocks::user_id
                        .eq(follows::follower_id)
                        .and(blocks::blocked_id.eq(follows::followed_id)))
                    .or(blocks::user_id
                        .eq(follows::followed_id)
                        .and(blocks::blocked_id.eq(follows::follower_id))),
                ),
            )))
            .order((follows::created_at.asc(), follows::followed_id.asc()))
            .select((
                users::id,
                users::name,
                hidden_whereabouts::user_id.nullable(),
            ))
            .load(&mut *self.conn()?)?;
        Ok(rows
            .into_iter()
            .map(|(id, name, hidden)| Followed {
                id,
                name,
                hidden: hidden.is_some(),
            })
            .collect())
    }

    /// `user` hides (or shows again) which room they are in. Two at once: the one that
    /// finds the other's row has what it asked for.
    pub fn hide_whereabouts(&self, user: &UserId, hidden: bool) -> Result<(), StoreError> {
        match self.hide_whereabouts_once(user, hidden) {
            Err(StoreError::Conflict(_)) => Ok(()),
            done => done,
        }
    }

    fn hide_whereabouts_once(&self, user: &UserId, hidden: bool) -> Result<(), StoreError> {
        self.write(|conn| {
            diesel::delete(hidden_whereabouts::table.find(user)).execute(conn)?;
            if hidden {
                diesel::insert_into(hidden_whereabouts::table)
                    .values(hidden_whereabouts::user_id.eq(user))
                    .execute(conn)?;
            }
            Ok(())
        })
    }

    /// Whether `user` hides which room they are in.
    pub fn hides_whereabouts(&self, user: &UserId) -> Result<bool, StoreError> {
        let found: i64 = hidden_whereabouts::table
            .find(user)
            .count()
            .get_result(&mut *self.conn()?)?;
        Ok(found > 0)
    }
}

impl Store {
    /// The names of the rooms among `ids` that exist.
    pub fn room_names(&self, ids: &[RoomId]) -> Result<Vec<(RoomId, String)>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        Ok(rooms::table
            .filter(rooms::id.eq_any(ids))
            .select((rooms::id, rooms::name))
            .load(&mut *self.conn()?)?)
    }
}

/// Ends any follow between `a` and `b`, both ways, in the caller's write (a block).
pub(super) fn unfollow_both_on(
    conn: &mut super::Db,
    a: &UserId,
    b: &UserId,
) -> Result<(), diesel::result::Error> {
    diesel::delete(
        follows::table.filter(
            (follows::follower_id.eq(a).and(follows::followed_id.eq(b)))
                .or(follows::follower_id.eq(b).and(follows::followed_id.eq(a))),
        ),
    )
    .execute(conn)?;
    Ok(())
}
