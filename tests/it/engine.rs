//! Baba Ayo's search and endgame databases: legal moves always, forced wins found, database
//! values equal to a search to the end. Nothing here times a search.

use std::collections::HashMap;

use lounge::ayo::endgame::Endgame;
use lounge::ayo::search::{Limits, Searcher};
use lounge::ayo::{Game, Pit, Position, Preset, Rules, Side};
use proptest::prelude::*;

/// `n` seeds dropped in pits picked by a generator seeded with `state`.
fn scatter(state: u64, n: u8) -> [u8; 12] {
    let mut pits = [0u8; 12];
    let mut s = state;
    for _ in 0..n {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        pits[((s >> 33) % 12) as usize] += 1;
    }
    pits
}

fn position(pits: [u8; 12], stores: [u8; 2], to_move: Side) -> Position {
    Position::new(pits, stores, to_move, 0).unwrap()
}

fn rules(preset: Preset, overrides: &[&str]) -> Rules {
    let mut r = preset.rules();
    for o in overrides {
        r.set_pair(o).unwrap();
    }
    r
}

#[test]
fn a_capture_that_wins_at_once_is_played() {
    // South has 23; sowing pit 6 (one seed) lands on North's pit 1 making 2: 25, a majority.
    // No other pit reaches North's row.
    let p = position([3, 0, 0, 0, 1, 1, 1, 3, 0, 0, 0, 0], [23, 16], Side::South);
    let game = Game::from_position(Rules::default(), p);
    let mut searcher = Searcher::new(Rules::default(), 16, None);
    let thought = searcher.think(&game, Limits::depth(4)).unwrap();
    assert_eq!(thought.best, Pit::new(6).unwrap(), "{thought:?}");
    assert!(thought.proven && thought.score > 0, "{thought:?}");
}

/// Whether the side to move can force a majority within `plies` of its own and the
/// opponent's moves, by trying every line.
fn forced_majority(rules: &Rules, p: &Position, plies: u32) -> bool {
    let me = p.to_move();
    let legal = p.legal_moves(rules);
    if plies == 0 || legal.is_empty() || p.majority().is_some() {
        return false;
    }
    legal.iter().any(|pit| {
        let mut child = *p;
        child.sow(rules, pit);
        if child.majority() == Some(me) {
            return true;
        }
        let replies = child.legal_moves(rules);
        plies >= 3
            && child.majority().is_none()
            && !replies.is_empty()
            && replies.iter().all(|reply| {
                let mut next = child;
                next.sow(rules, reply);
                next.majority() != Some(me.opponent())
                    && (next.majority() == Some(me) || forced_majority(rules, &next, plies - 2))
            })
    })
}

/// Puzzles: positions found by trying every line where the mover forces a majority in three
/// plies but not in one. The engine must play a move that keeps the forced win.
#[test]
fn forced_wins_three_plies_deep_are_found() {
    let rules = Rules::default();
    let mut state = 99u64;
    let mut puzzles = 0;
    let mut tried = 0;
    while puzzles < 25 && tried < 200_000 {
        tried += 1;
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let n = 4 + (state % 8) as u8;
        let pits = scatter(state, n);
        let mine = 21 + ((state >> 8) % 4) as u8;
        let Some(theirs) = (48 - n).checked_sub(mine).filter(|&t| t <= 24) else {
            continue;
        };
        let p = position(pits, [mine, theirs], Side::South);
        if forced_majority(&rules, &p, 1) || !forced_majority(&rules, &p, 3) {
            continue;
        }
        puzzles += 1;
        let game = Game::from_position(rules, p);
        let mut searcher = Searcher::new(rules, 14, None);
        let thought = searcher.think(&game, Limits::depth(5)).unwrap();
        assert!(thought.proven && thought.score > 0, "{p:?}: {thought:?}");
        let mut after = p;
        after.sow(&rules, thought.best);
        // Every reply leaves a winning capture.
        let replies = after.legal_moves(&rules);
        assert!(
            replies.iter().all(|r| {
                let mut next = after;
                next.sow(&rules, r);
                forced_majority(&rules, &next, 1)
            }),
            "{p:?}: {} lets the win go",
            thought.best
        );
    }
    assert!(puzzles >= 10, "only {puzzles} puzzles in {tried} tries");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// From random positions reached by random play, every preset: the move is legal and the
    /// principal variation is a legal line.
    #[test]
    fn the_engine_always_plays_a_legal_move(
        preset in prop::sample::select(vec![Preset::Lagos, Preset::Kontest, Preset::Oware, Preset::Ayoayo]),
        choices in prop::collection::vec(0usize..6, 0..80),
        depth in 1u32..5,
    ) {
        let rules = preset.rules();
        let mut game = Game::new(rules);
        for c in choices {
            if game.is_over() { break; }
            let legal = game.legal_moves();
            let pit = legal.nth(c % legal.len()).unwrap();
            game.play(pit).unwrap();
        }
        let mut searcher = Searcher::new(rules, 12, None);
        match searcher.think(&game, Limits::depth(depth)) {
            None => prop_assert!(game.is_over()),
            Some(t) => {
                prop_assert!(game.legal_moves().contains(t.best));
                prop_assert_eq!(t.pv[0], t.best);
                let mut line = game.clone();
                for pit in &t.pv {
                    prop_assert!(line.play(*pit).is_ok(), "pv {:?} from {:?}", t.pv, game.state());
                }
            }
        }
    }
}

/// The seeds the mover gains from the board with `left` capture-less plies to go, by plain
/// recursion over every line: the definition the database must meet.
fn brute(
    rules: &Rules,
    p: &Position,
    left: u16,
    memo: &mut HashMap<([u8; 12], Side, u16), i32>,
) -> i32 {
    let me = p.to_move();
    let sweep = i32::from(p.row_seeds(me)) - i32::from(p.row_seeds(me.opponent()));
    let legal = p.legal_moves(rules);
    if left == 0 || legal.is_empty() {
        return sweep;
    }
    if let Some(&v) = memo.get(&(p.pits(), me, left)) {
        return v;
    }
    let v = legal
        .iter()
        .map(|pit| {
            let mut child = *p;
            let c = i32::from(child.sow(rules, pit).captured);
            let next = if c > 0 {
                rules.no_capture_limit
            } else {
                left - 1
            };
            c - brute(rules, &child, next, memo)
        })
        .max()
        .unwrap();
    memo.insert((p.pits(), me, left), v);
    v
}

#[test]
fn database_values_equal_a_search_of_every_line() {
    for preset in [Preset::Lagos, Preset::Ayoayo] {
        // A short limit keeps the plain recursion small.
        let rules = rules(preset, &["no_capture_limit=12"]);
        let db = Endgame::build(&rules, 5).unwrap();
        let mut memo = HashMap::new();
        let mut checked = 0;
        let mut state = 12345u64;
        while checked < 400 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let n = (state % 6) as u8;
            let pits = scatter(state, n);
            let since = ((state >> 20) % 12) as u16;
            let side = if state & 1 == 0 {
                Side::South
            } else {
                Side::North
            };
            let p = Position::new(pits, [48 - n, 0], side, since).unwrap();
            let want = brute(&rules, &p, rules.no_capture_limit - since, &mut memo);
            assert_eq!(db.value(&p), Some(want), "{preset:?} {p:?}");
            checked += 1;
        }
        assert_eq!(
            db.value(&Position::start()),
            None,
            "48 seeds are past the database"
        );
    }
}

#[test]
fn under_repetition_a_database_keeps_bounds_and_none_with_a_limit_too() {
    let oware = Preset::Oware.rules();
    let db = Endgame::build(&oware, 6).expect("bounds under repetition");
    // A lone seed the mover cannot sow across: the game ends, it keeps it.
    let p = position([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [24, 23], Side::South);
    assert_eq!(db.value(&p), Some(1));
    let both = rules(Preset::Oware, &["no_capture_limit=60"]);
    assert!(Endgame::build(&both, 4).is_none());
}

#[test]
fn a_database_is_read_back_as_it_was_written() {
    let rules = Rules::default();
    let db = Endgame::build(&rules, 6).unwrap();
    let back = Endgame::from_bytes(db.as_bytes().to_vec()).unwrap();
    assert_eq!(back.size(), db.size());
    let p = position([1, 0, 2, 0, 0, 0, 0, 1, 0, 0, 2, 0], [22, 20], Side::North);
    assert_eq!(back.value(&p), db.value(&p));
    assert!(back.applies_to(&rules));
}

/// The bytes of five small databases, four packed and Abapa's bounds (length and FNV-1a of
/// each), so a change to the format or to a value shows here; and the file names the service
/// has always written, so databases stored before are still found (and read:
/// `src/ayo/endgame/tests.rs`).
#[test]
fn database_bytes_are_pinned_and_file_names_those_written_before() {
    let fnv = |bytes: &[u8]| {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        })
    };
    let kontest12 = rules(Preset::Kontest, &["no_capture_limit=12"]);
    let cases = [
        (
            Rules::default(),
            1,
            331,
            0x6772_4585_ad20_6474,
            "endgame-lagos-5027720edba38840-1.db",
        ),
        (
            Rules::default(),
            6,
            127_909,
            0x7a7d_4da5_fc65_9066,
            "endgame-lagos-5027720edba38840-6.db",
        ),
        (
            Preset::Ayoayo.rules(),
            6,
            167_320,
            0x1480_3644_1093_2a44,
            "endgame-ayoayo-a546b78e7a267f30-6.db",
        ),
        (
            kontest12,
            8,
            508_810,
            0x4cec_2dff_11a8_e2e2,
            "endgame-kontest-363cee10316cca4a-8.db",
        ),
        (
            rules(Preset::Oware, &["grand_slam=captures_nothing"]),
            8,
            126_186,
            0x1cf8_7fba_f981_b4d5,
            "endgame-oware-16ae1f58f15e73a9-8.db",
        ),
    ];
    for (rules, seeds, len, hash, name) in cases {
        let db = Endgame::build(&rules, seeds).unwrap();
        assert_eq!(db.as_bytes().len(), len, "{name}");
        assert_eq!(fnv(db.as_bytes()), hash, "{name}");
        assert_eq!(lounge::house::file_name(&rules, seeds), name);
    }
}

/// With the database, the search's proven result equals the database's.
#[test]
fn the_search_with_a_database_agrees_with_it() {
    let rules = Rules::default();
    let db = std::sync::Arc::new(Endgame::build(&rules, 8).unwrap());
    let p = position([2, 1, 0, 0, 1, 0, 0, 2, 1, 0, 0, 1], [20, 20], Side::South);
    let game = Game::from_position(rules, p);
    let mut searcher = Searcher::new(rules, 16, Some(db.clone()));
    let thought = searcher.think(&game, Limits::depth(6)).unwrap();
    assert!(thought.proven, "{thought:?}");
    let (best, gain) = db.best_move(&p).unwrap();
    assert_eq!(
        thought.score, gain,
        "stores are level: the margin is the gain"
    );
    let mut after = p;
    let captured = i32::from(after.sow(&rules, thought.best).captured);
    assert_eq!(
        captured - db.value(&after).unwrap(),
        gain,
        "{best} and {} are as good",
        thought.best
    );
}

/// The binary with input on standard input, in a scratch folder with small, quick settings;
/// its standard output lines and whether it succeeded.
fn lounge(args: &[&str], input: &str) -> (Vec<String>, bool) {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!(
        "lounge-cli-{}-{}",
        std::process::id(),
        args.join("-")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_lounge"))
        .args(args)
        .current_dir(&dir)
        .env("LOUNGE_HOUSE__ENDGAME_SEEDS", "6")
        .env("LOUNGE_HOUSE__CHAMPION_MS", "50")
        .env("LOUNGE_HOUSE__NORMAL_MS", "50")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect(),
        out.status.success(),
    )
}

#[test]
fn the_engine_command_answers_each_line_and_goes_on_after_a_bad_one() {
    let input = r#"{"moves": [3, 1, 6], "rules": "lagos", "rule": {"no_capture_limit": 0, "repetition": "ends_game"}, "level": "champion", "movetime_ms": 100}
{"moves": [7]}
not json
{"moves": [], "level": "grandmaster"}
{"moves": [], "rules": "nope"}
{"moves": [], "movetime_ms": 0}
{"moves": [1], "level": "easy", "rules": "oware"}
"#;
    let (lines, ok) = lounge(&["ayo", "engine"], input);
    assert!(ok);
    assert_eq!(lines.len(), 7, "{lines:?}");
    let first: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    let game = Game::replay(
        rules(
            Preset::Lagos,
            &["no_capture_limit=0", "repetition=ends_game"],
        ),
        [3, 1, 6].map(|n| Pit::new(n).unwrap()),
    )
    .unwrap();
    let best = Pit::new(first["move"].as_u64().unwrap() as u8).unwrap();
    assert!(game.legal_moves().contains(best), "{first}");
    assert_eq!(first["pv"][0], first["move"]);
    assert!(first["depth"].as_u64().unwrap() >= 1 && first["nodes"].as_u64().unwrap() > 0);
    assert!(first["score"].is_i64() && first["proven"].is_boolean());
    for (line, needle) in lines[1..6].iter().zip([
        "1 to 6",
        "JSON",
        "unknown level",
        "unknown rules",
        "movetime_ms",
    ]) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["error"].as_str().unwrap().contains(needle), "{line}");
    }
    let last: serde_json::Value = serde_json::from_str(&lines[6]).unwrap();
    assert!(last["move"].is_u64(), "{last}");
}

#[test]
fn a_match_prints_its_tally_with_colours_alternating() {
    let (lines, ok) = lounge(&["ayo", "match", "greedy", "random", "--games", "6"], "");
    assert!(ok);
    let line = lines.last().unwrap();
    assert!(
        line.starts_with("greedy vs random (lagos, 6 games"),
        "{line}"
    );
    assert!(line.contains("wins") && line.contains("score"), "{line}");
    let (_, ok) = lounge(&["ayo", "match", "greedy", "nobody"], "");
    assert!(!ok, "an unknown player is refused");
}

#[test]
fn the_endgame_command_stores_a_database() {
    let (lines, ok) = lounge(&["ayo", "endgame", "5"], "");
    assert!(ok);
    assert!(
        lines[0].contains("up to 5 seeds") && lines[0].contains("6188 boards"),
        "{lines:?}"
    );
    let (lines, ok) = lounge(&["ayo", "endgame", "--rules", "oware", "5"], "");
    assert!(ok, "{lines:?}");
    assert!(lines[0].contains("known whatever the path"), "{lines:?}");
    let (_, ok) = lounge(
        &[
            "ayo",
            "endgame",
            "--rules",
            "oware",
            "--rule",
            "no_capture_limit=60",
            "5",
        ],
        "",
    );
    assert!(!ok, "no database for repetition and a limit together");
    let (lines, ok) = lounge(&["ayo", "endgame", "21"], "");
    assert!(
        !ok && lines.is_empty(),
        "past 20 seeds is refused: {lines:?}"
    );
}

#[test]
fn the_service_reads_a_stored_database_rather_than_build_a_smaller_one() {
    let dir = std::env::temp_dir().join(format!("lounge-eg-dir-{}", std::process::id()));
    let mut settings = lounge::config::Settings::load().unwrap().house;
    settings.endgame_dir = dir.to_string_lossy().into_owned();
    settings.endgame_seeds = 4;
    let endgames = lounge::house::Endgames::new(&settings);
    let rules = Rules::default();
    endgames.build_and_store(&rules, 7).unwrap();
    let fresh = lounge::house::Endgames::new(&settings);
    assert_eq!(fresh.get(&rules).unwrap().max_seeds(), 7);
    // Other rules find nothing stored: the start-up size is built.
    let kontest = Preset::Kontest.rules();
    assert_eq!(fresh.get(&kontest).unwrap().max_seeds(), 4);
    assert_eq!(fresh.get(&Preset::Oware.rules()).unwrap().max_seeds(), 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_service_skips_a_stored_database_that_does_not_read_back_whole() {
    let dir = std::env::temp_dir().join(format!("lounge-eg-bad-{}", std::process::id()));
    let mut settings = lounge::config::Settings::load().unwrap().house;
    settings.endgame_dir = dir.to_string_lossy().into_owned();
    settings.endgame_seeds = 4;
    let endgames = lounge::house::Endgames::new(&settings);
    let rules = Rules::default();
    let (path, db) = endgames.build_and_store(&rules, 6).unwrap();
    assert_eq!(path, endgames.path(&rules, 6));
    assert_eq!(std::fs::read(&path).unwrap(), db.as_bytes());
    // Cut short, as a copy that stopped half way would be.
    std::fs::write(&path, &db.as_bytes()[..db.as_bytes().len() / 2]).unwrap();
    let fresh = lounge::house::Endgames::new(&settings);
    assert_eq!(fresh.get(&rules).unwrap().max_seeds(), 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_perfect_command_checks_the_champion_against_the_database() {
    // The helper's settings build a 6-seed database at start: every board checked is covered.
    let (lines, ok) = lounge(&["ayo", "perfect", "--positions", "300"], "");
    assert!(ok, "{lines:?}");
    assert!(
        lines[0].starts_with(
            "1 to 6 seeds, in all: 300 of 300 boards played perfectly by the champion against the database"
        ),
        "{lines:?}"
    );
    let (lines, ok) = lounge(&["ayo", "perfect", "--positions", "0"], "");
    assert!(!ok && lines.is_empty(), "no boards is no check: {lines:?}");
}

#[test]
fn the_perfect_command_checks_every_board_of_each_seed_count() {
    let (lines, ok) = lounge(&["ayo", "perfect", "--every", "--movetime-ms", "50"], "");
    assert!(ok, "{lines:?}");
    assert_eq!(
        lines.len(),
        7,
        "a line for each seed count and one in all: {lines:?}"
    );
    // Every board of n seeds over twelve pits, C(n + 11, 11), is checked or passed over (the
    // game over there, a side with no move to give).
    let mut total = 0u64;
    for (n, line) in (1..=6u64).zip(&lines) {
        let boards = (1..=11u64).fold(1u64, |c, i| c * (n + i) / i);
        total += boards;
        let (checked, perfect, passed) = counts(line);
        assert!(
            line.starts_with(&format!("{n} seeds, every board: ")),
            "{line}"
        );
        assert_eq!(checked, perfect, "{line}");
        assert_eq!(checked + passed, boards, "{line}");
    }
    let (checked, perfect, passed) = counts(&lines[6]);
    assert_eq!(
        (checked, checked + passed),
        (perfect, total),
        "{}",
        lines[6]
    );
    assert!(
        checked > total / 2,
        "most boards have a game to play: {}",
        lines[6]
    );
}

#[test]
fn under_repetition_the_perfect_command_checks_the_boards_the_bounds_settle() {
    let (lines, ok) = lounge(
        &[
            "ayo",
            "perfect",
            "--rules",
            "oware",
            "--positions",
            "40",
            "--movetime-ms",
            "20",
        ],
        "",
    );
    assert!(ok, "{lines:?}");
    let (checked, perfect, passed) = counts(&lines[0]);
    assert_eq!(checked, 40, "{lines:?}");
    // The bounds clear nearly every move of the boards they settle (202,630 of 202,631 to 20
    // seeds, BENCHMARKS.md); none may be convicted (the exit status above).
    assert!(perfect >= checked - 2, "{lines:?}");
    // Most boards can reach a cycle, so their value depends on the path: passed over.
    assert!(passed > checked, "{lines:?}");
}

/// Boards checked, played perfectly and passed over, from a line of `lounge ayo perfect`.
fn counts(line: &str) -> (u64, u64, u64) {
    let number = |after: &str, word: &str| -> u64 {
        let at = line.find(after).map_or(0, |i| i + after.len());
        let rest = &line[at..];
        let end = rest
            .find(word)
            .unwrap_or_else(|| panic!("no `{word}` in {line}"));
        rest[..end]
            .trim()
            .parse()
            .unwrap_or_else(|e| panic!("{e}: {line}"))
    };
    let perfect = number(": ", " of ");
    let checked = number(" of ", " boards");
    let passed = number("; ", " passed over");
    (checked, perfect, passed)
}

#[test]
fn fitting_prints_its_errors_and_the_weights() {
    let (lines, ok) = lounge(&["ayo", "fit", "--games", "20", "--depth", "2"], "");
    assert!(ok);
    assert!(
        lines[0].contains("quiet positions from 20 games at depth 2"),
        "{lines:?}"
    );
    let weights: lounge::ayo::eval::Weights = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert_eq!(weights.store, lounge::ayo::search::SEED);
    assert_ne!(
        weights,
        lounge::ayo::eval::Weights::for_rules(&Rules::default()),
        "the games moved the table"
    );
}

#[test]
fn the_book_command_prints_a_book_that_reads_back() {
    let (lines, ok) = lounge(&["ayo", "book", "--plies", "1", "--movetime-ms", "5"], "");
    assert!(ok, "{lines:?}");
    let book = lounge::ayo::book::Book::parse(&lines.join("\n")).expect("it reads back");
    assert_eq!(book.len(), 7, "the start and its six children: {lines:?}");
    let (lines, ok) = lounge(&["ayo", "book", "--rules", "ayoayo"], "");
    assert!(!ok, "no book for collecting fours: {lines:?}");
}

/// How a game from `game` ends under best play, for the side to move: above 0 a win, 0 a draw,
/// below a loss; by the database (which must cover it) or by the game's own end.
fn outcome(db: &Endgame, game: &Game) -> i32 {
    let p = game.position();
    let me = p.to_move();
    if game.is_over() {
        return match game.status().winner() {
            None => 0,
            Some(w) if w == me => 1,
            Some(_) => -1,
        };
    }
    let [south, north] = p.stores().map(i32::from);
    let ahead = if me == Side::South {
        south - north
    } else {
        north - south
    };
    (ahead + db.value(p).unwrap()).signum()
}

/// `game` after `pits` are played.
fn after(game: &Game, pits: &[Pit]) -> Game {
    let mut g = game.clone();
    for &pit in pits {
        g.play(pit).unwrap();
    }
    g
}

/// Of the opponent's replies to `pit`, how many leave the mover not lost.
fn escapes(db: &Endgame, game: &Game, pit: Pit) -> usize {
    let g = after(game, &[pit]);
    if g.is_over() {
        return 0;
    }
    g.legal_moves()
        .iter()
        .filter(|&reply| outcome(db, &after(&g, &[reply])) >= 0)
        .count()
}

/// Every board the database covers: where the champion can win or draw, his move is one of
/// the best by the database; where he has lost, it is one of the moves after which most of the
/// opponent's replies let the win slip; and he takes a draw exactly when he cannot win.
#[test]
fn with_the_database_the_champion_never_misplays_a_covered_position() {
    use lounge::ayo::house::{self, Ask, Level};
    let rules = Rules::default();
    let db = std::sync::Arc::new(Endgame::build(&rules, 8).unwrap());
    let mut state = 2024u64;
    let (mut checked, mut lost, mut swindled) = (0, 0, 0);
    let mut mind = house::mind(Level::Champion, &rules, Some(db.clone()));
    fn ask(game: &Game) -> Ask<'_> {
        Ask {
            game,
            level: Level::Champion,
            movetime: std::time::Duration::from_secs(60),
            endgame: None,
            seed: 1,
            stop: None,
            book: false,
        }
    }
    while checked < 300 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let n = 1 + (state % 8) as u8;
        let pits = scatter(state, n);
        // Stores short of a majority, so the game goes on from here.
        let rest = 48 - n;
        let south = rest / 2 - (state >> 40) as u8 % 3;
        let since = ((state >> 20) % 59) as u16;
        let p = Position::new(pits, [south, rest - south], Side::South, since).unwrap();
        let game = Game::from_position(rules, p);
        if game.is_over() {
            continue;
        }
        checked += 1;
        let thought = house::think_with(&mut mind, ask(&game)).unwrap();
        assert!(thought.proven);
        let now = outcome(&db, &game);
        if now < 0 {
            lost += 1;
            let most = game
                .legal_moves()
                .iter()
                .map(|pit| escapes(&db, &game, pit))
                .max()
                .unwrap();
            assert_eq!(
                escapes(&db, &game, thought.best),
                most,
                "{p:?}: {thought:?}"
            );
            swindled += usize::from(most > 0);
        } else {
            let (_, best) = db.best_move(&p).unwrap();
            let mut next = p;
            let captured = i32::from(next.sow(&rules, thought.best).captured);
            assert_eq!(
                captured - db.value(&next).unwrap(),
                best,
                "{p:?}: {thought:?}"
            );
        }
        assert_eq!(
            house::takes_draw(&mut mind, ask(&game), Side::South),
            now <= 0,
            "{p:?}"
        );
        assert_eq!(
            house::takes_draw(&mut mind, ask(&game), Side::North),
            now >= 0,
            "{p:?}"
        );
    }
    // The sample holds lost boards, and lost boards with a way out for a careless opponent.
    assert!(
        lost > 20 && swindled > 5,
        "{lost} lost, {swindled} with a chance"
    );
}

#[test]
fn no_database_for_a_limit_past_what_memory_allows() {
    assert!(Endgame::possible(&Preset::Kontest.rules()));
    assert!(!Endgame::possible(&rules(
        Preset::Lagos,
        &["no_capture_limit=10000"]
    )));
    assert!(!Endgame::possible(&rules(
        Preset::Lagos,
        &["no_capture_limit=0"]
    )));
}
