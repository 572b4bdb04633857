//! The database's format and its build for rules without repetition.

use super::*;
use crate::ayo::Preset;

#[test]
fn ranks_follow_the_enumeration() {
    let counts = Counts::new();
    for n in [0u8, 1, 3, 7] {
        for (i, b) in boards(n).iter().enumerate() {
            assert_eq!(counts.rank(b), i);
        }
    }
}

fn small() -> Endgame {
    Endgame::build(&Rules::default(), 4).unwrap()
}

#[test]
fn bytes_read_back_as_the_same_database() {
    let db = small();
    let back = Endgame::from_bytes(db.as_bytes().to_vec()).unwrap();
    assert_eq!(back.as_bytes(), db.as_bytes());
    assert_eq!(back.size(), db.size());
    assert_eq!(back.max_seeds(), 4);
    assert!(back.applies_to(&Rules::default()));
    let p = Position::new(
        [1, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0],
        [22, 22],
        Side::North,
        7,
    )
    .unwrap();
    assert_eq!(back.value(&p), db.value(&p));
    assert!(Endgame::from_bytes_for(&Rules::default(), db.as_bytes().to_vec()).is_ok());
}

#[test]
fn the_memory_a_build_takes_is_its_values_and_its_largest_count_s_working_lists() {
    let lagos = Preset::Lagos.rules();
    // Four changes a board (the 20-seed lagos database has ~2), each count's last layer, and
    // the last count's working lists.
    let needed = Endgame::memory_to_build(&lagos, 20).unwrap();
    let largest = compositions(20, PITS) as u64;
    assert_eq!(needed, 225_792_840 * 10 + 225_792_840 / 5 + 75 * largest);
    // Packed, the kontest build's 101 layers cost no more than lagos's 61: 20 seeds fit.
    let kontest = Endgame::memory_to_build(&Preset::Kontest.rules(), 20).unwrap();
    assert_eq!(kontest, needed);
    assert!(kontest < 12 << 30, "{kontest}");
    // A small build needs little, and the memory grows with the seeds.
    let small = Endgame::memory_to_build(&Rules::default(), 4).unwrap();
    let (_, bytes) = Endgame::build(&Rules::default(), 4).unwrap().size();
    assert!(small >= bytes as u64);
    let oware = Preset::Oware.rules();
    assert_eq!(
        Endgame::memory_to_build(&oware, 20).unwrap(),
        225_792_840 + 80 * largest
    );
    assert!(
        Endgame::memory_to_build(&oware, 12).unwrap()
            < Endgame::memory_to_build(&oware, 13).unwrap()
    );
    let mut both = oware;
    both.no_capture_limit = 50;
    assert_eq!(Endgame::memory_to_build(&both, 12), None);
}

/// Every board's value at every layer, by the same recursion as the build, kept whole: what
/// the packed tables must give back.
fn whole_layers(rules: &Rules, max_seeds: u8) -> Vec<Vec<Vec<i8>>> {
    let limit = usize::from(rules.no_capture_limit);
    let counts = Counts::new();
    let mut all: Vec<Vec<Vec<i8>>> = Vec::new();
    for n in 0..=max_seeds {
        let boards = boards(n);
        let mut layers = vec![format::sweeps(n)];
        for left in 1..=limit {
            let layer = boards
                .iter()
                .enumerate()
                .map(|(i, board)| {
                    let p = Position::new(*board, [SEEDS - n, 0], Side::South, 0).unwrap();
                    let legal = p.legal_moves(rules);
                    if legal.is_empty() {
                        return layers[0][i];
                    }
                    legal
                        .iter()
                        .map(|pit| {
                            let mut after = p;
                            let captured = after.sow(rules, pit).captured;
                            let child = counts.rank(&from_mover(&after));
                            if captured > 0 {
                                let smaller = &all[usize::from(n - captured)];
                                i32::from(captured) - i32::from(smaller[smaller.len() - 1][child])
                            } else {
                                -i32::from(layers[left - 1][child])
                            }
                        })
                        .max()
                        .unwrap() as i8
                })
                .collect();
            layers.push(layer);
        }
        all.push(layers);
    }
    all
}

#[test]
fn packed_tables_give_back_every_layer() {
    for preset in [Preset::Lagos, Preset::Ayoayo] {
        let mut rules = preset.rules();
        rules.no_capture_limit = 16;
        let db = Endgame::build(&rules, 7).unwrap();
        let whole = whole_layers(&rules, 7);
        let mut changes = 0;
        for (n, layers) in whole.iter().enumerate() {
            let t = &db.tables[n];
            assert!(matches!(t.layout, Layout::Changes { .. }));
            let sweep = format::sweeps(n as u8);
            for (k, layer) in layers.iter().enumerate() {
                for (rank, &want) in layer.iter().enumerate() {
                    assert_eq!(db.get(n, k, rank, sweep[rank]), want, "{preset:?} {n} {k}");
                    changes += usize::from(k > 0 && want != layers[k - 1][rank]);
                }
            }
            // Past the last layer kept the values stand.
            assert!(t.layers == layers.len() || layers[t.layers - 1] == layers[t.layers]);
        }
        // The first format, every layer whole, reads as it is and gives the same values.
        let mut layered = format::header(&rules, 7);
        layered[..8].copy_from_slice(b"AYOEGDB1");
        for layers in &whole {
            layered.extend_from_slice(&(layers.len() as u32).to_le_bytes());
            for layer in layers {
                layered.extend(layer.iter().map(|&v| v as u8));
            }
        }
        let old = Endgame::from_bytes_for(&rules, layered.clone()).unwrap();
        assert_eq!(old.as_bytes(), layered);
        for (n, layers) in whole.iter().enumerate() {
            assert!(matches!(old.tables[n].layout, Layout::Full { .. }));
            for (k, layer) in layers.iter().enumerate() {
                for (rank, &want) in layer.iter().enumerate() {
                    assert_eq!(old.get(n, k, rank, 0), want, "{preset:?} {n} {k}");
                }
            }
        }
        // Packed: a change is two bytes, a board one and an eighth of an index entry.
        let (boards, bytes) = db.size();
        assert!(bytes < 2 * changes + 2 * boards + 1024, "{bytes} {changes}");
    }
}

#[test]
fn the_header_is_magic_rules_and_seeds() {
    let db = small();
    let bytes = db.as_bytes();
    let json = serde_json::to_vec(&Rules::default()).unwrap();
    assert_eq!(&bytes[..8], b"AYOEGDB2");
    assert_eq!(bytes[8..12], (json.len() as u32).to_le_bytes());
    assert_eq!(bytes[12..12 + json.len()], json[..]);
    assert_eq!(bytes[12 + json.len()], 4);
    // The 0-seed table: one board, one layer (nothing to gain, settled at once), no
    // changes, one block: none before it, its board's slot (no change, the sweep from
    // layer 0: nothing) and 19 empty.
    let table = &bytes[13 + json.len()..];
    assert_eq!(table[..4], 1u32.to_le_bytes());
    assert_eq!(table[4..12], 0u64.to_le_bytes());
    assert_eq!(table[12..16], 0u32.to_le_bytes());
    assert_eq!(table[16..76], [0; 60]);
    // The 1-seed table starts after it, with its layer count (two: the sweep, then the
    // lone seed's move).
    assert_eq!(table[76..80], 2u32.to_le_bytes());
}

#[test]
fn other_bytes_are_refused_saying_why() {
    let db = small();
    let good = db.as_bytes().to_vec();
    let json_len = serde_json::to_vec(&Rules::default()).unwrap().len();
    let read = |bytes: Vec<u8>| Endgame::from_bytes(bytes).unwrap_err();

    assert_eq!(read(b"SQLite format 3\0".to_vec()), EndgameError::BadMagic);
    assert!(matches!(
        read(b"AYOE".to_vec()),
        EndgameError::Truncated { at: 0, .. }
    ));
    // Cut anywhere, the bytes say they end early.
    for cut in [
        8,
        11,
        12 + json_len,
        13 + json_len,
        20 + json_len,
        good.len() - 1,
    ] {
        assert!(
            matches!(read(good[..cut].to_vec()), EndgameError::Truncated { .. }),
            "cut at {cut}"
        );
    }
    let mut longer = good.clone();
    longer.extend_from_slice(&[0, 0, 0]);
    assert_eq!(read(longer), EndgameError::TrailingBytes(3));

    let mut rules = good.clone();
    rules[12] = b'[';
    assert!(matches!(read(rules), EndgameError::BadRules(_)));

    let mut seeds = good.clone();
    seeds[12 + json_len] = 49;
    assert_eq!(read(seeds), EndgameError::TooManySeeds(49));

    let mut layers = good.clone();
    layers[13 + json_len..17 + json_len].copy_from_slice(&62u32.to_le_bytes());
    assert_eq!(
        read(layers),
        EndgameError::BadLayers {
            seeds: 0,
            layers: 62,
            most: 61
        }
    );

    // In the packed 4-seed table: a value past the seeds on the board, a change past the
    // layers or out of order, a block or a slot that disagrees, a slot in the padding.
    let Layout::Changes { blocks, changes } = db.tables[4].layout else {
        panic!("a packed table");
    };
    let layers = db.tables[4].layers;
    let slot =
        |i: usize| blocks + format::BLOCK_BYTES * (i / format::BLOCK) + 4 + 3 * (i % format::BLOCK);
    let mut value = good.clone();
    value[changes + 1] = 5;
    assert_eq!(read(value), EndgameError::BadValue { seeds: 4, value: 5 });
    let mut last = good.clone();
    last[slot(0) + 2] = (-5i8) as u8;
    assert_eq!(
        read(last),
        EndgameError::BadValue {
            seeds: 4,
            value: -5
        }
    );
    let mut sweep = good.clone();
    let quiet = (0..).find(|&i| good[slot(i) + 1] == 0).unwrap();
    sweep[slot(quiet) + 2] = good[slot(quiet) + 2].wrapping_add(1);
    assert!(matches!(
        read(sweep),
        EndgameError::NotTheSweep { seeds: 4 } | EndgameError::BadValue { seeds: 4, .. }
    ));
    let mut zero = good.clone();
    zero[changes] = 0;
    assert_eq!(read(zero), EndgameError::BadChanges { seeds: 4, layers });
    let mut late = good.clone();
    late[slot(0) + 1] = layers as u8;
    assert_eq!(read(late), EndgameError::BadChanges { seeds: 4, layers });
    let first = (0..).find(|&i| good[slot(i)] > 1).unwrap();
    let at = changes
        + 2 * (0..first)
            .map(|i| usize::from(good[slot(i)]))
            .sum::<usize>();
    let mut order = good.clone();
    order.swap(at, at + 2);
    assert_eq!(read(order), EndgameError::BadChanges { seeds: 4, layers });
    let mut after = good.clone();
    after[at] = good[slot(first) + 1];
    assert_eq!(read(after), EndgameError::BadChanges { seeds: 4, layers });
    let mut block = good.clone();
    block[blocks + format::BLOCK_BYTES] ^= 1;
    assert_eq!(read(block), EndgameError::BadIndex { seeds: 4 });
    let mut more = good.clone();
    more[slot(first)] += 1;
    // It takes the next board's first change, or one more than there are.
    assert!(matches!(
        read(more),
        EndgameError::BadIndex { seeds: 4 } | EndgameError::BadChanges { seeds: 4, .. }
    ));
    let boards = db.tables[4].size;
    assert!(
        !boards.is_multiple_of(format::BLOCK),
        "{boards} boards leave padding"
    );
    let mut padding = good.clone();
    padding[slot(boards) + 1] = 1;
    assert_eq!(read(padding), EndgameError::BadIndex { seeds: 4 });
    let mut total = good.clone();
    total[blocks - 8..blocks].copy_from_slice(&u64::MAX.to_le_bytes());
    assert_eq!(read(total), EndgameError::BadIndex { seeds: 4 });
    let mut long = good.clone();
    long[blocks - 8..blocks].copy_from_slice(&u64::from(u32::MAX).to_le_bytes());
    assert!(matches!(read(long), EndgameError::Truncated { .. }));

    let kontest = Preset::Kontest.rules();
    assert_eq!(
        Endgame::from_bytes_for(&kontest, good).unwrap_err(),
        EndgameError::WrongRules {
            wanted: kontest,
            found: Rules::default()
        }
    );
}

/// What the mover at `p` (the last of `path`, the positions since the last capture) gains
/// when a repeated position ends the game, by plain recursion over every line: the
/// definition the bounds must hold. `fresh` keeps the values of boards just after a
/// capture, where the path is the board alone.
fn by_every_line(
    rules: &Rules,
    p: &Position,
    path: &mut Vec<u128>,
    fresh: &mut std::collections::HashMap<u128, i32>,
) -> i32 {
    let sweep = |p: &Position| {
        let me = p.to_move();
        i32::from(p.row_seeds(me)) - i32::from(p.row_seeds(me.opponent()))
    };
    let legal = p.legal_moves(rules);
    if legal.is_empty() {
        return sweep(p);
    }
    legal
        .iter()
        .map(|pit| {
            let mut child = *p;
            let captured = i32::from(child.sow(rules, pit).captured);
            let key = child.repetition_key();
            if captured > 0 {
                let value = match fresh.get(&key) {
                    Some(&v) => v,
                    None => {
                        let v = by_every_line(rules, &child, &mut vec![key], fresh);
                        fresh.insert(key, v);
                        v
                    }
                };
                captured - value
            } else if path.contains(&key) {
                -sweep(&child)
            } else {
                path.push(key);
                let value = by_every_line(rules, &child, path, fresh);
                path.pop();
                -value
            }
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn under_repetition_every_line_lies_within_the_bounds_and_known_values_are_exact() {
    for grand_slam in ["captures_nothing", "illegal"] {
        let mut rules = Preset::Oware.rules();
        rules.set("grand_slam", grand_slam).unwrap();
        let db = Endgame::build(&rules, 4).expect("a database under repetition");
        let back = Endgame::from_bytes_for(&rules, db.as_bytes().to_vec()).unwrap();
        assert_eq!(back.as_bytes(), db.as_bytes());
        let mut fresh = std::collections::HashMap::new();
        let (mut exact, mut boards) = (0, 0);
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..120 {
            let n = (next() % 4) as u8;
            let mut pits = [0u8; PITS];
            for _ in 0..n {
                pits[(next() % 12) as usize] += 1;
            }
            let side = if next() & 1 == 0 {
                Side::South
            } else {
                Side::North
            };
            let mut p = Position::new(pits, [48 - n, 0], side, 0).unwrap();
            let mut path = vec![p.repetition_key()];
            // A few capture-less plies first: the bounds hold whatever the path.
            for _ in 0..next() % 6 {
                let quiet: Vec<Pit> = p
                    .legal_moves(&rules)
                    .iter()
                    .filter(|&pit| {
                        let mut child = p;
                        child.sow(&rules, pit).captured == 0
                            && !path.contains(&child.repetition_key())
                    })
                    .collect();
                let Some(&pit) = quiet.get((next() % 6) as usize % quiet.len().max(1)) else {
                    break;
                };
                p.sow(&rules, pit);
                path.push(p.repetition_key());
            }
            let truth = by_every_line(&rules, &p, &mut path, &mut fresh);
            let (lo, hi) = db.bounds(&p).unwrap();
            assert!(
                lo <= truth && truth <= hi,
                "{p:?} {truth} not in {lo}..={hi}"
            );
            if lo == hi {
                exact += 1;
                assert_eq!(db.value(&p), Some(truth));
            }
            boards += 1;
        }
        assert!(exact > boards / 2, "{exact} of {boards} known exactly");
    }
}

/// Under repetition no table of one value a board can be exact: some board is worth one
/// thing seen fresh and another after a capture-less path to it, by every line. Where that
/// happens the bounds must not meet.
#[test]
fn under_repetition_the_path_to_a_board_can_change_its_value() {
    let mut rules = Preset::Oware.rules();
    rules.set("grand_slam", "captures_nothing").unwrap();
    let db = Endgame::build(&rules, 3).unwrap();
    let mut fresh = std::collections::HashMap::new();
    let mut witnesses = 0;
    const SEEDS_ON_BOARD: u8 = 2;
    for pits in boards(SEEDS_ON_BOARD) {
        let start = Position::new(pits, [48 - SEEDS_ON_BOARD, 0], Side::South, 0).unwrap();
        // Every board two capture-less plies on, after the path and fresh.
        for first in start.legal_moves(&rules).iter() {
            let mut middle = start;
            if middle.sow(&rules, first).captured > 0 {
                continue;
            }
            for second in middle.legal_moves(&rules).iter() {
                let mut end = middle;
                if end.sow(&rules, second).captured > 0 {
                    continue;
                }
                let keys = [start, middle, end].map(|p| p.repetition_key());
                if keys[2] == keys[0] {
                    continue;
                }
                let after_path = by_every_line(&rules, &end, &mut keys.to_vec(), &mut fresh);
                let alone = by_every_line(&rules, &end, &mut vec![keys[2]], &mut fresh);
                if after_path != alone {
                    witnesses += 1;
                    let (lo, hi) = db.bounds(&end).unwrap();
                    assert!(lo <= after_path.min(alone) && after_path.max(alone) <= hi);
                    assert_eq!(db.value(&end), None, "{end:?}");
                }
            }
        }
    }
    assert!(
        witnesses > 0,
        "no board of 2 seeds whose value the path changes"
    );
}

/// Bounds are stored a byte a board, paired; the first builds' whole bounds (both, a byte
/// each) still read, to the same bounds; a byte past the pairs there are is refused, and so
/// are pairs in the first format and whole bounds that cross.
#[test]
fn bounds_read_paired_or_whole_alike_and_bad_ones_are_refused() {
    let mut rules = Preset::Oware.rules();
    rules.set("grand_slam", "captures_nothing").unwrap();
    let db = Endgame::build(&rules, 6).unwrap();
    let mut whole = format::header(&rules, 6);
    for (n, t) in db.tables.iter().enumerate() {
        let Layout::Pairs { offset } = t.layout else {
            panic!("{n} seeds are not paired");
        };
        let pairs: Vec<(i8, i8)> = db.bytes[offset..offset + t.size]
            .iter()
            .map(|&b| format::pair(n as u8, b))
            .collect();
        whole.extend_from_slice(&2u32.to_le_bytes());
        whole.extend(pairs.iter().map(|&(lo, _)| lo as u8));
        whole.extend(pairs.iter().map(|&(_, hi)| hi as u8));
    }
    let old = Endgame::from_bytes_for(&rules, whole.clone()).unwrap();
    assert!(matches!(old.tables[6].layout, Layout::Full { .. }));
    for (n, t) in db.tables.iter().enumerate() {
        for rank in 0..t.size {
            assert_eq!(old.bounds_of(n, rank), db.bounds_of(n, rank), "{n} {rank}");
        }
    }
    assert_eq!(old.known(), db.known());
    assert!(db.known() > 0 && db.known() < db.size().0);

    let read = |bytes: Vec<u8>| Endgame::from_bytes(bytes).unwrap_err();
    let Layout::Pairs { offset } = db.tables[3].layout else {
        unreachable!()
    };
    let mut past = db.as_bytes().to_vec();
    past[offset] = format::pair_count(3) as u8;
    assert_eq!(
        read(past),
        EndgameError::BadPair {
            seeds: 3,
            byte: 10,
            count: 10
        }
    );
    // The first format never paired bounds.
    let mut first = db.as_bytes().to_vec();
    first[..8].copy_from_slice(b"AYOEGDB1");
    assert_eq!(read(first), EndgameError::BadPairing { seeds: 0 });
    let Layout::Full { offset } = old.tables[6].layout else {
        unreachable!()
    };
    let size = old.tables[6].size;
    let mut crossed = whole;
    crossed[offset] = 6;
    crossed[offset + size] = (-6i8) as u8;
    assert_eq!(read(crossed), EndgameError::CrossedBounds { seeds: 6 });
}
