//! Game records (docs/records.md) served over HTTP, read back, and checked by
//! `lounge ayo replay --record`.

use std::io::Write;
use std::process::{Command, Stdio};

use awc::http::header::HeaderMap;
use lounge::ayo::record::{read, read_all, result_word, slug, Record};
use lounge::ayo::Side;
use serde_json::{json, Value};

use crate::helpers::{house_game, on_both, play_out, Page, TestApp, TestDb, Ws};

const LOUNGE: &str = "surulere-games-lounge";

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .unwrap_or_else(|| panic!("a {name} header"))
        .to_str()
        .expect("an ASCII header")
}

/// The `code` of an error body answered as text.
fn code(text: &str) -> String {
    let body: Value = serde_json::from_str(text).expect("a JSON error body");
    body["error"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Tunde at `table` against Baba Ayo, who resigns at once: the game's id (Baba Ayo may
/// have made the first move).
async fn resigned_house_game(ws: &mut Ws, table: &str) -> String {
    ws.send(json!({"type": "play_house", "table": table, "level": "easy"}))
        .await;
    let started = ws.next_of("game_started").await;
    assert_eq!(started["table"], table);
    ws.send(json!({"type": "resign", "table": table})).await;
    let over = ws.next_of("game_over").await;
    assert_eq!(over["reason"], "resigned", "{over}");
    over["game_id"].as_str().unwrap().to_owned()
}

#[actix_web::test]
async fn a_game_over_is_served_as_its_record_and_replays_to_the_stored_result() {
    on_both(|app: TestApp| async move {
        let (mut ws, mine, started, _token) = house_game(&app, "easy").await;
        let game_id = started["game_id"].as_str().unwrap().to_owned();
        let table = started["table"].as_str().unwrap().to_owned();
        // In play: refused with a clear code.
        let (status, _, text) = app.game_record(&game_id).await;
        assert_eq!(status, 409, "{text}");
        assert_eq!(code(&text), "game_in_play");

        let over = play_out(&mut ws, &table, mine, started["state"].clone()).await;
        let (status, headers, text) = app.game_record(&game_id).await;
        assert_eq!(status, 200, "{text}");
        assert_eq!(
            header(&headers, "content-type"),
            "text/plain; charset=utf-8"
        );
        let disposition = header(&headers, "content-disposition");
        assert!(
            disposition.starts_with("attachment; filename=\"lagos-hotel-20")
                && disposition.ends_with("-game-1.ayo\""),
            "{disposition}"
        );
        let (south, north) = (&started["players"]["south"], &started["players"]["north"]);
        let names = format!(
            "-{}-vs-{}-",
            slug(south["name"].as_str().unwrap()),
            slug(north["name"].as_str().unwrap())
        );
        assert!(disposition.contains(&names), "{disposition} names {names}");

        let record: Record = read(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(result_word(record.result), over["result"], "{text}");
        assert_eq!(record.end.word(), over["reason"], "{text}");
        assert_eq!(record.game_id.as_deref(), Some(game_id.as_str()));
        assert_eq!(record.south.id.as_deref(), south["id"].as_str());
        assert_eq!(record.north.name, north["name"].as_str().unwrap());
        assert_eq!(
            record.moves.len() as u64,
            over["state"]["ply"].as_u64().unwrap()
        );
        assert_eq!(record.zone.as_deref(), Some("Africa/Lagos"));
        assert_eq!(record.game_number, Some(1));
        assert_eq!(record.rules.preset.name(), "lagos");
        let game = record.game().expect("the record replays");
        assert_eq!(
            serde_json::to_value(game.state()).unwrap(),
            over["state"],
            "the record replays to the state the game ended in"
        );
        // What the history says of the same game.
        let (_, history) = app
            .match_history(south["id"].as_str().unwrap(), Page::default())
            .await;
        let stored = &history["matches"][0]["games"][0];
        assert_eq!(stored["id"], game_id.as_str());
        assert_eq!(result_word(record.result), stored["status"]);
        assert_eq!(record.end.word(), stored["end_reason"]);

        // No such game: the service's usual error body.
        let (status, headers, text) = app.game_record("no-such-game").await;
        assert_eq!(status, 404);
        assert!(header(&headers, "content-type").starts_with("application/json"));
        assert_eq!(code(&text), "not_found");
    })
    .await;
}

#[actix_web::test]
async fn a_players_games_come_as_one_file_newest_first_and_paged_by_match() {
    on_both(|app: TestApp| async move {
        let (token, me) = app.guest("Tunde").await;
        let mut ws = app.ws(&token).await;
        ws.send(json!({"type": "enter", "room": LOUNGE})).await;
        ws.next_of("room").await;
        let first = resigned_house_game(&mut ws, &format!("{LOUNGE}-1")).await;
        let second = resigned_house_game(&mut ws, &format!("{LOUNGE}-2")).await;

        let (status, headers, text) = app.games_record(&me, Page::default()).await;
        assert_eq!(status, 200, "{text}");
        assert_eq!(
            header(&headers, "content-type"),
            "text/plain; charset=utf-8"
        );
        assert_eq!(
            header(&headers, "content-disposition"),
            "attachment; filename=\"lagos-hotel-games-of-tunde.ayo\""
        );
        assert!(headers.get("link").is_none(), "one page");
        let records: Vec<Record> = read_all(&text)
            .into_iter()
            .map(|(line, r)| r.unwrap_or_else(|e| panic!("record at line {line}: {e}\n{text}")))
            .collect();
        let ids: Vec<_> = records.iter().map(|r| r.game_id.clone().unwrap()).collect();
        assert_eq!(ids, [second.clone(), first.clone()], "newest first");
        // A blank line between records (a game resigned before any move is its result word alone).
        assert!(text.contains("_won\n\n[Site "), "{text}");
        for r in &records {
            assert_eq!(r.end.word(), "resigned");
            let mine = if r.south.id.as_deref() == Some(me.as_str()) {
                Side::South
            } else {
                Side::North
            };
            assert_eq!(r.result.winner(), Some(mine.opponent()), "Tunde resigned");
        }

        // Paged: one match a page, the next page in `Link`.
        let (status, headers, page) = app.games_record(&me, Page::limit("1")).await;
        assert_eq!(status, 200);
        assert_eq!(
            read(&page).unwrap().game_id.as_deref(),
            Some(second.as_str())
        );
        let link = header(&headers, "link");
        let before = link
            .split("before=")
            .nth(1)
            .and_then(|rest| rest.split('>').next())
            .expect("a next page")
            .to_owned();
        assert!(link.ends_with("; rel=\"next\""), "{link}");
        assert!(
            link.starts_with(&format!("</api/v1/users/{me}/games/record?limit=1&before=")),
            "{link}"
        );
        let (_, headers, rest) = app
            .games_record(&me, Page::limit("1").before(&before))
            .await;
        assert_eq!(
            read(&rest).unwrap().game_id.as_deref(),
            Some(first.as_str())
        );
        assert!(headers.get("link").is_none(), "no page after the last");
        assert_eq!(
            format!("{page}\n{rest}"),
            text,
            "the pages make the whole file"
        );

        // Bad input: the usual errors.
        let (status, _, text) = app.games_record("nobody", Page::default()).await;
        assert_eq!((status, code(&text).as_str()), (404, "not_found"));
        let (status, _, text) = app.games_record(&me, Page::limit("0")).await;
        assert_eq!((status, code(&text).as_str()), (400, "invalid_field"));
    })
    .await;
}

fn lounge(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lounge"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[actix_web::test]
async fn the_command_line_checks_a_served_record_and_refuses_a_wrong_result() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut ws, mine, started, _) = house_game(&app, "easy").await;
    let table = started["table"].as_str().unwrap().to_owned();
    let over = play_out(&mut ws, &table, mine, started["state"].clone()).await;
    let game_id = started["game_id"].as_str().unwrap();
    let (status, _, text) = app.game_record(game_id).await;
    assert_eq!(status, 200, "{text}");

    // From standard input, and from a file of two records.
    let (code, out, err) = lounge(&["ayo", "replay", "--record", "-"], &text);
    assert_eq!(code, 0, "{err}");
    let line: Value = serde_json::from_str(out.trim()).expect("one JSON line");
    assert_eq!(line["game"], 0);
    assert_eq!(line["line"], 1);
    assert_eq!(line["result"], over["result"]);
    assert_eq!(line["end"], over["reason"]);
    assert_eq!(line["stores"], over["state"]["stores"]);
    assert_eq!(line["ply"], over["state"]["ply"]);

    // The same record with the other result, after a good one: the second is refused at its
    // `Result` line, and the exit status says so.
    let stated = over["result"].as_str().unwrap();
    let other = if stated == "draw" {
        "south_won"
    } else {
        "draw"
    };
    let wrong = text
        .replace(
            &format!("[Result \"{stated}\"]"),
            &format!("[Result \"{other}\"]"),
        )
        .replace(&format!(" {stated}\n"), &format!(" {other}\n"));
    let file = std::env::temp_dir().join(format!("lounge-records-{game_id}.ayo"));
    std::fs::write(&file, format!("{text}\n{wrong}")).unwrap();
    let (code, out, err) = lounge(&["ayo", "replay", "--record", file.to_str().unwrap()], "");
    let _ = std::fs::remove_file(&file);
    assert_eq!(code, 1, "{out}{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines"))
        .collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0]["result"], over["result"]);
    assert_eq!(lines[1]["error"], "bad_record");
    let result_line = text
        .lines()
        .position(|l| l.starts_with("[Result "))
        .unwrap()
        + 1;
    assert_eq!(
        lines[1]["line"].as_u64().unwrap() as usize,
        text.lines().count() + 1 + result_line,
        "{}",
        lines[1]
    );
    assert!(
        lines[1]["message"]
            .as_str()
            .unwrap()
            .contains("the result is"),
        "{}",
        lines[1]
    );
    // With a record, the rules come from its tags.
    let (code, _, err) = lounge(
        &["ayo", "replay", "--record", "-", "--rules", "oware"],
        &text,
    );
    assert_eq!(code, 2, "{err}");
}
