//! Resource limits of one run: each settable, each with its own error.
//!
//! A limit that is exhausted ends the run cleanly with a [`crate::RunError`]
//! naming the limit, where it was hit and the Writ stack at that point; a
//! program cannot catch it (it is not an effect). The machine counts fuel
//! on every step and checks time, cancellation and memory every 4,096
//! steps, and before any allocation whose size depends on
//! the program's data.

use std::fmt;
use std::time::Duration;

use writ_lang::Code;

/// How many machine steps pass between checks of the clock, the
/// cancellation flag and the memory counter.
pub(crate) const CHECK_EVERY: u64 = 4096;

/// The limits of one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Machine steps (one per instruction).
    pub fuel: u64,
    /// Bytes of live values, plus the machine's own stacks.
    pub memory: usize,
    /// Nested calls (frames on the machine's stack).
    pub depth: usize,
    /// Bytes the program writes through `Log`.
    pub output: usize,
    /// Wall-clock time.
    pub time: Duration,
}

impl Default for Limits {
    /// Defaults for scripts: 10⁹ steps, 512 MiB, 10,000,000 frames, 1 MiB
    /// of output, 10 seconds.
    fn default() -> Self {
        Limits {
            fuel: 1_000_000_000,
            memory: 512 * 1024 * 1024,
            depth: 10_000_000,
            output: 1024 * 1024,
            time: Duration::from_secs(10),
        }
    }
}

/// Which limit was exhausted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// [`Limits::fuel`]
    Fuel,
    /// [`Limits::memory`]
    Memory,
    /// [`Limits::depth`]
    Depth,
    /// [`Limits::output`]
    Output,
    /// [`Limits::time`]
    Time,
    /// The host cancelled the run.
    Cancelled,
}

impl Limit {
    /// The limits a host sets (all but [`Limit::Cancelled`]), in the order
    /// they are listed.
    pub const SETTABLE: [Limit; 5] = [
        Limit::Fuel,
        Limit::Memory,
        Limit::Depth,
        Limit::Output,
        Limit::Time,
    ];

    /// The limit's name, as limits are written (`fuel=1000000`) and as a
    /// policy's `[limits]` keys are.
    pub fn name(self) -> &'static str {
        match self {
            Limit::Fuel => "fuel",
            Limit::Memory => "memory",
            Limit::Depth => "depth",
            Limit::Output => "output",
            Limit::Time => "time",
            Limit::Cancelled => "cancel",
        }
    }

    /// The limit's value in `limits`, in its own unit: steps, bytes,
    /// calls, bytes, milliseconds; 0 for [`Limit::Cancelled`].
    pub fn value_in(self, limits: &Limits) -> u64 {
        let size = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
        match self {
            Limit::Fuel => limits.fuel,
            Limit::Memory => size(limits.memory),
            Limit::Depth => size(limits.depth),
            Limit::Output => size(limits.output),
            Limit::Time => u64::try_from(limits.time.as_millis()).unwrap_or(u64::MAX),
            Limit::Cancelled => 0,
        }
    }

    /// The diagnostic code of exhausting it.
    pub fn code(self) -> Code {
        match self {
            Limit::Fuel => Code::FuelExhausted,
            Limit::Memory => Code::MemoryExhausted,
            Limit::Depth => Code::DepthExhausted,
            Limit::Output => Code::OutputExhausted,
            Limit::Time => Code::TimeExhausted,
            Limit::Cancelled => Code::Cancelled,
        }
    }
}

impl Limits {
    /// Set one limit from its name and a value (`fuel=1000000`,
    /// `memory=64M`, `time=2s`, `time=500ms`). An error says what was
    /// expected.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), SettingError> {
        let unknown = || SettingError::Name {
            found: name.to_string(),
        };
        let limit = Limit::SETTABLE
            .into_iter()
            .find(|l| l.name() == name)
            .ok_or_else(unknown)?;
        match limit {
            Limit::Fuel => self.fuel = parse_count(value)?,
            Limit::Memory => self.memory = parse_bytes(value)?,
            Limit::Depth => {
                self.depth = usize::try_from(parse_count(value)?).unwrap_or(usize::MAX);
            }
            Limit::Output => self.output = parse_bytes(value)?,
            Limit::Time => self.time = parse_time(value)?,
            Limit::Cancelled => return Err(unknown()),
        }
        Ok(())
    }
}

/// A whole number: digits (`_` allowed between them), or digits, `e` and
/// an exponent (`1e9`).
fn parse_count(v: &str) -> Result<u64, SettingError> {
    let bad = || SettingError::Count {
        found: v.to_string(),
    };
    let digits: String = v.chars().filter(|c| *c != '_').collect();
    match digits.split_once(['e', 'E']) {
        Some((mantissa, exp)) => {
            let m: u64 = mantissa.parse().map_err(|_| bad())?;
            let e: u32 = exp.parse().map_err(|_| bad())?;
            10u64
                .checked_pow(e)
                .and_then(|p| m.checked_mul(p))
                .ok_or_else(bad)
        }
        None => digits.parse::<u64>().map_err(|_| bad()),
    }
}

fn parse_bytes(v: &str) -> Result<usize, SettingError> {
    let (num, mult) = match v.char_indices().last() {
        Some((i, 'K' | 'k')) => (&v[..i], 1024u64),
        Some((i, 'M' | 'm')) => (&v[..i], 1024 * 1024),
        Some((i, 'G' | 'g')) => (&v[..i], 1024 * 1024 * 1024),
        _ => (v, 1),
    };
    let found = || v.to_string();
    let n = parse_count(num).map_err(|_| SettingError::Size { found: found() })?;
    n.checked_mul(mult)
        .and_then(|b| usize::try_from(b).ok())
        .ok_or_else(|| SettingError::SizeTooLarge { found: found() })
}

/// A duration as limits and policies write it: `500ms`, `2s`, `1m`; the
/// error is a [`SettingError::Duration`].
pub fn parse_time(v: &str) -> Result<Duration, SettingError> {
    let bad = || SettingError::Duration {
        found: v.to_string(),
    };
    let (num, unit) = if let Some(n) = v.strip_suffix("ms") {
        (n, 1)
    } else if let Some(n) = v.strip_suffix('s') {
        (n, 1000)
    } else if let Some(n) = v.strip_suffix('m') {
        (n, 60_000)
    } else {
        return Err(bad());
    };
    let n = parse_count(num).map_err(|_| bad())?;
    n.checked_mul(unit)
        .map(Duration::from_millis)
        .ok_or_else(bad)
}

/// A limit's setting that cannot be read: what was expected, with the
/// text found as data; `Display` says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettingError {
    /// No limit has this name.
    Name {
        /// The name given.
        found: String,
    },
    /// Not a whole number (`fuel`, `depth`).
    Count {
        /// The value given.
        found: String,
    },
    /// Not a size (`memory`, `output`).
    Size {
        /// The value given.
        found: String,
    },
    /// A size larger than this machine can hold.
    SizeTooLarge {
        /// The value given.
        found: String,
    },
    /// Not a duration (`time`, and a policy's times).
    Duration {
        /// The value given.
        found: String,
    },
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingError::Name { found } => {
                f.write_str("expected one of ")?;
                for (i, l) in Limit::SETTABLE.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}{}", l.name())?;
                }
                write!(f, "; found `{found}`")
            }
            SettingError::Count { found } => write!(
                f,
                "expected a whole number such as 1000000 or 1e6, found `{found}`"
            ),
            SettingError::Size { found } => write!(
                f,
                "expected a size such as 4096, 64K, 256M or 1G, found `{found}`"
            ),
            SettingError::SizeTooLarge { found } => {
                write!(f, "expected a size this machine can hold, found `{found}`")
            }
            SettingError::Duration { found } => write!(
                f,
                "expected a duration such as 500ms, 2s or 1m, found `{found}`"
            ),
        }
    }
}

impl std::error::Error for SettingError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_parse_from_their_names() {
        let mut l = Limits::default();
        l.set("fuel", "1_000").unwrap();
        l.set("memory", "64M").unwrap();
        l.set("time", "250ms").unwrap();
        l.set("fuel", "1e6").unwrap();
        assert_eq!(l.fuel, 1_000_000);
        assert!(l.set("fuel", "1e30").is_err());
        assert!(l.set("fuel", "1.5e3").is_err());
        l.set("depth", "10").unwrap();
        l.set("output", "2K").unwrap();
        assert_eq!(l.fuel, 1_000_000);
        assert_eq!(l.memory, 64 * 1024 * 1024);
        assert_eq!(l.time, Duration::from_millis(250));
        assert_eq!(l.depth, 10);
        assert_eq!(l.output, 2048);
        let found = |s: &str| s.to_string();
        for (name, value, error, said) in [
            (
                "speed",
                "1",
                SettingError::Name {
                    found: found("speed"),
                },
                "expected one of fuel, memory, depth, output, time; found `speed`",
            ),
            (
                "depth",
                "deep",
                SettingError::Count {
                    found: found("deep"),
                },
                "expected a whole number such as 1000000 or 1e6, found `deep`",
            ),
            (
                "memory",
                "lots",
                SettingError::Size {
                    found: found("lots"),
                },
                "expected a size such as 4096, 64K, 256M or 1G, found `lots`",
            ),
            (
                "memory",
                "99999999999999G",
                SettingError::SizeTooLarge {
                    found: found("99999999999999G"),
                },
                "expected a size this machine can hold, found `99999999999999G`",
            ),
            (
                "time",
                "5",
                SettingError::Duration { found: found("5") },
                "expected a duration such as 500ms, 2s or 1m, found `5`",
            ),
        ] {
            let e = l.set(name, value).unwrap_err();
            assert_eq!(e, error, "{name}={value}");
            assert_eq!(e.to_string(), said);
        }
        assert_eq!(l.fuel, 1_000_000, "a failed setting changes nothing");
    }
}
