//! The move path allocates nothing: a counting allocator for this test binary proves it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use lounge::ayo::{perft, Position, Preset};

struct Counting;

thread_local! {
    // Per thread, so tests running alongside do not disturb the count.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// A counting allocator is unsafe by nature: it forwards to the system's.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn generating_and_applying_moves_allocates_nothing() {
    for preset in Preset::ALL {
        let rules = preset.rules();
        let before = allocations();
        // Whole games, deterministic: always the middle legal move.
        let mut plies = 0u64;
        for first in 0..6 {
            let mut position = Position::start();
            let mut n = first;
            // Oware has no no-capture limit and repetition lives in the game record: cap plies.
            for _ in 0..2_000 {
                let legal = position.legal_moves(&rules);
                if position.end_reason(&rules, legal, false).is_some() {
                    break;
                }
                let pit = legal.nth(n % legal.len()).unwrap();
                position.sow(&rules, pit);
                plies += 1;
                n = n.wrapping_mul(7).wrapping_add(3);
            }
        }
        let nodes = perft(&Position::start(), &rules, 5);
        assert_eq!(
            allocations(),
            before,
            "{preset}: {plies} plies and {nodes} perft leaves"
        );
        assert!(plies > 100);
    }
}

#[test]
fn the_counter_sees_an_allocation() {
    let before = allocations();
    let v = std::hint::black_box(vec![1u8; 64]);
    assert!(allocations() > before);
    drop(v);
}
