//! WebSocket tickets: `POST /api/v1/auth/ws-ticket` trades a player token for a ticket that
//! `GET /ws?ticket=…` takes once, so no token sits in a URL (a browser prints a failed
//! WebSocket's URL, query string and all, in its console at every reconnection).
//!
//! A ticket is 256 random bits (base64url), valid `auth.ws_ticket_secs` (30 s), kept only as
//! its SHA-256: in this process for one instance alone, in Redis when several share the
//! hotel (a balancer may send the socket to any of them; `GETDEL` spends it once, wherever).
//! A user holds a few at most: issuing more evicts their oldest; expired ones are swept as
//! new ones are issued (in Redis, they expire by themselves).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use actix_web::{post, web, HttpRequest, HttpResponse};
use redis::aio::ConnectionManager;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::AppState;
use crate::common::{ShownRatings, User, UserId};

/// Tickets one user holds at most.
pub const PER_USER: usize = 4;
/// Tickets held past which the expired ones are swept out.
const SWEEP_AT: usize = 1024;

type Hash = [u8; 32];

/// The tickets issued and not yet spent.
pub struct WsTickets {
    ttl: Duration,
    inner: Mutex<Inner>,
    /// Several instances: the tickets are in Redis, under this prefix.
    shared: Option<(ConnectionManager, String)>,
}

/// A ticket as Redis keeps it, under its hash.
#[derive(Serialize, Deserialize)]
struct Kept {
    user: UserId,
    device: Option<String>,
    expires_ms: u64,
}

#[derive(Default)]
struct Inner {
    tickets: HashMap<Hash, Ticket>,
    /// Each user's tickets, oldest first.
    of_user: HashMap<UserId, VecDeque<Hash>>,
}

struct Ticket {
    user: UserId,
    /// The device of the token it was made from.
    device: Option<String>,
    expires_ms: u64,
}

/// Why a ticket did not let anyone in (401 `unauthorized`, before the upgrade).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TicketRefused {
    #[error("the ticket is not valid: it was used already or never issued; ask for another")]
    Unknown,
    #[error("the ticket has expired: ask for another")]
    Expired,
    /// Several instances, and Redis does not answer.
    #[error("tickets cannot be checked now; try again in a moment")]
    Unavailable,
}

impl WsTickets {
    /// Tickets kept in this process.
    pub fn new(ttl: Duration) -> WsTickets {
        WsTickets {
            ttl,
            inner: Mutex::default(),
            shared: None,
        }
    }

    /// Tickets kept in Redis under `prefix`, good on every instance.
    pub fn shared(ttl: Duration, conn: ConnectionManager, prefix: &str) -> WsTickets {
        WsTickets {
            shared: Some((conn, prefix.to_owned())),
            ..WsTickets::new(ttl)
        }
    }

    fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }

    /// A new ticket for `user` on `device`, valid from `now_ms` for the configured time.
    pub async fn issue(
        &self,
        user: &UserId,
        device: Option<&str>,
        now_ms: u64,
    ) -> Result<String, ApiError> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| ApiError::Internal(format!("randomness: {e}")))?;
        let ticket = base64url(&bytes);
        let hash = hash_of(&ticket);
        let Some((conn, prefix)) = &self.shared else {
            self.keep(hash, user, device, now_ms);
            return Ok(ticket);
        };
        let kept = Kept {
            user: user.clone(),
            device: device.map(str::to_owned),
            expires_ms: now_ms.saturating_add(self.ttl_ms()),
        };
        let value = serde_json::to_string(&kept).map_err(|e| ApiError::Internal(e.to_string()))?;
        let (key, list) = (ticket_key(prefix, &hash), list_key(prefix, user));
        crate::metrics::METRICS.redis_round_trips.inc();
        // Redis forgets it a second after it expires here (the server's clock decides).
        let (evicted,): (Vec<String>,) = redis::pipe()
            .cmd("SET")
            .arg(&key)
            .arg(value)
            .arg("PX")
            .arg(self.ttl_ms().saturating_add(1_000))
            .ignore()
            .cmd("LPUSH")
            .arg(&list)
            .arg(hex::encode(hash))
            .ignore()
            .cmd("LRANGE")
            .arg(&list)
            .arg(PER_USER)
            .arg(-1)
            .cmd("LTRIM")
            .arg(&list)
            .arg(0)
            .arg(PER_USER - 1)
            .ignore()
            .cmd("PEXPIRE")
            .arg(&list)
            .arg(self.ttl_ms().saturating_add(1_000))
            .ignore()
            .query_async(&mut conn.clone())
            .await
            .map_err(unavailable)?;
        if !evicted.is_empty() {
            let keys: Vec<String> = evicted
                .iter()
                .map(|h| format!("{prefix}ticket:{h}"))
                .collect();
            crate::metrics::METRICS.redis_round_trips.inc();
            let _: () = redis::cmd("DEL")
                .arg(keys)
                .query_async(&mut conn.clone())
                .await
                .map_err(unavailable)?;
        }
        Ok(ticket)
    }

    /// Spends `ticket`: its user and device, once.
    pub async fn spend(
        &self,
        ticket: &str,
        now_ms: u64,
    ) -> Result<(UserId, Option<String>), TicketRefused> {
        let Some((conn, prefix)) = &self.shared else {
            return self.spend_here(ticket, now_ms);
        };
        // A made-up ticket of any length costs one fixed-size key lookup.
        let key = ticket_key(prefix, &hash_of(ticket));
        crate::metrics::METRICS.redis_round_trips.inc();
        let value: Option<String> = redis::cmd("GETDEL")
            .arg(key)
            .query_async(&mut conn.clone())
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "spending a ticket in Redis");
                TicketRefused::Unavailable
            })?;
        let kept: Kept = value
            .and_then(|v| serde_json::from_str(&v).ok())
            .ok_or(TicketRefused::Unknown)?;
        if kept.expires_ms <= now_ms {
            return Err(TicketRefused::Expired);
        }
        Ok((kept.user, kept.device))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps a ticket's hash in this process.
    fn keep(&self, hash: Hash, user: &UserId, device: Option<&str>, now_ms: u64) {
        let mut inner = self.lock();
        if inner.tickets.len() >= SWEEP_AT {
            inner.sweep(now_ms);
        }
        let Inner { tickets, of_user } = &mut *inner;
        let held = of_user.entry(user.clone()).or_default();
        held.retain(|h| tickets.get(h).is_some_and(|t| t.expires_ms > now_ms));
        while held.len() >= PER_USER {
            if let Some(oldest) = held.pop_front() {
                tickets.remove(&oldest);
            }
        }
        held.push_back(hash);
        let ttl_ms = self.ttl_ms();
        tickets.insert(
            hash,
            Ticket {
                user: user.clone(),
                device: device.map(str::to_owned),
                expires_ms: now_ms.saturating_add(ttl_ms),
            },
        );
    }

    /// Spends `ticket` kept in this process.
    fn spend_here(
        &self,
        ticket: &str,
        now_ms: u64,
    ) -> Result<(UserId, Option<String>), TicketRefused> {
        let hash = hash_of(ticket);
        let mut inner = self.lock();
        let spent = inner.tickets.remove(&hash).ok_or(TicketRefused::Unknown)?;
        if let Some(held) = inner.of_user.get_mut(&spent.user) {
            held.retain(|h| *h != hash);
            if held.is_empty() {
                inner.of_user.remove(&spent.user);
            }
        }
        if spent.expires_ms <= now_ms {
            return Err(TicketRefused::Expired);
        }
        Ok((spent.user, spent.device))
    }

    /// Tickets held in this process now (spent and swept ones not counted).
    pub fn held(&self) -> usize {
        self.lock().tickets.len()
    }
}

impl Inner {
    fn sweep(&mut self, now_ms: u64) {
        self.tickets.retain(|_, t| t.expires_ms > now_ms);
        let tickets = &self.tickets;
        self.of_user.retain(|_, held| {
            held.retain(|h| tickets.contains_key(h));
            !held.is_empty()
        });
    }
}

fn ticket_key(prefix: &str, hash: &Hash) -> String {
    format!("{prefix}ticket:{}", hex::encode(hash))
}

/// The hashes of a user's latest tickets, newest first.
fn list_key(prefix: &str, user: &UserId) -> String {
    format!("{prefix}tickets-of:{user}")
}

fn unavailable(e: redis::RedisError) -> ApiError {
    tracing::warn!(error = %e, "tickets in Redis");
    ApiError::Unavailable("tickets cannot be issued now; try again in a moment".into())
}

fn hash_of(ticket: &str) -> Hash {
    let mut hash = [0u8; 32];
    hash.copy_from_slice(&Sha256::digest(ticket.as_bytes()));
    hash
}

/// Base64url without padding (RFC 4648 §5): safe in a query string as it is.
fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
        }
    }
    out
}

#[derive(Serialize, ToSchema)]
pub struct TicketBody {
    /// Single use, for `GET /ws?ticket=…`.
    pub ticket: String,
    /// Seconds it stays valid.
    pub expires_in: u64,
}

/// A single-use ticket for `GET /ws?ticket=…`, valid for `auth.ws_ticket_secs`: the socket
/// opens without the token in its URL. It carries this token's user and device.
///
/// Needs a player token. 201 `{"ticket", "expires_in"}`: a ticket for `GET /ws?ticket=…`
/// (docs/protocol.md, WebSocket), so no token sits in a URL. 256 random bits, base64url (43
/// characters); single-use; valid `auth.ws_ticket_secs` (30) seconds (`expires_in`); it carries
/// this token's user and device. A user holds 4 at most: a fifth evicts the oldest. Held only
/// as its SHA-256: by the instance that issued it, or in Redis with `[cluster]` on, where every
/// instance takes it.
#[utoipa::path(
    tag = "players",
    security(("bearer" = [])),
    responses(
        (status = 201, body = TicketBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "an admin token, or a banned guest", body = ErrorBody),
    )
)]
#[post("/auth/ws-ticket")]
pub async fn ws_ticket(
    Player(claims): Player,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let user = claims.id;
    let ticket = state
        .tickets
        .issue(&user, claims.sid.as_deref(), state.clock.now_ms())
        .await?;
    Ok(HttpResponse::Created().json(TicketBody {
        ticket,
        expires_in: state.tickets.ttl.as_secs(),
    }))
}

/// Who opens a WebSocket: the holder of a `ticket` (spent here), else of a player token (in
/// `Authorization: Bearer` or `?token=`). Either way the user must exist and not be banned.
pub async fn ws_user(req: &HttpRequest, state: &AppState) -> Result<User, ApiError> {
    let ticket = req
        .query_string()
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == "ticket")
        .map(|(_, v)| v);
    let Some(ticket) = ticket else {
        let claims = super::auth::player(req).await?;
        let ratings = shown_ratings(state, &claims.id).await?;
        return Ok(User {
            id: claims.id,
            name: claims.name,
            house: false,
            ratings,
        });
    };
    let (id, _device) = state
        .tickets
        .spend(ticket, state.clock.now_ms())
        .await
        .map_err(|e| match e {
            TicketRefused::Unavailable => ApiError::Unavailable(e.to_string()),
            e => ApiError::Unauthorized(e.to_string()),
        })?;
    if let Some(reason) = state.banlist.reason(&id) {
        return Err(ApiError::Banned(reason));
    }
    let name = super::auth::stored_player(state, &id).await?;
    let ratings = shown_ratings(state, &id).await?;
    Ok(User {
        id,
        name,
        house: false,
        ratings,
    })
}

/// `user`'s ratings as the rooms show them beside their name while this socket is open.
async fn shown_ratings(
    state: &AppState,
    user: &UserId,
) -> Result<Option<Box<ShownRatings>>, ApiError> {
    let (store, id) = (state.store.clone(), user.clone());
    let rows = crate::store::blocking(move || store.ratings_of(&id)).await?;
    let shown = crate::ratings::shown_ratings(&state.ratings.rules(), &rows);
    Ok((!shown.is_empty()).then(|| Box::new(shown)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_matches_rfc_4648() {
        assert_eq!(base64url(b""), "");
        assert_eq!(base64url(b"f"), "Zg");
        assert_eq!(base64url(b"fo"), "Zm8");
        assert_eq!(base64url(b"foo"), "Zm9v");
        assert_eq!(base64url(b"foob"), "Zm9vYg");
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        assert_eq!(base64url(&[0u8; 32]).len(), 43);
    }

    #[tokio::test]
    async fn a_ticket_is_spent_once_and_only_before_it_expires() {
        let tickets = WsTickets::new(Duration::from_secs(30));
        let ade = UserId::new("ade".to_owned());
        let t = tickets.issue(&ade, Some("phone"), 0).await.unwrap();
        assert_eq!(
            tickets.spend(&t, 29_999).await,
            Ok((ade.clone(), Some("phone".into())))
        );
        assert_eq!(tickets.spend(&t, 29_999).await, Err(TicketRefused::Unknown));
        let late = tickets.issue(&ade, None, 0).await.unwrap();
        assert_eq!(
            tickets.spend(&late, 30_000).await,
            Err(TicketRefused::Expired)
        );
        assert_eq!(
            tickets.spend("made-up", 0).await,
            Err(TicketRefused::Unknown)
        );
        assert_eq!(tickets.held(), 0);
    }

    #[tokio::test]
    async fn a_user_holds_a_few_the_oldest_evicted_and_expired_ones_swept() {
        let tickets = WsTickets::new(Duration::from_secs(30));
        let ade = UserId::new("ade".to_owned());
        let first = tickets.issue(&ade, None, 0).await.unwrap();
        let mut rest = Vec::new();
        for _ in 0..PER_USER {
            rest.push(tickets.issue(&ade, None, 0).await.unwrap());
        }
        assert_eq!(tickets.held(), PER_USER);
        assert_eq!(tickets.spend(&first, 1).await, Err(TicketRefused::Unknown));
        assert!(tickets.spend(&rest[0], 1).await.is_ok());
        // Everyone's expired tickets go once many are held.
        for n in 0..SWEEP_AT {
            let user = UserId::new(format!("u{n}"));
            tickets.issue(&user, None, 0).await.unwrap();
        }
        tickets.issue(&ade, None, 60_000).await.unwrap();
        assert_eq!(tickets.held(), 1);
    }
}
