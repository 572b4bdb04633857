//! Following others and finding them: online or not, the room they are in unless they hide
//! it, a block ending it both ways; on SQLite and PostgreSQL, and across two instances of a
//! hotel (real processes on one PostgreSQL and one Redis).

use serde_json::{json, Value};

use crate::helpers::hotel::Hotel;
use crate::helpers::{on_both, TestApp};

const LOUNGE: &str = "surulere-games-lounge";

/// The entry for `user` in a following list.
fn entry<'a>(list: &'a Value, user: &str) -> &'a Value {
    list["following"]
        .as_array()
        .and_then(|all| all.iter().find(|f| f["user"]["id"] == user))
        .unwrap_or_else(|| panic!("{user} in {list}"))
}

#[actix_web::test]
async fn a_guest_follows_others_and_sees_who_is_online_and_where() {
    on_both(|app| async move {
        let (ade, ade_id) = app.guest("Ade").await;
        let (bisi, bisi_id) = app.guest("Bisi").await;
        let (_, chidi_id) = app.guest("Chidi").await;
        let mut b = app.ws(&bisi).await;
        b.enter(LOUNGE).await;

        for user in [&bisi_id, &chidi_id, &bisi_id] {
            let (status, body) = app.follow(&ade, user).await;
            assert_eq!(status, 204, "{body}");
        }
        let (status, list) = app.following(&ade).await;
        assert_eq!(status, 200, "{list}");
        assert_eq!(list["following"].as_array().unwrap().len(), 2, "{list}");
        assert_eq!(
            entry(&list, &bisi_id),
            &json!({"user": {"id": bisi_id, "name": "Bisi"}, "online": true,
                    "room": {"id": LOUNGE, "name": "Surulere Games Lounge"}, "hidden": false})
        );
        let chidi = entry(&list, &chidi_id);
        assert_eq!(
            (&chidi["online"], &chidi["room"]),
            (&json!(false), &Value::Null)
        );

        // Bisi hides where she is: online, no room.
        let (status, body) = app.hide_whereabouts(&bisi, true).await;
        assert_eq!((status, &body), (200, &json!({"hidden": true})));
        let (_, list) = app.following(&ade).await;
        let seen = entry(&list, &bisi_id);
        assert_eq!(
            (&seen["online"], &seen["room"], &seen["hidden"]),
            (&json!(true), &Value::Null, &json!(true))
        );
        app.hide_whereabouts(&bisi, false).await;
        // She leaves the room: online, in none.
        b.send(json!({"type": "leave"})).await;
        b.next_of("left").await;
        let (_, list) = app.following(&ade).await;
        let seen = entry(&list, &bisi_id);
        assert_eq!(
            (&seen["online"], &seen["room"]),
            (&json!(true), &Value::Null)
        );

        // What cannot be followed.
        let (status, body) = app.follow(&ade, "no-such-user").await;
        assert_eq!(status, 404, "{body}");
        let (status, body) = app.follow(&ade, "baba-ayo-easy").await;
        assert_eq!(status, 404, "{body}");
        let (status, body) = app.follow(&ade, &ade_id).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (400, Some("invalid_field"))
        );

        // A block ends it both ways, and it cannot start again.
        let (status, _) = app.follow(&bisi, &ade_id).await;
        assert_eq!(status, 204);
        let (status, _) = app.block(&bisi, &ade_id).await;
        assert_eq!(status, 204);
        let (_, list) = app.following(&ade).await;
        assert!(
            list["following"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["user"]["id"] != bisi_id.as_str()),
            "{list}"
        );
        let (_, list) = app.following(&bisi).await;
        assert_eq!(list["following"], json!([]), "{list}");
        let (status, body) = app.follow(&ade, &bisi_id).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (409, Some("blocked"))
        );

        // Unfollowing: once.
        let (status, _) = app.unfollow(&ade, &chidi_id).await;
        assert_eq!(status, 204);
        let (status, body) = app.unfollow(&ade, &chidi_id).await;
        assert_eq!(status, 404, "{body}");
        let (status, _) = app.call("GET", "/api/v1/me/following", None, None).await;
        assert_eq!(status, 401);
    })
    .await;
}

#[actix_web::test]
async fn a_guest_on_one_instance_finds_one_on_another() {
    let hotel = Hotel::start(2, &[]);
    let (here, there): (TestApp, TestApp) = (hotel.app(0), hotel.app(1));
    let (ade, _) = here.guest("Ade").await;
    let (bisi, bisi_id) = there.guest("Bisi").await;
    let (_, chidi_id) = there.guest("Chidi").await;
    let mut b = there.ws(&bisi).await;
    b.enter(LOUNGE).await;
    here.follow(&ade, &bisi_id).await;
    here.follow(&ade, &chidi_id).await;

    let (status, list) = here.following(&ade).await;
    assert_eq!(status, 200, "{list}");
    let seen = entry(&list, &bisi_id);
    assert_eq!(seen["online"], true, "{list}");
    assert_eq!(seen["room"]["id"], LOUNGE, "{list}");
    assert_eq!(entry(&list, &chidi_id)["online"], false, "{list}");
    // Hidden on the other instance's say-so too.
    there.hide_whereabouts(&bisi, true).await;
    let (_, list) = here.following(&ade).await;
    assert_eq!(entry(&list, &bisi_id)["room"], Value::Null, "{list}");
    assert_eq!(entry(&list, &bisi_id)["online"], true, "{list}");
    // Gone: offline everywhere.
    drop(b);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let (_, list) = here.following(&ade).await;
        if entry(&list, &bisi_id)["online"] == false {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "still online: {list}");
    }
}
