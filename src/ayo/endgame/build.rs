//! The build for rules without repetition: layer after layer, each kept only as the boards
//! whose value changed from the layer before (the packed form, [`super::format`]).
//!
//! A layer needs only the one before it and, for captures, the smaller counts' values with
//! the whole limit left (their last layers, `finals`), so the build holds two layers and the
//! changes so far, never every layer: 20 seeds under kontest (101 layers, 22.8 GB unpacked)
//! build in a few GB. Each layer is worked out on every core, in slices of the boards.

use std::thread;

use super::format::{sweeps, write_changes, Slot, BLOCK};
use super::{boards, from_mover, Endgame, Layout, Table};
use crate::ayo::board::{Position, Side, SEEDS};

/// Where the moves of every board of one seed count lead, worked out once for every layer:
/// board `i`'s row holds its first `count` moves, each the seeds it captures and the rank of
/// the board after, seen from the new mover's side (32 bytes a board: at 20 seeds there are
/// 84 million boards).
pub(super) struct Moves {
    rows: Vec<Row>,
}

#[derive(Clone, Copy, Default)]
struct Row {
    child: [u32; 6],
    captured: [u8; 6],
    count: u8,
}

impl Moves {
    /// Boards.
    pub(super) fn len(&self) -> usize {
        self.rows.len()
    }

    /// Board `i`'s number of legal moves.
    pub(super) fn count(&self, i: usize) -> usize {
        usize::from(self.rows[i].count)
    }

    /// Board `i`'s `k`th move: `(captured, child)`.
    pub(super) fn nth(&self, i: usize, k: usize) -> (u8, u32) {
        (self.rows[i].captured[k], self.rows[i].child[k])
    }

    /// Board `i`'s moves: `(captured, child)`.
    pub(super) fn of(&self, i: usize) -> impl Iterator<Item = (u8, u32)> + '_ {
        let row = &self.rows[i];
        let k = usize::from(row.count);
        row.captured[..k]
            .iter()
            .copied()
            .zip(row.child[..k].iter().copied())
    }

    /// The boards a capture-less move of board `i` leads to.
    pub(super) fn quiet(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.of(i)
            .filter(|&(captured, _)| captured == 0)
            .map(|(_, child)| child as usize)
    }
}

/// Boards below this are worked on one thread: starting threads would cost more (the unit
/// tests' small tables take the threads' path too).
const ALONE: usize = if cfg!(test) { 1 << 10 } else { 1 << 16 };

/// Runs `work(first, slice)` over `out` cut into one slice a core, `first` being the index of
/// the slice's first item.
fn on_every_core<T: Send>(out: &mut [T], work: impl Fn(usize, &mut [T]) + Sync) {
    let cores = thread::available_parallelism().map_or(1, |n| n.get());
    if cores == 1 || out.len() < ALONE {
        work(0, out);
        return;
    }
    let per = out.len().div_ceil(cores);
    thread::scope(|s| {
        for (k, slice) in out.chunks_mut(per).enumerate() {
            let work = &work;
            s.spawn(move || work(k * per, slice));
        }
    });
}

/// The changes of one seed count's build: board, layer and value, in the order found (layer
/// by layer, boards in rank order within a layer).
#[derive(Default)]
struct Found {
    board: Vec<u32>,
    layer: Vec<u8>,
    value: Vec<i8>,
}

impl Endgame {
    /// The moves of every board of `n` seeds (from South's side, South to move) and each
    /// board's sweep, South's row less North's.
    pub(super) fn moves(&self, n: u8) -> (Moves, Vec<i8>) {
        let rules = &self.rules;
        let boards = boards(n);
        let mut rows = vec![Row::default(); boards.len()];
        on_every_core(&mut rows, |first, slice| {
            for (row, board) in slice.iter_mut().zip(&boards[first..]) {
                let p = Position::new(*board, [SEEDS - n, 0], Side::South, 0).expect("48 seeds");
                for pit in p.legal_moves(rules).iter() {
                    let mut after = p;
                    let k = usize::from(row.count);
                    row.captured[k] = after.sow(rules, pit).captured;
                    row.child[k] = self.counts.rank(&from_mover(&after)) as u32;
                    row.count += 1;
                }
            }
        });
        (Moves { rows }, sweeps(n))
    }

    /// Appends the table of `n` seeds, every smaller one being there; `finals` holds each
    /// smaller count's values with the whole limit left, and gets this count's.
    pub(super) fn build_table(&mut self, n: u8, finals: &mut Vec<Vec<i8>>) {
        let limit = usize::from(self.rules.no_capture_limit);
        let (moves, sweep) = self.moves(n);
        let size = sweep.len();
        let mut before = sweep.clone();
        let mut layer = vec![0i8; size];
        let mut found = Found::default();
        let mut layers = 1;
        for left in 1..=limit {
            on_every_core(&mut layer, |first, slice| {
                for (offset, value) in slice.iter_mut().enumerate() {
                    let i = first + offset;
                    *value = if moves.count(i) == 0 {
                        sweep[i]
                    } else {
                        moves
                            .of(i)
                            .map(|(captured, child)| {
                                let child = child as usize;
                                if captured > 0 {
                                    let smaller = usize::from(n - captured);
                                    i32::from(captured) - i32::from(finals[smaller][child])
                                } else {
                                    -i32::from(before[child])
                                }
                            })
                            .max()
                            .unwrap_or(0) as i8
                    };
                }
            });
            // Once a layer equals the one before, every later one does too.
            if layer == before {
                break;
            }
            for (i, (&now, &was)) in layer.iter().zip(&before).enumerate() {
                if now != was {
                    found.board.push(i as u32);
                    found.layer.push(left as u8);
                    found.value.push(now);
                }
            }
            std::mem::swap(&mut layer, &mut before);
            layers += 1;
        }
        drop(moves);
        self.append_changes(layers, &before, &found);
        finals.push(before);
    }

    /// Writes a table's layer count and its changes, board by board (the packed form):
    /// `last` holds each board's value with the whole limit left.
    fn append_changes(&mut self, layers: usize, last: &[i8], found: &Found) {
        let size = last.len();
        self.bytes.extend_from_slice(&(layers as u32).to_le_bytes());
        // Each board's slot: its earlier changes, and the layer its last value holds from.
        let mut slots: Vec<Slot> = last.iter().map(|&v| Slot::settled(0, v)).collect();
        for (&i, &layer) in found.board.iter().zip(&found.layer) {
            let slot = &mut slots[i as usize];
            if slot.from > 0 {
                slot.earlier += 1;
            }
            slot.from = layer;
        }
        // Where each board's earlier changes go: its block's start, and its place from
        // there (at most BLOCK × 120).
        let mut starts = Vec::with_capacity(size.div_ceil(BLOCK));
        let mut cursor = vec![0u16; size];
        let mut before = 0usize;
        for (block, places) in slots.chunks(BLOCK).zip(cursor.chunks_mut(BLOCK)) {
            starts.push(before);
            let mut at = 0u16;
            for (slot, place) in block.iter().zip(places.iter_mut()) {
                *place = at;
                at += u16::from(slot.earlier);
            }
            before += usize::from(at);
        }
        let (blocks, changes) = write_changes(&mut self.bytes, &slots);
        for k in 0..found.board.len() {
            let i = found.board[k] as usize;
            // The last change is in the slot (a board changes at most once a layer).
            if found.layer[k] == slots[i].from {
                continue;
            }
            let at = changes + 2 * (starts[i / BLOCK] + usize::from(cursor[i]));
            self.bytes[at] = found.layer[k];
            self.bytes[at + 1] = found.value[k] as u8;
            cursor[i] += 1;
        }
        self.tables.push(Table {
            size,
            layers,
            layout: Layout::Changes { blocks, changes },
        });
    }
}
