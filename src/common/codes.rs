//! Every error code the service sends, over HTTP (`{"error": {"code", "message"}}`) and over
//! the WebSocket (`{"type": "error", "code", "message", "ref"}`): one list, in one place.
//! `docs/protocol.md` lists them from here (a test checks it names every one).

use std::fmt;

macro_rules! error_codes {
    ($($(#[doc = $doc:literal])+ $variant:ident => $word:literal,)+) => {
        /// A stable, machine-readable reason for a refusal.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum ErrorCode {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl ErrorCode {
            /// Every code, in the order documented.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)+];

            /// The code as it goes on the wire.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $word,)+
                }
            }

            /// What the code means, as documented here.
            pub fn meaning(self) -> String {
                match self {
                    $(ErrorCode::$variant => [$($doc),+].iter().map(|l| l.trim()).collect::<Vec<_>>().join(" "),)+
                }
            }
        }
    };
}

error_codes! {
    // Frames and requests that cannot be read.
    /// A WebSocket frame is not one JSON object (or is binary).
    BadJson => "bad_json",
    /// A WebSocket message lacks its `type` or a field, or a field has the wrong shape.
    BadMessage => "bad_message",
    /// A WebSocket message has a `type` the protocol does not know.
    UnknownType => "unknown_type",
    /// Too many WebSocket messages a second (50 of these within 10 s close the connection
    /// with 1008), or too many sign-ups from one address (HTTP 429 with `Retry-After`).
    RateLimited => "rate_limited",
    /// Too many WebSocket connections open from one address.
    TooManyConnections => "too_many_connections",
    /// An HTTP body or query string that cannot be read.
    BadRequest => "bad_request",
    /// An HTTP body that did not arrive whole within `server.body_timeout_secs` (408); the
    /// connection is closed.
    RequestTimeout => "request_timeout",
    /// An HTTP input field is wrong; `field` names it.
    InvalidField => "invalid_field",
    /// A display name that is not allowed.
    InvalidName => "invalid_name",
    /// A guest already has that name, or one that looks the same.
    NameTaken => "name_taken",
    /// The name is the hotel's own (Baba Ayo's), or looks the same as it.
    NameReserved => "name_reserved",
    /// `/ws` was asked without a WebSocket upgrade.
    NotWebsocket => "not_websocket",

    // Who may ask.
    /// No valid token.
    Unauthorized => "unauthorized",
    /// A valid token that may not do this.
    Forbidden => "forbidden",
    /// The access token has expired: refresh it (`POST /api/v1/auth/refresh`) or sign in again.
    TokenExpired => "token_expired",
    /// The refresh credential is unknown, expired, or its device was signed out: sign in again.
    RefreshInvalid => "refresh_invalid",
    /// The refresh credential was used before: its device is signed out (someone else may
    /// hold a copy); sign in again.
    RefreshReused => "refresh_reused",
    /// Sign-in with a name and password, or with a hotel token, failed (one answer for an
    /// unknown name and a wrong password).
    SignInFailed => "sign_in_failed",
    /// The guest is banned (the message says why, and until when).
    Banned => "banned",
    /// Nothing there by that id.
    NotFound => "not_found",
    /// The service cannot answer now (its database is unreachable, or a room is moving
    /// between instances); try again.
    Unavailable => "unavailable",
    /// Something went wrong on our side; nothing was changed, try again.
    Internal => "internal",
    /// The room is now run by another instance of the service (several instances): nothing
    /// of the command was done; the connection closes next, and reconnecting (with `since`)
    /// brings one back to the room where it runs now.
    RoomMoved => "room_moved",
    /// It already exists.
    Conflict => "conflict",

    // Rooms.
    /// There is no room by that id.
    NoSuchRoom => "no_such_room",
    /// An apartment whose door lets in invited guests only.
    DoorClosed => "door_closed",
    /// The room is closing: no new game starts and nobody new comes in.
    RoomClosing => "room_closing",
    /// An operator made a room with an id already taken.
    RoomExists => "room_exists",
    /// A talk room has no tables.
    TalkRoom => "talk_room",
    /// An apartment is its owner's: operators neither close it nor add tables to it.
    Apartment => "apartment",
    /// Only someone in this room can be invited.
    NotInRoom => "not_in_room",
    /// A chat line is empty or too long.
    BadChat => "bad_chat",
    // Civility.
    /// A chat line too soon in slow mode (the room's own, when its chat is too busy); `until` says when.
    SlowMode => "slow_mode",
    /// Too many invitations to one guest in a minute; `until` says when the next may go. Or
    /// too many invitations home from one owner in a minute (HTTP 429 with `Retry-After`).
    TooManyInvitations => "too_many_invitations",
    /// An operator muted the guest: no chat line in any room until `until`.
    Muted => "muted",
    /// An operator put the guest out of this room: not back in before `until`.
    Barred => "barred",
    /// A guest blocks 500 others at most.
    TooManyBlocks => "too_many_blocks",
    /// A guest follows 500 others at most.
    TooManyFollowing => "too_many_following",
    /// One of two guests blocks the other: the one cannot follow the other.
    Blocked => "blocked",

    // Tables and seats.
    /// There is no table by that id in this room.
    NoSuchTable => "no_such_table",
    /// The table is in use: nobody may sit there, or change or take it away, for now.
    TableBusy => "table_busy",
    /// The player already has a seat in this room.
    AlreadySeated => "already_seated",
    /// The seat is taken.
    SeatTaken => "seat_taken",
    /// The player has no seat there (or is not playing there).
    NotSeated => "not_seated",
    /// A game or match is in play at the table; over HTTP (409), the record of a game not
    /// over yet was asked for.
    GameInPlay => "game_in_play",
    /// Match settings out of range: the message says which are allowed.
    BadSettings => "bad_settings",
    /// The table has no queue (a home board's is off unless its owner turns it on).
    QueueOff => "queue_off",
    /// A table's queue holds 32 guests at most.
    QueueFull => "queue_full",
    /// Joining a tournament that is over (HTTP 409).
    TournamentOver => "tournament_over",
    /// Joining a tournament open only to those invited, uninvited (HTTP 409).
    NotInvited => "not_invited",
    /// `unqueue` from a guest not in that table's queue.
    NotQueued => "not_queued",
    /// Guests are waiting in the table's queue: its seats go to them first (join the queue).
    QueueFirst => "queue_first",
    /// An apartment holds that many boards at most.
    TooManyBoards => "too_many_boards",
    /// The item is not an Ayo board.
    NotABoard => "not_a_board",
    /// The board is already placed.
    BoardPlaced => "board_placed",

    // Invitations.
    /// An invitation that cannot be sent (to oneself, or at a table already holding 16 open
    /// ones).
    BadInvitation => "bad_invitation",
    /// No invitation by that id is open for this user.
    NoSuchInvitation => "no_such_invitation",
    /// The one who invited has left the table.
    InvitationVoid => "invitation_void",

    // The pool (play someone now).
    /// The guest let a pairing go and may not seek again yet: the message says how long,
    /// `until` when.
    SeekCooldown => "seek_cooldown",
    /// The guest has a pairing open: answer it first.
    PairingOpen => "pairing_open",
    /// No pairing by that id is open for this guest (it may have ended).
    NoSuchPairing => "no_such_pairing",

    // Play.
    /// No game (or match) is in play at the table.
    NoGame => "no_game",
    /// It is the other side's turn.
    NotYourTurn => "not_your_turn",
    /// The move is not legal here; the message says why.
    IllegalMove => "illegal_move",
    /// The player's time ran out before the move came.
    TimeOut => "time_out",
    /// The move was sent for an older version of the table; the current table follows.
    StaleVersion => "stale_version",
    /// `start` while a game of the match is in play.
    NotBetweenGames => "not_between_games",
    /// No draw offer from the opponent to answer.
    NoDrawOffer => "no_draw_offer",
    /// The player's draw offer is still waiting for its answer.
    DrawPending => "draw_pending",
    /// A draw offered again before a move was made since the last one was declined.
    DrawTooSoon => "draw_too_soon",
    /// No rematch on offer at the table for this player.
    NoRematch => "no_rematch",
    /// Berserk is not allowed: not a tournament game that allows it, not before one's first
    /// move, already done, or not under a clock for the whole game.
    NoBerserk => "no_berserk",
    /// The rematch is off: a player left or sat elsewhere.
    RematchVoid => "rematch_void",

    // Reviews.
    /// The guest has asked for all the reviews a hotel day allows (HTTP 429 with
    /// `Retry-After`, the seconds to the next day).
    NoReviewsLeft => "no_reviews_left",
    // The shop.
    /// The item is not on sale.
    NotOnSale => "not_on_sale",
    /// The item is sold out.
    OutOfStock => "out_of_stock",
    /// Not enough coins.
    InsufficientCoins => "insufficient_coins",
    /// An idempotency key used before for another purchase.
    IdempotencyKeyReused => "idempotency_key_reused",
    /// An operator made an item with an id already taken.
    ItemExists => "item_exists",
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorCode;

    #[test]
    fn codes_are_unique_and_serialize_as_their_word() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "{code} twice");
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                serde_json::Value::from(code.as_str())
            );
            assert!(!code.meaning().is_empty());
        }
    }

    #[test]
    fn the_protocol_document_lists_every_code() {
        let doc = include_str!("../../docs/protocol.md");
        let missing: Vec<&str> = ErrorCode::ALL
            .iter()
            .map(|c| c.as_str())
            .filter(|c| !doc.contains(&format!("`{c}`")))
            .collect();
        assert!(missing.is_empty(), "docs/protocol.md lacks {missing:?}");
    }
}
