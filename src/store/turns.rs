//! Whose turn it is, among instances sharing one PostgreSQL database, to drain the champions'
//! outbox: a session-level advisory lock (`pg_try_advisory_lock`) on a connection of its own,
//! kept between turns. A turn needs no lease of its own: an instance that dies mid-turn
//! closes its session, which lets the lock go. SQLite has one process: its turn is always.

use std::sync::{Arc, Mutex};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;

use super::{Store, StoreError};

/// The advisory lock of the champions' outbox ("wall").
const OUTBOX_LOCK: i64 = 0x7761_6c6c;

/// The session that takes the outbox's turn (PostgreSQL only).
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
    /// Takes the outbox's turn: false while another instance drains it. Blocks on the
    /// database; `end_outbox_turn` gives it back.
    pub fn take_outbox_turn(&self) -> Result<bool, StoreError> {
        let Some(url) = &self.postgres_url else {
            return Ok(true);
        };
        let mut session = self.turns.session.lock().unwrap_or_else(|e| e.into_inner());
        if session.is_none() {
            let conn = diesel::PgConnection::establish(url).map_err(StoreError::Connect)?;
            *session = Some(conn);
        }
        let conn = session.as_mut().expect("established above");
        let taken = diesel::sql_query("SELECT pg_try_advisory_lock($1) AS taken")
            .bind::<diesel::sql_types::BigInt, _>(OUTBOX_LOCK)
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

    /// Gives the outbox's turn back; a session that cannot say so is closed, which does.
    pub fn end_outbox_turn(&self) {
        let mut session = self.turns.session.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(conn) = session.as_mut() {
            let unlock = format!("SELECT pg_advisory_unlock({OUTBOX_LOCK})");
            if conn.batch_execute(&unlock).is_err() {
                *session = None;
            }
        }
    }
}
