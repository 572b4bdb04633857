//! One room: its occupants, tables, invitations and games, owned by one task. Sessions talk to
//! it through its inbox; it talks to them through their bounded outboxes and never waits for one.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::ayo::clock::Clocks;
use crate::ayo::house::Level;
use crate::ayo::{EndReason, Forfeit, Game, Pit, Rules, Side};
use crate::house::House;
use crate::store::{
    self, blocking, Actor, GameRow, MatchResult, MatchRow, MoveClock, Store, StoreError,
};

use super::hotel::{CloseGames, DoorState, HotelError, TableChange};
use super::matches::{DrawOffer, LiveMatch, MatchEnd, MatchSettings, PlayedGame, Rematch, Scope};
use super::protocol::{
    ClientMessage, ClockView, LastMove, Players, RoomInfo, Seats, ServerMessage, TableGame,
    TableView,
};
use super::time::ServerClock;
use super::user::User;
use super::Registry;

/// Where a room sends a session its frames.
pub type Outbox = mpsc::Sender<Arc<str>>;

/// What a session asks of a room.
pub enum RoomCommand {
    /// Join (or rejoin from a new connection, which replaces the old one); the room answers
    /// with its `room` snapshot.
    Enter {
        user: User,
        outbox: Outbox,
        conn: u64,
        /// Tables the client saw before, with the last version it saw: each gets `missed`.
        since: BTreeMap<String, u64>,
        /// The `enter` message's ref, for the answers to `since`.
        r#ref: Option<Value>,
        /// Told whether the room let them in (its door, or closing).
        admitted: oneshot::Sender<Result<(), Refusal>>,
    },
    /// Whether a user may come in now: asked before leaving the room one is in.
    MayEnter {
        user_id: String,
        reply: oneshot::Sender<Result<(), Refusal>>,
    },
    /// An operator renamed the room.
    Rename {
        name: String,
    },
    /// An operator closes the room; the reply is how many games are still in play (the room
    /// closes after them with `CloseGames::Finish`, at once otherwise).
    Shut {
        games: CloseGames,
        reply: oneshot::Sender<usize>,
    },
    /// An operator or the owner changes the tables; the reply is the table as it is now
    /// (`None` when taken away).
    Tables {
        actor: Actor,
        change: TableChange,
        reply: oneshot::Sender<Result<Option<TableView>, HotelError>>,
    },
    /// The owner changed the door or the guest list: read them again from the store.
    DoorChanged,
    /// Leave on purpose: any seat is given up, a game in play resigned.
    Leave {
        user_id: String,
        conn: u64,
    },
    /// The connection dropped: a player in a game keeps the seat for the grace period.
    Disconnect {
        user_id: String,
        conn: u64,
    },
    Act {
        user_id: String,
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
        table: String,
        version: u64,
    },
    /// Baba Ayo's move, thought out for the game at `table` as it was at `version`.
    HouseMove {
        table: String,
        version: u64,
        pit: Pit,
    },
}

/// A room as `GET /api/v1/rooms` shows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RoomSummary {
    #[serde(flatten)]
    pub room: RoomInfo,
    pub occupants: usize,
    pub tables: Vec<TableView>,
}

/// A way to reach a room.
#[derive(Clone)]
pub struct RoomHandle {
    pub info: Arc<RoomInfo>,
    inbox: mpsc::Sender<RoomCommand>,
    occupants: Arc<AtomicUsize>,
}

impl RoomHandle {
    /// Sends a command; false when the room is gone.
    pub async fn send(&self, command: RoomCommand) -> bool {
        self.inbox.send(command).await.is_ok()
    }

    pub fn occupants(&self) -> usize {
        self.occupants.load(Ordering::Relaxed)
    }

    pub async fn summary(&self) -> Option<RoomSummary> {
        let (reply, answer) = oneshot::channel();
        if !self.send(RoomCommand::Summary { reply }).await {
            return None;
        }
        answer.await.ok()
    }
}

/// A match in play read back from the store at start, with its game in play if any (none
/// between games).
pub struct ResumedMatch {
    pub table_id: String,
    pub r#match: LiveMatch,
    pub game: Option<ResumedGame>,
}

/// A game in play read back from the store at start.
pub struct ResumedGame {
    pub game_id: String,
    pub game: Game,
    /// South, North.
    pub players: [User; 2],
    pub number: u8,
    /// Its clocks, running again for the side to move from the start.
    pub clocks: Option<Clocks>,
}

/// How a room behaves.
#[derive(Clone, Debug)]
pub struct RoomConfig {
    pub invitation_ttl: Duration,
    /// How long a player who dropped keeps the seat of a game in play.
    pub grace: Duration,
    pub chat_max_chars: usize,
    /// Table events kept for clients that come back.
    pub table_log: usize,
    /// How long an empty apartment without a game stays open.
    pub apartment_idle: Duration,
    /// Baba Ayo, for `play_house`.
    pub house: Arc<House>,
    /// Boards an apartment holds at most.
    pub max_boards: usize,
    /// The open rooms: a room that closes takes itself out.
    pub registry: Registry,
    /// How results reach the champions wall.
    pub results: ResultsConfig,
    /// The time game clocks run on.
    pub clock: ServerClock,
    /// How long both players have to press start between games of an untimed match.
    pub untimed_start: Duration,
    /// How long a rematch stays on offer after a match.
    pub rematch: Duration,
    /// How often the service writes its heartbeat (where an unclean outage began).
    pub heartbeat: Duration,
}

/// What a room needs to store a result for the champions wall.
#[derive(Clone, Debug)]
pub struct ResultsConfig {
    /// The hotel's day, for the day a game ended on.
    pub clock: crate::champions::HotelDay,
    /// Counted wins of one player over another a day.
    pub cap: u32,
    /// Rung when a counted result waits in the outbox.
    pub pending: Arc<tokio::sync::Notify>,
}

struct Member {
    user: User,
    outbox: Outbox,
    /// The connection this member speaks through; commands from an older one are ignored.
    conn: u64,
}

struct LiveGame {
    id: String,
    game: Game,
    players: [User; 2],
    /// Its number in its match.
    number: u8,
    clocks: Option<Clocks>,
}

/// The last move played at a table, to answer it again if it is sent again.
struct AppliedMove {
    user_id: String,
    r#ref: Option<Value>,
    pit: Pit,
    version_before: u64,
    frame: Arc<str>,
}

struct Table {
    id: String,
    /// Each seat's last move in this game: a player may resend theirs after the other moved.
    last_moves: [Option<AppliedMove>; 2],
    rules: Rules,
    seats: [Option<User>; 2],
    game: Option<LiveGame>,
    /// How the next match is played: the host's choice.
    settings: MatchSettings,
    /// The match in play, or the last one.
    r#match: Option<LiveMatch>,
    rematch: Option<Rematch>,
    version: u64,
    /// The latest table events as sent, with the version each brought the table to.
    log: VecDeque<(u64, Arc<str>)>,
}

/// How long Baba Ayo waits before trying a move again after a failure.
const HOUSE_RETRY: Duration = Duration::from_secs(1);

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

struct Invitation {
    id: String,
    from: User,
    to: String,
    table: String,
    /// What the invitee was told the match would be: kept, whatever the table's now.
    settings: MatchSettings,
    expires: Instant,
}

/// A refusal, sent to the one who asked: a protocol error code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub &'static str, pub String);

fn refuse<T>(code: &'static str, message: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal(code, message.into()))
}

pub struct Room {
    info: RoomInfo,
    members: HashMap<String, Member>,
    tables: Vec<Table>,
    invitations: Vec<Invitation>,
    /// Players who dropped out of a game in play, with the end of their grace.
    absent: HashMap<String, Instant>,
    store: Store,
    config: RoomConfig,
    occupants: Arc<AtomicUsize>,
    /// The room's own inbox, for Baba Ayo's moves; weak, so the room still ends when every
    /// handle is gone.
    itself: mpsc::WeakSender<RoomCommand>,
    /// An operator is closing it: no new game starts, and it closes after the last one.
    closing: bool,
    /// It has closed: the task ends.
    closed: bool,
    /// Since when an apartment has been empty and quiet.
    idle_since: Option<Instant>,
    /// Members dropped for not reading, whose seats and invitations are still to see to.
    dropped: Vec<String>,
    door: DoorState,
}

impl Table {
    fn new(id: String, rules: Rules) -> Table {
        Table {
            id,
            last_moves: [None, None],
            rules,
            seats: [None, None],
            game: None,
            settings: MatchSettings::default(),
            r#match: None,
            rematch: None,
            version: *VERSION_BASE,
            log: VecDeque::new(),
        }
    }

    /// Nobody sits there and no match is in play.
    fn idle(&self) -> bool {
        self.seats.iter().all(Option::is_none) && !self.match_in_play()
    }

    fn game_in_play(&self) -> bool {
        self.game.as_ref().is_some_and(|g| !g.game.is_over())
    }

    /// A match in play: a game of it in play, or waiting for the next one.
    fn match_in_play(&self) -> bool {
        self.r#match.as_ref().is_some_and(|m| !m.is_over())
    }
}

impl Room {
    /// Starts the room's task; `tables` are (id, rules).
    pub fn spawn(
        info: RoomInfo,
        tables: Vec<(String, Rules)>,
        matches: Vec<ResumedMatch>,
        closing: bool,
        door: DoorState,
        store: Store,
        config: RoomConfig,
    ) -> RoomHandle {
        let (inbox, commands) = mpsc::channel(1024);
        let occupants = Arc::new(AtomicUsize::new(0));
        let mut room = Room {
            info: info.clone(),
            members: HashMap::new(),
            tables: tables
                .into_iter()
                .map(|(id, rules)| Table::new(id, rules))
                .collect(),
            invitations: Vec::new(),
            absent: HashMap::new(),
            store,
            config,
            occupants: occupants.clone(),
            itself: inbox.downgrade(),
            closing,
            closed: false,
            idle_since: None,
            dropped: Vec::new(),
            door,
        };
        for resumed in matches {
            room.resume(resumed);
        }
        tokio::spawn(room.run(commands));
        RoomHandle {
            info: Arc::new(info),
            inbox,
            occupants,
        }
    }

    /// Puts a match in play back on its table after a restart: its game in play, or the wait
    /// for the next one begun again. Its players sit again and have the grace period to come
    /// back.
    fn resume(&mut self, resumed: ResumedMatch) {
        let Some(t) = self.tables.iter().position(|t| t.id == resumed.table_id) else {
            tracing::warn!(r#match = %resumed.r#match.id, table = %resumed.table_id, "a match in play at a table that is gone");
            return;
        };
        let back = Instant::now() + self.config.grace;
        let mut m = resumed.r#match;
        // Baba Ayo never leaves: only people have a grace to come back in.
        for player in m.players.iter().filter(|p| !p.house) {
            self.absent.insert(player.id.clone(), back);
        }
        let seats = match &resumed.game {
            Some(g) => g.players.clone(),
            None => {
                m.wait_for_start(self.now(), self.untimed_start_ms());
                m.seats()
            }
        };
        let table = &mut self.tables[t];
        table.seats = seats.map(Some);
        table.settings = m.settings;
        table.r#match = Some(m);
        if let Some(g) = resumed.game {
            crate::metrics::METRICS.games_in_play.inc();
            table.game = Some(LiveGame {
                id: g.game_id,
                game: g.game,
                players: g.players,
                number: g.number,
                clocks: g.clocks,
            });
        }
        table.version += 1;
    }

    fn now(&self) -> u64 {
        self.config.clock.now_ms()
    }

    fn untimed_start_ms(&self) -> u64 {
        self.config.untimed_start.as_millis() as u64
    }

    async fn run(mut self, mut commands: mpsc::Receiver<RoomCommand>) {
        // Games against the house resumed after a restart where it is his turn.
        for t in 0..self.tables.len() {
            self.house_turn(t);
        }
        let mut tick = tokio::time::interval(Duration::from_millis(500));
        loop {
            // A clock runs out between ticks: sleep until then (the system clock only; a
            // hand-driven one is looked at every tick).
            let flag_in = self
                .next_flag()
                .filter(|_| self.config.clock.is_system())
                .map(|at| Duration::from_millis(at.saturating_sub(self.now())));
            tokio::select! {
                _ = sleep_for(flag_in) => self.check_clocks().await,
                command = commands.recv() => match command {
                    Some(RoomCommand::Close { done }) => {
                        self.close();
                        let _ = done.send(());
                        break;
                    }
                    Some(command) => {
                        self.handle(command).await;
                        self.forget_dropped().await;
                        if self.closed {
                            break;
                        }
                    }
                    None => break,
                },
                _ = tick.tick() => {
                    self.expire_invitations();
                    self.check_clocks().await;
                    self.check_deadlines().await;
                    self.abandon_absent().await;
                    self.forget_dropped().await;
                    if self.idle_too_long() {
                        // Nobody here and nothing going on: the apartment closes quietly
                        // and opens again at the next visit (its state is all stored).
                        self.config.registry.remove(&self.info.id);
                        tracing::debug!(room = %self.info.id, "an idle apartment closes");
                        break;
                    }
                    // The last game of a closing room may have ended just now.
                    if self.closed {
                        break;
                    }
                }
            }
        }
    }

    async fn handle(&mut self, command: RoomCommand) {
        match command {
            RoomCommand::Enter {
                user,
                outbox,
                conn,
                since,
                r#ref,
                admitted,
            } => {
                let may = self.may_enter(&user.id);
                let ok = may.is_ok();
                let _ = admitted.send(may);
                if ok {
                    self.enter(user, outbox, conn, since, r#ref);
                }
            }
            RoomCommand::MayEnter { user_id, reply } => {
                let _ = reply.send(self.may_enter(&user_id));
            }
            RoomCommand::Rename { name } => {
                self.info.name = name;
                self.broadcast(&ServerMessage::RoomChanged {
                    room: self.info.clone(),
                });
            }
            RoomCommand::Shut { games, reply } => {
                for t in 0..self.tables.len() {
                    // Matches end now, or with their game in play when it is let finish.
                    if games == CloseGames::End || !self.tables[t].game_in_play() {
                        self.end_match(t, None, MatchEnd::CalledOff).await;
                        self.end_off_board(t, Game::call_off).await;
                    }
                }
                let _ = reply.send(self.matches_in_play());
                self.closing = true;
                for t in 0..self.tables.len() {
                    if self.tables[t].rematch.take().is_some() {
                        self.table_changed(t);
                    }
                }
                if self.matches_in_play() == 0 {
                    self.shut();
                } else {
                    self.broadcast(&ServerMessage::RoomClosing {
                        room: self.info.id.clone(),
                    });
                }
            }
            RoomCommand::Tables {
                actor,
                change,
                reply,
            } => {
                let _ = reply.send(self.change_tables(actor, change).await);
            }
            RoomCommand::DoorChanged => {
                let (store, id) = (self.store.clone(), self.info.id.clone());
                match blocking(move || store.door(&id)).await {
                    Ok((door, guests)) => {
                        self.door = DoorState::new(
                            door.parse().ok(),
                            guests.into_iter().map(|g| g.id).collect(),
                        );
                    }
                    Err(e) => tracing::error!(error = %e, room = %self.info.id, "reading a door"),
                }
            }
            RoomCommand::Leave { user_id, conn } => {
                if self.members.get(&user_id).is_some_and(|m| m.conn == conn) {
                    self.leave(&user_id).await;
                }
            }
            RoomCommand::Disconnect { user_id, conn } => {
                if self.members.get(&user_id).is_some_and(|m| m.conn == conn) {
                    self.disconnect(&user_id).await;
                }
            }
            // The run loop answers it; a stray one still closes the doors.
            RoomCommand::Close { done } => {
                self.close();
                let _ = done.send(());
            }
            RoomCommand::HouseAgain { table, version } => {
                if let Ok(t) = self.table_index(&table) {
                    if self.tables[t].version == version {
                        self.house_turn(t);
                    }
                }
            }
            RoomCommand::HouseMove {
                table,
                version,
                pit,
            } => {
                // Thought out for a table that has not changed since (no resign meanwhile).
                let Ok(t) = self.table_index(&table) else {
                    return;
                };
                if self.tables[t].version != version {
                    return;
                }
                let Some(house) = self.house_to_move(t) else {
                    return;
                };
                if let Err(Refusal(code, text)) =
                    self.play(&house.id, &table, pit, None, None).await
                {
                    // Storing it failed: he thinks again a little later rather than stall.
                    tracing::error!(table = %table, code, text, "Baba Ayo's move was refused");
                    self.house_turn_later(t);
                }
            }
            RoomCommand::Summary { reply } => {
                let _ = reply.send(RoomSummary {
                    room: self.info.clone(),
                    occupants: self.members.len(),
                    tables: self.tables.iter().map(|t| self.view(t)).collect(),
                });
            }
            RoomCommand::Act {
                user_id,
                message,
                r#ref,
            } => {
                if !self.members.contains_key(&user_id) {
                    return;
                }
                if let Err(Refusal(code, text)) = self.act(&user_id, message, r#ref.clone()).await {
                    crate::metrics::METRICS
                        .errors
                        .with_label_values(&[code])
                        .inc();
                    self.send_to(&user_id, &ServerMessage::error(code, text, r#ref));
                }
            }
        }
    }

    /// Whether `user_id` may come in: the room is not closing, and an apartment's door lets
    /// them.
    fn may_enter(&self, user_id: &str) -> Result<(), Refusal> {
        if self.members.contains_key(user_id) {
            return Ok(());
        }
        // Players of the games still in play come back to finish them.
        if self.closing && !self.plays_here(user_id) {
            return refuse("room_closing", "this room is closing");
        }
        if !self.door.admits(self.info.owner.as_deref(), user_id) {
            return refuse(
                "door_closed",
                format!(
                    "{} is open to invited guests only: ask the owner to invite you",
                    self.info.name
                ),
            );
        }
        Ok(())
    }

    /// An apartment with nobody in it, nobody coming back and no game in play, for longer
    /// than `apartment_idle`.
    fn idle_too_long(&mut self) -> bool {
        let idle = self.info.kind == "apartment"
            && self.members.is_empty()
            && self.absent.is_empty()
            && self.matches_in_play() == 0;
        if !idle {
            self.idle_since = None;
            return false;
        }
        let since = *self.idle_since.get_or_insert_with(Instant::now);
        since.elapsed() >= self.config.apartment_idle
    }

    /// Whether `user_id` plays a match in play here.
    fn plays_here(&self, user_id: &str) -> bool {
        (0..self.tables.len())
            .any(|t| self.seat_of(t, user_id).is_some() && self.tables[t].match_in_play())
    }

    /// Invitations to table `t` end (it goes, its rules or its match settings change): both
    /// sides are told why.
    fn void_invitations(&mut self, table: &str, reason: &'static str) {
        self.end_invitations(|i| i.table == table, reason);
    }

    /// The invitations `which` picks end; both sides of each are told why.
    fn end_invitations(&mut self, which: impl Fn(&Invitation) -> bool, reason: &'static str) {
        let (gone, open): (Vec<_>, Vec<_>) = self.invitations.drain(..).partition(which);
        self.invitations = open;
        for inv in gone {
            let expired = ServerMessage::InvitationExpired {
                id: inv.id,
                table: inv.table,
                reason,
            };
            self.send_to(&inv.from.id, &expired);
            self.send_to(&inv.to, &expired);
        }
    }

    /// Tables with a match in play (a game of it in play, or the next one awaited).
    fn matches_in_play(&self) -> usize {
        self.tables.iter().filter(|t| t.match_in_play()).count()
    }

    /// The room closes for good: nobody reaches it any more, everyone in it is told and is in
    /// no room, and the task ends.
    fn shut(&mut self) {
        if self.closed {
            return;
        }
        self.config.registry.remove(&self.info.id);
        self.broadcast(&ServerMessage::RoomClosed {
            room: self.info.id.clone(),
        });
        self.members.clear();
        self.occupants.store(0, Ordering::Relaxed);
        self.closed = true;
        tracing::info!(room = %self.info.id, "the room is closed");
    }

    /// Adds, takes away or changes a table: stored first, then announced.
    async fn change_tables(
        &mut self,
        actor: Actor,
        change: TableChange,
    ) -> Result<Option<TableView>, HotelError> {
        if self.closing {
            return Err(HotelError::RoomClosing(self.info.id.clone()));
        }
        let store = self.store.clone();
        match change {
            TableChange::Add { rules, board } => {
                if board.is_some() && self.tables.len() >= self.config.max_boards {
                    return Err(HotelError::TooManyBoards(self.config.max_boards));
                }
                let rules_json = serde_json::to_string(&rules).unwrap_or_default();
                let room = self.info.id.clone();
                let placing = board.clone();
                let row = blocking(move || {
                    store.add_table(&actor, &room, &rules_json, placing.as_deref())
                })
                .await
                .map_err(|e| match (e, board) {
                    (StoreError::Conflict(_), Some(board)) => HotelError::BoardPlaced(board),
                    (e, _) => e.into(),
                })?;
                self.tables.push(Table::new(row.id, rules));
                let t = self.tables.len() - 1;
                self.table_changed(t);
                Ok(Some(self.view(&self.tables[t])))
            }
            TableChange::Remove { table } => {
                let t = self.index_of(&table)?;
                if !self.tables[t].idle() {
                    return Err(HotelError::TableBusy(table));
                }
                let id = table.clone();
                blocking(move || store.remove_table(&actor, &id)).await?;
                self.tables.remove(t);
                self.void_invitations(&table, "table_changed");
                self.broadcast(&ServerMessage::TableRemoved {
                    room: self.info.id.clone(),
                    table,
                });
                Ok(None)
            }
            TableChange::Rules { table, rules } => {
                let t = self.index_of(&table)?;
                if self.tables[t].match_in_play() {
                    return Err(HotelError::TableBusy(table));
                }
                let rules_json = serde_json::to_string(&rules).unwrap_or_default();
                let id = table.clone();
                blocking(move || store.set_table_rules(&actor, &id, &rules_json)).await?;
                self.tables[t].rules = rules;
                self.void_invitations(&table, "table_changed");
                self.table_changed(t);
                Ok(Some(self.view(&self.tables[t])))
            }
        }
    }

    fn index_of(&self, table: &str) -> Result<usize, HotelError> {
        self.tables
            .iter()
            .position(|t| t.id == table)
            .ok_or_else(|| HotelError::NoSuchTable(table.to_owned()))
    }

    fn enter(
        &mut self,
        user: User,
        outbox: Outbox,
        conn: u64,
        since: BTreeMap<String, u64>,
        r#ref: Option<Value>,
    ) {
        self.absent.remove(&user.id);
        let old = self.members.insert(
            user.id.clone(),
            Member {
                user: user.clone(),
                outbox,
                conn,
            },
        );
        let rejoin = old.is_some();
        if let Some(old) = old.filter(|m| m.conn != conn) {
            // The older connection is told, then hears nothing more: its outbox is gone.
            let _ = old.outbox.try_send(ServerMessage::Replaced {}.to_frame());
        }
        self.occupants.store(self.members.len(), Ordering::Relaxed);
        self.send_snapshot(&user.id, since, r#ref);
        if !rejoin && self.members.contains_key(&user.id) {
            let id = user.id.clone();
            self.broadcast_except(
                &id,
                &ServerMessage::OccupantJoined {
                    room: self.info.id.clone(),
                    user,
                },
            );
        }
    }

    /// The `room` snapshot, then what the client missed at the tables it names.
    fn send_snapshot(&mut self, user_id: &str, since: BTreeMap<String, u64>, r#ref: Option<Value>) {
        let snapshot = ServerMessage::Room {
            room: self.info.clone(),
            occupants: self.members.values().map(|m| m.user.clone()).collect(),
            tables: self.tables.iter().map(|t| self.view(t)).collect(),
        };
        self.send_to(user_id, &snapshot);
        // One answer a table at most: a longer list names tables that are not here.
        let tables = self.tables.len().max(1);
        for (table, version) in since.into_iter().take(tables) {
            let reply = match self.table_index(&table) {
                Ok(t) => self.missed(t, version, r#ref.clone()),
                Err(Refusal(code, text)) => ServerMessage::error(code, text, r#ref.clone()),
            };
            self.send_to(user_id, &reply);
        }
    }

    async fn leave(&mut self, user_id: &str) {
        let Some(member) = self.members.remove(user_id) else {
            return;
        };
        self.occupants.store(self.members.len(), Ordering::Relaxed);
        self.invitations
            .retain(|i| i.from.id != user_id && i.to != user_id);
        // Leaving the room gives up any seat, resigning a match in play.
        for t in 0..self.tables.len() {
            if let Some(side) = self.seat_of(t, user_id) {
                self.give_up_seat(t, side).await;
            }
        }
        // No rematch with someone who has gone, that match's included.
        self.void_rematches_of(user_id);
        self.broadcast(&ServerMessage::OccupantLeft {
            room: self.info.id.clone(),
            user: member.user,
        });
    }

    /// Tells everyone the service is stopping and lets them go: their sessions close when
    /// their outboxes are gone. Games in play stay stored and resume at the next start.
    fn close(&mut self) {
        self.broadcast(&ServerMessage::ServerClosing {});
        self.members.clear();
        self.occupants.store(0, Ordering::Relaxed);
    }

    /// A member's connection dropped. Seats without a game in play are freed; a player in a
    /// game keeps the seat until the grace runs out.
    async fn disconnect(&mut self, user_id: &str) {
        self.forget(user_id).await;
        let Some(member) = self.members.remove(user_id) else {
            return;
        };
        self.occupants.store(self.members.len(), Ordering::Relaxed);
        self.broadcast(&ServerMessage::OccupantLeft {
            room: self.info.id.clone(),
            user: member.user,
        });
    }

    /// Readers dropped for not reading are gone as if their connection had dropped (their
    /// session's own goodbye will not count: they are no longer members).
    async fn forget_dropped(&mut self) {
        while let Some(user_id) = self.dropped.pop() {
            if !self.members.contains_key(&user_id) {
                self.forget(&user_id).await;
            }
        }
    }

    /// What a user who is gone leaves behind: seats without a match in play are freed, a
    /// player of a match in play has the grace to come back, invitations and rematches end.
    async fn forget(&mut self, user_id: &str) {
        let mut in_game = false;
        self.void_rematches_of(user_id);
        for t in 0..self.tables.len() {
            if let Some(side) = self.seat_of(t, user_id) {
                if self.tables[t].match_in_play() {
                    in_game = true;
                } else {
                    self.give_up_seat(t, side).await;
                }
            }
        }
        if in_game {
            self.absent
                .entry(user_id.to_owned())
                .or_insert_with(|| Instant::now() + self.config.grace);
        }
        self.invitations
            .retain(|i| i.from.id != user_id && i.to != user_id);
    }

    /// Players whose grace ran out lose their game as `abandoned` and their seat.
    async fn abandon_absent(&mut self) {
        let now = Instant::now();
        let gone: Vec<String> = self
            .absent
            .iter()
            .filter(|(_, end)| **end <= now)
            .map(|(id, _)| id.clone())
            .collect();
        for user_id in &gone {
            self.absent.remove(user_id);
            for t in 0..self.tables.len() {
                if let Some(side) = self.seat_of(t, user_id) {
                    let opponent = self.tables[t].seats[side.opponent().index()].clone();
                    // Both out of their grace now (after a restart both are at once).
                    let both_away = opponent
                        .as_ref()
                        .is_some_and(|o| !o.house && gone.contains(&o.id));
                    if both_away {
                        // Neither came back: nobody to blame, the game is called off.
                        self.end_match(t, None, MatchEnd::Abandoned).await;
                        self.end_off_board(t, Game::call_off).await;
                        self.tables[t].seats = [None, None];
                        self.table_changed(t);
                        continue;
                    }
                    let player = self.tables[t]
                        .r#match
                        .as_ref()
                        .and_then(|m| m.player(user_id));
                    self.end_match(t, player, MatchEnd::Abandoned).await;
                    self.end_off_board(t, |g| g.forfeit(side, Forfeit::Abandoned))
                        .await;
                    self.tables[t].seats[side.index()] = None;
                    self.table_changed(t);
                }
            }
            self.void_rematches_of(user_id);
        }
    }

    async fn act(
        &mut self,
        user_id: &str,
        message: ClientMessage,
        r#ref: Option<Value>,
    ) -> Result<(), Refusal> {
        let user = self.members[user_id].user.clone();
        if self.closing
            && matches!(
                message,
                ClientMessage::Sit { .. }
                    | ClientMessage::Invite { .. }
                    | ClientMessage::Respond { accept: true, .. }
                    | ClientMessage::PlayHouse { .. }
                    | ClientMessage::Rematch { .. }
            )
        {
            return refuse(
                "room_closing",
                "this room is closing: no new game starts here",
            );
        }
        match message {
            ClientMessage::Chat { text } => {
                let text = text.trim();
                if text.is_empty() || text.chars().count() > self.config.chat_max_chars {
                    return refuse(
                        "bad_chat",
                        format!(
                            "a chat line is 1 to {} characters",
                            self.config.chat_max_chars
                        ),
                    );
                }
                self.broadcast(&ServerMessage::Chat {
                    room: self.info.id.clone(),
                    user,
                    text: text.to_owned(),
                });
            }
            ClientMessage::Sit { table, seat } => {
                let t = self.table_index(&table)?;
                if self
                    .tables
                    .iter()
                    .enumerate()
                    .any(|(i, _)| self.seat_of(i, user_id).is_some())
                {
                    return refuse(
                        "already_seated",
                        "you already have a seat in this room: stand first",
                    );
                }
                if self.tables[t].match_in_play() {
                    return refuse("game_in_play", "a game is in play at this table");
                }
                if self.tables[t].seats[seat.index()].is_some() {
                    return refuse("seat_taken", format!("the {seat} seat is taken"));
                }
                let table = &mut self.tables[t];
                if table.seats.iter().all(Option::is_none) {
                    // A new host: the table's matches are as the lounge plays them until
                    // they choose otherwise.
                    table.settings = MatchSettings::default();
                }
                table.seats[seat.index()] = Some(user);
                table.game = None;
                table.r#match = None;
                table.rematch = None;
                self.table_changed(t);
                if self.tables[t].seats.iter().all(Option::is_some) {
                    self.start_match(t, None).await?;
                }
            }
            ClientMessage::PlayHouse {
                table,
                level,
                clock,
                best_of,
            } => {
                // A host who chose the settings keeps them unless told otherwise here.
                let t = self.table_index(&table)?;
                let base = if self.seat_of(t, user_id).is_some() {
                    self.tables[t].settings
                } else {
                    MatchSettings::default()
                };
                let settings = base
                    .with(clock.as_deref(), best_of)
                    .map_err(|e| Refusal("bad_settings", e.to_string()))?;
                self.play_house(user, &table, level, settings).await?
            }
            ClientMessage::SetMatch {
                table,
                clock,
                best_of,
            } => {
                let t = self.table_index(&table)?;
                let Some(side) = self.seat_of(t, user_id) else {
                    return refuse("not_seated", "sit at the table to choose how it plays");
                };
                if self.tables[t].match_in_play() {
                    return refuse("game_in_play", "a match is in play at this table");
                }
                if self.tables[t].seats[side.opponent().index()].is_some() {
                    return refuse(
                        "seat_taken",
                        "the match is chosen before the opponent sits: stand and sit again",
                    );
                }
                let settings = self.tables[t]
                    .settings
                    .with(clock.as_deref(), best_of)
                    .map_err(|e| Refusal("bad_settings", e.to_string()))?;
                if settings != self.tables[t].settings {
                    self.tables[t].settings = settings;
                    // An invitation promised the settings it was sent with.
                    self.void_invitations(&table, "settings_changed");
                }
                self.table_changed(t);
            }
            ClientMessage::Start { table } => {
                let (t, player) = self.player_in_match(&table, user_id)?;
                let m = self.tables[t]
                    .r#match
                    .as_mut()
                    .expect("player_in_match checked");
                if m.between.is_none() {
                    return refuse("not_between_games", "a game of the match is in play");
                }
                if m.press_start(player) {
                    self.start_next_game(t).await?;
                } else {
                    self.match_changed(t);
                }
            }
            ClientMessage::Rematch { table } => self.rematch(user_id, &table).await?,
            ClientMessage::Stand { table } => {
                let t = self.table_index(&table)?;
                let Some(side) = self.seat_of(t, user_id) else {
                    return refuse("not_seated", "you have no seat at this table");
                };
                self.give_up_seat(t, side).await;
            }
            ClientMessage::Invite {
                table,
                user: invitee,
            } => {
                let t = self.table_index(&table)?;
                let Some(side) = self.seat_of(t, user_id) else {
                    return refuse("not_seated", "sit at the table before you invite someone");
                };
                if self.tables[t].seats[side.opponent().index()].is_some() {
                    return refuse("seat_taken", "the seat opposite you is taken");
                }
                if invitee == user_id {
                    return refuse("bad_invitation", "you cannot invite yourself");
                }
                if !self.members.contains_key(&invitee) {
                    return refuse("not_in_room", "you can only invite someone in this room");
                }
                let id = store::new_id();
                let expires = Instant::now() + self.config.invitation_ttl;
                let settings = self.tables[t].settings;
                self.send_to(
                    &invitee,
                    &ServerMessage::Invitation {
                        id: id.clone(),
                        from: user.clone(),
                        table: table.clone(),
                        room: self.info.id.clone(),
                        settings,
                    },
                );
                self.send_to(
                    user_id,
                    &ServerMessage::InvitationSent {
                        id: id.clone(),
                        to: invitee.clone(),
                        table: table.clone(),
                        r#ref,
                    },
                );
                self.invitations.push(Invitation {
                    id,
                    from: user,
                    to: invitee,
                    table,
                    settings,
                    expires,
                });
            }
            ClientMessage::Respond { invitation, accept } => {
                let Some(i) = self
                    .invitations
                    .iter()
                    .position(|inv| inv.id == invitation && inv.to == user_id)
                else {
                    return refuse(
                        "no_such_invitation",
                        "that invitation is not open for you (it may have expired)",
                    );
                };
                let inv = self.invitations.remove(i);
                if !accept {
                    let declined = ServerMessage::InvitationDeclined {
                        id: inv.id.clone(),
                        table: inv.table.clone(),
                    };
                    self.send_to(&inv.from.id, &declined);
                    self.send_to(user_id, &declined);
                    return Ok(());
                }
                let t = self.table_index(&inv.table)?;
                let Some(side) = self.seat_of(t, &inv.from.id) else {
                    return refuse(
                        "invitation_void",
                        "the one who invited you has left the table",
                    );
                };
                if self
                    .tables
                    .iter()
                    .enumerate()
                    .any(|(i, _)| self.seat_of(i, user_id).is_some())
                {
                    return refuse(
                        "already_seated",
                        "you already have a seat in this room: stand first",
                    );
                }
                if self.tables[t].seats[side.opponent().index()].is_some() {
                    return refuse("seat_taken", "the seat was taken meanwhile");
                }
                let table = &mut self.tables[t];
                table.seats[side.opponent().index()] = Some(user);
                table.settings = inv.settings;
                table.game = None;
                table.r#match = None;
                table.rematch = None;
                self.table_changed(t);
                self.start_match(t, None).await?;
            }
            ClientMessage::Move {
                table,
                pit,
                version,
            } => self.play(user_id, &table, pit, version, r#ref).await?,
            ClientMessage::Resign { table, scope } => {
                let (t, player) = self.player_in_match(&table, user_id)?;
                match scope {
                    Scope::Match => self.end_match(t, Some(player), MatchEnd::Resigned).await,
                    Scope::Game if !self.tables[t].game_in_play() => {
                        return refuse(
                            "no_game",
                            "no game is in play at this table: resign the match instead",
                        )
                    }
                    Scope::Game => {}
                }
                // Between games the match's end has freed the seat already.
                if let Some(side) = self.seat_of(t, user_id) {
                    self.end_off_board(t, |g| g.forfeit(side, Forfeit::Resigned))
                        .await;
                }
            }
            ClientMessage::OfferDraw { table, scope } => {
                let (t, player) = self.player_in_match(&table, user_id)?;
                if scope == Scope::Game && !self.tables[t].game_in_play() {
                    return refuse(
                        "no_game",
                        "no game is in play at this table: offer to draw the match instead",
                    );
                }
                let m = self.tables[t]
                    .r#match
                    .as_mut()
                    .expect("player_in_match checked");
                let opponent = m.players[1 - player].clone();
                if opponent.house {
                    // Baba Ayo plays every game out.
                    self.send_to(user_id, &ServerMessage::DrawDeclined { table, scope });
                    return Ok(());
                }
                m.draw_offer = Some(DrawOffer {
                    from: player,
                    scope,
                });
                self.send_to(
                    &opponent.id,
                    &ServerMessage::DrawOffered {
                        table,
                        from: user,
                        scope,
                    },
                );
            }
            ClientMessage::AnswerDraw { table, accept } => {
                let (t, player) = self.player_in_match(&table, user_id)?;
                let m = self.tables[t]
                    .r#match
                    .as_mut()
                    .expect("player_in_match checked");
                let Some(offer) = m.draw_offer.filter(|o| o.from != player) else {
                    return refuse("no_draw_offer", "your opponent has not offered a draw");
                };
                m.draw_offer = None;
                let offerer = m.players[offer.from].id.clone();
                if !accept {
                    self.send_to(
                        &offerer,
                        &ServerMessage::DrawDeclined {
                            table,
                            scope: offer.scope,
                        },
                    );
                } else {
                    if offer.scope == Scope::Match {
                        self.end_match(t, None, MatchEnd::AgreedDraw).await;
                    }
                    self.end_off_board(t, Game::agree_draw).await;
                }
            }
            ClientMessage::Sync { table, version } => {
                let t = self.table_index(&table)?;
                let missed = self.missed(t, version, r#ref);
                self.send_to(user_id, &missed);
            }
            // The room one is in, entered again.
            ClientMessage::Enter { since, .. } => self.send_snapshot(user_id, since, r#ref),
            ClientMessage::Leave {} | ClientMessage::Ping {} => {}
        }
        Ok(())
    }

    fn table_index(&self, id: &str) -> Result<usize, Refusal> {
        match self.tables.iter().position(|t| t.id == id) {
            Some(t) => Ok(t),
            None => refuse(
                "no_such_table",
                format!("there is no table `{id}` in this room"),
            ),
        }
    }

    fn seat_of(&self, t: usize, user_id: &str) -> Option<Side> {
        Side::BOTH.into_iter().find(|s| {
            self.tables[t].seats[s.index()]
                .as_ref()
                .is_some_and(|u| u.id == user_id)
        })
    }

    /// The table of a match in play and which of its players `user_id` is.
    fn player_in_match(&self, table: &str, user_id: &str) -> Result<(usize, usize), Refusal> {
        let t = self.table_index(table)?;
        let Some(m) = self.tables[t].r#match.as_ref().filter(|m| !m.is_over()) else {
            return refuse("no_game", "no game is in play at this table");
        };
        match m.player(user_id) {
            Some(player) if self.seat_of(t, user_id).is_some() => Ok((t, player)),
            _ => refuse("not_seated", "you are not playing at this table"),
        }
    }

    /// The table and seat of a player in a game in play there.
    fn player_in_game(&self, table: &str, user_id: &str) -> Result<(usize, Side), Refusal> {
        let t = self.table_index(table)?;
        match (self.tables[t].game_in_play(), self.seat_of(t, user_id)) {
            (true, Some(side)) => Ok((t, side)),
            (false, _) => refuse("no_game", "no game is in play at this table"),
            (true, None) => refuse("not_seated", "you are not playing at this table"),
        }
    }

    /// The seat is given up: a match in play there is resigned with its game.
    async fn give_up_seat(&mut self, t: usize, side: Side) {
        let player = self.tables[t].seats[side.index()]
            .as_ref()
            .and_then(|u| self.tables[t].r#match.as_ref()?.player(&u.id));
        self.end_match(t, player, MatchEnd::Resigned).await;
        self.end_off_board(t, |g| g.forfeit(side, Forfeit::Resigned))
            .await;
        let table = &mut self.tables[t];
        table.seats[side.index()] = None;
        if table.seats.iter().all(Option::is_none) {
            // Nobody hosts here now, and nobody is invited by them.
            table.settings = MatchSettings::default();
            let id = table.id.clone();
            self.void_invitations(&id, "withdrawn");
        }
        self.table_changed(t);
    }

    /// The match at table `t` ends, `loser` losing it (nobody: the leader wins; or drawn as
    /// `why` says): now between games, or once the game in play is over and counted.
    async fn end_match(&mut self, t: usize, loser: Option<usize>, why: MatchEnd) {
        let in_play = self.tables[t].game_in_play();
        let Some(m) = self.tables[t].r#match.as_mut().filter(|m| !m.is_over()) else {
            return;
        };
        if in_play {
            m.ending = Some((loser, why));
            return;
        }
        m.end(loser, why);
        self.match_over(t).await;
    }

    /// Both seats are taken: a match begins. Lots decide who is its first player (South in
    /// its first game) unless `order` says (a rematch).
    async fn start_match(&mut self, t: usize, order: Option<[User; 2]>) -> Result<(), Refusal> {
        let table = &self.tables[t];
        let players = match order {
            Some(players) => players,
            None => {
                let (Some(south), Some(north)) = (table.seats[0].clone(), table.seats[1].clone())
                else {
                    return Ok(());
                };
                if uuid::Uuid::new_v4().as_bytes()[0] & 1 == 1 {
                    [north, south]
                } else {
                    [south, north]
                }
            }
        };
        let settings = table.settings;
        let row = MatchRow {
            id: store::ordered_id(),
            table_id: table.id.clone(),
            first_id: players[0].id.clone(),
            second_id: players[1].id.clone(),
            house: players.iter().any(|p| p.house),
            best_of: i32::from(u8::from(settings.best_of)),
            clock: settings.clock.to_string(),
            rules: serde_json::to_string(&table.rules).unwrap_or_default(),
            status: "playing".into(),
            winner_id: None,
            end_reason: None,
            first_halves: 0,
            second_halves: 0,
            started_at: store::now(),
            ended_at: None,
        };
        let store = self.store.clone();
        let stored = row.clone();
        if let Err(e) = blocking(move || store.insert_match(&stored)).await {
            tracing::error!(error = %e, table = %row.table_id, "storing a new match");
            return refuse("internal", "the match could not be stored; try again");
        }
        let table = &mut self.tables[t];
        table.r#match = Some(LiveMatch::new(row.id.clone(), settings, players));
        table.rematch = None;
        if let Err(refusal) = self.start_next_game(t).await {
            // Nothing was played: the match never was.
            self.tables[t].r#match = None;
            let store = self.store.clone();
            if let Err(e) = blocking(move || store.delete_match(&row.id)).await {
                tracing::error!(error = %e, "taking back a match that could not start");
            }
            return Err(refusal);
        }
        Ok(())
    }

    /// The next game of the match at table `t`: its players sit as the match says (the first
    /// move swaps every game), it is stored, its clock starts, and it is announced.
    async fn start_next_game(&mut self, t: usize) -> Result<(), Refusal> {
        let now = self.now();
        let table = &self.tables[t];
        let Some(m) = table.r#match.as_ref().filter(|m| !m.is_over()) else {
            return Ok(());
        };
        let [south, north] = m.seats();
        let number = m.game_number();
        let clocks = Clocks::new(m.settings.clock).map(|mut c| {
            c.start(Side::South, now);
            c
        });
        let row = GameRow {
            clock_started_ms: clocks.map(|_| i64::try_from(now).unwrap_or(i64::MAX)),
            ..next_game_row(table, m, &south, &north)
        };
        let store = self.store.clone();
        let stored = row.clone();
        if let Err(e) = blocking(move || store.insert_game(&stored)).await {
            tracing::error!(error = %e, table = %row.table_id, "storing a new game");
            return refuse("internal", "the game could not be stored; try again");
        }
        let game = Game::new(table.rules);
        let players = Players {
            south: south.clone(),
            north: north.clone(),
        };
        let (table_id, rules, game_id, house) =
            (table.id.clone(), table.rules, row.id.clone(), row.house);
        let game_state = game.state();
        crate::metrics::METRICS.games_in_play.inc();
        let table = &mut self.tables[t];
        // A retry is matched against this game's moves only: refs may repeat across games.
        table.last_moves = [None, None];
        table.seats = [Some(south.clone()), Some(north.clone())];
        table.game = Some(LiveGame {
            id: row.id,
            game,
            players: [south, north],
            number,
            clocks,
        });
        if let Some(m) = table.r#match.as_mut() {
            m.between = None;
            m.draw_offer = None;
        }
        self.table_changed(t);
        let table = &self.tables[t];
        let started = ServerMessage::GameStarted {
            table: table_id,
            game_id,
            players,
            house,
            rules,
            state: game_state,
            version: table.version + 1,
            r#match: table
                .r#match
                .as_ref()
                .map(LiveMatch::view)
                .expect("started above"),
            clock: ClockView::of(clocks.as_ref(), now),
        };
        self.publish(t, &started);
        self.house_turn(t);
        Ok(())
    }

    /// `play_house`: the player takes a seat at the table if they have none there, Baba Ayo
    /// the one opposite, and a match under `settings` starts.
    async fn play_house(
        &mut self,
        user: User,
        table: &str,
        level: Level,
        settings: MatchSettings,
    ) -> Result<(), Refusal> {
        let t = self.table_index(table)?;
        if self.tables[t].match_in_play() {
            return refuse("game_in_play", "a game is in play at this table");
        }
        let seated = self.seat_of(t, &user.id);
        if seated.is_none() && (0..self.tables.len()).any(|i| self.seat_of(i, &user.id).is_some()) {
            return refuse(
                "already_seated",
                "you already have a seat in this room: stand first",
            );
        }
        // Both seats must be the player's or free: the house never sits opposite someone else.
        let side = seated.unwrap_or(Side::South);
        let opposite = side.opponent().index();
        if self.tables[t].seats[opposite].is_some()
            || self.tables[t].seats[side.index()]
                .as_ref()
                .is_some_and(|u| u.id != user.id)
        {
            return refuse("seat_taken", "someone else has a seat at this table");
        }
        let table_state = &mut self.tables[t];
        table_state.seats[side.index()] = Some(user.clone());
        table_state.seats[opposite] = Some(House::user(level));
        table_state.settings = settings;
        table_state.game = None;
        table_state.r#match = None;
        table_state.rematch = None;
        // Invitations to that seat are void now.
        self.invitations.retain(|i| i.table != table);
        self.table_changed(t);
        if let Err(refusal) = self.start_match(t, None).await {
            // The match could not be stored: Baba Ayo gets up again.
            if let Some(s) = Side::BOTH.into_iter().find(|s| {
                self.tables[t].seats[s.index()]
                    .as_ref()
                    .is_some_and(|u| u.house)
            }) {
                self.tables[t].seats[s.index()] = None;
                self.table_changed(t);
            }
            return Err(refusal);
        }
        Ok(())
    }

    /// `rematch`: one press each (Baba Ayo's is made); the second starts the new match.
    async fn rematch(&mut self, user_id: &str, table: &str) -> Result<(), Refusal> {
        let t = self.table_index(table)?;
        let Some(rematch) = self.tables[t].rematch.as_mut() else {
            return refuse("no_rematch", "no rematch is on offer at this table");
        };
        let Some(player) = rematch.player(user_id) else {
            return refuse(
                "no_rematch",
                "the rematch here is for the last match's players",
            );
        };
        rematch.pressed[player] = true;
        if rematch.pressed != [true, true] {
            let (from, to) = (
                rematch.players[player].clone(),
                rematch.players[1 - player].id.clone(),
            );
            self.table_changed(t);
            self.send_to(
                &to,
                &ServerMessage::RematchOffered {
                    table: table.to_owned(),
                    from,
                },
            );
            return Ok(());
        }
        let rematch = self.tables[t].rematch.take().expect("checked above");
        // Both must still be free to play: here, and seated nowhere else.
        // Baba Ayo (one user a level) may be at other tables at once.
        let free = rematch.players.iter().all(|p| {
            p.house
                || (self.members.contains_key(&p.id)
                    && (0..self.tables.len()).all(|i| self.seat_of(i, &p.id).is_none()))
        });
        if !free || self.tables[t].seats.iter().any(Option::is_some) {
            self.table_changed(t);
            return refuse(
                "rematch_void",
                "the rematch is off: a player has left or sat elsewhere",
            );
        }
        self.tables[t].settings = rematch.settings;
        self.start_match(t, Some(rematch.players)).await
    }

    /// Rematches on offer to `user_id` are off (they left).
    fn void_rematches_of(&mut self, user_id: &str) {
        for t in 0..self.tables.len() {
            if self.tables[t]
                .rematch
                .as_ref()
                .is_some_and(|r| r.player(user_id).is_some())
            {
                self.tables[t].rematch = None;
                self.table_changed(t);
            }
        }
    }

    /// Baba Ayo, when he is the one to move at table `t`.
    fn house_to_move(&self, t: usize) -> Option<User> {
        let live = self.tables[t].game.as_ref()?;
        let side = live.game.to_move()?;
        let player = &live.players[side.index()];
        player.house.then(|| player.clone())
    }

    /// If Baba Ayo is to move at table `t`, he thinks, off the room's task; his move comes
    /// back as a command, played only if the table has not changed meanwhile.
    fn house_turn(&mut self, t: usize) {
        let Some(player) = self.house_to_move(t) else {
            return;
        };
        let Some(level) = House::level_of(&player.id) else {
            return;
        };
        let Some(inbox) = self.itself.upgrade() else {
            return;
        };
        let table = &self.tables[t];
        let Some(live) = table.game.as_ref() else {
            return;
        };
        let (game, version, table_id) = (live.game.clone(), table.version, table.id.clone());
        let clock_left = live.game.to_move().and_then(|side| {
            let left = live.clocks.as_ref()?.left(self.now())[side.index()];
            Some(Duration::from_millis(left))
        });
        let seed = version ^ u64::from(game.ply());
        let house = self.config.house.clone();
        tokio::spawn(async move {
            let command = match house.think(game, level, seed, clock_left).await {
                Some(pit) => RoomCommand::HouseMove {
                    table: table_id,
                    version,
                    pit,
                },
                // Not thought out (the service stops, or the search failed): try again later
                // unless stopping.
                None if house.stopping() => return,
                None => {
                    tracing::error!(table = %table_id, "Baba Ayo could not think; again in a second");
                    tokio::time::sleep(HOUSE_RETRY).await;
                    RoomCommand::HouseAgain {
                        table: table_id,
                        version,
                    }
                }
            };
            let _ = inbox.send(command).await;
        });
    }

    /// Asks Baba Ayo to think again at table `t` in a second.
    fn house_turn_later(&self, t: usize) {
        let Some(inbox) = self.itself.upgrade() else {
            return;
        };
        let (table, version) = (self.tables[t].id.clone(), self.tables[t].version);
        tokio::spawn(async move {
            tokio::time::sleep(HOUSE_RETRY).await;
            let _ = inbox.send(RoomCommand::HouseAgain { table, version }).await;
        });
    }

    async fn play(
        &mut self,
        user_id: &str,
        table: &str,
        pit: Pit,
        version: Option<u64>,
        r#ref: Option<Value>,
    ) -> Result<(), Refusal> {
        let t = self.table_index(table)?;
        // A move sent again after a lost reply (the same ref, or the same pit from the version
        // it was played at) gets the reply again and is not played twice.
        if let Some(last) = self.tables[t]
            .last_moves
            .iter()
            .flatten()
            .find(|m| m.user_id == user_id)
        {
            let same_ref = r#ref.is_some() && last.r#ref == r#ref;
            let same_version = version == Some(last.version_before) && last.pit == pit;
            if same_ref || same_version {
                let frame = last.frame.clone();
                if let Some(member) = self.members.get(user_id) {
                    let _ = member.outbox.try_send(frame);
                }
                return Ok(());
            }
        }
        // The flag fell a moment before the move came (the table has moved on since).
        if !self.tables[t].game_in_play() && self.ran_out(t, user_id) {
            return refuse("time_out", "your time ran out before the move");
        }
        if version.is_some_and(|v| v != self.tables[t].version) {
            let view = self.view(&self.tables[t]);
            self.send_to(user_id, &ServerMessage::Table(view));
            return refuse(
                "stale_version",
                "the table has moved on: the current table follows",
            );
        }
        let (t, side) = self.player_in_game(table, user_id)?;
        let live = self.tables[t]
            .game
            .as_ref()
            .expect("player_in_game checked");
        if live.game.to_move() != Some(side) {
            return refuse("not_your_turn", "it is not your turn");
        }
        // Play on a copy: the move is stored before it is applied and announced.
        let mut next = live.game.clone();
        let played = next
            .play(pit)
            .map_err(|e| Refusal("illegal_move", e.to_string()))?;
        let now = self.now();
        let mut clocks = live.clocks;
        if let Some(c) = clocks.as_mut() {
            if c.moved(side, now).is_err() {
                // Too late: the flag fell before the move came.
                self.end_off_board(t, |g| g.time_out(side)).await;
                return refuse("time_out", "your time ran out before the move");
            }
        }
        let clock = clocks.map(|c| MoveClock {
            at_ms: now,
            left: c.left(now),
        });
        let (store, game_id, ply) = (self.store.clone(), live.id.clone(), next.ply());
        if let Err(e) =
            blocking(move || store.record_move_with(&game_id, ply, pit.number(), clock)).await
        {
            tracing::error!(error = %e, "storing a move");
            return refuse("internal", "the move could not be stored; try again");
        }
        let version_before = self.tables[t].version;
        let table_state = &mut self.tables[t];
        if let Some(m) = table_state.r#match.as_mut() {
            m.draw_offer = None;
        }
        let live = table_state
            .game
            .as_mut()
            .expect("still there: the room is ours");
        live.game = next;
        live.clocks = clocks;
        crate::metrics::METRICS.moves.inc();
        let update = ServerMessage::GameState {
            table: table.to_owned(),
            game_id: live.id.clone(),
            last_move: LastMove {
                seat: played.side,
                pit,
            },
            captured: played.captured,
            state: live.game.state(),
            version: version_before + 1,
            r#ref: r#ref.clone(),
            clock: ClockView::of(clocks.as_ref(), now),
            server_time: now,
        };
        let over = live.game.is_over();
        let frame = self.publish(t, &update);
        self.tables[t].last_moves[played.side.index()] = Some(AppliedMove {
            user_id: user_id.to_owned(),
            r#ref,
            pit,
            version_before,
            frame,
        });
        if over {
            self.game_over(t).await;
        } else {
            self.house_turn(t);
        }
        Ok(())
    }

    /// Ends the game at table `t` off the board (resign, draw, time) with `end`.
    async fn end_off_board(&mut self, t: usize, end: impl FnOnce(&mut Game) -> bool) {
        let Some(live) = self.tables[t].game.as_mut() else {
            return;
        };
        if end(&mut live.game) {
            self.game_over(t).await;
        }
    }

    /// Stores and announces the end of the game at table `t` and counts it for its match:
    /// the match is over, or the wait for the next game begins.
    async fn game_over(&mut self, t: usize) {
        let now = self.now();
        let closing = self.closing;
        let table = &mut self.tables[t];
        let Some(live) = table.game.as_mut() else {
            return;
        };
        if let Some(c) = live.clocks.as_mut() {
            c.stop(now);
        }
        crate::metrics::METRICS.games_in_play.dec();
        let (status, reason) = (
            live.game.status(),
            live.game.end_reason().unwrap_or(EndReason::Abandoned),
        );
        let (store, game_id) = (self.store.clone(), live.id.clone());
        let status_text = json_word(&status);
        let reason_text = json_word(&reason);
        let win = win_of(&live.game, &live.players);
        let played = PlayedGame {
            game_id: live.id.clone(),
            number: live.number,
            south: live.players[0].id.clone(),
            north: live.players[1].id.clone(),
            result: status,
            reason: reason_text.clone(),
        };
        if let Some(m) = table.r#match.as_mut() {
            if closing && m.ending.is_none() {
                m.ending = Some((None, MatchEnd::CalledOff));
            }
        }
        self.count_game(t, played);
        let results = self.config.results.clone();
        let counts = match blocking(move || {
            let clock = results.clock;
            store.finish_game_with(
                &game_id,
                &status_text,
                &reason_text,
                win.as_ref(),
                |ended| clock.day_of(ended.and_utc()),
                results.cap,
            )
        })
        .await
        {
            Ok(finished) => finished.counts,
            Err(e) => {
                tracing::error!(error = %e, "storing the end of a game");
                false
            }
        };
        if counts {
            self.config.results.pending.notify_one();
        }
        let table = &self.tables[t];
        let live = table.game.as_ref().expect("still there: the room is ours");
        let over = ServerMessage::GameOver {
            table: table.id.clone(),
            game_id: live.id.clone(),
            result: status,
            reason,
            state: live.game.state(),
            counts_for_champions: counts,
            version: table.version + 1,
            r#match: table.r#match.as_ref().map(LiveMatch::view),
            clock: ClockView::of(live.clocks.as_ref(), now),
        };
        self.publish(t, &over);
        self.match_after_game(t).await;
        if self.closing && self.matches_in_play() == 0 {
            self.shut();
        }
    }

    /// Counts a game for the match at table `t`: unless that ends the match, both now have
    /// the clock's base time to press start for the next game (Baba Ayo is ready at once).
    fn count_game(&mut self, t: usize, played: PlayedGame) {
        let (now, untimed) = (self.now(), self.untimed_start_ms());
        if let Some(m) = self.tables[t].r#match.as_mut() {
            if !m.record(played) {
                m.wait_for_start(now, untimed);
            }
        }
    }

    /// After a game of the match at table `t` was counted and told: the match is over, or the
    /// room hears that the wait for the next game has begun.
    async fn match_after_game(&mut self, t: usize) {
        let Some(m) = self.tables[t].r#match.as_ref() else {
            // A game without a match (never, since matches): the players stand up.
            self.tables[t].seats = [None, None];
            self.table_changed(t);
            return;
        };
        if m.is_over() {
            self.match_over(t).await;
            return;
        }
        let (store, id, halves) = (self.store.clone(), m.id.clone(), m.series.halves());
        if let Err(e) = blocking(move || store.set_match_points(&id, halves)).await {
            tracing::error!(error = %e, "storing a match's points");
        }
        self.match_changed(t);
    }

    /// Stores and announces the end of the match at table `t`; the players stand up, and a
    /// rematch is on offer for a while.
    async fn match_over(&mut self, t: usize) {
        let now = self.now();
        let Some(m) = self.tables[t].r#match.as_ref().filter(|m| m.is_over()) else {
            return;
        };
        let reason = m.end.unwrap_or(MatchEnd::Games);
        let result = result_of(m);
        let (store, id) = (self.store.clone(), m.id.clone());
        if let Err(e) = blocking(move || store.finish_match(&id, &result)).await {
            tracing::error!(error = %e, "storing the end of a match");
        }
        let table = &self.tables[t];
        let m = table
            .r#match
            .as_ref()
            .expect("still there: the room is ours");
        let over = ServerMessage::MatchOver {
            table: table.id.clone(),
            match_id: m.id.clone(),
            winner: m.winner().cloned(),
            reason,
            points: m.series.points(),
            r#match: m.view(),
            version: table.version + 1,
        };
        let last_south = m
            .games
            .last()
            .map_or_else(|| m.players[0].id.clone(), |g| g.south.clone());
        let rematch = (!self.closing && reason != MatchEnd::CalledOff).then(|| {
            Rematch::of(
                m,
                &last_south,
                now.saturating_add(self.config.rematch.as_millis() as u64),
            )
        });
        self.publish(t, &over);
        // The players stand up; the last game stays on the table until someone sits. A
        // rematch keeps its own settings; the table's are the lounge's until a new host.
        self.tables[t].seats = [None, None];
        self.tables[t].settings = MatchSettings::default();
        self.tables[t].rematch = rematch;
        self.table_changed(t);
    }

    /// Tells the room where the match at table `t` stands (between games).
    fn match_changed(&mut self, t: usize) {
        let now = self.now();
        let table = &self.tables[t];
        let Some(m) = table.r#match.as_ref() else {
            return;
        };
        let message = ServerMessage::MatchState {
            table: table.id.clone(),
            r#match: m.view(),
            version: table.version + 1,
            server_time: now,
        };
        self.publish(t, &message);
    }

    /// Whether the last game at table `t` ended with `user_id`'s time running out (lost, or
    /// drawn when the opponent could not win): the side to move when it ended.
    fn ran_out(&self, t: usize, user_id: &str) -> bool {
        self.tables[t].game.as_ref().is_some_and(|g| {
            g.game.end_reason() == Some(EndReason::Timeout)
                && g.players[g.game.position().to_move().index()].id == user_id
        })
    }

    /// The side to move at table `t` whose time has run out, if any.
    fn flagged(&self, t: usize, now: u64) -> Option<Side> {
        let live = self.tables[t].game.as_ref().filter(|g| !g.game.is_over())?;
        live.clocks.as_ref()?.flagged(now)
    }

    /// The soonest a running clock runs out.
    fn next_flag(&self) -> Option<u64> {
        self.tables
            .iter()
            .filter_map(|t| t.game.as_ref().filter(|g| !g.game.is_over()))
            .filter_map(|g| g.clocks.as_ref()?.deadline())
            .min()
    }

    /// Games whose side to move ran out of time end (`timeout`).
    async fn check_clocks(&mut self) {
        let now = self.now();
        for t in 0..self.tables.len() {
            if let Some(side) = self.flagged(t, now) {
                self.end_off_board(t, |g| g.time_out(side)).await;
            }
        }
    }

    /// Start presses and rematches whose time is up.
    async fn check_deadlines(&mut self) {
        let now = self.now();
        for t in 0..self.tables.len() {
            if self.tables[t]
                .rematch
                .as_ref()
                .is_some_and(|r| r.deadline_ms <= now)
            {
                self.tables[t].rematch = None;
                self.table_changed(t);
            }
            let Some(between) = self.tables[t]
                .r#match
                .as_ref()
                .filter(|m| !m.is_over())
                .and_then(|m| m.between)
            else {
                continue;
            };
            if between.ready != [true, true] && between.deadline_ms > now {
                continue;
            }
            match between.ready {
                // Both pressed, but the game could not be stored then: again, now.
                [true, true] => {
                    let _ = self.start_next_game(t).await;
                }
                // Nobody pressed start: the match ends, the leader winning it.
                [false, false] => self.end_match(t, None, MatchEnd::NoStart).await,
                // One did: the other loses that game.
                [ready_first, _] => self.forfeit_unstarted(t, usize::from(ready_first)).await,
            }
        }
    }

    /// Player `loser` of the match at table `t` did not press start in time: the game they
    /// would have played is stored as lost (`not_started`) and counted.
    async fn forfeit_unstarted(&mut self, t: usize, loser: usize) {
        let table = &self.tables[t];
        let Some(m) = table.r#match.as_ref().filter(|m| !m.is_over()) else {
            return;
        };
        let [south, north] = m.seats();
        let lost_south = south.id == m.players[loser].id;
        let result = if lost_south {
            crate::ayo::Status::NorthWon
        } else {
            crate::ayo::Status::SouthWon
        };
        let row = GameRow {
            status: json_word(&result),
            end_reason: Some("not_started".into()),
            ended_at: Some(store::now()),
            ..next_game_row(table, m, &south, &north)
        };
        let played = PlayedGame {
            game_id: row.id.clone(),
            number: m.game_number(),
            south: south.id,
            north: north.id,
            result,
            reason: "not_started".into(),
        };
        let store = self.store.clone();
        if let Err(e) = blocking(move || store.insert_game(&row)).await {
            tracing::error!(error = %e, "storing a game lost by not starting");
        }
        self.count_game(t, played);
        self.match_after_game(t).await;
        if self.closing && self.matches_in_play() == 0 {
            self.shut();
        }
    }

    fn expire_invitations(&mut self) {
        let now = Instant::now();
        self.end_invitations(|i| i.expires <= now, "expired");
    }

    fn view(&self, table: &Table) -> TableView {
        let now = self.now();
        TableView {
            id: table.id.clone(),
            room: self.info.id.clone(),
            seats: Seats {
                south: table.seats[0].clone(),
                north: table.seats[1].clone(),
            },
            rules: table.rules,
            game: table.game.as_ref().map(|g| TableGame {
                id: g.id.clone(),
                players: Players {
                    south: g.players[0].clone(),
                    north: g.players[1].clone(),
                },
                state: g.game.state(),
                number: g.number,
                clock: ClockView::of(g.clocks.as_ref(), now),
            }),
            version: table.version,
            settings: table.settings,
            r#match: table.r#match.as_ref().map(LiveMatch::view),
            rematch: table.rematch.clone(),
            server_time: now,
        }
    }

    fn table_changed(&mut self, t: usize) {
        let mut view = self.view(&self.tables[t]);
        view.version += 1;
        self.publish(t, &ServerMessage::Table(view));
    }

    /// Sends a table event to everyone in the room and keeps it for those who come back.
    /// `event` carries the table's next version.
    fn publish(&mut self, t: usize, event: &ServerMessage) -> Arc<str> {
        let frame = event.to_frame();
        let table = &mut self.tables[t];
        table.version += 1;
        table.log.push_back((table.version, frame.clone()));
        while table.log.len() > self.config.table_log {
            table.log.pop_front();
        }
        self.broadcast_frame("", &frame);
        frame
    }

    /// What a client that last saw `since` of table `t` missed: the events after it if all are
    /// still held, else the whole table.
    fn missed(&self, t: usize, since: u64, r#ref: Option<Value>) -> ServerMessage {
        let table = &self.tables[t];
        let held_from = table.log.front().map_or(table.version, |(v, _)| v - 1);
        let events = (held_from..=table.version).contains(&since).then(|| {
            table
                .log
                .iter()
                .filter(|(v, _)| *v > since)
                .filter_map(|(_, frame)| {
                    serde_json::value::RawValue::from_string(frame.to_string()).ok()
                })
                .collect::<Vec<_>>()
        });
        ServerMessage::Missed {
            table: table.id.clone(),
            since,
            version: table.version,
            resync: events.is_none(),
            snapshot: events.is_none().then(|| self.view(table)),
            events: events.unwrap_or_default(),
            r#ref,
        }
    }

    fn send_to(&mut self, user_id: &str, message: &ServerMessage) {
        let Some(member) = self.members.get(user_id) else {
            return;
        };
        if member.outbox.try_send(message.to_frame()).is_err() {
            self.drop_members(vec![user_id.to_owned()]);
        }
    }

    fn broadcast(&mut self, message: &ServerMessage) {
        self.broadcast_except("", message);
    }

    /// One serialisation, one `try_send` each; a reader whose queue is full is dropped.
    fn broadcast_except(&mut self, except: &str, message: &ServerMessage) {
        self.broadcast_frame(except, &message.to_frame());
    }

    fn broadcast_frame(&mut self, except: &str, frame: &Arc<str>) {
        let slow: Vec<String> = self
            .members
            .iter()
            .filter(|(id, m)| id.as_str() != except && m.outbox.try_send(frame.clone()).is_err())
            .map(|(id, _)| id.clone())
            .collect();
        self.drop_members(slow);
    }

    /// Members whose outbox is full or closed are out of the room (their session closes when
    /// its outbox sender is gone); the rest are told.
    fn drop_members(&mut self, ids: Vec<String>) {
        for id in ids {
            if let Some(member) = self.members.remove(&id) {
                self.occupants.store(self.members.len(), Ordering::Relaxed);
                tracing::info!(room = %self.info.id, user = %id, "dropping a slow or gone reader");
                // Seats and invitations are seen to after the command (that is async).
                self.dropped.push(id.clone());
                self.broadcast(&ServerMessage::OccupantLeft {
                    room: self.info.id.clone(),
                    user: member.user,
                });
            }
        }
    }
}

/// A game's win, for the results, when it was won: `players` South and North.
pub(super) fn win_of(game: &Game, players: &[User; 2]) -> Option<store::Win> {
    game.status().winner().map(|side| {
        let (winner, loser) = (&players[side.index()], &players[side.opponent().index()]);
        store::Win {
            winner_id: winner.id.clone(),
            loser_id: loser.id.clone(),
            seeds: game.position().stores()[side.index()],
            house_level: [winner, loser]
                .iter()
                .find_map(|p| House::level_of(&p.id))
                .map(|l| l.name().to_owned()),
            plies: game.ply(),
        }
    })
}

/// How a decided match is stored.
pub(super) fn result_of(m: &LiveMatch) -> MatchResult {
    MatchResult {
        status: if m.winner().is_some() { "won" } else { "draw" }.into(),
        winner_id: m.winner().map(|w| w.id.clone()),
        end_reason: m.end.unwrap_or(MatchEnd::Games).word().into(),
        halves: m.series.halves(),
    }
}

/// The stored row of the next game of `m` at `table`, in play from now, without a clock.
fn next_game_row(table: &Table, m: &LiveMatch, south: &User, north: &User) -> GameRow {
    GameRow {
        id: store::new_id(),
        table_id: table.id.clone(),
        south_id: south.id.clone(),
        north_id: north.id.clone(),
        rules: serde_json::to_string(&table.rules).unwrap_or_default(),
        house: south.house || north.house,
        status: "playing".into(),
        end_reason: None,
        started_at: store::now(),
        ended_at: None,
        match_id: Some(m.id.clone()),
        number: Some(i32::from(m.game_number())),
        clock_started_ms: None,
    }
}

/// Sleeps for `d`, or for ever without one.
async fn sleep_for(d: Option<Duration>) {
    match d {
        Some(d) => tokio::time::sleep(d).await,
        None => std::future::pending().await,
    }
}

/// The word serde gives a value (`"south_won"`, `"resigned"`), for the database.
pub(super) fn json_word<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
