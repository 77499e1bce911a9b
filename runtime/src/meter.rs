//! The work meter: fuel, time and cancellation for work that is not a
//! machine step. What a host sees of it is the running run's
//! [`deadline`]: an operation that waits (a request, a lock, a person's
//! answer) waits no longer than its [`Deadline::left`].
//!
//! The machine charges one unit of fuel per instruction. Everything else a
//! program can make the runtime do in proportion to its data — a library
//! call (`list.sort`, `str.replace`, `json.stringify`, ...), structural
//! equality and ordering (`==`, `<` on two large lists), display and
//! interpolation (`"${big}"`), joining strings and lists (`++`), map keys
//! compared inside a map operation — charges **units** here as it goes:
//!
//! - one unit per value visited, compared, copied or made (a list element,
//!   a pair of nodes compared, a map entry, a piece of a display);
//! - one unit per `BYTES_PER_UNIT` (16) bytes of text read, searched, copied
//!   or written.
//!
//! A unit is about the cost of a machine step, and units are the same fuel
//! as steps: a run's fuel is spent by its steps plus its units.
//!
//! Invariants:
//! - **Polled often.** Every `POLL_EVERY` (4,096) units (well under a
//!   millisecond of work) the meter checks the fuel, the clock and the
//!   run's cancellation flag, so no single operation runs past a limit by
//!   more than that. The flag is a clone of the host's, held by the meter
//!   for the run, so work that cannot be handed the machine (comparisons
//!   of map keys inside the persistent map) sees it too.
//! - **Tripped is sticky.** Once a limit is exhausted, `Meter::charge`
//!   returns `false` for the rest of the run and every metered operation
//!   stops early with an arbitrary but harmless result; the machine or the
//!   native that started the operation reports the limit (`tripped`)
//!   instead of that result, at the call. Nothing metered panics when it
//!   stops early.
//! - **Per run, per thread.** The counters are thread-local (values are
//!   single-threaded), set up by the machine for one run with a `Scope`
//!   that restores what was there before, so a run nested inside a host
//!   call does not disturb the outer run's limits. Outside a run nothing
//!   trips.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::clock::Instant;

use crate::limits::Limit;

/// Units between two polls of the fuel, the clock and the cancellation
/// flag.
pub(crate) const POLL_EVERY: u64 = 4096;

/// Bytes of text per unit.
pub(crate) const BYTES_PER_UNIT: usize = 16;

/// The units for handling `bytes` bytes of text (at least one).
#[inline]
pub(crate) fn bytes(bytes: usize) -> u64 {
    (bytes / BYTES_PER_UNIT) as u64 + 1
}

/// Bytes of text copied between two charges by [`push_str`]: one poll's
/// worth.
const CHUNK: usize = POLL_EVERY as usize * BYTES_PER_UNIT;

/// Append `text` to `out`, charging `meter` as it goes (a chunk at a time,
/// so that copying a long text polls like any other work); `false`, with
/// only part of `text` appended, once the meter trips.
pub(crate) fn push_str(out: &mut String, text: &str, meter: Meter) -> bool {
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = CHUNK.min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (chunk, after) = rest.split_at(end);
        if !meter.charge(bytes(chunk.len())) {
            return false;
        }
        out.push_str(chunk);
        rest = after;
    }
    true
}

/// The limits of the running run, as the meter sees them.
#[derive(Clone, Copy)]
struct Run {
    /// Units the run may still spend: its fuel less the machine's steps
    /// when the machine last looked.
    budget: u64,
    /// The run's time limit and when it is up (`None`: never).
    deadline: Option<(Duration, Instant)>,
}

/// Everything the meter keeps for one run.
#[derive(Clone, Copy)]
struct Saved {
    used: u64,
    poll_at: u64,
    tripped: Option<Limit>,
    run: Option<Run>,
}

thread_local! {
    /// Units charged in this run.
    static USED: Cell<u64> = const { Cell::new(0) };
    /// The value of `USED` at which to poll next (0 once tripped, so that
    /// every charge polls and fails at once).
    static POLL_AT: Cell<u64> = const { Cell::new(u64::MAX) };
    /// The limit that was exhausted, if one was.
    static TRIPPED: Cell<Option<Limit>> = const { Cell::new(None) };
    /// The run's limits (`None` outside a run).
    static RUN: Cell<Option<Run>> = const { Cell::new(None) };
    /// The run's cancellation flag (`None`: the host gave none, or outside
    /// a run).
    static CANCEL: Cell<Option<Arc<AtomicBool>>> = const { Cell::new(None) };
}

fn save() -> Saved {
    Saved {
        used: USED.with(Cell::get),
        poll_at: POLL_AT.with(Cell::get),
        tripped: TRIPPED.with(Cell::get),
        run: RUN.with(Cell::get),
    }
}

fn restore(s: Saved) {
    USED.with(|c| c.set(s.used));
    POLL_AT.with(|c| c.set(s.poll_at));
    TRIPPED.with(|c| c.set(s.tripped));
    RUN.with(|c| c.set(s.run));
}

/// The meter set up for one run on this thread; dropping it restores
/// what was there before.
pub(crate) struct Scope {
    before: Saved,
    cancel_before: Option<Arc<AtomicBool>>,
}

impl Scope {
    /// Start metering a run with `fuel` units (steps and units together),
    /// a deadline, and the host's cancellation flag.
    pub(crate) fn start(
        fuel: u64,
        deadline: Option<(Duration, Instant)>,
        cancel: Option<Arc<AtomicBool>>,
    ) -> Scope {
        let before = save();
        let cancel_before = CANCEL.with(|c| c.replace(cancel));
        restore(Saved {
            used: 0,
            poll_at: POLL_EVERY,
            tripped: None,
            run: Some(Run {
                budget: fuel,
                deadline,
            }),
        });
        Scope {
            before,
            cancel_before,
        }
    }
}

impl Scope {
    /// End this run's metering while the run is paused and handed out
    /// (restoring what was there before, as dropping does), keeping what
    /// it had charged and, for its deadline, the time it had left: a
    /// paused run's clock does not run.
    pub(crate) fn park(self) -> Parked {
        let now = save();
        let cancel = CANCEL.with(|c| {
            let flag = c.take();
            c.set(flag.clone());
            flag
        });
        let run = now.run.unwrap_or(Run {
            budget: u64::MAX,
            deadline: None,
        });
        let parked = Parked {
            used: now.used,
            poll_at: now.poll_at,
            tripped: now.tripped,
            budget: run.budget,
            deadline: run
                .deadline
                .map(|(limit, at)| (limit, at.saturating_duration_since(Instant::now()))),
            cancel,
        };
        drop(self);
        parked
    }
}

/// A paused run's meter: what it had charged, its fuel and the time it
/// had left, and its cancellation flag. [`Parked::resume`] starts it again.
pub(crate) struct Parked {
    used: u64,
    poll_at: u64,
    tripped: Option<Limit>,
    budget: u64,
    /// The time limit, and the time that was left of it.
    deadline: Option<(Duration, Duration)>,
    cancel: Option<Arc<AtomicBool>>,
}

impl Parked {
    /// A parked meter for a run restored from a snapshot: `used` units
    /// charged, the next poll at `poll_at`, fuel `budget` left for them,
    /// and the time limit with the time left of it.
    pub(crate) fn restored(
        used: u64,
        poll_at: u64,
        budget: u64,
        deadline: Option<(Duration, Duration)>,
        cancel: Option<Arc<AtomicBool>>,
    ) -> Parked {
        Parked {
            used,
            poll_at,
            tripped: None,
            budget,
            deadline,
            cancel,
        }
    }

    /// The units charged, the value of them at which the next poll is,
    /// and the limit exhausted, if one was.
    pub(crate) fn units(&self) -> (u64, u64, Option<Limit>) {
        (self.used, self.poll_at, self.tripped)
    }

    /// Meter the run again on this thread, from where it was parked: its
    /// deadline is now plus the time it had left.
    pub(crate) fn resume(self) -> Scope {
        let before = save();
        let cancel_before = CANCEL.with(|c| c.replace(self.cancel));
        let now = Instant::now();
        restore(Saved {
            used: self.used,
            poll_at: self.poll_at,
            tripped: self.tripped,
            run: Some(Run {
                budget: self.budget,
                deadline: self
                    .deadline
                    .and_then(|(limit, left)| now.checked_add(left).map(|at| (limit, at))),
            }),
        });
        Scope {
            before,
            cancel_before,
        }
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        restore(self.before);
        let before = self.cancel_before.take();
        CANCEL.with(|c| c.set(before));
    }
}

/// Whether the host has cancelled the running run.
pub(crate) fn cancelled() -> bool {
    CANCEL.with(|c| {
        let flag = c.take();
        let raised = flag.as_ref().is_some_and(|f| f.load(Ordering::Relaxed));
        c.set(flag);
        raised
    })
}

/// A run's time limit and the moment it is up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    /// The run's time limit, as set (what [`RunError::out_of_time`] names).
    ///
    /// [`RunError::out_of_time`]: crate::RunError::out_of_time
    pub limit: Duration,
    /// When the run's time is up.
    pub at: Instant,
}

impl Deadline {
    /// The time left until [`Deadline::at`]; zero once it has passed.
    pub fn left(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }
}

/// The running run's deadline, for a host operation that waits (a
/// request, a lock, a question to the person): it waits no longer than
/// [`Deadline::left`], and ends the run with [`RunError::out_of_time`] if
/// the run's time is what ran out. `None` outside a run, or for a run
/// without a time limit.
///
/// [`RunError::out_of_time`]: crate::RunError::out_of_time
pub fn deadline() -> Option<Deadline> {
    RUN.with(Cell::get)
        .and_then(|r| r.deadline)
        .map(|(limit, at)| Deadline { limit, at })
}

/// Units charged in the running run.
pub(crate) fn used() -> u64 {
    USED.with(Cell::get)
}

/// Tell the meter how much fuel the machine's own steps have left (the
/// machine calls this at each of its periodic checks).
pub(crate) fn set_budget(budget: u64) {
    RUN.with(|r| {
        if let Some(mut run) = r.get() {
            run.budget = budget;
            r.set(Some(run));
        }
    });
}

/// The limit exhausted by metered work, if one was.
pub(crate) fn tripped() -> Option<Limit> {
    TRIPPED.with(Cell::get)
}

fn trip(limit: Limit) -> bool {
    TRIPPED.with(|t| t.set(Some(limit)));
    POLL_AT.with(|p| p.set(0));
    false
}

/// A handle to charge work with: the thread's meter (and through it the
/// running run's fuel, deadline and cancellation flag), or none.
#[derive(Clone, Copy, Default)]
pub(crate) struct Meter {
    off: bool,
}

impl Meter {
    /// The running run's meter: polls its fuel, its clock and its
    /// cancellation flag. Outside a run it charges nothing that can trip.
    pub const AMBIENT: Meter = Meter { off: false };

    /// A handle that charges nothing and never stops: for work the host
    /// does on a program's values that is bounded by other means (display
    /// of an operation's arguments, at most so many bytes), which must
    /// never come out cut short.
    pub const OFF: Meter = Meter { off: true };

    /// Charge `units`; `false` once a limit is exhausted (now or before),
    /// when the caller should stop and leave the error to [`tripped`].
    #[inline]
    pub fn charge(self, units: u64) -> bool {
        if self.off {
            return true;
        }
        let used = USED.with(|u| {
            let n = u.get().saturating_add(units);
            u.set(n);
            n
        });
        if used < POLL_AT.with(Cell::get) {
            return true;
        }
        self.poll(used)
    }

    /// The periodic check.
    #[cold]
    fn poll(self, used: u64) -> bool {
        if TRIPPED.with(Cell::get).is_some() {
            return false;
        }
        let Some(run) = RUN.with(Cell::get) else {
            // Outside a run: nothing to check.
            POLL_AT.with(|p| p.set(used.saturating_add(POLL_EVERY)));
            return true;
        };
        if used >= run.budget {
            return trip(Limit::Fuel);
        }
        if run.deadline.is_some_and(|(_, d)| Instant::now() > d) {
            return trip(Limit::Time);
        }
        if cancelled() {
            return trip(Limit::Cancelled);
        }
        POLL_AT.with(|p| p.set(used.saturating_add(POLL_EVERY)));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_trips_on_fuel_stays_tripped_and_restores_what_was_before() {
        let outer = Meter::AMBIENT;
        assert!(outer.charge(10));
        {
            let _scope = Scope::start(10_000, None, None);
            assert_eq!(used(), 0);
            assert!(Meter::AMBIENT.charge(5_000));
            assert_eq!(tripped(), None);
            assert!(!Meter::AMBIENT.charge(POLL_EVERY * 2));
            assert_eq!(tripped(), Some(Limit::Fuel));
            assert!(!Meter::AMBIENT.charge(1));
        }
        assert_eq!(tripped(), None);
        assert!(outer.charge(1));
    }

    #[test]
    fn a_raised_flag_or_a_passed_deadline_trips_at_the_next_poll() {
        let flag = Arc::new(AtomicBool::new(false));
        {
            let _scope = Scope::start(u64::MAX, None, Some(flag.clone()));
            let m = Meter::AMBIENT;
            assert!(m.charge(POLL_EVERY));
            flag.store(true, Ordering::Relaxed);
            assert!(!m.charge(POLL_EVERY));
            assert_eq!(tripped(), Some(Limit::Cancelled));
        }
        assert!(!cancelled(), "the flag goes with the scope");
        {
            let _scope = Scope::start(u64::MAX, Some((Duration::ZERO, Instant::now())), None);
            std::thread::sleep(std::time::Duration::from_millis(2));
            assert!(!Meter::AMBIENT.charge(POLL_EVERY));
            assert_eq!(tripped(), Some(Limit::Time));
        }
    }

    #[test]
    fn a_parked_scope_keeps_its_units_and_time_left_and_restores_what_was_before() {
        let limit = Duration::from_secs(60);
        let scope = Scope::start(10_000, Some((limit, Instant::now() + limit)), None);
        assert!(Meter::AMBIENT.charge(100));
        let parked = scope.park();
        assert_eq!(deadline(), None, "no run while parked");
        assert_eq!(used(), 0);
        std::thread::sleep(Duration::from_millis(20));
        {
            let _again = parked.resume();
            assert_eq!(used(), 100, "the units charged before the pause");
            let d = deadline().expect("the deadline comes back");
            assert_eq!(d.limit, limit);
            assert!(
                d.left() > limit - Duration::from_millis(15),
                "the pause was not counted"
            );
            assert!(!Meter::AMBIENT.charge(POLL_EVERY * 3));
            assert_eq!(tripped(), Some(Limit::Fuel), "the same fuel");
        }
        assert_eq!(tripped(), None);
    }

    #[test]
    fn a_runs_deadline_is_seen_inside_it_only_and_its_time_left_never_goes_below_zero() {
        assert_eq!(deadline(), None, "outside a run");
        let limit = Duration::from_secs(60);
        let at = Instant::now() + limit;
        {
            let _scope = Scope::start(u64::MAX, Some((limit, at)), None);
            let d = deadline().expect("inside a run with a time limit");
            assert_eq!((d.limit, d.at), (limit, at));
            assert!(d.left() <= limit && d.left() > Duration::from_secs(50));
            {
                let _inner = Scope::start(u64::MAX, None, None);
                assert_eq!(deadline(), None, "a run without a time limit");
            }
            assert_eq!(deadline().map(|d| d.at), Some(at), "restored");
        }
        assert_eq!(deadline(), None, "gone with the scope");
        let past = Deadline {
            limit,
            at: Instant::now() - Duration::from_millis(5),
        };
        assert_eq!(past.left(), Duration::ZERO);
    }
}
