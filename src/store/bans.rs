//! Bans: an operator keeps a guest out, for a time or until lifted. Each ban and each lift is
//! written with its audit entry in one transaction.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use serde::Serialize;
use serde_json::json;

use super::schema::{bans, users};
use super::{Store, StoreError};
use crate::common::{OperatorName, UserId};

/// A guest's ban.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable, Serialize)]
#[diesel(table_name = bans)]
pub struct Ban {
    pub user_id: UserId,
    pub reason: String,
    /// When it ends by itself; `None` until lifted.
    #[serde(serialize_with = "super::utc_opt")]
    pub until: Option<NaiveDateTime>,
    /// The operator.
    pub banned_by: OperatorName,
    #[serde(serialize_with = "super::utc")]
    pub created_at: NaiveDateTime,
}

impl Ban {
    /// Whether it still holds at `at`.
    pub fn holds_at(&self, at: NaiveDateTime) -> bool {
        self.until.is_none_or(|until| at < until)
    }
}

impl Store {
    /// Bans `ban.user_id` (replacing a ban they had), audited as `user.ban`. `NotFound` when
    /// there is no such guest (Baba Ayo is not one).
    pub fn ban(&self, ban: &Ban) -> Result<(), StoreError> {
        self.write(|conn| {
            let guest: i64 = users::table
                .filter(users::id.eq(&ban.user_id))
                .filter(users::house.eq(false))
                .count()
                .get_result(conn)?;
            if guest == 0 {
                return Err(StoreError::NotFound(format!("user {}", ban.user_id)));
            }
            diesel::delete(bans::table.find(&ban.user_id)).execute(conn)?;
            diesel::insert_into(bans::table).values(ban).execute(conn)?;
            let until = ban.until.map(|t| t.and_utc().to_rfc3339());
            self.audit_in(
                conn,
                &ban.banned_by,
                "user.ban",
                ban.user_id.as_str(),
                &json!({"reason": ban.reason, "until": until}),
            )
        })
    }

    /// Lifts `user`'s ban, audited as `user.unban`; false when there was none.
    pub fn lift_ban(&self, actor: &OperatorName, user: &UserId) -> Result<bool, StoreError> {
        self.write(|conn| {
            let lifted = diesel::delete(bans::table.find(user.as_str())).execute(conn)? > 0;
            if lifted {
                self.audit_in(conn, actor, "user.unban", user.as_str(), &json!({}))?;
            }
            Ok(lifted)
        })
    }

    /// Every ban that still holds.
    pub fn bans(&self) -> Result<Vec<Ban>, StoreError> {
        let at = self.now();
        Ok(bans::table
            .filter(bans::until.is_null().or(bans::until.gt(at)))
            .select(Ban::as_select())
            .load(&mut *self.conn()?)?)
    }
}
