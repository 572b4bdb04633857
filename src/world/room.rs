//! One room: its occupants, tables, invitations and games, owned by one task. Sessions talk to
//! it through its inbox; it talks to them through their bounded outboxes and never waits for one.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::ayo::house::Level;
use crate::ayo::{EndReason, Forfeit, Game, Pit, Rules, Side};
use crate::house::House;
use crate::store::{self, blocking, Actor, GameRow, Store, StoreError};

use super::hotel::{CloseGames, DoorState, HotelError, TableChange};
use super::protocol::{
    ClientMessage, LastMove, Players, RoomInfo, Seats, ServerMessage, TableGame, TableView,
};
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

/// A game in play read back from the store at start.
pub struct ResumedGame {
    pub table_id: String,
    pub game_id: String,
    pub game: Game,
    /// South, North.
    pub players: [User; 2],
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
    draw_offer: Option<Side>,
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
            version: *VERSION_BASE,
            log: VecDeque::new(),
        }
    }

    /// Nobody sits there and no game is in play.
    fn idle(&self) -> bool {
        self.seats.iter().all(Option::is_none)
            && self.game.as_ref().is_none_or(|g| g.game.is_over())
    }
}

impl Room {
    /// Starts the room's task; `tables` are (id, rules).
    pub fn spawn(
        info: RoomInfo,
        tables: Vec<(String, Rules)>,
        games: Vec<ResumedGame>,
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
            door,
        };
        for resumed in games {
            room.resume(resumed);
        }
        tokio::spawn(room.run(commands));
        RoomHandle {
            info: Arc::new(info),
            inbox,
            occupants,
        }
    }

    /// Puts a game in play back on its table after a restart. Its players sit again and have
    /// the grace period to come back.
    fn resume(&mut self, resumed: ResumedGame) {
        let Some(t) = self.tables.iter().position(|t| t.id == resumed.table_id) else {
            tracing::warn!(game = %resumed.game_id, table = %resumed.table_id, "a game in play at a table that is gone");
            return;
        };
        let back = Instant::now() + self.config.grace;
        // Baba Ayo never leaves: only people have a grace to come back in.
        for player in resumed.players.iter().filter(|p| !p.house) {
            self.absent.insert(player.id.clone(), back);
        }
        let table = &mut self.tables[t];
        table.seats = [
            Some(resumed.players[0].clone()),
            Some(resumed.players[1].clone()),
        ];
        crate::metrics::METRICS.games_in_play.inc();
        table.game = Some(LiveGame {
            id: resumed.game_id,
            game: resumed.game,
            players: resumed.players,
            draw_offer: None,
        });
        table.version += 1;
    }

    async fn run(mut self, mut commands: mpsc::Receiver<RoomCommand>) {
        // Games against the house resumed after a restart where it is his turn.
        for t in 0..self.tables.len() {
            self.house_turn(t);
        }
        let mut tick = tokio::time::interval(Duration::from_millis(500));
        loop {
            tokio::select! {
                command = commands.recv() => match command {
                    Some(RoomCommand::Close { done }) => {
                        self.close();
                        let _ = done.send(());
                        break;
                    }
                    Some(command) => {
                        self.handle(command).await;
                        if self.closed {
                            break;
                        }
                    }
                    None => break,
                },
                _ = tick.tick() => {
                    self.expire_invitations();
                    self.abandon_absent().await;
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
                if games == CloseGames::End {
                    for t in 0..self.tables.len() {
                        self.end_off_board(t, Game::call_off).await;
                    }
                }
                let _ = reply.send(self.games_in_play());
                self.closing = true;
                if self.games_in_play() == 0 {
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
            && self.games_in_play() == 0;
        if !idle {
            self.idle_since = None;
            return false;
        }
        let since = *self.idle_since.get_or_insert_with(Instant::now);
        since.elapsed() >= self.config.apartment_idle
    }

    /// Whether `user_id` plays a game in play here.
    fn plays_here(&self, user_id: &str) -> bool {
        (0..self.tables.len()).any(|t| {
            self.seat_of(t, user_id).is_some()
                && self.tables[t]
                    .game
                    .as_ref()
                    .is_some_and(|g| !g.game.is_over())
        })
    }

    /// Invitations to table `t` end (it goes, or its rules change): both sides are told.
    fn void_invitations(&mut self, table: &str) {
        let (gone, open): (Vec<_>, Vec<_>) =
            self.invitations.drain(..).partition(|i| i.table == table);
        self.invitations = open;
        for inv in gone {
            let expired = ServerMessage::InvitationExpired {
                id: inv.id,
                table: inv.table,
            };
            self.send_to(&inv.from.id, &expired);
            self.send_to(&inv.to, &expired);
        }
    }

    fn games_in_play(&self) -> usize {
        self.tables
            .iter()
            .filter(|t| t.game.as_ref().is_some_and(|g| !g.game.is_over()))
            .count()
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
                self.void_invitations(&table);
                self.broadcast(&ServerMessage::TableRemoved {
                    room: self.info.id.clone(),
                    table,
                });
                Ok(None)
            }
            TableChange::Rules { table, rules } => {
                let t = self.index_of(&table)?;
                if self.tables[t]
                    .game
                    .as_ref()
                    .is_some_and(|g| !g.game.is_over())
                {
                    return Err(HotelError::TableBusy(table));
                }
                let rules_json = serde_json::to_string(&rules).unwrap_or_default();
                let id = table.clone();
                blocking(move || store.set_table_rules(&actor, &id, &rules_json)).await?;
                self.tables[t].rules = rules;
                self.void_invitations(&table);
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
        // Leaving the room gives up any seat, resigning a game in play.
        for t in 0..self.tables.len() {
            if let Some(side) = self.seat_of(t, user_id) {
                self.give_up_seat(t, side).await;
            }
        }
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
        let mut in_game = false;
        for t in 0..self.tables.len() {
            if let Some(side) = self.seat_of(t, user_id) {
                if self.tables[t]
                    .game
                    .as_ref()
                    .is_some_and(|g| !g.game.is_over())
                {
                    in_game = true;
                } else {
                    self.give_up_seat(t, side).await;
                }
            }
        }
        if in_game {
            self.absent
                .insert(user_id.to_owned(), Instant::now() + self.config.grace);
        }
        let Some(member) = self.members.remove(user_id) else {
            return;
        };
        self.occupants.store(self.members.len(), Ordering::Relaxed);
        self.invitations
            .retain(|i| i.from.id != user_id && i.to != user_id);
        self.broadcast(&ServerMessage::OccupantLeft {
            room: self.info.id.clone(),
            user: member.user,
        });
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
        for user_id in gone {
            self.absent.remove(&user_id);
            for t in 0..self.tables.len() {
                if let Some(side) = self.seat_of(t, &user_id) {
                    self.end_off_board(t, |g| g.forfeit(side, Forfeit::Abandoned))
                        .await;
                    self.tables[t].seats[side.index()] = None;
                    self.table_changed(t);
                }
            }
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
                if self.tables[t]
                    .game
                    .as_ref()
                    .is_some_and(|g| !g.game.is_over())
                {
                    return refuse("game_in_play", "a game is in play at this table");
                }
                if self.tables[t].seats[seat.index()].is_some() {
                    return refuse("seat_taken", format!("the {seat} seat is taken"));
                }
                self.tables[t].seats[seat.index()] = Some(user);
                self.tables[t].game = None;
                self.table_changed(t);
                if self.tables[t].seats.iter().all(Option::is_some) {
                    self.start_game(t).await?;
                }
            }
            ClientMessage::PlayHouse { table, level } => {
                self.play_house(user, &table, level).await?
            }
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
                self.send_to(
                    &invitee,
                    &ServerMessage::Invitation {
                        id: id.clone(),
                        from: user.clone(),
                        table: table.clone(),
                        room: self.info.id.clone(),
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
                self.tables[t].seats[side.opponent().index()] = Some(user);
                self.tables[t].game = None;
                self.table_changed(t);
                self.start_game(t).await?;
            }
            ClientMessage::Move {
                table,
                pit,
                version,
            } => self.play(user_id, &table, pit, version, r#ref).await?,
            ClientMessage::Resign { table } => {
                let (t, side) = self.player_in_game(&table, user_id)?;
                self.end_off_board(t, |g| g.forfeit(side, Forfeit::Resigned))
                    .await;
            }
            ClientMessage::OfferDraw { table } => {
                let (t, side) = self.player_in_game(&table, user_id)?;
                let live = self.tables[t]
                    .game
                    .as_mut()
                    .expect("player_in_game checked");
                let opponent = live.players[side.opponent().index()].clone();
                if opponent.house {
                    // Baba Ayo plays every game out.
                    self.send_to(user_id, &ServerMessage::DrawDeclined { table });
                    return Ok(());
                }
                live.draw_offer = Some(side);
                self.send_to(
                    &opponent.id,
                    &ServerMessage::DrawOffered { table, from: user },
                );
            }
            ClientMessage::AnswerDraw { table, accept } => {
                let (t, side) = self.player_in_game(&table, user_id)?;
                let live = self.tables[t]
                    .game
                    .as_mut()
                    .expect("player_in_game checked");
                if live.draw_offer != Some(side.opponent()) {
                    return refuse("no_draw_offer", "your opponent has not offered a draw");
                }
                live.draw_offer = None;
                if accept {
                    self.end_off_board(t, Game::agree_draw).await;
                } else {
                    let offerer = live.players[side.opponent().index()].id.clone();
                    self.send_to(&offerer, &ServerMessage::DrawDeclined { table });
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

    /// The table and seat of a player in a game in play there.
    fn player_in_game(&self, table: &str, user_id: &str) -> Result<(usize, Side), Refusal> {
        let t = self.table_index(table)?;
        let playing = self.tables[t]
            .game
            .as_ref()
            .is_some_and(|g| !g.game.is_over());
        match (playing, self.seat_of(t, user_id)) {
            (true, Some(side)) => Ok((t, side)),
            (false, _) => refuse("no_game", "no game is in play at this table"),
            (true, None) => refuse("not_seated", "you are not playing at this table"),
        }
    }

    async fn give_up_seat(&mut self, t: usize, side: Side) {
        if self.tables[t]
            .game
            .as_ref()
            .is_some_and(|g| !g.game.is_over())
        {
            self.end_off_board(t, |g| g.forfeit(side, Forfeit::Resigned))
                .await;
        }
        self.tables[t].seats[side.index()] = None;
        self.table_changed(t);
    }

    /// Both seats are taken: draw lots for who sows first (South), store the game, announce it.
    async fn start_game(&mut self, t: usize) -> Result<(), Refusal> {
        if uuid::Uuid::new_v4().as_bytes()[0] & 1 == 1 {
            self.tables[t].seats.swap(0, 1);
        }
        let table = &self.tables[t];
        let (Some(south), Some(north)) = (table.seats[0].clone(), table.seats[1].clone()) else {
            return Ok(());
        };
        let row = GameRow {
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
        // A retry is matched against this game's moves only: refs may repeat across games.
        self.tables[t].last_moves = [None, None];
        self.tables[t].game = Some(LiveGame {
            id: row.id,
            game,
            players: [south, north],
            draw_offer: None,
        });
        self.table_changed(t);
        let started = ServerMessage::GameStarted {
            table: table_id,
            game_id,
            players,
            house,
            rules,
            state: game_state,
            version: self.tables[t].version + 1,
        };
        self.publish(t, &started);
        self.house_turn(t);
        Ok(())
    }

    /// `play_house`: the player takes a seat at the table if they have none there, Baba Ayo
    /// the one opposite, and the game starts.
    async fn play_house(&mut self, user: User, table: &str, level: Level) -> Result<(), Refusal> {
        let t = self.table_index(table)?;
        if self.tables[t]
            .game
            .as_ref()
            .is_some_and(|g| !g.game.is_over())
        {
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
        self.tables[t].seats[side.index()] = Some(user.clone());
        // Invitations to that seat are void now.
        self.invitations.retain(|i| i.table != table);
        self.tables[t].seats[opposite] = Some(House::user(level));
        self.tables[t].game = None;
        self.table_changed(t);
        if let Err(refusal) = self.start_game(t).await {
            // The game could not be stored: Baba Ayo gets up again.
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
        let seed = version ^ u64::from(game.ply());
        let house = self.config.house.clone();
        tokio::spawn(async move {
            let command = match house.think(game, level, seed).await {
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
        let (store, game_id, ply) = (self.store.clone(), live.id.clone(), next.ply());
        if let Err(e) = blocking(move || store.record_move(&game_id, ply, pit.number())).await {
            tracing::error!(error = %e, "storing a move");
            return refuse("internal", "the move could not be stored; try again");
        }
        let version_before = self.tables[t].version;
        let live = self.tables[t]
            .game
            .as_mut()
            .expect("still there: the room is ours");
        live.game = next;
        crate::metrics::METRICS.moves.inc();
        live.draw_offer = None;
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

    /// Ends the game at table `t` off the board (resign, draw) with `end`.
    async fn end_off_board(&mut self, t: usize, end: impl FnOnce(&mut Game) -> bool) {
        let Some(live) = self.tables[t].game.as_mut() else {
            return;
        };
        if end(&mut live.game) {
            self.game_over(t).await;
        }
    }

    /// Stores and announces the end of the game at table `t`, and frees the table.
    async fn game_over(&mut self, t: usize) {
        let table = &self.tables[t];
        let Some(live) = table.game.as_ref() else {
            return;
        };
        crate::metrics::METRICS.games_in_play.dec();
        let (status, reason) = (
            live.game.status(),
            live.game.end_reason().unwrap_or(EndReason::Abandoned),
        );
        let (store, game_id) = (self.store.clone(), live.id.clone());
        let status_text = json_word(&status);
        let reason_text = json_word(&reason);
        let win = status.winner().map(|side| {
            let (winner, loser) = (
                &live.players[side.index()],
                &live.players[side.opponent().index()],
            );
            store::Win {
                winner_id: winner.id.clone(),
                loser_id: loser.id.clone(),
                seeds: live.game.position().stores()[side.index()],
                house_level: [winner, loser]
                    .iter()
                    .find_map(|p| House::level_of(&p.id))
                    .map(|l| l.name().to_owned()),
                plies: live.game.ply(),
            }
        });
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
        let over = ServerMessage::GameOver {
            table: table.id.clone(),
            game_id: live.id.clone(),
            result: status,
            reason,
            state: live.game.state(),
            counts_for_champions: counts,
            version: table.version + 1,
        };
        self.publish(t, &over);
        // The players stand up; the finished game stays on the table until someone sits.
        self.tables[t].seats = [None, None];
        self.table_changed(t);
        if self.closing && self.games_in_play() == 0 {
            self.shut();
        }
    }

    fn expire_invitations(&mut self) {
        let now = Instant::now();
        let (gone, open): (Vec<_>, Vec<_>) =
            self.invitations.drain(..).partition(|i| i.expires <= now);
        self.invitations = open;
        for inv in gone {
            let expired = ServerMessage::InvitationExpired {
                id: inv.id,
                table: inv.table,
            };
            self.send_to(&inv.from.id, &expired);
            self.send_to(&inv.to, &expired);
        }
    }

    fn view(&self, table: &Table) -> TableView {
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
            }),
            version: table.version,
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
                self.broadcast(&ServerMessage::OccupantLeft {
                    room: self.info.id.clone(),
                    user: member.user,
                });
            }
        }
    }
}

/// The word serde gives a value (`"south_won"`, `"resigned"`), for the database.
fn json_word<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
