//! An arena tournament as the `tournament` message and the HTTP API show it.

use serde::Serialize;

use crate::common::{RoomId, TableId, User};

/// An arena tournament as the `tournament` message and the HTTP API show it (an addition).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct TournamentView {
    #[schema(value_type = String)]
    pub id: crate::common::TournamentId,
    pub name: String,
    #[schema(value_type = String)]
    pub room: RoomId,
    /// Server milliseconds.
    pub starts_at: u64,
    pub ends_at: u64,
    /// `upcoming`, `running`, `ending` (past its end, games in play finishing), `finished`.
    pub status: String,
    #[schema(value_type = Object)]
    pub rules: crate::ayo::Rules,
    pub clock: String,
    #[schema(value_type = Vec<String>)]
    pub tables: Vec<TableId>,
    pub rated: bool,
    pub invited_only: bool,
    /// Its players may go berserk.
    pub berserk: bool,
    /// Players in it now (not those who left).
    pub players: usize,
    /// The best ten, best first.
    pub standings: Vec<TournamentStanding>,
    /// Once finished: the best score (the first to join of those level).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub winner: Option<User>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct TournamentStanding {
    #[schema(value_type = Object)]
    pub user: User,
    pub score: i32,
    /// Two or more: the next game's points are doubled.
    pub wins_in_a_row: i32,
    pub games: i32,
}
