//! One room, owned by one task: its occupants and its tables. The task only dispatches and
//! commits: a table decides (`super::table`), the room stores what it decided, then tells
//! people, and never waits for a reader (their outboxes are bounded). A room whose task
//! panics leaves the registry and opens again from the store at the next visit.

mod arena;
mod away;
mod civil;
mod commit;
mod config;
mod dispatch;
mod fanout;
mod handle;
mod house;
mod members;
mod render;
mod seeks;
mod stored;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use futures_util::FutureExt;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};

use crate::ayo::{Pit, Rules};
use crate::common::{TableId, User, UserId};
use crate::store::{Actor, Store};

use super::hotel::{CloseGames, DoorState, HotelError, TableChange};
use super::protocol::{ClientMessage, Frame, RoomInfo};
use super::table::{Command, LiveGame, Refusal, Table};

pub use arena::{standing as tournament_standing, view as tournament_view};
pub use civil::Moderation;
use config::ms;
pub use config::{ResultsConfig, ResumedGame, ResumedMatch, RoomConfig};
pub use handle::{RoomHandle, RoomSummary};
pub use members::Outbox;
pub use stored::{stored_result, stored_win};

/// What a session, an operator or the room itself asks of a room.
pub enum RoomCommand {
    /// Join (or rejoin from a new connection, which replaces the old one); the room answers
    /// with its `room` snapshot.
    Enter {
        user: User,
        outbox: Outbox,
        conn: u64,
        /// Tables the client saw before, with the last version it saw: each gets `missed`.
        since: BTreeMap<TableId, u64>,
        /// The `enter` message's ref, for the answers to `since`.
        r#ref: Option<Value>,
        /// Told whether the room let them in (its door, or closing).
        admitted: oneshot::Sender<Result<(), Refusal>>,
    },
    /// Whether a user may come in now: asked before leaving the room one is in.
    MayEnter {
        user_id: UserId,
        reply: oneshot::Sender<Result<(), Refusal>>,
    },
    /// An operator renamed the room.
    Rename {
        name: String,
    },
    /// An operator closes the room; the reply is how many matches are still in play (the
    /// room closes after them with `CloseGames::Finish`, at once otherwise).
    Shut {
        games: CloseGames,
        reply: oneshot::Sender<usize>,
    },
    /// An operator or the owner changes the tables; the reply is the table as it is now, as
    /// the `table` message shows it (`None` when taken away). JSON, as `Summary`'s tables:
    /// the room may run on another instance.
    Tables {
        actor: Actor,
        change: TableChange,
        reply: oneshot::Sender<Result<Option<serde_json::Value>, HotelError>>,
    },
    /// The owner changed the door or the guest list: read them again from the store.
    DoorChanged,
    /// A tournament of the room was scheduled, or a player joined or left one: read them
    /// again now (not at the next read).
    ScheduleChanged,
    /// Leave on purpose: any seat is given up, a match in play resigned.
    Leave {
        user_id: UserId,
        conn: u64,
    },
    /// The connection dropped: a player in a match keeps the seat for the grace period.
    Disconnect {
        user_id: UserId,
        conn: u64,
    },
    Act {
        user_id: UserId,
        message: ClientMessage,
        r#ref: Option<Value>,
    },
    Summary {
        reply: oneshot::Sender<RoomSummary>,
    },
    /// The service is stopping: tell everyone, let them go, stop.
    Close {
        done: oneshot::Sender<()>,
    },
    /// Baba Ayo should think again at `table` if it is still at `version` (his last try
    /// failed).
    HouseAgain {
        table: TableId,
        version: u64,
    },
    /// Baba Ayo's move, thought out for the game at `table` as it was at `version`.
    HouseMove {
        table: TableId,
        version: u64,
        pit: Pit,
    },
    /// Baba Ayo's answer to the draw offered at `table` as it was at `version`.
    HouseAnswersDraw {
        table: TableId,
        version: u64,
        accept: bool,
    },
    /// An operator moderates the room (already stored and audited).
    Moderate(Moderation),
    /// The room's lease could not be kept (several instances): it is dropped here, as when
    /// a write is fenced off.
    LeaseLost {
        why: &'static str,
    },
    /// Makes the room's task panic: fault injection, so a test can show that a failed room
    /// leaves the registry and opens again intact. Nothing a client sends leads here.
    #[doc(hidden)]
    Crash,
}

/// A table and the events it announced lately, for clients that come back.
struct Kept {
    table: Table,
    /// The latest table events as sent, with the version each brought the table to.
    log: VecDeque<(u64, Frame)>,
    /// Its game moved since the last `table_status`.
    moved: bool,
    /// Baba Ayo thinking here (a move, a draw offered): called off once the table changes.
    searches: Vec<house::Search>,
    /// The ref each player sent with their last move here, with the version it brought the
    /// table to: a move sent again with it is answered again (the table keeps no client's
    /// refs).
    move_refs: HashMap<UserId, (u64, Value)>,
}

impl Kept {
    fn new(table: Table) -> Kept {
        Kept {
            table,
            log: VecDeque::new(),
            moved: false,
            searches: Vec::new(),
            move_refs: HashMap::new(),
        }
    }
}

/// How often a room looks at what time has ended, on the system clock.
const TICK: Duration = Duration::from_millis(500);

/// Where every table's version starts in this process: the start millisecond times 1024. A
/// version from an earlier run is then always below any version of this one (a table would
/// need over a million events a second to catch up), so a client that kept one gets a resync,
/// never a wrong "nothing missed"; and it stays below 2^53, exact in JavaScript, until 2248.
static VERSION_BASE: LazyLock<u64> = LazyLock::new(|| {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    millis << 10
});

pub struct Room {
    info: RoomInfo,
    members: HashMap<UserId, members::Member>,
    tables: Vec<Kept>,
    /// Players who dropped out of a match in play, with the end of their grace (server ms).
    absent: HashMap<UserId, u64>,
    store: Store,
    config: RoomConfig,
    occupants: Arc<AtomicUsize>,
    /// Its games in play, to take out of the service's count should the task fail.
    games_in_play: Arc<AtomicI64>,
    /// The room's own inbox, for Baba Ayo's moves; weak, so the room still ends when every
    /// handle is gone.
    itself: mpsc::WeakSender<RoomCommand>,
    /// An operator is closing it: no new match starts, and it closes after the last one.
    closing: bool,
    /// It has closed: the task ends.
    closed: bool,
    /// Its last match is over while closing: it closes after the command.
    shut_after: bool,
    /// Since when an apartment has been empty and quiet (server ms).
    idle_since: Option<u64>,
    /// Members dropped for not reading, whose seats and invitations are still to see to.
    dropped: Vec<UserId>,
    door: DoorState,
    /// Who may chat when: slow mode and the room's budget.
    chat: super::civility::ChatGate,
    /// The last chat line's number here (each line gets the next, for `chat_removed`).
    chat_lines: u64,
    /// The last `chat_backlog` chat lines, for the snapshot; in memory only.
    chat_log: VecDeque<civil::ChatLine>,
    /// Guests an operator put out, with when they may come back (server ms).
    barred: HashMap<UserId, u64>,
    /// Guests put out whose connection still thinks it is here: their connection (its id
    /// and outbox) stays open, in no room, until it enters another or goes.
    outside: HashMap<UserId, (u64, Outbox, User)>,
    /// When the last `table_status` went out (server ms).
    status_at: u64,
    /// The fencing number of the room's lease, when it is leased (several instances): its
    /// writes go under it (`store/fences.rs`).
    fence: Option<u64>,
    /// A later owner took the room (a write was fenced off): the task ends, and the room
    /// leaves the registry as a failed one does, nothing more written or told.
    lost: bool,
    /// The arena tournaments scheduled here, which the room runs.
    arenas: arena::Arenas,
    /// The handle's flag, set the moment the room is lost: before its members' outboxes
    /// close, so whatever sees one close knows the room moved and did not close.
    failed: Arc<AtomicBool>,
    /// Guests asking for a game now, and the pairings offered them.
    seekers: seeks::Seekers,
}

/// How a room's task ended.
enum Ended {
    /// Closed, stopped, or idle: as it meant to.
    Closed,
    /// A later owner took the room (`Room::lose`).
    Lost,
}

/// A room as the store holds it, to start its task.
pub struct Opening {
    pub info: RoomInfo,
    /// Its tables, with their rules and their queue as set (`None`: the room kind's).
    pub tables: Vec<(TableId, Rules, Option<bool>)>,
    pub matches: Vec<ResumedMatch>,
    pub closing: bool,
    pub door: DoorState,
    /// The fencing number of the lease this instance holds the room under, when the
    /// instances lease rooms (`cluster`); `None` for one instance alone.
    pub fence: Option<u64>,
}

impl Room {
    /// Starts the room's task under a supervisor: should it panic, the room leaves the
    /// registry (its members' sessions end and come back), and the next visit opens it again
    /// from the store.
    pub fn spawn(opening: Opening, store: Store, config: RoomConfig) -> RoomHandle {
        let (inbox, commands) = mpsc::channel(1024);
        let occupants = Arc::new(AtomicUsize::new(0));
        let timing = config.timing();
        let now = config.clock.now_ms();
        let room_id = opening.info.id.clone();
        let config_limits = config.civility.limits;
        let config_status_every = config.status_every;
        let seekers = seeks::Seekers::new(config.pool);
        let mut room = Room {
            info: opening.info.clone(),
            members: HashMap::new(),
            tables: opening
                .tables
                .into_iter()
                .map(|(id, rules, queue)| {
                    Kept::new(
                        Table::new(id, room_id.clone(), rules, timing, *VERSION_BASE)
                            .in_room_of(opening.info.kind)
                            .with_queue(queue),
                    )
                })
                .collect(),
            absent: HashMap::new(),
            store,
            config,
            occupants: occupants.clone(),
            games_in_play: Arc::default(),
            itself: inbox.downgrade(),
            closing: opening.closing,
            closed: false,
            shut_after: false,
            idle_since: None,
            dropped: Vec::new(),
            door: opening.door,
            chat: super::civility::ChatGate::new(config_limits, 0, now),
            chat_lines: 0,
            chat_log: VecDeque::new(),
            barred: HashMap::new(),
            outside: HashMap::new(),
            status_at: now.saturating_sub(status_offset(&room_id, ms(config_status_every))),
            fence: opening.fence,
            lost: false,
            arenas: Default::default(),
            failed: Arc::default(),
            seekers,
        };
        for kept in &mut room.tables {
            kept.table.closing = room.closing;
        }
        for resumed in opening.matches {
            room.resume(resumed, now);
        }
        let handle = RoomHandle {
            info: Arc::new(opening.info),
            inbox,
            occupants,
            failed: room.failed.clone(),
        };
        let (registry, watched) = (room.config.registry.clone(), handle.inbox.downgrade());
        let failed = handle.failed.clone();
        let in_play = room.games_in_play.clone();
        tokio::spawn(async move {
            let ended = AssertUnwindSafe(room.run(commands)).catch_unwind().await;
            let lost = match ended {
                Ok(Ended::Closed) => false,
                Ok(Ended::Lost) => true,
                Err(panic) => {
                    let why = panic
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    tracing::error!(room = %room_id, panic = %why, "a room failed: it leaves the registry and opens again from the store at the next visit");
                    crate::metrics::METRICS.room_failures.inc();
                    true
                }
            };
            // A room lost to a later owner goes as a failed one: its sessions end and find
            // it again, wherever it runs now.
            if lost {
                failed.store(true, Ordering::SeqCst);
                // Its games are counted again when it opens.
                crate::metrics::METRICS
                    .games_in_play
                    .sub(in_play.load(Ordering::Relaxed));
                if let Some(inbox) = watched.upgrade() {
                    registry.remove_if(&room_id, |h| h.inbox.same_channel(&inbox));
                }
            }
        });
        handle
    }

    /// Puts a match in play back on its table after a start: its players sit again and have
    /// the grace period to come back.
    fn resume(&mut self, resumed: ResumedMatch, now: u64) {
        let Some(kept) = self
            .tables
            .iter_mut()
            .find(|k| k.table.id == resumed.table_id)
        else {
            tracing::warn!(r#match = %resumed.r#match.id, table = %resumed.table_id, "a match in play at a table that is gone");
            return;
        };
        let back = now.saturating_add(ms(self.config.grace));
        // Baba Ayo never leaves: only people have a grace to come back in.
        for player in resumed.r#match.players.iter().filter(|p| !p.house) {
            self.absent.insert(player.id.clone(), back);
        }
        let game = resumed.game.map(|g| {
            crate::metrics::METRICS.games_in_play.inc();
            self.games_in_play.fetch_add(1, Ordering::Relaxed);
            LiveGame {
                id: g.game_id,
                game: g.game,
                players: g.players,
                number: g.number,
                clocks: g.clocks,
            }
        });
        kept.table.resume(resumed.r#match, game, now);
        if let Some(arena) = resumed.arena {
            kept.table
                .resume_arena(arena.berserk_allowed, &arena.berserk);
        }
    }

    fn now(&self) -> u64 {
        self.config.clock.now_ms()
    }

    /// A later owner took the room: nothing more is written or told from here.
    fn lose(&mut self, why: &str) {
        if !self.lost {
            tracing::warn!(room = %self.info.id, error = %why, "the room was taken by a later owner: dropped here");
            crate::metrics::METRICS.leases_lost.inc();
        }
        self.lost = true;
        self.failed.store(true, Ordering::SeqCst);
    }

    async fn run(mut self, mut commands: mpsc::Receiver<RoomCommand>) -> Ended {
        // What operators decided for this room (slow mode), before anyone comes in.
        self.load_civility().await;
        // Games against the house resumed where it is his turn.
        for t in 0..self.tables.len() {
            self.house_turn(t);
        }
        // Each room ticks at its own point of the half second: rooms opened together would
        // otherwise all wake (and tell their `table_status`) at once, a burst of frames that
        // held up the moves written behind it (p99 47-90 ms against 11 ms without it).
        let phase = Duration::from_millis(status_offset(&self.info.id, ms(TICK)));
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + phase, TICK);
        let mut moved = self.config.clock.watch();
        loop {
            // Something falls due between ticks: sleep until then on the system clock; a
            // hand-driven clock says when it moves.
            let due_in = self
                .next_deadline()
                .filter(|_| self.config.clock.is_system())
                .map(|at| Duration::from_millis(at.saturating_sub(self.now())));
            tokio::select! {
                command = commands.recv() => match command {
                    Some(RoomCommand::Close { done }) => {
                        self.close().await;
                        let _ = done.send(());
                        break;
                    }
                    Some(command) => self.handle(command).await,
                    None => break,
                },
                _ = sleep_for(due_in) => self.on_time().await,
                _ = clock_moved(&mut moved) => self.on_time().await,
                _ = tick.tick() => self.on_time().await,
            }
            if self.lost {
                return Ended::Lost;
            }
            self.see_to_dropped().await;
            self.see_to_pool().await;
            if std::mem::take(&mut self.shut_after) {
                self.shut().await;
            }
            // Looked at after everything, so an apartment's quiet starts when it does.
            if self.idle_too_long() {
                // Nobody here and nothing going on: the apartment closes quietly and opens
                // again at the next visit (its state is all stored).
                self.config.registry.remove(&self.info.id);
                tracing::debug!(room = %self.info.id, "an idle apartment closes");
                self.closed = true;
            }
            if self.closed || self.lost {
                break;
            }
        }
        if self.lost {
            Ended::Lost
        } else {
            Ended::Closed
        }
    }

    /// What time has ended: at every table, then the grace of players away.
    async fn on_time(&mut self) {
        let now = self.now();
        for t in 0..self.tables.len() {
            // Most ticks find nothing due: no need to ask.
            if self.tables[t].table.due(now) {
                self.apply(t, Command::Tick).await;
            }
        }
        self.end_graces().await;
        self.chat_tick(now);
        self.tell_status(now);
        self.arenas_tick(now).await;
    }

    /// The soonest something falls due here.
    fn next_deadline(&self) -> Option<u64> {
        let tables = self.tables.iter().filter_map(|k| k.table.next_deadline());
        tables
            .chain(self.absent.values().copied())
            .chain(self.chat.next_deadline())
            .chain(self.seekers.next_deadline())
            .min()
    }

    /// An apartment with nobody in it, nobody coming back and no match in play, for longer
    /// than `apartment_idle`.
    fn idle_too_long(&mut self) -> bool {
        let idle = self.info.kind == crate::common::RoomKind::Apartment
            && self.members.is_empty()
            && self.absent.is_empty()
            && self.matches_in_play() == 0;
        if !idle {
            self.idle_since = None;
            return false;
        }
        let now = self.now();
        let since = *self.idle_since.get_or_insert(now);
        now.saturating_sub(since) >= ms(self.config.apartment_idle)
    }

    /// Tables with a match in play (a game of it in play, or the next one awaited).
    fn matches_in_play(&self) -> usize {
        self.tables
            .iter()
            .filter(|k| k.table.match_in_play())
            .count()
    }

    fn table_index(&self, id: &TableId) -> Result<usize, Refusal> {
        self.tables
            .iter()
            .position(|k| &k.table.id == id)
            .ok_or_else(|| {
                Refusal::new(
                    crate::common::ErrorCode::NoSuchTable,
                    format!("there is no table `{id}` in this room"),
                )
            })
    }

    /// Whether `user` has a seat at any table here.
    fn seated_anywhere(&self, user: &UserId) -> bool {
        self.tables.iter().any(|k| k.table.seat_of(user).is_some())
    }
}

/// Where in an interval of `every_ms` a room's turn falls (a hash of its id): for its tick
/// and its `table_status`. Rooms opened together would otherwise all wake in the same
/// instant, and a burst of frames holds up the moves sent with it.
fn status_offset(room: &crate::common::RoomId, every_ms: u64) -> u64 {
    // FNV-1a: stable across runs and builds, unlike the standard hasher.
    let hash = room
        .as_str()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    hash % every_ms.max(1)
}

/// Sleeps for `d`, or for ever without one.
async fn sleep_for(d: Option<Duration>) {
    match d {
        Some(d) => tokio::time::sleep(d).await,
        None => std::future::pending().await,
    }
}

/// Returns when a hand-driven clock moves; never for the system clock.
async fn clock_moved(moved: &mut Option<watch::Receiver<u64>>) {
    match moved {
        Some(rx) => {
            if rx.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
        None => std::future::pending().await,
    }
}
