//! A room's lease in Redis: one holder at a time, a fencing number that grows with
//! every grant, renewed and let go only by its holder. On the Redis at 127.0.0.1:6379, under
//! a key prefix of the test's own; a lease running out is its key going, as Redis would do
//! at the end of its time to live (no test sleeps through one).

use lounge::ayo::EndReason;
use lounge::cluster::{Fence, LeaseError, Leases};
use lounge::common::TableId;
use lounge::common::{RoomId, ServerClock};
use lounge::store::GameEnd;
use lounge::store::StoreError;

async fn conn() -> redis::aio::ConnectionManager {
    redis::Client::open("redis://127.0.0.1:6379")
        .unwrap()
        .get_connection_manager()
        .await
        .expect("Redis on 127.0.0.1:6379 (tests/run starts it)")
}

/// Two instances' leases under one fresh prefix, and a raw connection to look at the keys.
async fn two_instances() -> (Leases, Leases, redis::aio::ConnectionManager, String) {
    let prefix = format!("test-{}:", lounge::store::new_id());
    let clock = ServerClock::manual_from_now();
    let a = Leases::new(
        conn().await,
        &prefix,
        "127.0.0.1:9001",
        10_000,
        clock.clone(),
    );
    let b = Leases::new(conn().await, &prefix, "127.0.0.1:9002", 10_000, clock);
    (a, b, conn().await, prefix)
}

fn lease_key(prefix: &str, room: &str) -> String {
    format!("{prefix}{{room:{room}}}:lease")
}

async fn pttl(raw: &mut redis::aio::ConnectionManager, key: &str) -> i64 {
    redis::cmd("PTTL").arg(key).query_async(raw).await.unwrap()
}

#[actix_web::test]
async fn a_room_has_one_holder_and_every_grant_a_larger_fencing_number() {
    let (a, b, mut raw, prefix) = two_instances().await;
    let room: RoomId = RoomId::new("surulere-games-lounge");
    let key = lease_key(&prefix, room.as_str());

    let mut first = a
        .acquire(&room, Fence(0))
        .await
        .unwrap()
        .expect("a free room is granted");
    assert_eq!(first.fence, Fence(1));
    assert!(
        b.acquire(&room, Fence(0)).await.unwrap().is_none(),
        "one holder at a time"
    );
    assert!(
        a.acquire(&room, Fence(0)).await.unwrap().is_none(),
        "not twice to the same one either"
    );
    assert_eq!(
        a.owner(&room).await.unwrap(),
        Some(("127.0.0.1:9001".to_owned(), Fence(1)))
    );
    let ttl = pttl(&mut raw, &key).await;
    assert!((1..=10_000).contains(&ttl), "the lease lives 10 s: {ttl}");

    // Renewing gives it its whole time again; only its holder can.
    let _: () = redis::cmd("PEXPIRE")
        .arg(&key)
        .arg(3_000)
        .query_async(&mut raw)
        .await
        .unwrap();
    assert!(a.renew(&mut first).await.unwrap());
    assert!(pttl(&mut raw, &key).await > 3_000, "renewed to 10 s");
    let mut forged = first.clone();
    assert!(
        !b.renew(&mut forged).await.unwrap(),
        "another instance cannot renew it"
    );
    assert!(!b.release(&forged).await.unwrap(), "nor let it go");

    // It runs out (its key goes, as at the end of its time to live): the other instance
    // takes the room under a larger number, and the old holder can neither renew nor
    // release what is now someone else's.
    let _: () = redis::cmd("DEL")
        .arg(&key)
        .query_async(&mut raw)
        .await
        .unwrap();
    let second = b
        .acquire(&room, Fence(0))
        .await
        .unwrap()
        .expect("a lease that ran out is granted again");
    assert!(second.fence > first.fence);
    assert!(
        !a.renew(&mut first).await.unwrap(),
        "a lost lease is not renewed"
    );
    assert!(!a.release(&first).await.unwrap());
    assert_eq!(
        a.owner(&room).await.unwrap(),
        Some(("127.0.0.1:9002".to_owned(), second.fence))
    );

    // Let go on a clean stop: free at once, and the next grant is larger still.
    assert!(b.release(&second).await.unwrap());
    assert_eq!(a.owner(&room).await.unwrap(), None);
    let third = a.acquire(&room, Fence(0)).await.unwrap().unwrap();
    assert_eq!(third.fence, Fence(3));

    // Rooms are leased apart.
    let other = b
        .acquire(&RoomId::new("rooftop"), Fence(0))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(other.fence, Fence(1));
    forget(&mut raw, &prefix).await;
}

#[actix_web::test]
async fn a_lease_key_this_code_did_not_write_is_an_error_not_an_owner() {
    let (a, _, mut raw, prefix) = two_instances().await;
    let room: RoomId = RoomId::new("lounge");
    let _: () = redis::cmd("SET")
        .arg(lease_key(&prefix, "lounge"))
        .arg("nonsense")
        .query_async(&mut raw)
        .await
        .unwrap();
    assert!(matches!(
        a.owner(&room).await,
        Err(LeaseError::Unreadable { .. })
    ));
    assert!(
        a.acquire(&room, Fence(0)).await.unwrap().is_none(),
        "held all the same"
    );
    forget(&mut raw, &prefix).await;
}

#[actix_web::test]
async fn after_redis_lost_its_counters_the_numbers_go_on_above_the_databases() {
    let (a, b, mut raw, prefix) = two_instances().await;
    let room: RoomId = RoomId::new("lounge");
    let first = a.acquire(&room, Fence(0)).await.unwrap().unwrap();
    assert_eq!(first.fence, Fence(1));
    // Redis restarted with nothing kept: the lease and the counter are gone. The database
    // has seen fence 41 for the room (its writes carry it): the next grant is above it.
    forget(&mut raw, &prefix).await;
    let next = b.acquire(&room, Fence(41)).await.unwrap().unwrap();
    assert_eq!(next.fence, Fence(42));
    assert!(b.release(&next).await.unwrap());
    let after = a.acquire(&room, Fence(0)).await.unwrap().unwrap();
    assert_eq!(after.fence, Fence(43), "the counter went on from there");
    forget(&mut raw, &prefix).await;
}

/// Deletes the test's keys.
async fn forget(raw: &mut redis::aio::ConnectionManager, prefix: &str) {
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query_async(raw)
        .await
        .unwrap();
    if !keys.is_empty() {
        let _: i64 = redis::cmd("DEL").arg(keys).query_async(raw).await.unwrap();
    }
}

/// A room in `db`'s store, for its fencing number.
fn a_room(db: &crate::helpers::TestDb) -> RoomId {
    a_room_with(db, &[])
}

/// The same room with `tables`.
fn a_room_with(db: &crate::helpers::TestDb, tables: &[lounge::store::TableRow]) -> RoomId {
    let room = lounge::store::RoomRow {
        id: RoomId::new("surulere-games-lounge"),
        name: "Surulere Games Lounge".into(),
        kind: lounge::common::RoomKind::Lounge,
        owner_id: None,
        created_at: crate::helpers::now(),
    };
    db.store().ensure_room(&room, tables).unwrap();
    room.id
}

#[test]
fn an_owner_whose_room_was_taken_by_a_later_lease_writes_nothing() {
    for db in crate::helpers::TestDb::both() {
        let store = db.store();
        let room = a_room(&db);
        assert_eq!(store.fence_of(&room).unwrap(), 0, "never taken by lease");
        assert!(
            matches!(
                store.fenced(&room, 1, |_| Ok(())),
                Err(StoreError::Fenced { .. })
            ),
            "{:?}: an owner writes only once it has taken the room",
            store.backend()
        );

        // The first owner takes the room under fence 1 and writes.
        store.take_room(&room, 1, "a").unwrap();
        assert_eq!(store.fence_of(&room).unwrap(), 1);
        store
            .fenced(&room, 1, |_| Ok(()))
            .expect("the owner's write");
        // A lease granted again to the same number (a retry) takes it again.
        store.take_room(&room, 1, "a").unwrap();

        // Its lease ran out; the next owner takes the room under fence 2. The first one's
        // writes are refused from then on, and what they would have written is not there.
        store.take_room(&room, 2, "b").unwrap();
        let mut ran = false;
        let late = store.fenced(&room, 1, |_| {
            ran = true;
            Ok(())
        });
        assert!(!ran, "a fenced-off owner's write is not even tried");
        assert!(
            matches!(
                late,
                Err(StoreError::Fenced {
                    mine: 1,
                    latest: 2,
                    ..
                })
            ),
            "{late:?}"
        );
        assert!(
            matches!(
                store.take_room(&room, 1, "a"),
                Err(StoreError::Fenced {
                    mine: 1,
                    latest: 2,
                    ..
                })
            ),
            "nor can it take the room back with its old number"
        );
        store
            .fenced(&room, 2, |_| Ok(()))
            .expect("the new owner's write");
        assert_eq!(store.fence_of(&room).unwrap(), 2);

        // Redis restarted empty while a grant of 3 was on its way to "c", and granted 3
        // again to "d": whichever takes the room first has it, the other is refused.
        store.take_room(&room, 3, "d").unwrap();
        assert!(
            matches!(
                store.take_room(&room, 3, "c"),
                Err(StoreError::Fenced {
                    mine: 3,
                    latest: 3,
                    ..
                })
            ),
            "one number, one owner"
        );
        store
            .take_room(&room, 3, "d")
            .expect("the same owner again: a retry");
    }
}

/// A room with table t1, two players and a match in play there, stored.
fn a_match_in_play(
    db: &crate::helpers::TestDb,
) -> (RoomId, lounge::store::MatchRow, lounge::store::GameRow) {
    use crate::helpers::now;
    use lounge::store::{GameRow, MatchRow, TableRow};
    let table = TableRow {
        id: TableId::new("t1"),
        room_id: RoomId::new("surulere-games-lounge"),
        position: 1,
        rules: Default::default(),
        queue: None,
    };
    let room = a_room_with(db, &[table]);
    let (a, b) = (
        crate::helpers::world::user(db, "Ade"),
        crate::helpers::world::user(db, "Bisi"),
    );
    let rules = lounge::ayo::Preset::Lagos.rules();
    let m = MatchRow {
        id: lounge::store::ordered_id().into(),
        table_id: TableId::new("t1"),
        first_id: a.id.clone(),
        second_id: b.id.clone(),
        house: false,
        best_of: 3,
        clock: lounge::ayo::clock::TimeControl::None,
        rules,
        status: lounge::store::MatchStatus::Playing,
        winner_id: None,
        end_reason: None,
        first_halves: 0,
        second_halves: 0,
        started_at: now(),
        ended_at: None,
        seats: Default::default(),
    };
    let g = GameRow {
        id: lounge::store::new_id().into(),
        table_id: TableId::new("t1"),
        south_id: a.id,
        north_id: b.id,
        rules,
        house: false,
        status: lounge::ayo::Status::Playing,
        end_reason: None,
        started_at: now(),
        ended_at: None,
        match_id: Some(m.id.clone()),
        number: Some(1),
        clock_started_ms: None,
        first_side: lounge::ayo::Side::South,
    };
    (room, m, g)
}

#[test]
fn a_rooms_writes_under_a_fence_land_together_or_not_at_all() {
    use lounge::store::RoomWriter;
    for db in crate::helpers::TestDb::both() {
        let store = db.store();
        let (room, m, g) = a_match_in_play(&db);
        store.take_room(&room, 1, "a").unwrap();

        // One decision of the owner: a match, its first game and a move, in one transaction.
        store
            .room_writes(Some((&room, 1)), |w| {
                w.insert_match(&m)?;
                w.insert_game(&g)?;
                w.record_move(&g.id, 1, 1, None)
            })
            .expect("the owner's writes");
        assert_eq!(store.moves(&g.id).unwrap(), vec![1]);

        // A write the room may pass over fails on its own savepoint: the rest lands.
        store
            .room_writes(Some((&room, 1)), |w| {
                let again = w.part(|w| w.record_move(&g.id, 1, 2, None));
                assert!(
                    matches!(again, Err(StoreError::Conflict(_))),
                    "{:?}: the same ply twice: {again:?}",
                    store.backend()
                );
                w.record_move(&g.id, 2, 8, None)?;
                w.set_match_points(&m.id, [1, 0])
            })
            .expect("the rest of the decision");
        assert_eq!(store.moves(&g.id).unwrap(), vec![1, 8]);

        // A required write failing undoes the whole decision.
        let failed = store.room_writes(Some((&room, 1)), |w| {
            w.record_move(&g.id, 3, 1, None)?;
            w.record_move(&g.id, 3, 2, None)
        });
        assert!(matches!(failed, Err(StoreError::Conflict(_))), "{failed:?}");
        assert_eq!(store.moves(&g.id).unwrap(), vec![1, 8], "nothing of it");

        // The room was taken by a later owner: nothing the old one decides lands.
        store.take_room(&room, 2, "b").unwrap();
        let late = store.room_writes(Some((&room, 1)), |w| {
            w.record_move(&g.id, 3, 1, None)?;
            w.set_match_points(&m.id, [2, 0])
        });
        assert!(
            matches!(
                late,
                Err(StoreError::Fenced {
                    mine: 1,
                    latest: 2,
                    ..
                })
            ),
            "{late:?}"
        );
        assert_eq!(store.moves(&g.id).unwrap(), vec![1, 8]);
        let record = store.match_record(&m.id).unwrap().unwrap();
        assert_eq!(
            (record.row.first_halves, record.row.second_halves),
            (1, 0),
            "the score as the owner left it"
        );

        // The new owner's writes land; one instance's (no fence) do as before.
        store
            .room_writes(Some((&room, 2)), |w| w.record_move(&g.id, 3, 1, None))
            .expect("the new owner's move");
        store
            .room_writes(None, |w| w.record_move(&g.id, 4, 2, None))
            .expect("unfenced");
        assert_eq!(store.moves(&g.id).unwrap(), vec![1, 8, 1, 2]);
    }
}

#[actix_web::test]
async fn moves_waiting_together_on_postgres_go_in_one_group_each_answered_for_itself() {
    use lounge::store::RoomWriter;
    let db = crate::helpers::TestDb::postgres();
    let store = db.store();
    let (room, m, g) = a_match_in_play(&db);
    store.take_room(&room, 1, "a").unwrap();
    store
        .room_writes(Some((&room, 1)), |w| {
            w.insert_match(&m)?;
            w.insert_game(&g)
        })
        .unwrap();
    let a_move = |store: &lounge::store::Store, fence: Option<u64>, ply: u32, pit: u8| {
        store.store_move_grouped(fence.map(|f| (&room, f)), &g.id, ply, pit, None)
    };
    // Sent at once: however they are grouped, each gets its own answer, and one that
    // breaks the group (the same ply twice) fails alone.
    let answers: Vec<_> = [
        (Some(1), 1, 3),
        (Some(1), 1, 4),
        (Some(7), 2, 5),
        (None, 2, 6),
    ]
    .into_iter()
    .map(|(fence, ply, pit)| a_move(store, fence, ply, pit).expect("PostgreSQL groups moves"))
    .collect();
    let mut stored = Vec::new();
    for answer in answers {
        stored.push(answer.await.expect("answered"));
    }
    assert!(stored[0].is_ok(), "{stored:?}");
    assert!(
        matches!(stored[1], Err(StoreError::Conflict(_))),
        "{stored:?}"
    );
    assert!(
        matches!(
            stored[2],
            Err(StoreError::Fenced {
                mine: 7,
                latest: 1,
                ..
            })
        ),
        "{stored:?}"
    );
    assert!(stored[3].is_ok(), "{stored:?}");
    assert_eq!(store.moves(&g.id).unwrap(), vec![3, 6]);
    // A game over takes no more moves; SQLite stores moves as before, not in groups.
    assert!(store
        .finish_game(
            &g.id,
            lounge::ayo::Status::SouthWon,
            GameEnd::Game(EndReason::Resigned)
        )
        .unwrap());
    let late = a_move(store, Some(1), 3, 1).unwrap().await.unwrap();
    assert!(late.is_err(), "{late:?}");
    assert!(a_move(crate::helpers::TestDb::sqlite().store(), None, 1, 1).is_none());
}
