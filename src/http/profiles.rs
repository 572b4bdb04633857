//! A player's profile: ratings, record, recent games, and the viewer's head-to-head with
//! them. Public, like the history; a player token, when sent, adds the head-to-head.

use actix_web::{get, web, HttpRequest, HttpResponse};
use chrono::NaiveDateTime;
use serde::Serialize;
use utoipa::ToSchema;

use super::error::{ApiError, ErrorBody};
use super::AppState;
use crate::common::{GameId, MatchId, UserId};
use crate::ratings::{Family, Rating};
use crate::store::{blocking, PlayedBy, RatingRow, Tally};
use crate::world::User;

/// Recent games a profile shows.
const RECENT: i64 = 10;

/// A rating in one rule family.
#[derive(Serialize, ToSchema)]
struct FamilyRating {
    /// `abapa` (lagos, kontest, oware and rules like them) or `ayoayo`.
    family: String,
    rating: f64,
    deviation: f64,
    /// Rated games played in the family.
    games: i32,
    /// The deviation is still at or above `ratings.provisional_deviation`: shown with "?".
    provisional: bool,
    /// As shown: the rating rounded, with "?" when provisional (`"1662?"`).
    shown: String,
}

/// What a rated game changed of the player's rating.
#[derive(Serialize, ToSchema)]
struct Change {
    family: String,
    before: f64,
    after: f64,
    /// `after - before`.
    change: f64,
}

/// A game the player finished.
#[derive(Serialize, ToSchema)]
struct RecentGame {
    #[schema(value_type = String)]
    game: GameId,
    #[schema(value_type = Option<String>)]
    r#match: Option<MatchId>,
    #[schema(value_type = Object)]
    opponent: User,
    /// `won`, `lost` or `draw`, the player's.
    result: String,
    #[schema(value_type = Option<String>, format = DateTime)]
    #[serde(serialize_with = "crate::store::utc_opt")]
    ended_at: Option<NaiveDateTime>,
    /// `null` when the game was not rated.
    rating: Option<Change>,
}

/// Games over: won, drawn, lost.
#[derive(Serialize, ToSchema)]
struct RecordBody {
    won: u32,
    drawn: u32,
    lost: u32,
}

/// The viewer against this player.
#[derive(Serialize, ToSchema)]
struct ViewerHeadToHead {
    /// `won` is the viewer's wins, then this player's.
    matches: Tally,
    games: Tally,
}

#[derive(Serialize, ToSchema)]
struct Profile {
    #[schema(value_type = Object)]
    user: User,
    /// One a family the player has played rated games of.
    ratings: Vec<FamilyRating>,
    record: RecordBody,
    /// Newest first.
    recent: Vec<RecentGame>,
    /// With a player token of someone else; `null` otherwise.
    head_to_head: Option<ViewerHeadToHead>,
}

fn family_rating(row: RatingRow, state: &AppState) -> FamilyRating {
    let provisional = state.ratings.rules().provisional(&Rating {
        rating: row.rating,
        deviation: row.deviation,
        volatility: row.volatility,
    });
    let family = Family::from_word(&row.family).map_or(row.family.clone(), |f| f.word().into());
    FamilyRating {
        shown: crate::ratings::shown(&state.ratings.rules(), &row),
        family,
        rating: row.rating,
        deviation: row.deviation,
        games: row.games,
        provisional,
    }
}

fn recent(played: PlayedBy, me: &UserId) -> RecentGame {
    use crate::ayo::Status;
    let south = played.game.south_id == *me;
    let result = match played.game.status {
        Status::SouthWon if south => "won",
        Status::NorthWon if !south => "won",
        Status::Draw | Status::Playing => "draw",
        Status::SouthWon | Status::NorthWon => "lost",
    };
    RecentGame {
        game: played.game.id,
        r#match: played.game.match_id,
        opponent: played.opponent.user(),
        result: result.to_owned(),
        ended_at: played.game.ended_at,
        rating: played.change.map(|c| Change {
            family: c.family,
            before: c.before_rating,
            after: c.after_rating,
            change: c.after_rating - c.before_rating,
        }),
    }
}

/// A player's profile: ratings, record, recent games and, for a signed-in viewer, their
/// head-to-head.
///
/// Public; a player token (`Authorization: Bearer`) is optional, and a token that is not
/// valid is ignored. `{"user": {"id", "name", "house"}, "ratings": [{"family", "rating",
/// "deviation", "games", "provisional", "shown"}], "record": {"won", "drawn", "lost"},
/// "recent": [{"game", "match", "opponent", "result": "won" | "lost" | "draw", "ended_at",
/// "rating": {"family", "before", "after", "change"} | null}], "head_to_head": {"matches",
/// "games"} | null}`. `ratings` has a family once the player has played a rated game of it
/// (Glicko-2; `provisional` while the deviation is at or above
/// `ratings.provisional_deviation`, and `shown` then ends in "?"). `recent` is the last ten
/// games over, newest first. `head_to_head` is the viewer's record against this player
/// (`won`: the viewer's, then the player's), with a valid player token of someone else. 404
/// for an unknown user.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "a user id")),
    responses((status = 200, body = Profile), (status = 404, body = ErrorBody))
)]
#[get("/users/{id}")]
pub async fn profile(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<UserId>,
) -> Result<HttpResponse, ApiError> {
    let (store, id) = (state.store.clone(), path.into_inner());
    let row = {
        let (store, id) = (store.clone(), id.clone());
        blocking(move || store.user(&id)).await?
    }
    .ok_or_else(|| ApiError::NotFound("no such user".into()))?;
    // A viewer's token is optional: any that is not a valid player's is no viewer.
    let viewer = super::auth::player(&req)
        .await
        .ok()
        .map(|p| p.id)
        .filter(|v| *v != id);
    let (ratings, record, played, head_to_head) = blocking(move || {
        let ratings = store.ratings_of(&id)?;
        let record = store.record_of(&id)?;
        let played = store.games_played_by(&id, RECENT)?;
        let head_to_head = viewer.map(|v| store.head_to_head(&v, &id)).transpose()?;
        Ok::<_, crate::store::StoreError>((ratings, record, played, head_to_head))
    })
    .await?;
    Ok(HttpResponse::Ok().json(Profile {
        user: row.user(),
        ratings: ratings
            .into_iter()
            .map(|r| family_rating(r, &state))
            .collect(),
        record: RecordBody {
            won: record.won,
            drawn: record.drawn,
            lost: record.lost,
        },
        recent: played.into_iter().map(|p| recent(p, &row.id)).collect(),
        head_to_head: head_to_head.map(|(matches, games)| ViewerHeadToHead { matches, games }),
    }))
}
