//! One name, one guest: users are stored with their name's comparison key
//! (`common::name_key`), unique among guests (the `users_name_key` index); house users share
//! theirs and reserve it. Rows from before the key existed, or keyed by older rules, are keyed
//! at start, the later of two alike renamed.

use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use unicode_segmentation::UnicodeSegmentation;

use super::schema::users;
use super::{Db, Store, StoreError, UserRow};
use crate::common::{name_key, UserName};

/// A user without a key, as read at start.
#[derive(Queryable)]
struct Unkeyed {
    id: String,
    name: String,
    house: bool,
}

impl Store {
    /// Inserts `user` with its name's key, in a transaction `conn` is in. A guest's name
    /// alike a house name is `NameReserved`; alike another guest's, `NameTaken`: the unique
    /// index decides, so of two sign-ups with one name at once exactly one is stored.
    pub(crate) fn insert_user_in(conn: &mut Db, user: &UserRow) -> Result<(), StoreError> {
        let key = name_key(&user.name);
        if !user.house && Store::reserved_in(conn, &key)? {
            return Err(StoreError::NameReserved(user.name.clone()));
        }
        diesel::insert_into(users::table)
            .values((user, users::name_key.eq(&key)))
            .execute(conn)
            .map_err(|e| name_conflict(e, &user.name))?;
        Ok(())
    }

    /// Whether `key` is a house user's.
    fn reserved_in(conn: &mut Db, key: &str) -> Result<bool, StoreError> {
        let house: i64 = users::table
            .filter(users::house.eq(true))
            .filter(users::name_key.eq(key))
            .count()
            .get_result(conn)?;
        Ok(house > 0)
    }

    /// Gives every user stored without a key its key; returns how many were renamed.
    /// House users first, so their names stay reserved; then guests oldest first: the first
    /// of two alike keeps the name, a later one gets a number ("Alice One 2"), logged. Each
    /// user in its own transaction, the unique index deciding, so two instances starting at
    /// once cannot give one key twice.
    pub(crate) fn key_names(&self) -> Result<usize, StoreError> {
        self.unkey_stale()?;
        let unkeyed: Vec<Unkeyed> = users::table
            .filter(users::name_key.is_null())
            .order((
                users::house.desc(),
                users::created_at.asc(),
                users::id.asc(),
            ))
            .select((users::id, users::name, users::house))
            .load(&mut *self.conn()?)?;
        let mut renamed = 0;
        for user in unkeyed {
            if self.key_one(&user)? {
                renamed += 1;
            }
        }
        Ok(renamed)
    }

    /// Takes the key off every user whose stored key is not what the rules make of their name
    /// now (a key made by an older build: one still running during a rolling upgrade keeps
    /// writing them), so that `key_names` makes it again.
    fn unkey_stale(&self) -> Result<(), StoreError> {
        let keyed: Vec<(String, String, Option<String>)> = users::table
            .filter(users::name_key.is_not_null())
            .select((users::id, users::name, users::name_key))
            .load(&mut *self.conn()?)?;
        let stale: Vec<String> = keyed
            .into_iter()
            .filter(|(_, name, key)| key.as_deref() != Some(name_key(name).as_str()))
            .map(|(id, _, _)| id)
            .collect();
        for ids in stale.chunks(500) {
            self.write(|conn| -> Result<usize, StoreError> {
                Ok(diesel::update(users::table.filter(users::id.eq_any(ids)))
                    .set(users::name_key.eq(None::<String>))
                    .execute(conn)?)
            })?;
        }
        Ok(())
    }

    /// Keys one user, renaming them if their name is taken; true when renamed.
    fn key_one(&self, user: &Unkeyed) -> Result<bool, StoreError> {
        for n in 1..=MAX_SUFFIX {
            let name = if n == 1 {
                user.name.clone()
            } else {
                numbered(&user.name, n)
            };
            let key = name_key(&name);
            // `None`: the name is reserved; `Some(false)`: another instance keyed the user.
            let done = self.write(|conn| -> Result<Option<bool>, StoreError> {
                if !user.house && Store::reserved_in(conn, &key)? {
                    return Ok(None);
                }
                let changed = diesel::update(
                    users::table
                        .filter(users::id.eq(&user.id))
                        .filter(users::name_key.is_null()),
                )
                .set((users::name.eq(&name), users::name_key.eq(&key)))
                .execute(conn)
                .map_err(|e| name_conflict(e, &name))?;
                Ok(Some(changed > 0))
            });
            match done {
                Ok(Some(false)) => return Ok(false),
                Ok(Some(true)) if n == 1 => return Ok(false),
                Ok(Some(true)) => {
                    tracing::warn!(
                        user = %user.id,
                        was = %user.name,
                        now = %name,
                        "a stored name was alike an earlier one: renamed"
                    );
                    return Ok(true);
                }
                Ok(None) | Err(StoreError::NameTaken(_)) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(StoreError::Conflict(format!(
            "no free name for user {} ({})",
            user.id, user.name
        )))
    }
}

/// How many numbers a duplicate name is tried with before giving up.
const MAX_SUFFIX: usize = 10_000;

/// `name` with ` n` after it, shortened to keep within the length of a name.
fn numbered(name: &str, n: usize) -> String {
    let suffix = format!(" {n}");
    let room = UserName::MAX_CHARS.saturating_sub(suffix.len());
    let base: String = name.graphemes(true).take(room).collect();
    format!("{}{suffix}", base.trim_end())
}

/// A unique violation on the name's key is `NameTaken`; anything else as usual.
fn name_conflict(e: DieselError, name: &str) -> StoreError {
    if let DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) = &e {
        // PostgreSQL names the index; SQLite names the column.
        if info.constraint_name() == Some("users_name_key") || info.message().contains("name_key") {
            return StoreError::NameTaken(name.to_owned());
        }
    }
    e.into()
}

#[cfg(test)]
mod tests {
    use super::numbered;
    use crate::common::UserName;

    #[test]
    fn a_numbered_name_stays_within_the_length_of_a_name() {
        assert_eq!(numbered("Alice One", 2), "Alice One 2");
        let made = numbered("Abcdefghij Klmnopqrstuvw", 12);
        assert_eq!(made, "Abcdefghij Klmnopqrst 12");
        assert_eq!(made.chars().count(), UserName::MAX_CHARS);
        // A cut at a space does not leave a double one.
        assert_eq!(
            numbered("Abcdefghijklmnopqrst Uvw", 12),
            "Abcdefghijklmnopqrst 12"
        );
    }
}
