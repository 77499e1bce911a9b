//! The clocks the runtime and its hosts read: `std::time`'s, except in a
//! web page (`wasm32-unknown-unknown`), where the standard library has no
//! clock and panics when asked. There the `web-time` crate reads the
//! page's (`performance.now()` for [`Instant`], `Date.now()` for
//! [`SystemTime`]).
//!
//! Invariant: no code of the runtime or of `writ-host` (tests aside) names
//! `std::time::Instant` or `std::time::SystemTime` itself; it names these,
//! so that the same limits (time, lock waits) hold in a page.

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub use std::time::{Instant, SystemTime, UNIX_EPOCH};

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub use web_time::{Instant, SystemTime, UNIX_EPOCH};
