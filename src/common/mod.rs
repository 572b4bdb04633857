//! Small types every layer shares and that depend on nothing of ours: ids, users, the
//! server's clock, token buckets, the hotel's day and the one list of error codes. A leaf: nothing here
//! imports from the rest of the crate.

pub mod activity;
pub mod bucket;
pub mod clock;
pub mod codes;
pub mod day;
pub mod ids;
pub mod kinds;
pub mod user;

pub use activity::Activity;
pub use bucket::{Bucket, Buckets};
pub use clock::ServerClock;
pub use codes::ErrorCode;
pub use day::HotelDay;
pub use ids::{
    GameId, InvitationId, ItemId, MatchId, OperatorName, PairingId, RoomId, TableId, TournamentId,
    UserId,
};
pub use kinds::{Door, RoomKind, Seating, UnknownSeating};
pub use user::{name_key, NameError, ShownRatings, User, UserName};
