//! Ctrl-C during a run on Python's main thread, without a second thread.
//!
//! Python handles SIGINT by noting it in a C-level handler and raising
//! `KeyboardInterrupt` the next time its main thread runs Python code; a
//! run holds no GIL and runs no Python code, so Python alone would raise
//! it only after the run. Around a run on the main thread, this module
//! puts a handler of its own in front of Python's: it sets the run's
//! cancel flag ([`flag`]; the run stops with `E5006` at its next check of
//! its limits) and then calls Python's handler, so that Python notes the
//! signal as it always does. The handler in place before the run is put
//! back after it, and the caller raises `KeyboardInterrupt`.
//!
//! Invariants: the handler does only what a signal handler may (an
//! atomic store, then the previous handler); it is installed only in
//! front of a handler that is a function (a SIGINT that is ignored, or
//! left to its default, stays so); runs on other threads are not touched
//! (Python delivers Ctrl-C to its main thread only).

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// The cancel flag of the runs on the main thread (one at a time, or
/// nested inside a capability's handler: Ctrl-C stops all of them).
pub(crate) fn flag() -> &'static Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

#[cfg(unix)]
mod imp {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// The flag the handler sets (the `Arc`'s contents, alive for the
    /// process).
    static SET: AtomicUsize = AtomicUsize::new(0);
    /// The handler that was in place when ours was put in front of it.
    static PREVIOUS: AtomicUsize = AtomicUsize::new(0);
    /// Whether the previous handler takes three arguments (`SA_SIGINFO`).
    static PREVIOUS_INFO: AtomicBool = AtomicBool::new(false);

    extern "C" fn on_sigint(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        let flag = SET.load(Ordering::SeqCst) as *const AtomicBool;
        if !flag.is_null() {
            // SAFETY: `SET` holds the address of the flag inside an `Arc`
            // kept in a `OnceLock` for the whole process.
            unsafe { (*flag).store(true, Ordering::SeqCst) };
        }
        let previous = PREVIOUS.load(Ordering::SeqCst);
        if previous == 0 {
            return;
        }
        if PREVIOUS_INFO.load(Ordering::SeqCst) {
            // SAFETY: `previous` is the `sa_sigaction` of the handler that
            // was installed with `SA_SIGINFO`, a function of this type.
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                unsafe { std::mem::transmute(previous) };
            f(sig, info, ctx);
        } else {
            // SAFETY: `previous` is the `sa_handler` of the handler that
            // was installed without `SA_SIGINFO`, a function of this type.
            let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(previous) };
            f(sig);
        }
    }

    /// Our handler, in front of the one in place; what to put back.
    pub(super) struct Installed {
        old: libc::sigaction,
        previous: (usize, bool),
    }

    /// Put the handler in front of SIGINT's, if that is a function.
    pub(super) fn install(flag: &AtomicBool) -> Option<Installed> {
        // SAFETY: sigaction with a null new action only reads the current
        // one into `old`, a zeroed struct of the right type.
        let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
        if unsafe { libc::sigaction(libc::SIGINT, std::ptr::null(), &mut old) } != 0 {
            return None;
        }
        let handler = old.sa_sigaction;
        if handler == libc::SIG_DFL
            || handler == libc::SIG_IGN
            || handler == on_sigint as *const () as usize
        {
            return None;
        }
        let previous = (
            PREVIOUS.load(Ordering::SeqCst),
            PREVIOUS_INFO.load(Ordering::SeqCst),
        );
        SET.store(flag as *const AtomicBool as usize, Ordering::SeqCst);
        PREVIOUS.store(handler, Ordering::SeqCst);
        PREVIOUS_INFO.store(old.sa_flags & libc::SA_SIGINFO != 0, Ordering::SeqCst);
        // SAFETY: a zeroed sigaction with our handler, the old mask and
        // flags (SA_SIGINFO added, as our handler takes three arguments).
        let mut ours: libc::sigaction = unsafe { std::mem::zeroed() };
        ours.sa_sigaction = on_sigint as *const () as usize;
        ours.sa_mask = old.sa_mask;
        ours.sa_flags = (old.sa_flags | libc::SA_SIGINFO) & !libc::SA_RESETHAND;
        if unsafe { libc::sigaction(libc::SIGINT, &ours, std::ptr::null_mut()) } != 0 {
            PREVIOUS.store(previous.0, Ordering::SeqCst);
            PREVIOUS_INFO.store(previous.1, Ordering::SeqCst);
            return None;
        }
        Some(Installed { old, previous })
    }

    /// Put back the handler that was in place.
    pub(super) fn uninstall(i: Installed) {
        // SAFETY: `i.old` is the action sigaction gave us.
        unsafe { libc::sigaction(libc::SIGINT, &i.old, std::ptr::null_mut()) };
        PREVIOUS.store(i.previous.0, Ordering::SeqCst);
        PREVIOUS_INFO.store(i.previous.1, Ordering::SeqCst);
    }
}

/// While alive, Ctrl-C sets [`flag`]; dropping it puts SIGINT's handler
/// back as it was.
pub(crate) struct Guard {
    #[cfg(unix)]
    installed: Option<imp::Installed>,
}

impl Guard {
    /// Watch for Ctrl-C (on the main thread; elsewhere, a guard that does
    /// nothing).
    pub(crate) fn watch(main: bool) -> Guard {
        #[cfg(unix)]
        {
            Guard {
                installed: if main { imp::install(flag()) } else { None },
            }
        }
        #[cfg(not(unix))]
        {
            let _ = main;
            Guard {}
        }
    }

    /// Whether Ctrl-C is watched: on other platforms, the caller runs the
    /// work on a second thread and checks for signals while it waits.
    pub(crate) fn watching(&self) -> bool {
        #[cfg(unix)]
        {
            self.installed.is_some()
        }
        #[cfg(not(unix))]
        {
            false
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(i) = self.installed.take() {
            imp::uninstall(i);
        }
    }
}

/// Whether Ctrl-C was seen since [`reset`].
pub(crate) fn seen() -> bool {
    flag().load(Ordering::SeqCst)
}

/// Forget an earlier Ctrl-C (before a run on the main thread starts).
pub(crate) fn reset() {
    flag().store(false, Ordering::SeqCst);
}
