//! Ids as types: a table id cannot be passed where a user id is wanted. Each is a string on
//! the wire (`#[serde(transparent)]`) and in the database (a `Text` column). None is made
//! from a bare `&str` by conversion, nor compared with one: a string becomes an id where it
//! comes in (a path, a body, a row, a token) and stays one.

use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(
            Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
            serde::Serialize, serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            pub fn new(id: impl Into<String>) -> $name {
                $name(id.into())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> $name {
                $name(id)
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

id_type!(
    /// A lounge user: a guest, an admin's subject, or one of Baba Ayo's levels.
    UserId
);
id_type!(
    /// A room: the lounge, a talk room, or `apartment-<owner>`.
    RoomId
);
id_type!(
    /// An Ayo table in a room.
    TableId
);
id_type!(
    /// One game at a table.
    GameId
);
id_type!(
    /// A match: a series of games between two players at one table.
    MatchId
);
id_type!(
    /// An invitation to sit opposite someone.
    InvitationId
);
id_type!(
    /// Two guests of a room's pool offered a game together.
    PairingId
);
id_type!(
    /// A shop item, or an owned board.
    ItemId
);
id_type!(
    /// An arena tournament an operator scheduled in a room.
    TournamentId
);
id_type!(
    /// An operator: whom an admin token speaks for (its `sub`), named in what they did.
    OperatorName
);

impl GameId {
    /// A new random id.
    pub fn random() -> GameId {
        GameId(uuid::Uuid::new_v4().simple().to_string())
    }
}

impl InvitationId {
    /// A new random id.
    pub fn random() -> InvitationId {
        InvitationId(uuid::Uuid::new_v4().simple().to_string())
    }
}

impl TournamentId {
    /// A new id that sorts in the order ids were made (UUIDv7).
    pub fn ordered() -> TournamentId {
        TournamentId(uuid::Uuid::now_v7().simple().to_string())
    }
}

impl PairingId {
    /// A new random id.
    pub fn random() -> PairingId {
        PairingId(uuid::Uuid::new_v4().simple().to_string())
    }
}

impl MatchId {
    /// A new id that sorts in the order ids were made (UUIDv7): matches list in order.
    pub fn ordered() -> MatchId {
        MatchId(uuid::Uuid::now_v7().simple().to_string())
    }
}
