//! One name, one guest: names alike after NFKC, case folding and the TS #39 skeleton are one
//! name; house names are reserved; Yoruba names with their tone marks work; names stored
//! before keys existed are keyed at start, later duplicates renamed. Each on SQLite and
//! PostgreSQL.

use lounge::common::UserId;
use serde_json::Value;
use unicode_normalization::UnicodeNormalization;

use crate::helpers::{on_both, TestApp, TestDb};

/// Signs up `name`, which must be refused with `status` and `code`.
async fn refused(app: &TestApp, name: &str, status: u16, code: &str) -> Value {
    let (got, body) = app.sign_in_guest(name).await;
    assert_eq!(
        (got, body["error"]["code"].as_str()),
        (status, Some(code)),
        "{name:?}: {body}"
    );
    assert!(!body["error"]["message"].as_str().unwrap_or("").is_empty());
    body
}

/// Signs up `name`; the body.
async fn signed_up(app: &TestApp, name: &str) -> Value {
    let (status, body) = app.sign_in_guest(name).await;
    assert_eq!(status, 201, "{name:?}: {body}");
    body
}

#[actix_web::test]
async fn a_name_in_another_case_or_with_spaces_around_is_taken() {
    on_both(|app| async move {
        let first = signed_up(&app, "Alice One").await;
        assert_eq!(first["user"]["name"], "Alice One");
        for name in [
            "alice one",
            "  Alice One  ",
            "ALICE ONE",
            "Ａｌｉｃｅ Ｏｎｅ",
        ] {
            refused(&app, name, 409, "name_taken").await;
        }
        // A different name is still free.
        signed_up(&app, "Alice Two").await;
    })
    .await;
}

#[actix_web::test]
async fn house_names_and_their_look_alikes_are_reserved() {
    on_both(|app| async move {
        for name in [
            "Baba Ayo",
            "baba ayo",
            " BABA AYO",
            "Вава Ауо",
            // The ordinary Yoruba spelling, and names apart only in marks or separators.
            "Bàbá Ayọ̀",
            "Bàbá Àyọ̀",
            "Bába Ayo",
            "Baba Ayọ",
            "Baba_Ayo",
            "BabaAyo",
            "Baba-Ayo",
            "Baba.Ayo",
        ] {
            refused(&app, name, 409, "name_reserved").await;
        }
        // Marks are kept as written, and set aside when names are compared.
        let ade = signed_up(&app, "Adéwálé").await;
        assert_eq!(ade["user"]["name"], "Adéwálé");
        for name in ["Adewale", "ADÉWÁLÉ", "Ade Wale", "Ade_wale"] {
            refused(&app, name, 409, "name_taken").await;
        }
        // Cyrillic В among Latin letters is refused for mixing scripts.
        let body = refused(&app, "Вaba Ayo", 400, "invalid_name").await;
        assert!(body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("script"));
    })
    .await;
}

#[actix_web::test]
async fn a_fullwidth_name_is_stored_plain_and_is_one_with_the_plain_name() {
    on_both(|app| async move {
        let body = signed_up(&app, "Ｔｕｎｄｅ").await;
        assert_eq!(body["user"]["name"], "Tunde");
        refused(&app, "Tunde", 409, "name_taken").await;
        refused(&app, "tunde", 409, "name_taken").await;
    })
    .await;
}

#[actix_web::test]
async fn yoruba_names_sign_up_in_nfd_and_nfc_and_show_in_nfc() {
    on_both(|app| async move {
        let nfc: String = "Adébáyọ̀".nfc().collect();
        let nfd: String = "Adébáyọ̀".nfd().collect();
        let body = signed_up(&app, &nfd).await;
        assert_eq!(body["user"]["name"], nfc.as_str());
        let token = body["token"].as_str().unwrap();
        let (status, me) = app.me(token).await;
        assert_eq!(status, 200, "{me}");
        assert_eq!(me["user"]["name"], nfc.as_str(), "{me}");
        refused(&app, &nfc, 409, "name_taken").await;
        // Another Yoruba name, typed in NFC.
        let other: String = "Ọlọ́run Ẹ̀kọ́".nfc().collect();
        assert_eq!(
            signed_up(&app, &other).await["user"]["name"],
            other.as_str()
        );
    })
    .await;
}

#[actix_web::test]
async fn invisible_and_control_characters_are_refused() {
    on_both(|app| async move {
        for name in [
            "Ade\u{200d}bayo",
            "Ade\u{200b}bayo",
            "\u{202e}Adebayo",
            "Ade\u{2066}bayo",
            "Ade\u{7}bayo",
            "Ade\u{ad}bayo",
            "Ade\u{300}\u{301}\u{302}\u{303}\u{304}\u{306}",
        ] {
            refused(&app, name, 400, "invalid_name").await;
        }
        // Nothing was stored by the refusals: the plain name is free.
        signed_up(&app, "Adebayo").await;
    })
    .await;
}

#[actix_web::test]
async fn of_many_sign_ups_with_one_name_at_once_exactly_one_wins() {
    on_both(|app| async move {
        for base in ["Chidi Okafor", "Ngozi Eze", "Emeka Obi"] {
            let fullwidth: String = base
                .chars()
                .map(|c| match c {
                    'A'..='Z' | 'a'..='z' => char::from_u32(c as u32 - 0x21 + 0xff01).unwrap(),
                    c => c,
                })
                .collect();
            let names = [
                base.to_owned(),
                base.to_lowercase(),
                base.to_uppercase(),
                format!(" {base}"),
                format!("{base}  "),
                fullwidth,
                format!("\u{a0}{}", base.to_lowercase()),
                format!("{} ", base.to_uppercase()),
            ];
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let answers = app.sign_in_guests_at_once(&names).await;
            let won = answers.iter().filter(|(s, _)| *s == 201).count();
            assert_eq!(won, 1, "{answers:?}");
            for (status, body) in answers.iter().filter(|(s, _)| *s != 201) {
                assert_eq!(*status, 409, "{body}");
                assert_eq!(body["error"]["code"], "name_taken", "{body}");
            }
        }
    })
    .await;
}

#[actix_web::test]
async fn names_stored_before_keys_are_keyed_at_start_and_later_duplicates_renamed() {
    for db in TestDb::both() {
        // As a service from before stored them: alike names, and a guest called Baba Ayo.
        db.insert_unkeyed_user("u1", "Alice One", false, "2026-11-01 10:00:00");
        db.insert_unkeyed_user("u2", "alice one", false, "2026-11-02 10:00:00");
        db.insert_unkeyed_user("u3", "ALICE ONE", false, "2026-11-03 10:00:00");
        db.insert_unkeyed_user("u4", "Tunde", false, "2026-11-01 11:00:00");
        db.insert_unkeyed_user("u5", "Ｔｕｎｄｅ", false, "2026-11-04 10:00:00");
        db.insert_unkeyed_user("u6", "Baba Ayo", false, "2026-10-01 10:00:00");
        db.insert_unkeyed_user(
            "u7",
            "Abcdefghij Klmnopqrstuvw",
            false,
            "2026-11-05 10:00:00",
        );
        db.insert_unkeyed_user(
            "u8",
            "abcdefghij klmnopqrstuvw",
            false,
            "2026-11-06 10:00:00",
        );
        db.insert_unkeyed_user("u9", "Bàbá Ayọ̀", false, "2026-10-02 10:00:00");
        db.insert_unkeyed_user("u10", "Adéwálé", false, "2026-11-07 10:00:00");
        db.insert_unkeyed_user("u11", "Adewale", false, "2026-11-08 10:00:00");
        // Keyed by older rules (a build still running during a rolling upgrade).
        db.insert_user_keyed(
            "u12",
            "Ade_Wale",
            false,
            "2026-11-09 10:00:00",
            Some("ade_wale"),
        );
        db.insert_unkeyed_user("baba-ayo-easy", "Baba Ayo", true, "2026-11-20 10:00:00");
        let app = TestApp::spawn(db).await;
        let name = |id: &str| {
            app.db
                .store()
                .user(&UserId::new(id))
                .unwrap()
                .expect("still there")
                .name
        };
        assert_eq!(name("u1"), "Alice One");
        assert_eq!(name("u2"), "alice one 2");
        assert_eq!(name("u3"), "ALICE ONE 3");
        assert_eq!(name("u4"), "Tunde");
        assert_eq!(name("u5"), "Ｔｕｎｄｅ 2");
        // The house keeps its name, though its row is younger.
        assert_eq!(name("baba-ayo-easy"), "Baba Ayo");
        assert_eq!(name("u6"), "Baba Ayo 2");
        assert_eq!(name("u7"), "Abcdefghij Klmnopqrstuvw");
        assert_eq!(name("u8"), "abcdefghij klmnopqrstu 2");
        // Alike once marks are set aside: the house keeps its name, the older guest theirs.
        assert_eq!(name("u9"), "Bàbá Ayọ̀ 3");
        assert_eq!(name("u10"), "Adéwálé");
        assert_eq!(name("u11"), "Adewale 2");
        assert_eq!(name("u12"), "Ade_Wale 3");
        // The keys hold from now on.
        refused(&app, "alice ONE", 409, "name_taken").await;
        refused(&app, "Alice One 2", 409, "name_taken").await;
        refused(&app, "Tunde 2", 409, "name_taken").await;
        refused(&app, "Baba Ayo", 409, "name_reserved").await;
        signed_up(&app, "Alice One 4").await;
    }
}
