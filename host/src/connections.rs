//! How many connections to PostgreSQL stores an engine holds at once.
//!
//! Each run on a PostgreSQL store holds one connection, and an engine
//! keeps a few between runs ([`crate::engine`]'s idle stores). Without a
//! bound, a host serving many runs at once would open as many
//! connections, and could exhaust the server's. An engine therefore
//! holds at most `[store] max_connections` of them (runs and kept ones
//! together, default [`DEFAULT_MAX_CONNECTIONS`]): a run that needs one
//! when all are taken first closes a kept one if there is one, then waits
//! for one to be given back, at most its store's lock wait (never past its
//! time limit), and is refused (`E4006`) if none is.
//!
//! Invariant: the count goes up only in [`Connections::acquire`], and
//! down only when the [`Slot`] it returned is dropped (with the store that
//! holds it), so every connection counted is a store alive.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use writ_runtime::clock::Instant;

/// The most connections to PostgreSQL stores an engine holds at once when
/// the policy does not say.
pub(crate) const DEFAULT_MAX_CONNECTIONS: usize = 16;

/// The largest `[store] max_connections` a policy may set.
pub(crate) const MOST_CONNECTIONS: usize = 1000;

/// The connections an engine holds, counted.
#[derive(Default)]
pub(crate) struct Connections {
    open: Mutex<usize>,
    freed: Condvar,
}

/// One connection counted; dropping it gives the place back.
pub(crate) struct Slot(Arc<Connections>);

impl Drop for Slot {
    fn drop(&mut self) {
        if let Ok(mut n) = self.0.open.lock() {
            *n = n.saturating_sub(1);
        }
        self.0.freed.notify_one();
    }
}

impl Connections {
    /// A place for one more connection, if fewer than `max` are held:
    /// else after `evict` closes a kept one (it returns whether it did),
    /// or another is given back within `wait`. The error says why not.
    pub(crate) fn acquire(
        self: &Arc<Self>,
        max: usize,
        wait: Duration,
        mut evict: impl FnMut() -> bool,
    ) -> Result<Slot, String> {
        let deadline = Instant::now() + wait;
        loop {
            {
                let mut n = self.open.lock().map_err(|_| poisoned())?;
                if *n < max {
                    *n += 1;
                    return Ok(Slot(self.clone()));
                }
            }
            // Closing a kept connection drops its slot, which takes the
            // lock: never called with the lock held.
            if evict() {
                continue;
            }
            let n = self.open.lock().map_err(|_| poisoned())?;
            if *n < max {
                continue;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!(
                    "all {max} of this host's connections to PostgreSQL stores (the policy's [store] max_connections) were in use by other runs for over {} ms",
                    wait.as_millis()
                ));
            }
            drop(self.freed.wait_timeout(n, left).map_err(|_| poisoned())?);
        }
    }

    /// How many connections are held now.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.open.lock().map_or(0, |n| *n)
    }
}

fn poisoned() -> String {
    "the count of the store's connections was left unusable by a failed thread".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_counted_given_back_and_waited_for_within_the_bound() {
        let c = Arc::new(Connections::default());
        let wait = Duration::from_millis(50);
        let a = c.acquire(2, wait, || false);
        let b = c.acquire(2, wait, || false);
        assert!(a.is_ok() && b.is_ok());
        assert_eq!(c.held(), 2);
        let started = Instant::now();
        assert_eq!(
            c.acquire(2, wait, || false).err(),
            Some("all 2 of this host's connections to PostgreSQL stores (the policy's [store] max_connections) were in use by other runs for over 50 ms".to_string())
        );
        assert!(started.elapsed() >= wait);
        // A kept connection closed makes room at once.
        let mut kept = Some(b);
        let third = c.acquire(2, wait, || kept.take().is_some());
        assert!(third.is_ok());
        assert_eq!(c.held(), 2);
        // One given back by another thread while waiting is taken.
        let giver = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            drop(a);
        });
        assert!(c.acquire(2, Duration::from_secs(5), || false).is_ok());
        let _ = giver.join();
        drop(third);
    }
}
