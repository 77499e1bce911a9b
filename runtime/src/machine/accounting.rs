//! Limits and accounting: fuel, time, cancellation, memory and output.
//!
//! The machine counts steps in **windows** of at most
//! [`CHECK_EVERY`] steps: the run loop counts a window down and, when it
//! runs out, calls [`Machine::check`], which adds the window to the steps
//! taken, checks fuel (steps plus the work meter's units), time,
//! cancellation and memory, and opens the next window.
//!
//! Invariants:
//! - **Steps and metered units are one fuel.** A window is never longer
//!   than the fuel left after both, and the meter is told, at each check,
//!   how much the steps have left ([`meter::set_budget`]).
//! - **A limit ends the run with its own code** (`E5001`..`E5006`, see
//!   [`RunError::limit`]) and a message naming the limit.
//! - **Usage is sampled, not traced.** The memory peak a run reports
//!   ([`Machine::usage`]) is the most any memory check saw (one per
//!   window, and one before each allocation in proportion to operands),
//!   so it costs a comparison per check and nothing per step.
//! - **Memory is checked before it is used** where an operation can
//!   allocate in proportion to its operands ([`Machine::check_memory`]
//!   with what it is about to allocate).

use std::time::Duration;

use crate::error::RunError;
use crate::limits::{CHECK_EVERY, Limit};
use crate::meter::{self, Meter};
use crate::value;

use super::{Entry, Frame, Machine, Usage};

impl<'a> Machine<'a> {
    pub(super) fn open_window(&mut self) {
        let left = self
            .limits
            .fuel
            .saturating_sub(self.steps)
            .saturating_sub(meter::used());
        self.window = CHECK_EVERY.min(left).max(1);
        self.countdown = self.window;
        meter::set_budget(self.limits.fuel.saturating_sub(self.steps));
    }

    /// The periodic check: fuel (steps and metered work together), time,
    /// cancellation, memory.
    pub(super) fn check(&mut self) -> Result<(), RunError> {
        self.steps += self.window;
        let limit = if let Some(l) = meter::tripped() {
            Some(l)
        } else if self.steps.saturating_add(meter::used()) >= self.limits.fuel {
            Some(Limit::Fuel)
        } else {
            self.interrupted()
        };
        if let Some(l) = limit {
            return Err(self.exhausted(l));
        }
        let wanted = std::mem::take(&mut self.stack_wanted);
        self.check_memory(wanted)?;
        self.open_window();
        Ok(())
    }

    /// The time limit or the host's cancellation, if either has ended the
    /// run: looked at by the periodic check, and as soon as a host
    /// operation returns (it may have waited: for a response, the store's
    /// lock, the person's answer).
    pub(super) fn interrupted(&self) -> Option<Limit> {
        if self.running_time() > self.limits.time {
            Some(Limit::Time)
        } else if meter::cancelled() {
            Some(Limit::Cancelled)
        } else {
            None
        }
    }

    /// The run's running time so far: its earlier slices and the current
    /// one (the time a run spends paused and handed out is not counted).
    pub(super) fn running_time(&self) -> Duration {
        self.earlier.saturating_add(self.started.elapsed())
    }

    /// The error of an exhausted fuel, time or cancellation limit.
    pub(crate) fn exhausted(&self, limit: Limit) -> RunError {
        let message = match limit {
            Limit::Fuel => format!(
                "expected the program to finish within {} units of fuel (steps and library work), but it needed more",
                self.limits.fuel
            ),
            Limit::Time => return RunError::out_of_time(self.limits.time),
            Limit::Cancelled => "the host cancelled the run".to_string(),
            Limit::Memory | Limit::Depth | Limit::Output => {
                return RunError::internal("the work meter tripped on a limit it does not meter");
            }
        };
        RunError::limit(limit, limit.value_in(&self.limits), message)
    }

    /// A handle on this run's work meter (polling its fuel, clock and
    /// cancellation flag).
    pub(crate) fn meter(&self) -> Meter {
        Meter::AMBIENT
    }

    /// Charge `units` of work done by the machine itself (outside a step);
    /// `Err` with the exhausted limit once one is.
    #[inline(always)]
    pub(crate) fn tick(&self, units: u64) -> Result<(), RunError> {
        if self.meter().charge(units) {
            Ok(())
        } else {
            self.metered()
        }
    }

    /// `Err` with the exhausted limit if metered work tripped the meter:
    /// called after every metered operation, so that the limit, not the
    /// operation's cut-short result, is what the program sees.
    pub(crate) fn metered(&self) -> Result<(), RunError> {
        match meter::tripped() {
            Some(l) => Err(self.exhausted(l)),
            None => Ok(()),
        }
    }

    /// The outcome of a program's own display, which was given the memory
    /// left: the limit the meter tripped, if it did, else the memory
    /// limit if the display was cut short (its text and the room it held
    /// while it was written needed more than was left).
    pub(crate) fn displayed(&self, shown: crate::display::Shown) -> Result<(), RunError> {
        self.metered()?;
        match shown {
            crate::display::Shown::Whole => Ok(()),
            crate::display::Shown::Cut | crate::display::Shown::Deep => {
                self.check_memory(usize::MAX)
            }
        }
    }

    /// Bytes in use: live values made during this run, plus the stacks,
    /// each for the room it holds (as a list is for its spare slots): a
    /// deep recursion's stacks hold their room after it returns, and that
    /// is the host's memory as much as the slots in use.
    pub(super) fn memory_used(&self) -> usize {
        value::live_bytes()
            .saturating_sub(self.memory_base)
            .saturating_add(self.stacks_bytes())
    }

    /// How many more elements of `size` bytes a full stack of `len`
    /// takes: as many again (at least 64); when that room would pass the
    /// memory limit, the room left below it; when that is less than 64
    /// elements, 64, with the periodic check brought forward to the next
    /// step, which ends the run with `E5002` for the room wanted. So a
    /// deep recursion uses the memory up to its limit and stops within a
    /// few elements past it, not at a doubling past it (once up to twice
    /// the limit).
    pub(super) fn stack_growth(&mut self, len: usize, size: usize) -> usize {
        let usual = len.max(64);
        let wanted = usual.saturating_mul(size);
        let left = self.limits.memory.saturating_sub(self.memory_used());
        if wanted <= left {
            return usual;
        }
        // What room is left, when it is worth a move.
        let fits = left / size.max(1);
        if fits >= 64 {
            return fits;
        }
        self.stack_wanted = self.stack_wanted.max(wanted);
        // The steps of this window taken so far, and the next one.
        let taken = self.window.saturating_sub(self.countdown);
        self.window = taken.saturating_add(1);
        self.countdown = 1;
        64
    }

    /// Make room for more frames: out of line, so the call path keeps
    /// only the capacity test.
    #[cold]
    #[inline(never)]
    pub(super) fn grow_frames(&mut self) {
        let more = self.stack_growth(self.frames.len(), std::mem::size_of::<Frame>());
        // Exactly: `reserve` would double whatever it is asked for.
        self.frames.reserve_exact(more);
    }

    /// The bytes of the room the machine's stacks hold (what
    /// [`Machine::memory_used`] charges them, also while paused and once
    /// restored).
    pub(super) fn stacks_bytes(&self) -> usize {
        (self.stack.capacity() * value::SLOT)
            .saturating_add(self.frames.capacity() * std::mem::size_of::<Frame>())
            .saturating_add(self.handlers.capacity() * std::mem::size_of::<Entry>())
    }

    /// Fail if `more` bytes on top of what is in use would pass the limit.
    pub(crate) fn check_memory(&self, more: usize) -> Result<(), RunError> {
        let now = self.memory_used();
        if now > self.peak.get() {
            self.peak.set(now);
        }
        let used = now.saturating_add(more);
        if used > self.limits.memory {
            return Err(RunError::limit(
                Limit::Memory,
                Limit::Memory.value_in(&self.limits),
                format!(
                    "expected the program to use at most {}, but it needed more",
                    bytes_text(self.limits.memory)
                ),
            ));
        }
        Ok(())
    }

    /// What the run has used so far: its fuel (the steps taken, this
    /// window's included, and the meter's units), the most memory any
    /// memory check saw (or in use now, if more), and the time since it
    /// started.
    pub(super) fn usage(&self) -> Usage {
        let steps = self
            .steps
            .saturating_add(self.window.saturating_sub(self.countdown));
        Usage {
            fuel: steps.saturating_add(meter::used()),
            memory_peak: self.peak.get().max(self.memory_used()),
            time: self.running_time(),
        }
    }

    /// Count `bytes` of output against the output limit.
    pub(crate) fn count_output(&mut self, bytes: usize) -> Result<(), RunError> {
        self.output = self.output.saturating_add(bytes);
        if self.output > self.limits.output {
            return Err(RunError::limit(
                Limit::Output,
                Limit::Output.value_in(&self.limits),
                format!(
                    "expected at most {} of output, but the program tried to write more (the line that would pass the limit was not written)",
                    bytes_text(self.limits.output)
                ),
            ));
        }
        Ok(())
    }
}

/// A byte count for people: `512 MiB`, `4 KiB`, `100 bytes`.
pub(super) fn bytes_text(n: usize) -> String {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * 1024;
    const GIB: usize = 1024 * 1024 * 1024;
    match n {
        n if n >= GIB && n % GIB == 0 => format!("{} GiB", n / GIB),
        n if n >= MIB && n % MIB == 0 => format!("{} MiB", n / MIB),
        n if n >= KIB && n % KIB == 0 => format!("{} KiB", n / KIB),
        n => format!("{n} bytes"),
    }
}
