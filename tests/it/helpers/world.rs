//! A room without sockets: a world of one lounge (its table `t1`), on a test's database, and
//! people in it whose frames come out of plain channels.

use lounge::common::{RoomId, TableId};
use std::time::Duration;

use super::now;
use lounge::store::{TableRow, UserRow};
use lounge::world::protocol::parse_frame;
use lounge::world::{RoomCommand, RoomConfig, RoomHandle, User, World};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::db::TestDb;

pub fn lounge_world(db: &TestDb, config: RoomConfig) -> World {
    lounge_world_with(db, config, vec![])
}

/// The lounge again after a restart: its matches in play picked up from the store.
pub fn lounge_world_resumed(db: &TestDb, config: RoomConfig) -> World {
    let matches = lounge::world::resumable(db.store(), &config.clock, &config.results).unwrap();
    lounge_world_with(db, config, matches)
}

fn lounge_world_with(
    db: &TestDb,
    config: RoomConfig,
    matches: Vec<lounge::world::ResumedMatch>,
) -> World {
    let store = db.store().clone();
    let room = lounge::store::RoomRow {
        id: RoomId::new("lounge"),
        name: "Lounge".into(),
        kind: lounge::common::RoomKind::Lounge,
        owner_id: None,
        created_at: now(),
    };
    let table = TableRow {
        id: TableId::new("t1"),
        room_id: RoomId::new("lounge"),
        position: 1,
        rules: Default::default(),
        queue: None,
    };
    store
        .ensure_room(&room, std::slice::from_ref(&table))
        .unwrap();
    World::start(
        vec![lounge::store::StoredRoom {
            room,
            tables: vec![table],
            closing: false,
            door: None,
            guests: vec![],
        }],
        matches,
        store,
        config,
    )
}

pub fn config() -> RoomConfig {
    RoomConfig {
        invitation_ttl: Duration::from_secs(60),
        grace: Duration::from_secs(60),
        chat_max_chars: 500,
        chat_backlog: 50,
        table_log: 8,
        status_every: Duration::from_secs(5),
        apartment_idle: Duration::from_secs(300),
        house: std::sync::Arc::new(lounge::house::House::new(
            &lounge::config::Settings::load().unwrap().house,
        )),
        max_boards: 3,
        registry: Default::default(),
        results: lounge::world::ResultsConfig {
            clock: lounge::champions::HotelDay {
                tz: chrono_tz::Africa::Lagos,
            },
            rules: lounge::champions::WallRules::cap_only(3),
            pending: Default::default(),
            stored: Default::default(),
        },
        clock: Default::default(),
        untimed_start: Duration::from_secs(300),
        rematch: Duration::from_secs(120),
        pool: lounge::world::seeks::PoolTiming {
            answer_ms: 10_000,
            cooldown_ms: 30_000,
            house_after_ms: 45_000,
        },
        queue_call: Duration::from_secs(20),
        straight_wins: 3,
        heartbeat: Duration::from_secs(1),
        civility: Default::default(),
        activity: Default::default(),
    }
}

pub fn user(db: &TestDb, name: &str) -> User {
    let row = UserRow {
        id: lounge::store::new_id().into(),
        name: name.into(),
        house: false,
        created_at: now(),
    };
    db.store().insert_user(&row).unwrap();
    User {
        id: row.id,
        name: row.name,
        house: false,
        ratings: Default::default(),
    }
}

/// Ade and Bisi in the room, its snapshot read.
pub async fn two_people(db: &TestDb, room: &RoomHandle) -> [Person; 2] {
    let mut a = Person::enter(room, user(db, "Ade"), 1024).await;
    let mut b = Person::enter(room, user(db, "Bisi"), 1024).await;
    a.next_of("room").await;
    b.next_of("room").await;
    [a, b]
}

pub struct Person {
    pub user: User,
    frames: mpsc::Receiver<lounge::world::protocol::Frame>,
    pub conn: u64,
}

impl Person {
    pub async fn enter(room: &RoomHandle, user: User, capacity: usize) -> Person {
        let (outbox, frames) = mpsc::channel(capacity);
        let conn = World::next_connection();
        let (admitted, answer) = tokio::sync::oneshot::channel();
        assert!(
            room.send(RoomCommand::Enter {
                user: user.clone(),
                outbox,
                conn,
                since: Default::default(),
                r#ref: None,
                admitted,
            })
            .await
        );
        assert_eq!(answer.await.unwrap(), Ok(()));
        Person { user, frames, conn }
    }

    /// Whether the room lets this person go (their frames end) within 5 s.
    pub async fn closed(&mut self) -> bool {
        let drained = async { while self.frames.recv().await.is_some() {} };
        tokio::time::timeout(Duration::from_secs(5), drained)
            .await
            .is_ok()
    }

    pub async fn next(&mut self) -> Value {
        let frame = tokio::time::timeout(Duration::from_secs(5), self.frames.recv())
            .await
            .unwrap()
            .unwrap();
        serde_json::from_str(&frame).unwrap()
    }

    pub async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let m = self.next().await;
            if m["type"] == kind {
                return m;
            }
        }
    }

    /// Sits South at t1 and invites `other`; the invitation as `other` gets it.
    pub async fn invite(&self, room: &RoomHandle, other: &mut Person) -> Value {
        self.act(room, json!({"type": "sit", "table": "t1", "seat": "south"}))
            .await;
        self.act(
            room,
            json!({"type": "invite", "table": "t1", "user": other.user.id}),
        )
        .await;
        other.next_of("invitation").await
    }

    pub async fn act(&self, room: &RoomHandle, message: Value) {
        let (message, r#ref) = parse_frame(&message.to_string()).unwrap();
        assert!(
            room.send(RoomCommand::Act {
                user_id: self.user.id.clone(),
                message,
                r#ref
            })
            .await
        );
    }
}
