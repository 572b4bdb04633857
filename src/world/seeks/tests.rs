//! The pool's rules, each on its own: who is paired with whom and where, answers, lapses,
//! cooldowns, leaving, Baba Ayo after a wait, and the lobby's counts.

use super::*;
use crate::common::ShownRatings;

const T0: u64 = 1_000_000;

const TIMING: PoolTiming = PoolTiming {
    answer_ms: 10_000,
    cooldown_ms: 30_000,
    house_after_ms: 45_000,
};

fn guest(name: &str, abapa: Option<&str>) -> User {
    User {
        id: UserId::new(name.to_lowercase()),
        name: name.to_owned(),
        house: false,
        ratings: abapa.map(|r| {
            Box::new(ShownRatings {
                abapa: Some(r.to_owned()),
                ayoayo: None,
            })
        }),
    }
}

fn id(name: &str) -> UserId {
    UserId::new(name.to_lowercase())
}

fn kind(family: Family) -> Kind {
    Kind {
        family,
        clock: "5m".parse().unwrap(),
        rated: true,
    }
}

fn abapa() -> Kind {
    kind(Family::Abapa)
}

fn seek(user: User, kind: Kind, since: u64) -> Seek {
    Seek::new(user, kind, Range::default(), since)
}

fn ranged(user: User, min: Option<u32>, max: Option<u32>, since: u64) -> Seek {
    Seek::new(user, abapa(), Range { min, max }, since)
}

fn tables(n: usize) -> Vec<(TableId, Family)> {
    (1..=n)
        .map(|i| (TableId::new(format!("t{i}")), Family::Abapa))
        .collect()
}

/// Ids in order, `p1`, `p2`, …: what the room would draw, made plain.
fn counter() -> impl FnMut() -> PairingId {
    let mut n = 0;
    move || {
        n += 1;
        PairingId::new(format!("p{n}"))
    }
}

fn offers(outcomes: &[Outcome]) -> Vec<&Offer> {
    outcomes
        .iter()
        .filter_map(|o| match o {
            Outcome::Offered(offer) => Some(offer),
            _ => None,
        })
        .collect()
}

fn names(offer: &Offer) -> [&str; 2] {
    [&offer.seeks[0].user.name, &offer.seeks[1].user.name]
}

/// A pool where Ade and Bisi are offered a game at t1 as `p1`.
fn paired() -> Pool {
    let mut pool = Pool::new(TIMING);
    pool.seek(seek(guest("Ade", None), abapa(), T0), T0)
        .unwrap();
    pool.seek(seek(guest("Bisi", None), abapa(), T0 + 1), T0 + 1)
        .unwrap();
    let made = pool.pair(T0 + 1, &tables(1), |_, _| false, counter());
    assert_eq!(offers(&made).len(), 1);
    pool
}

#[test]
fn ratings_are_read_as_shown_and_a_newcomer_counts_as_1500() {
    assert_eq!(rating_of(&guest("Ade", Some("1540?")), Family::Abapa), 1540);
    assert_eq!(rating_of(&guest("Ade", Some("1712")), Family::Abapa), 1712);
    assert_eq!(
        rating_of(&guest("Ade", Some("1712")), Family::Ayoayo),
        UNRATED
    );
    assert_eq!(rating_of(&guest("Ade", None), Family::Abapa), UNRATED);
    assert_eq!(rating_of(&guest("Ade", Some("?")), Family::Abapa), UNRATED);
}

#[test]
fn the_nearest_in_rating_is_paired_with_the_longest_waiting() {
    let mut pool = Pool::new(TIMING);
    pool.seek(seek(guest("Ade", Some("1500")), abapa(), T0), T0)
        .unwrap();
    pool.seek(seek(guest("Bisi", Some("1900")), abapa(), T0 + 1), T0)
        .unwrap();
    pool.seek(seek(guest("Chidi", Some("1550?")), abapa(), T0 + 2), T0)
        .unwrap();
    let made = pool.pair(T0 + 2, &tables(2), |_, _| false, counter());
    let made = offers(&made);
    assert_eq!(made.len(), 1, "Bisi has nobody left");
    assert_eq!(names(made[0]), ["Ade", "Chidi"]);
    assert_eq!(made[0].table, TableId::new("t1"));
    assert_eq!(made[0].until, T0 + 2 + TIMING.answer_ms);
    assert_eq!(made[0].id, PairingId::new("p1"));
    assert!(pool.seek_of(&id("Bisi")).is_some());
    assert!(pool.seek_of(&id("Ade")).is_none() && pool.offer_of(&id("Ade")).is_some());
}

#[test]
fn each_ones_rating_must_be_in_the_others_range() {
    let mut pool = Pool::new(TIMING);
    pool.seek(ranged(guest("Ade", Some("1500")), Some(1600), None, T0), T0)
        .unwrap();
    pool.seek(ranged(guest("Bisi", Some("1650")), None, None, T0), T0)
        .unwrap();
    pool.seek(
        ranged(guest("Chidi", Some("1700")), None, Some(1400), T0),
        T0,
    )
    .unwrap();
    let made = pool.pair(T0, &tables(2), |_, _| false, counter());
    // Ade takes Bisi (in Ade's range, Ade in Bisi's); Chidi wants nobody above 1400.
    assert_eq!(names(offers(&made)[0]), ["Ade", "Bisi"]);
    assert_eq!(offers(&made).len(), 1);

    let mut apart = Pool::new(TIMING);
    apart
        .seek(ranged(guest("Ade", Some("1500")), None, Some(1550), T0), T0)
        .unwrap();
    apart
        .seek(ranged(guest("Bisi", Some("1600")), None, None, T0), T0)
        .unwrap();
    assert!(apart
        .pair(T0, &tables(1), |_, _| false, counter())
        .is_empty());
}

#[test]
fn only_the_same_kind_pairs_and_at_a_table_of_its_family() {
    let mut pool = Pool::new(TIMING);
    let casual = Kind {
        rated: false,
        ..abapa()
    };
    let blitz = Kind {
        clock: "3+2".parse().unwrap(),
        ..abapa()
    };
    pool.seek(seek(guest("Ade", None), abapa(), T0), T0)
        .unwrap();
    pool.seek(seek(guest("Bisi", None), casual, T0), T0)
        .unwrap();
    pool.seek(seek(guest("Chidi", None), blitz, T0), T0)
        .unwrap();
    pool.seek(seek(guest("Dayo", None), kind(Family::Ayoayo), T0), T0)
        .unwrap();
    pool.seek(seek(guest("Efe", None), kind(Family::Ayoayo), T0), T0)
        .unwrap();
    // Only an Abapa table is free: the Ayoayo pair waits for one.
    assert!(pool
        .pair(T0, &tables(3), |_, _| false, counter())
        .is_empty());
    let ayoayo = [(TableId::new("t9"), Family::Ayoayo)];
    let made = pool.pair(T0, &ayoayo, |_, _| false, counter());
    assert_eq!(names(offers(&made)[0]), ["Dayo", "Efe"]);
    assert_eq!(offers(&made)[0].table, TableId::new("t9"));
}

#[test]
fn without_a_free_table_nobody_is_paired_and_a_table_on_offer_is_not_offered_again() {
    let mut pool = paired();
    pool.seek(seek(guest("Chidi", None), abapa(), T0), T0)
        .unwrap();
    pool.seek(seek(guest("Dayo", None), abapa(), T0), T0)
        .unwrap();
    assert!(pool.pair(T0, &[], |_, _| false, counter()).is_empty());
    // t1 is Ade and Bisi's.
    assert!(pool
        .pair(T0, &tables(1), |_, _| false, counter())
        .is_empty());
    let made = pool.pair(T0, &tables(2), |_, _| false, counter());
    assert_eq!(offers(&made)[0].table, TableId::new("t2"));
}

#[test]
fn guests_kept_apart_are_not_paired() {
    let mut pool = Pool::new(TIMING);
    pool.seek(seek(guest("Ade", Some("1500")), abapa(), T0), T0)
        .unwrap();
    pool.seek(seek(guest("Bisi", Some("1500")), abapa(), T0), T0)
        .unwrap();
    pool.seek(seek(guest("Chidi", Some("1900")), abapa(), T0), T0)
        .unwrap();
    let blocks = |a: &UserId, b: &UserId| {
        (a, b) == (&id("Bisi"), &id("Ade")) || (a, b) == (&id("Ade"), &id("Bisi"))
    };
    let made = pool.pair(T0, &tables(2), blocks, counter());
    assert_eq!(names(offers(&made)[0]), ["Ade", "Chidi"]);
    assert_eq!(offers(&made).len(), 1);
}

#[test]
fn pairing_ids_come_from_outside_in_order() {
    let run = || {
        let mut pool = Pool::new(TIMING);
        for (i, name) in ["A", "B", "C", "D"].into_iter().enumerate() {
            pool.seek(seek(guest(name, None), abapa(), T0 + i as u64), T0)
                .unwrap();
        }
        pool.pair(T0, &tables(2), |_, _| false, counter())
    };
    let made = run();
    let ids: Vec<_> = offers(&made).iter().map(|o| o.id.clone()).collect();
    assert_eq!(ids, [PairingId::new("p1"), PairingId::new("p2")]);
    assert_eq!(made, run(), "the same inputs pair the same");
}

#[test]
fn a_new_seek_replaces_the_old_one() {
    let mut pool = Pool::new(TIMING);
    pool.seek(seek(guest("Ade", None), abapa(), T0), T0)
        .unwrap();
    pool.seek(
        seek(guest("Ade", None), kind(Family::Ayoayo), T0 + 5),
        T0 + 5,
    )
    .unwrap();
    let counts = pool.counts();
    assert_eq!(counts.len(), 1);
    assert_eq!(counts[0].kind.family, Family::Ayoayo);
    assert_eq!(pool.seek_of(&id("Ade")).unwrap().since, T0 + 5);
}

#[test]
fn both_accepting_agrees_the_pairing() {
    let mut pool = paired();
    let p1 = PairingId::new("p1");
    assert_eq!(pool.answer(&id("Ade"), &p1, true, T0 + 2), Ok(vec![]));
    // Accepting twice changes nothing.
    assert_eq!(pool.answer(&id("Ade"), &p1, true, T0 + 2), Ok(vec![]));
    let done = pool.answer(&id("Bisi"), &p1, true, T0 + 3).unwrap();
    let [Outcome::Agreed(offer)] = done.as_slice() else {
        panic!("{done:?}");
    };
    assert_eq!(names(offer), ["Ade", "Bisi"]);
    assert!(!pool.has(&id("Ade")) && !pool.has(&id("Bisi")));
    assert_eq!(pool.next_deadline(), None);
}

#[test]
fn a_stranger_or_a_wrong_id_has_no_pairing() {
    let mut pool = paired();
    let p1 = PairingId::new("p1");
    assert_eq!(
        pool.answer(&id("Chidi"), &p1, true, T0),
        Err(PoolError::NoSuchPairing)
    );
    assert_eq!(
        pool.answer(&id("Ade"), &PairingId::new("p2"), true, T0),
        Err(PoolError::NoSuchPairing)
    );
}

#[test]
fn a_decline_cools_the_decliner_and_the_other_waits_again() {
    let mut pool = paired();
    let done = pool
        .answer(&id("Bisi"), &PairingId::new("p1"), false, T0 + 2)
        .unwrap();
    assert!(matches!(
        done.as_slice(),
        [Outcome::Over(_, OfferEnd::Declined)]
    ));
    assert_eq!(
        pool.seek_of(&id("Ade")).unwrap().since,
        T0,
        "keeps its place"
    );
    assert!(!pool.has(&id("Bisi")));
    let again = seek(guest("Bisi", None), abapa(), T0 + 3);
    let refused = pool.seek(again.clone(), T0 + 3);
    assert_eq!(
        refused,
        Err(PoolError::Cooling {
            until: T0 + 2 + TIMING.cooldown_ms,
            seconds: 30
        })
    );
    assert!(refused.unwrap_err().to_string().contains("30s"));
    assert_eq!(pool.seek(again, T0 + 2 + TIMING.cooldown_ms), Ok(()));
}

#[test]
fn a_lapsed_pairing_cools_who_did_not_accept_and_the_other_is_paired_again() {
    let mut pool = paired();
    pool.answer(&id("Ade"), &PairingId::new("p1"), true, T0 + 2)
        .unwrap();
    assert_eq!(pool.next_deadline(), Some(T0 + 1 + TIMING.answer_ms));
    assert!(pool.tick(T0 + TIMING.answer_ms).is_empty());
    let done = pool.tick(T0 + 1 + TIMING.answer_ms);
    assert!(matches!(
        done.as_slice(),
        [Outcome::Over(_, OfferEnd::Lapsed)]
    ));
    assert!(pool.seek_of(&id("Ade")).is_some());
    let now = T0 + 20_000;
    assert!(matches!(
        pool.seek(seek(guest("Bisi", None), abapa(), now), now),
        Err(PoolError::Cooling { .. })
    ));
    pool.seek(seek(guest("Chidi", None), abapa(), now), now)
        .unwrap();
    let made = pool.pair(now, &tables(1), |_, _| false, counter());
    assert_eq!(names(offers(&made)[0]), ["Ade", "Chidi"]);
}

#[test]
fn a_lapse_nobody_answered_cools_both() {
    let mut pool = paired();
    pool.tick(T0 + 1 + TIMING.answer_ms);
    let now = T0 + 2 + TIMING.answer_ms;
    for name in ["Ade", "Bisi"] {
        assert!(pool
            .seek(seek(guest(name, None), abapa(), now), now)
            .is_err());
    }
    assert!(pool.counts().is_empty());
}

#[test]
fn one_leaving_while_paired_puts_the_other_back_without_a_cooldown() {
    let mut pool = paired();
    pool.answer(&id("Bisi"), &PairingId::new("p1"), true, T0 + 2)
        .unwrap();
    let done = pool.leave(&id("Ade"));
    assert!(matches!(
        done.as_slice(),
        [Outcome::Over(_, OfferEnd::Left)]
    ));
    assert!(pool.seek_of(&id("Bisi")).is_some());
    assert!(!pool.has(&id("Ade")));
    assert_eq!(
        pool.seek(seek(guest("Ade", None), abapa(), T0 + 3), T0 + 3),
        Ok(())
    );
    // Leaving with only a seek ends nothing.
    assert!(pool.leave(&id("Ade")).is_empty());
    assert!(!pool.has(&id("Ade")));
}

#[test]
fn unseeking_a_pairing_declines_it() {
    let mut pool = paired();
    let (had, done) = pool.unseek(&id("Ade"), T0 + 2);
    assert!(had);
    assert!(matches!(
        done.as_slice(),
        [Outcome::Over(_, OfferEnd::Declined)]
    ));
    assert!(pool.seek_of(&id("Bisi")).is_some());
    let (had, done) = pool.unseek(&id("Bisi"), T0 + 2);
    assert!(had && done.is_empty());
    assert_eq!(pool.unseek(&id("Bisi"), T0 + 2), (false, vec![]));
}

#[test]
fn a_seek_is_refused_while_its_pairing_is_open() {
    let mut pool = paired();
    assert_eq!(
        pool.seek(seek(guest("Ade", None), abapa(), T0 + 2), T0 + 2),
        Err(PoolError::Paired)
    );
}

#[test]
fn an_agreed_pairing_whose_table_was_taken_puts_both_back() {
    let mut pool = paired();
    let p1 = PairingId::new("p1");
    pool.answer(&id("Ade"), &p1, true, T0 + 2).unwrap();
    let mut done = pool.answer(&id("Bisi"), &p1, true, T0 + 2).unwrap();
    let Some(Outcome::Agreed(offer)) = done.pop() else {
        panic!("not agreed");
    };
    pool.unseat(offer);
    assert_eq!(pool.counts()[0].waiting, 2);
    assert_eq!(pool.seek_of(&id("Ade")).unwrap().since, T0);
}

#[test]
fn baba_ayo_is_offered_once_after_the_wait() {
    let mut pool = Pool::new(TIMING);
    pool.seek(seek(guest("Ade", None), abapa(), T0), T0)
        .unwrap();
    assert_eq!(pool.next_deadline(), Some(T0 + TIMING.house_after_ms));
    assert!(pool.tick(T0 + TIMING.house_after_ms - 1).is_empty());
    let done = pool.tick(T0 + TIMING.house_after_ms + 7);
    assert_eq!(
        done,
        [Outcome::House {
            user: id("Ade"),
            kind: abapa(),
            waited_ms: TIMING.house_after_ms + 7
        }]
    );
    assert!(pool.tick(T0 + 2 * TIMING.house_after_ms).is_empty());
    assert_eq!(pool.next_deadline(), None);
    // A new seek waits anew.
    let now = T0 + 100_000;
    pool.seek(seek(guest("Ade", None), abapa(), now), now)
        .unwrap();
    assert_eq!(pool.next_deadline(), Some(now + TIMING.house_after_ms));
}

#[test]
fn counts_are_by_kind_and_leave_out_those_paired() {
    let mut pool = paired();
    pool.seek(seek(guest("Chidi", None), abapa(), T0), T0)
        .unwrap();
    pool.seek(seek(guest("Dayo", None), kind(Family::Ayoayo), T0), T0)
        .unwrap();
    pool.seek(seek(guest("Efe", None), kind(Family::Ayoayo), T0), T0)
        .unwrap();
    let counts: Vec<_> = pool
        .counts()
        .iter()
        .map(|c| (c.kind.family, c.waiting))
        .collect();
    assert_eq!(counts, [(Family::Abapa, 1), (Family::Ayoayo, 2)]);
}
