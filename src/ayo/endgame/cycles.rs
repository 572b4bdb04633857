//! Databases for rules where a repeated position ends the game (oware): bounds that hold
//! whatever the path, exact wherever the path cannot matter.
//!
//! Under such rules a board's value depends on the positions seen since the last capture: a
//! move back to one of them ends the game with the sweep. So each board keeps two values, a
//! lower and an upper bound on what the mover gains over every history it can be reached by.
//! They are worked out over the capture-less moves' strongly connected components, each
//! after every component it leads to:
//!
//! - a capture of `c` seeds leads to a smaller board seen for the first time: `c` less that
//!   board's bounds, swapped;
//! - a capture-less move to a board of another component can never repeat (a board before
//!   this one in the run could then be reached from it, and both would be in one
//!   component): minus that board's bounds, swapped;
//! - a capture-less move inside the component may repeat: those bounds widened to take in
//!   the sweep there.
//!
//! A board's bounds are the best of its moves' lower bounds and the best of their upper
//! bounds. A component without a cycle is one board: its bounds are exact when its moves'
//! are, which is why boards from which no cycle can be reached get exact values. A component
//! with a cycle starts at every value possible and is narrowed until nothing changes; each
//! step keeps the true value inside (the bounds of a move hold for every history), so the
//! bounds stay sound, and where they meet the value is exact whatever the path. Boards are
//! ranked from the mover's side, so a component may join a board with its mirror: that only
//! widens bounds, never breaks them.

use super::build::Moves;
use super::{Endgame, Layout, Table};

const NONE: u32 = u32::MAX;

/// The strongly connected components of the capture-less moves (Tarjan's, without
/// recursion), each listed after every component it leads to.
struct Components {
    /// Each board's component.
    of: Vec<u32>,
    /// The boards, component by component.
    boards: Vec<u32>,
    /// Where each component's boards end in `boards`.
    ends: Vec<u32>,
}

fn components(moves: &Moves) -> Components {
    let size = moves.len();
    let mut index = vec![NONE; size];
    let mut low = vec![0u32; size];
    let mut out = Components {
        of: vec![NONE; size],
        boards: Vec::with_capacity(size),
        ends: Vec::new(),
    };
    let mut stack: Vec<u32> = Vec::new();
    // The boards being visited, each with how many of its moves it has looked at.
    let mut calls: Vec<(u32, u8)> = Vec::new();
    let mut next = 0u32;
    for root in 0..size {
        if index[root] != NONE {
            continue;
        }
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root as u32);
        calls.push((root as u32, 0));
        while let Some(&(v, seen)) = calls.last() {
            let v = v as usize;
            let count = moves.count(v);
            let mut k = usize::from(seen);
            let mut deeper = None;
            while k < count {
                let (captured, w) = moves.nth(v, k);
                k += 1;
                let w = w as usize;
                if captured > 0 {
                    continue;
                }
                if index[w] == NONE {
                    deeper = Some(w);
                    break;
                }
                if out.of[w] == NONE {
                    // Still on the stack: in this component.
                    low[v] = low[v].min(index[w]);
                }
            }
            if let Some(last) = calls.last_mut() {
                last.1 = k as u8;
            }
            if let Some(w) = deeper {
                index[w] = next;
                low[w] = next;
                next += 1;
                stack.push(w as u32);
                calls.push((w as u32, 0));
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u as usize] = low[u as usize].min(low[v]);
            }
            if low[v] == index[v] {
                let id = out.ends.len() as u32;
                while let Some(w) = stack.pop() {
                    out.of[w as usize] = id;
                    out.boards.push(w);
                    if w as usize == v {
                        break;
                    }
                }
                out.ends.push(out.boards.len() as u32);
            }
        }
    }
    out
}

impl Endgame {
    /// Appends the bounds table of `n` seeds (layer 0 the lower bounds, layer 1 the upper),
    /// every smaller one being there.
    pub(super) fn build_bounded_table(&mut self, n: u8) {
        let (moves, sweep) = self.moves(n);
        let size = sweep.len();
        let parts = components(&moves);
        let all = i32::from(n);
        let mut lo = vec![-all; size];
        let mut hi = vec![all; size];
        let mut start = 0usize;
        for &end in &parts.ends {
            let members = &parts.boards[start..end as usize];
            start = end as usize;
            let cyclic = members.len() > 1
                || moves
                    .quiet(members[0] as usize)
                    .any(|w| w == members[0] as usize);
            loop {
                let mut changed = false;
                for &i in members {
                    let i = i as usize;
                    let (l, h) = if moves.count(i) == 0 {
                        (i32::from(sweep[i]), i32::from(sweep[i]))
                    } else {
                        moves.of(i).fold((-all, -all), |(l, h), (captured, child)| {
                            let child = child as usize;
                            let (cl, ch) = if captured > 0 {
                                let smaller = usize::from(n - captured);
                                let c = i32::from(captured);
                                (
                                    c - i32::from(self.bound(smaller, 1, child)),
                                    c - i32::from(self.bound(smaller, 0, child)),
                                )
                            } else if parts.of[child] == parts.of[i] {
                                let end = -i32::from(sweep[child]);
                                ((-hi[child]).min(end), (-lo[child]).max(end))
                            } else {
                                (-hi[child], -lo[child])
                            };
                            (l.max(cl), h.max(ch))
                        })
                    };
                    let (l, h) = (l.max(lo[i]), h.min(hi[i]));
                    if (l, h) != (lo[i], hi[i]) {
                        lo[i] = l;
                        hi[i] = h;
                        changed = true;
                    }
                }
                if !cyclic || !changed {
                    break;
                }
            }
        }
        self.bytes.extend_from_slice(&2u32.to_le_bytes());
        let offset = self.bytes.len();
        self.bytes.extend(lo.iter().map(|&v| v as i8 as u8));
        self.bytes.extend(hi.iter().map(|&v| v as i8 as u8));
        self.tables.push(Table {
            size,
            layers: 2,
            layout: Layout::Full { offset },
        });
    }
}
