//! Writing JSON needs no memory beyond the text written: the elements of
//! a long array are visited as they are written, not queued first (a
//! queue of a million elements is tens of megabytes that no limit of the
//! run counts).
//!
//! A counting global allocator keeps the live bytes and their peak; the
//! program logs a line just before the call, and the peak from there on
//! is compared with the length of the text. This is the only test in its
//! binary, so nothing else allocates meanwhile.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{exec_logging, limits};

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counters are only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Counted as the new block then the old one freed: the peak
            // of a copying reallocation.
            grew(new_size);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn writing_a_long_array_needs_no_memory_beyond_its_text() {
    // A million elements: 5 MB of compact text, 8 MB of pretty text.
    for (write, text_len) in [("json.stringify", 5_000_001), ("json.pretty", 8_000_002)] {
        let src = format!(
            "let j = Array(list.map(list.range(0, 1000000), fn(i) {{ Null }}))\n\
             Log.info(\"ready\")\n\
             str.length({write}(j))\n"
        );
        let mut base = 0;
        let r = exec_logging(&src, &limits(&[]), None, |_| {
            base = LIVE.load(Ordering::Relaxed);
            PEAK.store(base, Ordering::Relaxed);
        });
        let growth = PEAK.load(Ordering::Relaxed) - base;
        assert_eq!(r.as_deref().ok(), Some(text_len.to_string().as_str()));
        // The text itself, grown by doubling, and its final copy.
        assert!(
            growth < 4 * text_len,
            "{write} of a million elements allocated {growth} bytes for {text_len} bytes of text"
        );
    }
}
