//! `/api/v1/games/{id}/review`: Baba Ayo's review of a finished game, asked for and read.

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use chrono::NaiveDateTime;
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::{self, Subject};
use super::error::{ApiError, ErrorBody};
use super::AppState;
use crate::ayo::review::{MoveReview, BLUNDER, INACCURACY, MISTAKE};
use crate::common::{ErrorCode, GameId};
use crate::reviews::{Answer, Review, ReviewsError, Who};
use crate::store::ReviewStatus;

/// The seeds from which a move is marked.
#[derive(Serialize, ToSchema)]
struct Thresholds {
    inaccuracy: i32,
    mistake: i32,
    blunder: i32,
}

const THRESHOLDS: Thresholds = Thresholds {
    inaccuracy: INACCURACY,
    mistake: MISTAKE,
    blunder: BLUNDER,
};

/// A review as served.
#[derive(Serialize, ToSchema)]
struct ReviewBody {
    #[schema(value_type = String)]
    game: GameId,
    /// `waiting`, `done` or `failed`.
    #[schema(value_type = String)]
    status: ReviewStatus,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "crate::store::utc")]
    asked_at: NaiveDateTime,
    #[schema(value_type = Option<String>, format = DateTime)]
    #[serde(serialize_with = "crate::store::utc_opt")]
    done_at: Option<NaiveDateTime>,
    /// Baba Ayo's time for the whole game, in milliseconds.
    budget_ms: i64,
    /// Once done: each move, for the side that played it (`ply` from 1, `side`, `played` and
    /// `best` pits 1-6 along the mover's row, `best` only where it was another move, `before`
    /// and `after` the values in seeds, `loss`, `exact`, `mark`).
    #[schema(value_type = Option<Vec<Object>>)]
    moves: Option<Vec<MoveReview>>,
    /// Once done: positions whose value was proven.
    exact: Option<usize>,
    /// Once failed: why.
    error: Option<String>,
    thresholds: Thresholds,
}

impl From<Review> for ReviewBody {
    fn from(r: Review) -> ReviewBody {
        let error = match r.row.status {
            ReviewStatus::Failed => r.row.body.clone(),
            _ => None,
        };
        ReviewBody {
            game: r.row.game_id,
            status: r.row.status,
            asked_at: r.row.asked_at,
            done_at: r.row.done_at,
            budget_ms: r.row.budget_ms,
            exact: r.weighing.as_ref().map(|w| w.exact),
            moves: r.weighing.map(|w| w.moves),
            error,
            thresholds: THRESHOLDS,
        }
    }
}

impl From<ReviewsError> for ApiError {
    fn from(e: ReviewsError) -> ApiError {
        let message = e.to_string();
        match e {
            ReviewsError::NoSuchGame => ApiError::NotFound(message),
            ReviewsError::InPlay => ApiError::conflict(ErrorCode::GameInPlay, message),
            ReviewsError::NoneLeft { retry_after, .. } => ApiError::TooMany {
                code: ErrorCode::NoReviewsLeft,
                message,
                retry_after: Some(retry_after),
            },
            ReviewsError::Store(e) => e.into(),
        }
    }
}

/// Asks Baba Ayo to review a finished game.
///
/// Needs a player or an admin token. A game is reviewed once: asking again, by anyone, answers
/// the review there is (200) and uses nothing of the allowance. A new review (202) waits its
/// turn and is worked when no game in play needs the cores: read it with `GET`. Each guest may
/// ask for `house.reviews_per_day` new reviews a hotel day (5 unless configured); operators
/// have no allowance. Answers the review as `GET` does. 404: no such game; 409
/// `game_in_play`; 429 `no_reviews_left`, with `Retry-After` (seconds to the next hotel day).
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "a game id")),
    responses(
        (status = 200, description = "asked for before", body = ReviewBody),
        (status = 202, description = "asked for now: waiting", body = ReviewBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "game_in_play", body = ErrorBody),
        (status = 429, description = "no_reviews_left", body = ErrorBody),
    )
)]
#[post("/games/{id}/review")]
pub async fn ask(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let who = match auth::subject(&req).await? {
        Subject::Player(id) => Who::Guest(id),
        Subject::Operator(_) => Who::Operator,
    };
    Ok(match state.reviews.ask(&path, who).await? {
        Answer::Known(review) => HttpResponse::Ok().json(ReviewBody::from(review)),
        Answer::Queued(review) => HttpResponse::Accepted().json(ReviewBody::from(review)),
    })
}

/// How long to wait for a review that waits its turn.
#[derive(serde::Deserialize, utoipa::IntoParams)]
pub struct Wait {
    /// Seconds, 0 to 60 (0 when absent): answered as soon as the review is done or failed, or
    /// when the time is up.
    #[param(value_type = Option<u32>)]
    wait: Option<String>,
}

/// The longest a reader may wait for a review.
const MOST_WAIT_SECS: u64 = 60;

/// Baba Ayo's review of a game.
///
/// Public. With `wait` (seconds, up to 60), a review still waiting is answered once it ends or
/// the time is up, whichever comes first. `{"game", "status": "waiting" | "done" | "failed", "asked_at", "done_at",
/// "budget_ms", "moves", "exact", "error", "thresholds": {"inaccuracy", "mistake",
/// "blunder"}}`. Once done, `moves` has each move for the side that played it: `{"ply",
/// "side", "played", "best", "before", "after", "loss", "exact", "mark"}`, pits 1-6 along the
/// mover's row, `best` only where Baba Ayo would have played another, `before` the position's
/// value with his best move and `after` its value after the move played, both in seeds of
/// margin at the game's end, `loss` what the move gave away (0 or more), `exact` both values
/// proven (an endgame database, or searched to the end), `mark` `inaccuracy` (a loss of 2
/// seeds or more), `mistake` (4) or `blunder` (8) where a better move was there. 404: no
/// review of that game was asked for.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "a game id"), Wait),
    responses((status = 200, body = ReviewBody), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody))
)]
#[get("/games/{id}/review")]
pub async fn get(
    state: web::Data<AppState>,
    path: web::Path<GameId>,
    query: web::Query<Wait>,
) -> Result<HttpResponse, ApiError> {
    let wait = match query.wait.as_deref() {
        None => 0,
        Some(w) => w
            .parse::<u64>()
            .ok()
            .filter(|&w| w <= MOST_WAIT_SECS)
            .ok_or_else(|| ApiError::invalid("wait", "seconds, 0 to 60"))?,
    };
    let found = state
        .reviews
        .get_when_ended(&path, std::time::Duration::from_secs(wait))
        .await?;
    match found {
        Some(review) => Ok(HttpResponse::Ok().json(ReviewBody::from(review))),
        None => Err(ApiError::NotFound(
            "no review of that game has been asked for".into(),
        )),
    }
}
