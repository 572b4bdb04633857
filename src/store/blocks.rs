//! Guests blocking others: no invitations, no chat lines from the blocked one, and no
//! following either way.

use diesel::prelude::*;

use super::schema::{blocks, users};
use super::{Store, StoreError};
use crate::common::UserId;

/// A guest blocks this many others at most.
pub const MAX_BLOCKS: i64 = 500;

/// Why a block could not be made.
#[derive(Debug, thiserror::Error)]
pub enum BlockError {
    #[error("there is no user `{0}`")]
    NoSuchUser(String),
    #[error("you cannot block yourself")]
    Oneself,
    #[error("you block {MAX_BLOCKS} guests already: unblock one first")]
    TooMany,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<diesel::result::Error> for BlockError {
    fn from(e: diesel::result::Error) -> Self {
        BlockError::Store(e.into())
    }
}

impl Store {
    /// `user` blocks `other` (again is fine).
    pub fn block(&self, user: &UserId, other: &UserId) -> Result<(), BlockError> {
        if user == other {
            return Err(BlockError::Oneself);
        }
        self.write(|conn| {
            let known: i64 = users::table.find(other).count().get_result(conn)?;
            if known == 0 {
                return Err(BlockError::NoSuchUser(other.to_string()));
            }
            let already: i64 = blocks::table.find((user, other)).count().get_result(conn)?;
            if already > 0 {
                // A follow made while the block was being made (PostgreSQL runs the two side
                // by side) ends now.
                super::follows::unfollow_both_on(conn, user, other)?;
                return Ok(());
            }
            let count: i64 = blocks::table
                .filter(blocks::user_id.eq(user))
                .count()
                .get_result(conn)?;
            if count >= MAX_BLOCKS {
                return Err(BlockError::TooMany);
            }
            diesel::insert_into(blocks::table)
                .values((
                    blocks::user_id.eq(user),
                    blocks::blocked_id.eq(other),
                    blocks::created_at.eq(self.now()),
                ))
                .execute(conn)?;
            // A block ends following, both ways.
            super::follows::unfollow_both_on(conn, user, other)?;
            Ok(())
        })
    }

    /// `user` unblocks `other`; false when they did not block them.
    pub fn unblock(&self, user: &UserId, other: &UserId) -> Result<bool, StoreError> {
        let gone = diesel::delete(blocks::table.find((user, other))).execute(&mut *self.conn()?)?;
        Ok(gone > 0)
    }

    /// Whom `user` blocks, with their names, oldest block first.
    pub fn blocks_of(&self, user: &UserId) -> Result<Vec<(UserId, String)>, StoreError> {
        Ok(blocks::table
            .inner_join(users::table.on(users::id.eq(blocks::blocked_id)))
            .filter(blocks::user_id.eq(user))
            .order(blocks::created_at.asc())
            .select((users::id, users::name))
            .load(&mut *self.conn()?)?)
    }

    /// Every block: (who blocks, whom).
    pub fn all_blocks(&self) -> Result<Vec<(UserId, UserId)>, StoreError> {
        Ok(blocks::table
            .select((blocks::user_id, blocks::blocked_id))
            .load(&mut *self.conn()?)?)
    }
}
