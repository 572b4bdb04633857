use super::*;
use crate::ayo::search::{Limits, Searcher};
use crate::ayo::{Forfeit, Game, Preset, Rules};

/// A small deterministic generator: games are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Random legal moves from the start until the game ends or `plies` are played.
fn random_game(rules: Rules, first: Side, seed: u64, plies: u32) -> Game {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut game = Game::starting(rules, first);
    while !game.is_over() && game.ply() < plies {
        let legal = game.legal_moves();
        let pit = legal.nth(rng.next(legal.len())).unwrap();
        game.play(pit).unwrap();
    }
    game
}

/// A game that ends on the board by `reason` under `rules`: the first of many random games.
fn ending_by(rules: Rules, reason: EndReason) -> Game {
    for seed in 0..20_000 {
        let first = if seed % 2 == 0 {
            Side::South
        } else {
            Side::North
        };
        let game = random_game(rules, first, seed, 5_000);
        if game.end_reason() == Some(reason) {
            return game;
        }
    }
    panic!("no random game under {rules:?} ends by {reason:?}");
}

/// The rules under `preset` where `reason` can end a game, with the switches that make it
/// come soon.
fn rules_for(preset: Preset, reason: EndReason) -> Rules {
    let mut rules = preset.rules();
    match reason {
        EndReason::NoCaptureLimit => rules.no_capture_limit = 12,
        EndReason::Repetition => {
            rules.repetition = crate::ayo::Repetition::EndsGame;
            rules.no_capture_limit = 0;
        }
        _ => {}
    }
    rules
}

fn record_of(game: &Game, end: End, result: Status, timed: bool) -> Record {
    let moves = game
        .moves()
        .iter()
        .enumerate()
        .map(|(i, &pit)| RecordedMove {
            pit,
            left_ms: timed.then_some(180_000u64.saturating_sub(i as u64 * 1_234)),
            comment: (i % 7 == 3).then(|| format!("ply {i}: \"quoted\" (and bracketed)")),
        })
        .collect();
    Record {
        site: Some("Lagos Hotel lounge".into()),
        date: NaiveDate::from_ymd_opt(2026, 12, 7),
        time: NaiveTime::from_hms_opt(16, 4, 8),
        zone: Some("Africa/Lagos".into()),
        match_id: Some("0193a1b2c3d4".into()),
        game_number: Some(2),
        game_id: Some("9f8e7d".into()),
        rules: *game.rules(),
        clock: Some(if timed {
            "3+2".parse().unwrap()
        } else {
            TimeControl::None
        }),
        south: Player {
            name: "Adé \"the \\ fox\"".into(),
            id: Some("u-south".into()),
            rating: Some(1523),
        },
        north: Player {
            name: "Bisi".into(),
            id: None,
            rating: None,
        },
        first: game.first(),
        result,
        end,
        moves,
    }
}

/// Written, read back to the same record, written again to the same text, and its game the
/// one played.
fn round_trip(record: &Record, game: &Game) {
    let text = write(record);
    let back = read(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(&back, record, "{text}");
    assert_eq!(write(&back), text);
    let replayed = back.game().expect("a record read is a game");
    assert_eq!(replayed.state(), game.state(), "{text}");
}

const BOARD_ENDS: [EndReason; 4] = [
    EndReason::Majority,
    EndReason::NoCaptureLimit,
    EndReason::Repetition,
    EndReason::NoLegalMove,
];

#[test]
fn every_end_on_the_board_round_trips_under_every_preset() {
    for preset in Preset::ALL {
        for reason in BOARD_ENDS {
            let game = ending_by(rules_for(preset, reason), reason);
            let record = record_of(
                &game,
                End::Game(reason),
                game.status(),
                reason == EndReason::Majority,
            );
            round_trip(&record, &game);
        }
    }
}

#[test]
fn every_end_off_the_board_round_trips_under_every_preset() {
    for preset in Preset::ALL {
        for (i, seed) in [3u64, 8, 21].into_iter().enumerate() {
            // A game some plies in and not over (fewer plies where the first ended).
            let played = (0..=20 + 7 * i as u32)
                .rev()
                .map(|plies| random_game(preset.rules(), Side::BOTH[i % 2], seed, plies))
                .find(|g| !g.is_over() && g.ply() > 0)
                .unwrap();
            let to_move = played.to_move().unwrap();
            let cases: Vec<(End, Status, Game)> = vec![
                (End::Game(EndReason::Resigned), Status::won_by(to_move), {
                    let mut g = played.clone();
                    g.forfeit(to_move.opponent(), Forfeit::Resigned);
                    g
                }),
                (
                    End::Game(EndReason::Timeout),
                    {
                        let mut g = played.clone();
                        g.time_out(to_move);
                        g.status()
                    },
                    {
                        let mut g = played.clone();
                        g.time_out(to_move);
                        g
                    },
                ),
                (End::Game(EndReason::AgreedDraw), Status::Draw, {
                    let mut g = played.clone();
                    g.agree_draw();
                    g
                }),
                (End::Game(EndReason::Abandoned), Status::Draw, {
                    let mut g = played.clone();
                    g.call_off();
                    g
                }),
                (
                    End::Game(EndReason::Abandoned),
                    Status::won_by(to_move.opponent()),
                    {
                        let mut g = played.clone();
                        g.forfeit(to_move, Forfeit::Abandoned);
                        g
                    },
                ),
            ];
            for (end, result, game) in cases {
                assert_eq!(game.status(), result);
                round_trip(&record_of(&game, end, result, i == 1), &game);
            }
        }
        let unstarted = Game::starting(preset.rules(), Side::North);
        round_trip(
            &record_of(&unstarted, End::NotStarted, Status::SouthWon, false),
            &unstarted,
        );
    }
}

#[test]
fn a_record_with_only_the_tags_it_needs_round_trips() {
    let game = random_game(Preset::Oware.rules(), Side::South, 5, 9);
    let record = Record {
        site: None,
        date: None,
        time: None,
        zone: None,
        match_id: None,
        game_number: None,
        game_id: None,
        rules: *game.rules(),
        clock: None,
        south: Player {
            name: "A".into(),
            ..Player::default()
        },
        north: Player {
            name: "B".into(),
            ..Player::default()
        },
        first: Side::South,
        result: Status::SouthWon,
        end: End::Game(EndReason::Resigned),
        moves: game.moves().iter().map(|&p| RecordedMove::new(p)).collect(),
    };
    let text = write(&record);
    assert!(
        text.starts_with("[Rules \"oware\"]\n[South \"A\"]\n"),
        "{text}"
    );
    assert!(text.contains("\n\n1. "), "{text}");
    assert!(text.ends_with(" south_won\n"), "{text}");
    assert_eq!(read(&text).unwrap(), record);
}

/// A complete record to break, line by line: tags on lines 1-8, the moves from line 10.
fn sample() -> (Record, String) {
    let game = (0..)
        .map(|seed| random_game(Preset::Lagos.rules(), Side::South, seed, 5_000))
        .find(|g| g.end_reason() == Some(EndReason::Majority))
        .unwrap();
    let mut record = record_of(&game, End::Game(EndReason::Majority), game.status(), false);
    record.site = None;
    record.date = None;
    record.time = None;
    record.zone = None;
    record.match_id = None;
    record.game_number = None;
    record.game_id = None;
    record.south.id = None;
    record.south.rating = None;
    record.south.name = "Ade".into();
    let text = write(&record);
    (record, text)
}

fn refused(text: &str) -> RecordError {
    match read(text) {
        Ok(_) => panic!("read:\n{text}"),
        Err(e) => e,
    }
}

fn with_line(text: &str, line: usize, new: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    lines[line - 1] = new;
    lines.join("\n") + "\n"
}

#[test]
fn the_sample_reads_and_its_lines_are_where_the_refusals_say() {
    let (record, text) = sample();
    assert_eq!(read(&text).unwrap(), record);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "[Rules \"lagos\"]");
    assert_eq!(lines[1], "[Clock \"none\"]");
    assert_eq!(
        lines[5],
        format!("[Result \"{}\"]", result_word(record.result))
    );
    assert_eq!(lines[6], "[End \"majority\"]");
    assert!(lines[7].starts_with("[Stores \""));
    assert_eq!(lines[8], "");
    assert!(lines[9].starts_with("1. "));
}

#[test]
fn an_illegal_move_is_refused_with_its_line_and_ply() {
    let (record, text) = sample();
    // South plays pit 1, North its pit 1, and South pit 1 again: empty.
    assert_eq!(record.first, Side::South, "the sample is begun by South");
    let mut g = Game::starting(Preset::Lagos.rules(), Side::South);
    g.play(Pit::new(1).unwrap()).unwrap();
    g.play(Pit::new(1).unwrap()).unwrap();
    // South's pit 1 is empty now.
    assert!(!g.legal_moves().contains(Pit::new(1).unwrap()));
    let broken = with_line(&text, 10, "1. 1 1 2. 1 2");
    let e = refused(&broken);
    assert_eq!(e.line, 10);
    assert!(
        matches!(e.reason, Reason::IllegalMove { ply: 2, .. }),
        "{e}"
    );
    assert!(
        e.to_string()
            .starts_with("line 10: ply 2: pit 1 cannot be played"),
        "{e}"
    );
}

#[test]
fn a_wrong_result_is_refused_at_the_result_tag() {
    let (record, text) = sample();
    let other = if record.result == Status::SouthWon {
        "north_won"
    } else {
        "south_won"
    };
    let broken = with_line(&text, 6, &format!("[Result \"{other}\"]"));
    let e = refused(&broken);
    // The result word after the moves disagrees first.
    assert!(matches!(e.reason, Reason::ResultMarker { .. }), "{e}");
    let marker = broken.replace(
        &format!(" {}\n", result_word(record.result)),
        &format!(" {other}\n"),
    );
    let e = refused(&marker);
    assert_eq!(e.line, 6, "{e}");
    assert!(matches!(e.reason, Reason::WrongResult { .. }), "{e}");
    // A resignation by a game that ended on the board.
    let e = refused(&with_line(&text, 7, "[End \"resigned\"]"));
    assert!(matches!(e.reason, Reason::EndedOnBoard { .. }), "{e}");
    // A draw by resignation.
    let game = random_game(Preset::Lagos.rules(), Side::South, 1, 10);
    let mut r = record_of(&game, End::Game(EndReason::Resigned), Status::Draw, false);
    r.site = None;
    let e = refused(&write(&r));
    assert!(matches!(e.reason, Reason::WrongResult { .. }), "{e}");
    // A game not over tagged with an end on the board.
    r.end = End::Game(EndReason::Majority);
    r.result = Status::SouthWon;
    let e = refused(&write(&r));
    assert!(matches!(e.reason, Reason::NotEnded(_)), "{e}");
    // A timeout under `kontest` (the one who ran out loses) stated as a draw.
    let game = random_game(Preset::Kontest.rules(), Side::South, 1, 10);
    let r = record_of(&game, End::Game(EndReason::Timeout), Status::Draw, false);
    let e = refused(&write(&r));
    assert!(matches!(e.reason, Reason::WrongResult { .. }), "{e}");
}

#[test]
fn an_unknown_tag_value_is_refused_with_line_and_reason() {
    let (_, text) = sample();
    let cases: [(usize, &str, &str); 7] = [
        (1, "[Rules \"lagoss\"]", "unknown rules `lagoss`"),
        (
            2,
            "[Rule \"sowing=double\"]",
            "rule `sowing` cannot be `double`",
        ),
        (2, "[Rule \"spin=fast\"]", "unknown rule `spin`"),
        (2, "[Rule \"sowing=single\"]", "is the preset's own"),
        (6, "[Result \"south\"]", "tag `Result` cannot be `south`"),
        (7, "[End \"flagged\"]", "tag `End` cannot be `flagged`"),
        (5, "[First \"east\"]", "tag `First` cannot be `east`"),
    ];
    for (line, new, says) in cases {
        let e = refused(&with_line(&text, line, new));
        assert_eq!(e.line, line, "{new}: {e}");
        assert!(e.to_string().contains(says), "{new}: {e}");
    }
    let e = refused(&with_line(&text, 2, "[Clock \"3 minutes\"]"));
    assert!(matches!(e.reason, Reason::Clock(_)), "{e}");
    let e = refused(&with_line(&text, 2, "[Colour \"blue\"]"));
    assert_eq!(e.reason, Reason::UnknownTag("Colour".into()));
}

#[test]
fn a_malformed_line_is_refused_with_line_and_reason() {
    let (_, text) = sample();
    let e = refused(&with_line(&text, 3, "[South Ade]"));
    assert_eq!(
        (e.line, e.reason),
        (3, Reason::MalformedTag("[South Ade]".into()))
    );
    let e = refused(&with_line(&text, 3, "[South \"Ade\"] trailing"));
    assert_eq!(e.line, 3);
    let e = refused(&with_line(&text, 10, "1. 3 3. 2"));
    assert_eq!(e.line, 10);
    let e = refused(&with_line(&text, 10, "2. 3 4"));
    assert!(
        matches!(e.reason, Reason::TurnNumber { expected: 1, .. }),
        "{e}"
    );
    let e = refused(&with_line(&text, 10, "1. 3 x"));
    assert!(matches!(e.reason, Reason::Malformed { .. }), "{e}");
    let e = refused(&with_line(&text, 10, "1. 7 3"));
    assert!(e.to_string().contains("a pit number from 1 to 6"), "{e}");
    let e = refused(&with_line(&text, 10, "1. 3 {never closed"));
    assert_eq!(e.line, 10);
    let e = refused(&with_line(&text, 10, "1. 3 (0:01:00.000) 4"));
    assert_eq!(e.reason, Reason::ClockWithoutControl);
    let e = refused(&with_line(&text, 2, "[South \"Ade\"]"));
    assert!(matches!(e.reason, Reason::DuplicateTag(_)), "{e}");
    let e = refused(
        &text
            .replace("[First \"south\"]\n", "")
            .replace("[First \"north\"]\n", ""),
    );
    assert_eq!(e.reason, Reason::MissingTag("First"));
    // Tags and no moves.
    let tags_only: String = text.split("\n\n").next().unwrap().to_owned() + "\n";
    let e = refused(&tags_only);
    assert!(matches!(e.reason, Reason::MissingMoves(_)), "{e}");
    // Moves past the end.
    let more = text.replace(
        &format!(" {}\n", result_word(sample().0.result)),
        " 1 2 3\n",
    );
    assert!(read(&more).is_err());
}

#[test]
fn a_file_of_several_records_reads_each_and_counts_lines_in_the_whole_file() {
    let (record, text) = sample();
    let broken = with_line(&text, 10, "1. 9");
    let file = format!("{text}\n{broken}\n{text}");
    let read = read_all(&file);
    assert_eq!(read.len(), 3);
    let second = text.lines().count() + 2;
    let starts: Vec<usize> = read.iter().map(|(line, _)| *line).collect();
    assert_eq!(starts, [1, second, 2 * second - 1]);
    assert_eq!(read[0].1.as_ref().unwrap(), &record);
    let e = read[1].1.as_ref().unwrap_err();
    assert_eq!(e.line, second - 1 + 10, "{e}");
    assert_eq!(read[2].1.as_ref().unwrap(), &record);
}

#[test]
fn a_file_name_is_ascii_and_says_the_day_and_the_players() {
    let game = random_game(Preset::Lagos.rules(), Side::South, 2, 4);
    let mut record = record_of(
        &game,
        End::Game(EndReason::Resigned),
        Status::SouthWon,
        false,
    );
    record.south.name = "Ṣadé Ọlá".into();
    record.north.name = "Baba Ayo".into();
    assert_eq!(
        filename(&record),
        "lagos-hotel-2026-12-07-sade-ola-vs-baba-ayo-game-2.ayo"
    );
    record.north.name = "李白".into();
    record.date = None;
    record.game_number = None;
    assert_eq!(filename(&record), "lagos-hotel-sade-ola-vs-player.ayo");
}

/// The example of docs/records.md: Baba Ayo against himself (depth 5 against depth 3), as
/// the service writes it.
fn engine_game() -> Record {
    let rules = Preset::Lagos.rules();
    let mut game = Game::new(rules);
    let mut minds = [
        Searcher::new(rules, 16, None),
        Searcher::new(rules, 16, None),
    ];
    let mut moves = Vec::new();
    while let Some(side) = game.to_move() {
        let depth = if side == Side::South { 5 } else { 3 };
        let thought = minds[side.index()]
            .think(&game, Limits::depth(depth))
            .expect("a move");
        game.play(thought.best).unwrap();
        let (turn, ply) = (moves.len() as u64 / 2, moves.len() as u64);
        moves.push(RecordedMove {
            pit: thought.best,
            left_ms: Some(180_000u64.saturating_sub(turn * 1_250 + ply % 3 * 211)),
            comment: None,
        });
    }
    moves[0].comment = Some("a quiet start".into());
    Record {
        site: Some("Lagos Hotel lounge".into()),
        date: NaiveDate::from_ymd_opt(2026, 12, 7),
        time: NaiveTime::from_hms_opt(16, 4, 8),
        zone: Some("Africa/Lagos".into()),
        match_id: Some("019af8b2c6e07d4c8a1f2b3c4d5e6f70".into()),
        game_number: Some(1),
        game_id: Some("5b0c6f1e2d3a49c8b7a6f5e4d3c2b1a0".into()),
        rules,
        clock: Some("3+2".parse().unwrap()),
        south: Player {
            name: "Baba Ayo".into(),
            id: Some("baba-ayo-champion".into()),
            rating: Some(1840),
        },
        north: Player {
            name: "Baba Ayo".into(),
            id: Some("baba-ayo-normal".into()),
            rating: None,
        },
        first: Side::South,
        result: game.status(),
        end: End::Game(game.end_reason().unwrap()),
        moves,
    }
}

#[test]
fn the_example_of_docs_records_md_is_an_engine_game_as_written() {
    let record = engine_game();
    let text = write(&record);
    let doc = include_str!("../../../docs/records.md");
    let example = doc
        .split("```text\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/records.md opens with a ```text example");
    assert_eq!(
        example, text,
        "docs/records.md's first example, as written now:\n{text}"
    );
    assert_eq!(read(example).unwrap(), record);
    // Every other record shown reads too.
    let blocks = doc.split("```").skip(1).step_by(2);
    let records: Vec<&str> = blocks
        .map(|b| b.trim_start_matches("text").trim_start_matches('\n'))
        .filter(|b| b.starts_with('['))
        .collect();
    assert!(records.len() >= 2);
    for text in records {
        read(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
}
