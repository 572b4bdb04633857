//! Whose turn it is, among instances sharing one PostgreSQL database, to run a reader of the
//! results (`cursors.rs`; the champions wall is reader "wall"): a session-level advisory lock
//! (`pg_try_advisory_lock`) a reader, on a connection of its own, kept between turns. A turn needs no lease of its own: an instance that dies mid-turn
//! closes its session, which lets the lock go. SQLite has one process: its turn is always.

use std::sync::{Arc, Mutex};

use diesel::prelude::*;

use super::{Store, StoreError};

/// The first key of a reader's advisory lock, the second its name's `hashtext`: the two-key
/// form, which never meets the one-key locks (the results' pairs and appends).
const READERS: i32 = 0x7265_6164;

/// The session that takes the readers' turns (PostgreSQL only).
#[derive(Clone, Default)]
pub(super) struct Turns {
    session: Arc<Mutex<Option<diesel::PgConnection>>>,
}

#[derive(QueryableByName)]
struct Taken {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    taken: bool,
}

impl Store {
    /// Takes `reader`'s turn: false while another instance runs it. Blocks on the database;
    /// `end_turn` gives it back.
    pub fn take_turn(&self, reader: &str) -> Result<bool, StoreError> {
        let Some(url) = &self.postgres_url else {
            return Ok(true);
        };
        let mut session = self.turns.session.lock().unwrap_or_else(|e| e.into_inner());
        if session.is_none() {
            let conn = diesel::PgConnection::establish(url).map_err(StoreError::Connect)?;
            *session = Some(conn);
        }
        let conn = session.as_mut().expect("established above");
        let taken = diesel::sql_query("SELECT pg_try_advisory_lock($1, hashtext($2)) AS taken")
            .bind::<diesel::sql_types::Integer, _>(READERS)
            .bind::<diesel::sql_types::Text, _>(reader)
            .get_result::<Taken>(conn);
        match taken {
            Ok(Taken { taken }) => Ok(taken),
            Err(e) => {
                // A session that failed may be gone: the next turn opens another.
                *session = None;
                Err(e.into())
            }
        }
    }

    /// Gives `reader`'s turn back; a session that cannot say so is closed, which does (and
    /// gives back every turn it held).
    pub fn end_turn(&self, reader: &str) {
        let mut session = self.turns.session.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(conn) = session.as_mut() {
            let unlocked = diesel::sql_query("SELECT pg_advisory_unlock($1, hashtext($2))")
                .bind::<diesel::sql_types::Integer, _>(READERS)
                .bind::<diesel::sql_types::Text, _>(reader)
                .execute(conn);
            if unlocked.is_err() {
                *session = None;
            }
        }
    }
}
