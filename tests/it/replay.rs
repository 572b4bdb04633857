//! `lounge ayo replay`, through the library and through the binary.

use std::io::Write;
use std::process::{Command, Stdio};

use lounge::ayo::{Game, Preset, Rules};
use lounge::cli::{replay, ReplayReport};
use serde_json::{json, Value};

fn run(rules: &Rules, trace: bool, input: &str) -> (Vec<Value>, ReplayReport) {
    let mut out = Vec::new();
    let report = replay(rules, trace, input.as_bytes(), &mut out).unwrap();
    let lines = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect();
    (lines, report)
}

#[test]
fn replay_writes_the_last_state_of_each_game_with_its_index() {
    let (lines, report) = run(&Preset::Lagos.rules(), false, "3 1 6\n\n1\n");
    assert_eq!(
        report,
        ReplayReport {
            games: 3,
            failed: 0
        }
    );
    assert_eq!(lines.len(), 3);
    let expected = Game::replay(
        Preset::Lagos.rules(),
        [3, 1, 6].map(|n| lounge::ayo::Pit::new(n).unwrap()),
    )
    .unwrap();
    let mut want = serde_json::to_value(expected.state()).unwrap();
    want["game"] = json!(0);
    assert_eq!(lines[0], want);
    assert_eq!(lines[1]["game"], 1);
    assert_eq!(lines[1]["ply"], 0, "an empty line is a game with no moves");
    assert_eq!(lines[2]["game"], 2);
    assert_eq!(lines[2]["to_move"], "north");
}

#[test]
fn replay_trace_writes_every_state_from_ply_zero() {
    let (lines, _) = run(&Preset::Lagos.rules(), true, "3 1 6\n2\n");
    let plies: Vec<_> = lines
        .iter()
        .map(|l| (l["game"].as_u64().unwrap(), l["ply"].as_u64().unwrap()))
        .collect();
    assert_eq!(plies, [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1)]);
    for key in [
        "ply",
        "pits",
        "stores",
        "to_move",
        "legal",
        "moves_since_capture",
        "status",
        "end_reason",
        "game",
    ] {
        assert!(lines[3].get(key).is_some(), "state has {key}");
    }
}

#[test]
fn replay_reports_an_illegal_move_and_goes_on_with_the_next_game() {
    let (lines, report) = run(&Preset::Lagos.rules(), false, "1 1 1\n7\n2\n");
    assert_eq!(
        report,
        ReplayReport {
            games: 3,
            failed: 2
        }
    );
    assert_eq!(lines[0]["error"], "illegal_move");
    assert_eq!(lines[0]["game"], 0);
    assert_eq!(lines[0]["ply"], 2);
    assert_eq!(lines[0]["move"], "1");
    assert!(
        lines[0]["message"].as_str().unwrap().contains("empty"),
        "{}",
        lines[0]
    );
    assert_eq!(
        lines[1],
        json!({"game": 1, "ply": 0, "error": "illegal_move", "move": "7",
        "message": "a pit is a number from 1 to 6, not 7"})
    );
    assert_eq!(lines[2]["ply"], 1);
}

#[test]
fn replay_reports_a_malformed_move() {
    let (lines, report) = run(&Preset::Lagos.rules(), true, "3 x 1\n");
    assert_eq!(report.failed, 1);
    assert_eq!(lines.len(), 3, "ply 0, ply 1, then the error");
    assert_eq!(lines[2]["error"], "malformed_move");
    assert_eq!(lines[2]["move"], "x");
    assert_eq!(lines[2]["ply"], 1);
}

#[test]
fn replay_refuses_a_move_after_the_game_is_over() {
    // A game that ends by the no-capture limit after 2 plies.
    let rules = Rules::build("lagos", ["no_capture_limit=2"]).unwrap();
    let (lines, _) = run(&rules, false, "1 1 2\n");
    assert_eq!(lines[0]["error"], "illegal_move");
    assert_eq!(lines[0]["message"], "the game is over");
}

#[test]
fn replay_reads_windows_line_ends_tabs_and_bytes_that_are_not_utf8() {
    let mut out = Vec::new();
    let report = replay(
        &Preset::Lagos.rules(),
        false,
        &b"3\t1\r\n\xff 1\n"[..],
        &mut out,
    )
    .unwrap();
    assert_eq!(
        report,
        ReplayReport {
            games: 2,
            failed: 1
        }
    );
    let text = String::from_utf8(out).unwrap();
    assert!(text.lines().next().unwrap().contains("\"ply\":2"), "{text}");
    assert!(
        text.lines().nth(1).unwrap().contains("malformed_move"),
        "{text}"
    );
}

fn lounge(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lounge"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The command may refuse its arguments and exit before it reads a byte.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn the_replay_command_exits_one_once_all_input_is_read_when_a_move_was_illegal() {
    let (code, out, _) = lounge(&["ayo", "replay"], "1 1 1\n3\n");
    assert_eq!(code, 1);
    assert_eq!(
        out.lines().count(),
        2,
        "the second game is still replayed: {out}"
    );
    let (code, _, _) = lounge(&["ayo", "replay", "--trace"], "3 1 6\n");
    assert_eq!(code, 0);
}

#[test]
fn the_replay_command_takes_rules_and_overrides() {
    let (code, out, _) = lounge(
        &[
            "ayo",
            "replay",
            "--rules",
            "oware",
            "--rule",
            "no_capture_limit=1",
        ],
        "1\n",
    );
    assert_eq!(code, 0);
    let state: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(state["end_reason"], "no_capture_limit");
}

#[test]
fn the_replay_command_refuses_unknown_rules_and_keys_clearly() {
    let (code, out, err) = lounge(&["ayo", "replay", "--rules", "abapa"], "1\n");
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("unknown rules `abapa`"), "{err}");
    let (code, _, err) = lounge(&["ayo", "replay", "--rule", "speed=3"], "1\n");
    assert_eq!(code, 2);
    assert!(err.contains("unknown rule `speed`"), "{err}");
    let (code, _, err) = lounge(&["ayo", "replay", "--rule", "sowing=fast"], "1\n");
    assert_eq!(code, 2);
    assert!(err.contains("single or relay"), "{err}");
}

#[test]
fn the_perft_command_prints_each_depth() {
    let (code, out, _) = lounge(&["ayo", "perft", "4"], "");
    assert_eq!(code, 0);
    assert_eq!(out, "1 6\n2 36\n3 190\n4 1014\n");
}

#[test]
fn the_rules_command_prints_the_switches() {
    let (code, out, _) = lounge(&["ayo", "rules", "--rules", "ayoayo"], "");
    assert_eq!(code, 0);
    let rules: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(rules["sowing"], "relay");
    assert_eq!(rules["capture"], "four");
}

#[test]
fn replay_refuses_a_line_too_long_to_be_a_game_and_goes_on() {
    let mut input = "1 ".repeat(lounge::cli::MAX_LINE);
    input.push_str("\n3\n");
    let (lines, report) = run(&Preset::Lagos.rules(), false, &input);
    assert_eq!(
        report,
        ReplayReport {
            games: 2,
            failed: 1
        }
    );
    assert_eq!(lines[0]["error"], "line_too_long");
    assert_eq!(lines[0]["game"], 0);
    assert_eq!(lines[1]["game"], 1);
    assert_eq!(lines[1]["ply"], 1);
}

#[test]
fn the_replay_command_replays_games_north_began_with_first_north() {
    let (code, out, _) = lounge(&["ayo", "replay", "--first", "north", "--trace"], "3 1\n");
    assert_eq!(code, 0, "{out}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["to_move"], "north");
    assert_eq!(lines[1]["to_move"], "south");
    let expected = Game::replay_from(
        Preset::Lagos.rules(),
        lounge::ayo::Side::North,
        [3, 1].map(|n| lounge::ayo::Pit::new(n).unwrap()),
    )
    .unwrap();
    let mut want = serde_json::to_value(expected.state()).unwrap();
    want["game"] = json!(0);
    assert_eq!(lines[2], want);
    let (code, _, err) = lounge(&["ayo", "replay", "--first", "east"], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("south or north"), "{err}");
}
