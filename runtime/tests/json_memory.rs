//! Writing JSON needs no memory beyond the text written: the elements of
//! a long array are visited as they are written, not queued first (a
//! queue of a million elements is tens of megabytes that no limit of the
//! run counts). Parsing JSON stays near the memory limit: the vectors of
//! the arrays being built count against it as they grow. Comparing deep
//! values takes no room per level nested through a last part.
//!
//! A counting global allocator keeps the live bytes and their peak; the
//! program logs a line just before the call, and the peak from there on
//! is compared with the length of the text or the limit. The tests take
//! a lock, so that nothing else allocates meanwhile.

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

/// Held by each test: one measures at a time.
static ALONE: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn writing_a_long_array_needs_no_memory_beyond_its_text() {
    let _alone = ALONE.lock();
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

#[test]
fn parsing_a_long_array_stops_near_the_memory_limit() {
    let _alone = ALONE.lock();
    // Three million numbers: about 300 MB of values and vectors in all.
    // Under a limit of 32 MiB the parse stops (`E5002`) once what it made
    // passes the limit, not after the whole array was built (it was
    // checked only when an array ended, and a limit found passed between
    // two values was passed over: ten times the limit was used).
    let src = "let text = \"[\" ++ str.repeat(\"1,\", 3000000) ++ \"1]\"\n\
               Log.info(\"ready\")\n\
               json.parse(text) == Ok(Null)\n";
    let limit = 32 * 1024 * 1024;
    let mut base = 0;
    let r = exec_logging(src, &limits(&[("memory", "32M")]), None, |_| {
        base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
    });
    let growth = PEAK.load(Ordering::Relaxed) - base;
    assert_eq!(
        r.as_ref().err().map(|e| e.code.as_str()),
        Some("E5002"),
        "{r:?}"
    );
    assert!(
        growth < 2 * limit,
        "parsing under a limit of {limit} bytes allocated {growth} bytes"
    );
}

#[test]
fn comparing_values_nested_through_their_last_part_needs_no_room_per_level() {
    let _alone = ALONE.lock();
    // Two equal values, not shared, 200,000 levels deep through a
    // constructor's last field, an option, a map's value and a list's
    // last element. The walk of `==` held every level's sequence of parts
    // to compare (tens of bytes a level, and a map's or list's walk
    // boxed besides): megabytes no limit counted, six times the memory
    // limit at depth. A sequence whose last pair is being compared is now
    // let go first.
    let src = "type T = T(Int, Option[T]) | M(Map[Int, T]) | L(List[T]) | End\n\
               fn build(n: Int, acc: T) -> T {\n\
                 if n == 0 { acc } else {\n\
                   let next = match n % 3 {\n\
                     0 => T(n, Some(acc)),\n\
                     1 => M(map.from_list([(n, acc)])),\n\
                     _ => L([End, acc]),\n\
                   }\n\
                   build(n - 1, next)\n\
                 }\n\
               }\n\
               let a = build(200000, End)\n\
               let b = build(200000, End)\n\
               Log.info(\"ready\")\n\
               a == b\n";
    let mut base = 0;
    let r = exec_logging(src, &limits(&[]), None, |_| {
        base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
    });
    let growth = PEAK.load(Ordering::Relaxed) - base;
    assert_eq!(r.as_deref().ok(), Some("true"));
    assert!(
        growth < 64 * 1024,
        "comparing 200,000 levels allocated {growth} bytes"
    );
}
