//! For the names tests: users stored as before names had keys, and many sign-ups at once.

use futures_util::future::join_all;
use serde_json::Value;

use super::{TestApp, TestDb};

impl TestApp {
    /// `POST /api/v1/auth/guest` for each name, all sent at once; the answers in order.
    pub async fn sign_in_guests_at_once(&self, names: &[&str]) -> Vec<(u16, Value)> {
        join_all(names.iter().map(|name| self.sign_in_guest(name))).await
    }
}

impl TestDb {
    /// Stores a user the way a service from before name keys did: any name, no key, created
    /// at `created_at` (`YYYY-MM-DD HH:MM:SS`, UTC).
    pub fn insert_unkeyed_user(&self, id: &str, name: &str, house: bool, created_at: &str) {
        self.insert_user_keyed(id, name, house, created_at, None);
    }

    /// A user stored with `key` as its name's key, as an older build would have keyed it.
    pub fn insert_user_keyed(
        &self,
        id: &str,
        name: &str,
        house: bool,
        created_at: &str,
        key: Option<&str>,
    ) {
        use diesel::{Connection, RunQueryDsl};
        let quoted = |s: &str| format!("'{}'", s.replace('\'', "''"));
        let sql = format!(
            "INSERT INTO users (id, name, house, created_at, name_key) VALUES ({}, {}, {}, {}, {})",
            quoted(id),
            quoted(name),
            if house { "TRUE" } else { "FALSE" },
            quoted(created_at),
            key.map_or("NULL".to_owned(), quoted),
        );
        let done = match &self.url {
            lounge::store::DatabaseUrl::Postgres(url) => diesel::sql_query(sql)
                .execute(&mut diesel::PgConnection::establish(url).expect("PostgreSQL")),
            lounge::store::DatabaseUrl::Sqlite(path) => diesel::sql_query(sql).execute(
                &mut diesel::SqliteConnection::establish(&path.to_string_lossy()).expect("SQLite"),
            ),
        };
        assert_eq!(done.expect("a user stored without a key"), 1);
    }
}
