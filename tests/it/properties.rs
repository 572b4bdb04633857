//! Property tests over random games of every preset.

use lounge::ayo::{Game, Pit, Position, Preset, Rules, Side, State, SEEDS};
use proptest::prelude::*;

use crate::helpers::game::seeds_in;

/// Enough plies for any game to end: with a no-capture limit, at most 48 captures each followed
/// by the limit; under oware the game ends by repetition or a capture long before.
const PLY_CAP: usize = 20_000;

fn any_rules() -> impl Strategy<Value = Rules> {
    let preset = prop::sample::select(Preset::ALL.to_vec());
    (preset, any::<bool>(), any::<bool>()).prop_map(|(p, flip_slam, relay)| {
        let mut rules = p.rules();
        // Mixed switches too, but always with an end in sight (a limit or repetition).
        if flip_slam {
            rules.set("grand_slam", "illegal").unwrap();
        }
        if relay && p != Preset::Ayoayo {
            rules.set("sowing", "relay").unwrap();
        }
        rules
    })
}

/// Plays a game choosing moves by `choices` (index into the legal moves, cycling), checking the
/// invariants after every ply; returns the game and its state after every ply, ply 0 included.
fn play_random(rules: Rules, choices: &[u8]) -> Result<(Game, Vec<State>), TestCaseError> {
    let mut game = Game::new(rules);
    let mut states = vec![game.state()];
    let mut i = 0;
    while !game.is_over() && (game.ply() as usize) < PLY_CAP {
        let legal = game.legal_moves();
        prop_assert!(!legal.is_empty(), "a game in play has a legal move");
        let pit = legal
            .nth(choices[i % choices.len()] as usize % legal.len())
            .unwrap();
        i += 1;
        let before = *game.position();
        let played = game
            .play(pit)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let after = game.position();
        prop_assert_eq!(seeds_in(after), SEEDS, "seeds are conserved");
        prop_assert_eq!(played.side, before.to_move());
        prop_assert!(
            after.stores()[played.side.index()]
                >= before.stores()[played.side.index()] + played.captured
        );
        prop_assert_eq!(
            after.stores()[played.side.opponent().index()]
                >= before.stores()[played.side.opponent().index()],
            true
        );
        let state = game.state();
        prop_assert_eq!(
            state.legal.is_empty(),
            game.is_over(),
            "legal is empty exactly when over"
        );
        prop_assert_eq!(state.to_move.is_none(), game.is_over());
        prop_assert_eq!(state.end_reason.is_some(), game.is_over());
        states.push(state);
    }
    Ok((game, states))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_games_conserve_seeds_end_and_replay_the_same(
        rules in any_rules(),
        choices in prop::collection::vec(any::<u8>(), 1..64),
    ) {
        let (game, states) = play_random(rules, &choices)?;
        prop_assert!(game.is_over(), "every game ends (ply {})", game.ply());
        let end = game.position();
        if game.end_reason() != Some(lounge::ayo::EndReason::Majority) {
            prop_assert_eq!(end.pits(), [0; 12], "the sweep empties the board");
        }
        let winner = game.status().winner();
        if let Some(w) = winner {
            prop_assert!(end.stores()[w.index()] > end.stores()[w.opponent().index()]);
        }

        // Replaying the record, through the replay command, gives the same states, ply by ply.
        let line: Vec<String> = game.moves().iter().map(|p| p.to_string()).collect();
        let mut out = Vec::new();
        let report = lounge::cli::replay(&rules, true, format!("{}\n", line.join(" ")).as_bytes(), &mut out).unwrap();
        prop_assert_eq!(report.failed, 0);
        let replayed: Vec<State> = String::from_utf8(out).unwrap().lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        prop_assert_eq!(replayed, states);
    }

    #[test]
    fn legal_moves_are_exactly_the_pits_the_game_accepts(
        rules in any_rules(),
        choices in prop::collection::vec(any::<u8>(), 1..32),
        stop in 0usize..120,
    ) {
        let mut game = Game::new(rules);
        let mut i = 0;
        while !game.is_over() && i < stop {
            let legal = game.legal_moves();
            game.play(legal.nth(choices[i % choices.len()] as usize % legal.len()).unwrap()).unwrap();
            i += 1;
        }
        let legal = game.legal_moves();
        for pit in Pit::ALL {
            let mut copy = game.clone();
            let accepted = copy.play(pit).is_ok();
            prop_assert_eq!(accepted, legal.contains(pit), "pit {}", pit);
            if !accepted {
                prop_assert_eq!(copy.state(), game.state(), "a refused move changes nothing");
            }
        }
    }

    #[test]
    fn any_position_sows_without_losing_a_seed(
        pits in prop::array::uniform12(0u8..=8),
        rules in any_rules(),
        north in any::<bool>(),
    ) {
        let on_board: u8 = pits.iter().sum();
        prop_assume!(on_board <= SEEDS);
        let rest = SEEDS - on_board;
        let side = if north { Side::North } else { Side::South };
        let position = Position::new(pits, [rest / 2, rest - rest / 2], side, 0).unwrap();
        for pit in position.legal_moves(&rules).iter() {
            let mut next = position;
            let sown = next.sow(&rules, pit);
            prop_assert_eq!(seeds_in(&next), SEEDS);
            prop_assert_eq!(next.to_move(), side.opponent());
            prop_assert_eq!(pits[pit.index_for(side)] > 0, true);
            prop_assert!(sown.laps >= 1 && sown.laps <= lounge::ayo::MAX_RELAY_LAPS);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// The legal moves, worked out the slow way: sow every pit on a copy and look.
    #[test]
    fn legal_moves_match_sowing_every_pit(
        mine in prop::array::uniform6(prop::sample::select(vec![0u8, 0, 1, 1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 22])),
        theirs in prop::array::uniform6(prop::sample::select(vec![0u8, 0, 0, 1, 1, 2, 3, 4])),
        rules in any_rules(),
        north in any::<bool>(),
    ) {
        // Sparse rows across the board, where feeding and grand slams happen.
        let mut pits = [0u8; 12];
        let (me, them) = if north { (6, 0) } else { (0, 6) };
        pits[me..me + 6].copy_from_slice(&mine);
        pits[them..them + 6].copy_from_slice(&theirs);
        // Trim the fullest pits until the board holds at most 48.
        while pits.iter().map(|&n| u16::from(n)).sum::<u16>() > u16::from(SEEDS) {
            let most = (0..12).max_by_key(|&i| pits[i]).unwrap();
            pits[most] /= 2;
        }
        let rest = SEEDS - pits.iter().sum::<u8>();
        let side = if north { Side::North } else { Side::South };
        let position = Position::new(pits, [rest / 2, rest - rest / 2], side, 0).unwrap();
        let them = side.opponent();
        let starving = position.row_seeds(them) == 0;
        let mut allowed = Vec::new();
        let mut slams = Vec::new();
        for pit in Pit::ALL {
            if pits[pit.index_for(side)] == 0 { continue; }
            let mut next = position;
            let sown = next.sow(&rules, pit);
            if starving && next.row_seeds(them) == 0 { continue; }
            if sown.grand_slam { slams.push(pit) } else { allowed.push(pit) }
        }
        let illegal_slams = rules.capture == lounge::ayo::Capture::TwoThree
            && rules.grand_slam == lounge::ayo::GrandSlam::Illegal;
        if !illegal_slams || allowed.is_empty() {
            allowed.extend(slams);
            allowed.sort();
        }
        let legal: Vec<Pit> = position.legal_moves(&rules).iter().collect();
        prop_assert_eq!(legal, allowed);
    }
}
