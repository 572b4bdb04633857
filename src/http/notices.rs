//! What the other instances say that this one's connections and ban list must know at once
//! (`world::Notice`): a user's newer connection there, a ban or its lifting, an invitation
//! home for a guest whose connection may be here.

use actix_web::web;
use chrono::DateTime;
use tokio::sync::broadcast::error::RecvError;

use crate::world::protocol::Frame;
use crate::world::{Heard, Notice};

use super::connections::Closing;
use super::AppState;

/// Applies the other instances' notices for as long as the service runs; nothing with one
/// instance alone.
pub fn listen(state: web::Data<AppState>) {
    let Some(mut heard) = state.world.notices() else {
        return;
    };
    actix_web::rt::spawn(async move {
        loop {
            match heard.recv().await {
                Ok(Heard { from, notice }) => take(&state, &from, notice).await,
                Err(RecvError::Lagged(skipped)) => {
                    tracing::warn!(skipped, "hotel notices skipped: too many at once");
                }
                Err(RecvError::Closed) => return,
            }
        }
    });
}

async fn take(state: &AppState, from: &str, notice: Notice) {
    match notice {
        Notice::Connected { user, req } => {
            // As a second connection here would: those in no room are told and close; the
            // one in a room is let go by the room when the new one enters it there.
            let present = state.world.present(&user);
            let in_room = present.as_ref().map(|(_, conn)| *conn);
            state
                .connections
                .close_user(&user, in_room, Closing::Replaced);
            let room = present.map(|(room, _)| room);
            let body = serde_json::to_value(room).unwrap_or_default();
            state.world.answer_hotel(from, req, body).await;
        }
        Notice::Banned {
            user,
            reason,
            until,
        } => {
            let until = until
                .and_then(DateTime::from_timestamp_millis)
                .map(|t| t.naive_utc());
            state.banlist.set(&user, &reason, until);
            state
                .connections
                .close_user(&user, None, Closing::Banned(reason));
        }
        Notice::BanLifted { user } => state.banlist.lift(&user),
        Notice::Reach { user, frame, req } => {
            let reached = match frame {
                Some(frame) => state.connections.send_to_user(&user, &Frame::from(frame)),
                None => state.connections.of_user(&user),
            };
            state.world.answer_hotel(from, req, reached.into()).await;
        }
        Notice::Whereabouts { users, req } => {
            let here = whereabouts_here(state, &users);
            let body = serde_json::to_value(here).unwrap_or_default();
            state.world.answer_hotel(from, req, body).await;
        }
        Notice::Muted { .. } | Notice::Blocked { .. } | Notice::HandedOn { .. } => {}
    }
}

/// Which of `users` have a connection here, each with the room it is in (if any).
pub fn whereabouts_here(
    state: &AppState,
    users: &[crate::common::UserId],
) -> Vec<(crate::common::UserId, Option<crate::common::RoomId>)> {
    users
        .iter()
        .filter(|user| state.connections.of_user(user) > 0)
        .map(|user| (user.clone(), state.world.room_of(user)))
        .collect()
}
