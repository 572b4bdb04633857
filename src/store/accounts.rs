//! Lasting identity: devices and their rotating refresh credentials, passwords, and the
//! hotel's own accounts. Refresh credentials are stored only as hashes; times are server
//! milliseconds (the one clock, so tests move it by hand).

use diesel::prelude::*;
use serde::Serialize;

use super::schema::{devices, hotel_accounts, passwords, refresh_credentials, users};
use super::{Store, StoreError, UserRow};
use crate::common::UserId;

/// A sign-in on one device: one family of refresh credentials.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable, Serialize)]
#[diesel(table_name = devices)]
pub struct DeviceRow {
    pub id: String,
    pub user_id: UserId,
    pub label: String,
    pub created_ms: i64,
    pub used_ms: i64,
    pub expires_ms: i64,
    pub revoked_ms: Option<i64>,
    pub revoked_why: Option<String>,
    /// The SHA-256 (hex) of the key the browser sent at sign-in, when it sent one: what
    /// tells two accounts on one device apart from two devices.
    #[serde(skip)]
    pub key_hash: Option<String>,
}

/// Why a device's family ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revocation {
    /// The player signed out on it.
    SignedOut,
    /// The player removed it from their list of devices.
    Removed,
    /// A credential of its family was presented a second time: someone else may hold it.
    Reused,
}

impl Revocation {
    fn word(self) -> &'static str {
        match self {
            Revocation::SignedOut => "signed_out",
            Revocation::Removed => "removed",
            Revocation::Reused => "reused",
        }
    }
}

/// What presenting a refresh credential came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rotation {
    /// Exchanged: the old credential is spent, the new one stored; the device's life slid on.
    Rotated(DeviceRow),
    /// No such credential.
    Unknown,
    /// The credential was exchanged before: the whole device is revoked now.
    Reused,
    /// The device was revoked (signed out, removed, or a reuse seen earlier).
    Revoked,
    /// The device went unused past its lifetime.
    Expired,
}

#[derive(Insertable)]
#[diesel(table_name = refresh_credentials)]
struct NewCredential<'a> {
    hash: &'a str,
    device_id: &'a str,
    created_ms: i64,
    rotated_ms: Option<i64>,
}

impl Store {
    /// Starts a device's family with its first credential (`hash`), alive `ttl_ms` from `now`;
    /// `key_hash`, the hashed key the browser keeps, when it sent one.
    pub fn open_device(
        &self,
        user_id: &UserId,
        (label, key_hash): (&str, Option<String>),
        hash: &str,
        now_ms: i64,
        ttl_ms: i64,
    ) -> Result<DeviceRow, StoreError> {
        let device = DeviceRow {
            id: super::new_id(),
            user_id: user_id.clone(),
            label: label.to_owned(),
            created_ms: now_ms,
            used_ms: now_ms,
            expires_ms: now_ms.saturating_add(ttl_ms),
            revoked_ms: None,
            revoked_why: None,
            key_hash,
        };
        self.write(|conn| -> Result<(), StoreError> {
            diesel::insert_into(devices::table)
                .values(&device)
                .execute(conn)?;
            diesel::insert_into(refresh_credentials::table)
                .values(NewCredential {
                    hash,
                    device_id: &device.id,
                    created_ms: now_ms,
                    rotated_ms: None,
                })
                .execute(conn)?;
            Ok(())
        })?;
        Ok(device)
    }

    /// Exchanges the credential hashed `old` for the one hashed `new`, in one transaction, so
    /// two racing exchanges of one credential cannot both win: the second sees it spent and
    /// revokes the device.
    pub fn rotate_refresh(
        &self,
        old: &str,
        new: &str,
        now_ms: i64,
        ttl_ms: i64,
    ) -> Result<Rotation, StoreError> {
        self.write(|conn| {
            let found: Option<(Option<i64>, DeviceRow)> = refresh_credentials::table
                .inner_join(devices::table)
                .filter(refresh_credentials::hash.eq(old))
                .select((refresh_credentials::rotated_ms, DeviceRow::as_select()))
                .first(conn)
                .optional()?;
            let Some((rotated, mut device)) = found else {
                return Ok(Rotation::Unknown);
            };
            if device.revoked_ms.is_some() {
                return Ok(Rotation::Revoked);
            }
            if rotated.is_some() {
                revoke(conn, &device.id, Revocation::Reused, now_ms)?;
                return Ok(Rotation::Reused);
            }
            if device.expires_ms <= now_ms {
                return Ok(Rotation::Expired);
            }
            // Spent only if no one spent it since the read: under PostgreSQL's read committed
            // a racing exchange read it unspent too, and this UPDATE waits for that one's
            // commit and then finds nothing to change. The loser is a reuse.
            let spent = diesel::update(
                refresh_credentials::table
                    .filter(refresh_credentials::hash.eq(old))
                    .filter(refresh_credentials::rotated_ms.is_null()),
            )
            .set(refresh_credentials::rotated_ms.eq(Some(now_ms)))
            .execute(conn)?;
            if spent == 0 {
                revoke(conn, &device.id, Revocation::Reused, now_ms)?;
                return Ok(Rotation::Reused);
            }
            diesel::insert_into(refresh_credentials::table)
                .values(NewCredential {
                    hash: new,
                    device_id: &device.id,
                    created_ms: now_ms,
                    rotated_ms: None,
                })
                .execute(conn)?;
            device.used_ms = now_ms;
            device.expires_ms = now_ms.saturating_add(ttl_ms);
            diesel::update(devices::table.find(&device.id))
                .set((
                    devices::used_ms.eq(device.used_ms),
                    devices::expires_ms.eq(device.expires_ms),
                ))
                .execute(conn)?;
            Ok(Rotation::Rotated(device))
        })
    }

    /// A user's devices still signed in at `now`, the most recently used first.
    pub fn devices(&self, user_id: &UserId, now_ms: i64) -> Result<Vec<DeviceRow>, StoreError> {
        Ok(devices::table
            .filter(devices::user_id.eq(user_id))
            .filter(devices::revoked_ms.is_null())
            .filter(devices::expires_ms.gt(now_ms))
            .order(devices::used_ms.desc())
            .select(DeviceRow::as_select())
            .load(&mut *self.conn()?)?)
    }

    /// Ends a device's family; false when the user has no such device signed in.
    pub fn revoke_device(
        &self,
        user_id: &UserId,
        device_id: &str,
        why: Revocation,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        self.write(|conn| {
            let mine: i64 = devices::table
                .filter(devices::id.eq(device_id))
                .filter(devices::user_id.eq(user_id))
                .filter(devices::revoked_ms.is_null())
                .count()
                .get_result(conn)?;
            if mine == 0 {
                return Ok(false);
            }
            revoke(conn, device_id, why, now_ms)?;
            Ok(true)
        })
    }

    /// Sets (or replaces) a user's password hash.
    pub fn set_password(&self, user_id: &UserId, phc: &str, now_ms: i64) -> Result<(), StoreError> {
        self.write(|conn| -> Result<(), StoreError> {
            diesel::delete(passwords::table.find(user_id)).execute(conn)?;
            diesel::insert_into(passwords::table)
                .values((
                    passwords::user_id.eq(user_id),
                    passwords::phc.eq(phc),
                    passwords::changed_ms.eq(now_ms),
                ))
                .execute(conn)?;
            Ok(())
        })
    }

    /// A user's password hash, if they set one.
    pub fn password_of(&self, user_id: &UserId) -> Result<Option<String>, StoreError> {
        Ok(passwords::table
            .find(user_id)
            .select(passwords::phc)
            .first(&mut *self.conn()?)
            .optional()?)
    }

    /// The guest whose name is `name` (or alike it: names are compared by their key, so
    /// "alice one" finds "Alice One") and has a password, with its hash. At most one: a key
    /// is unique among guests.
    pub fn password_holders(&self, name: &str) -> Result<Vec<(UserRow, String)>, StoreError> {
        let key = crate::common::name_key(name);
        Ok(users::table
            .inner_join(passwords::table)
            .filter(users::name_key.eq(key))
            .filter(users::house.eq(false))
            .order(users::created_at.asc())
            .limit(4)
            .select((UserRow::as_select(), passwords::phc))
            .load(&mut *self.conn()?)?)
    }

    /// The lounge user of a hotel account, if it has visited before.
    pub fn hotel_account(
        &self,
        issuer: &str,
        subject: &str,
    ) -> Result<Option<UserRow>, StoreError> {
        Ok(hotel_accounts::table
            .inner_join(users::table)
            .filter(hotel_accounts::issuer.eq(issuer))
            .filter(hotel_accounts::subject.eq(subject))
            .select(UserRow::as_select())
            .first(&mut *self.conn()?)
            .optional()?)
    }

    /// The lounge user of a hotel account, made on its first visit (with the welcome coins, in
    /// the same transaction as the link, so a race of two first visits makes one user).
    /// Returns the user and whether it is new.
    pub fn hotel_user(
        &self,
        issuer: &str,
        subject: &str,
        fresh: &UserRow,
        grant: i64,
        now_ms: i64,
    ) -> Result<(UserRow, bool), StoreError> {
        self.write(|conn| {
            let known: Option<UserRow> = hotel_accounts::table
                .inner_join(users::table)
                .filter(hotel_accounts::issuer.eq(issuer))
                .filter(hotel_accounts::subject.eq(subject))
                .select(UserRow::as_select())
                .first(conn)
                .optional()?;
            if let Some(user) = known {
                return Ok((user, false));
            }
            // Keyed like every name, with the welcome coins: a first visit is a sign-up.
            self.sign_up_in(conn, fresh, grant)?;
            diesel::insert_into(hotel_accounts::table)
                .values((
                    hotel_accounts::issuer.eq(issuer),
                    hotel_accounts::subject.eq(subject),
                    hotel_accounts::user_id.eq(&fresh.id),
                    hotel_accounts::created_ms.eq(now_ms),
                ))
                .execute(conn)?;
            Ok((fresh.clone(), true))
        })
    }
}

fn revoke(
    conn: &mut super::Db,
    device_id: &str,
    why: Revocation,
    now_ms: i64,
) -> Result<(), StoreError> {
    diesel::update(devices::table.find(device_id))
        .set((
            devices::revoked_ms.eq(Some(now_ms)),
            devices::revoked_why.eq(Some(why.word())),
        ))
        .execute(conn)?;
    Ok(())
}
