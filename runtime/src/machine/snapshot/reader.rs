//! Reading the primitives of a snapshot from untrusted bytes: bytes,
//! LEB128 numbers (shortest form, at most 64 bits), numbers and indices
//! checked against a bound, and counts checked against the bytes left.
//! Every failure is a refusal (`E4009`) naming what was expected, where,
//! and what was found.

use super::refused;
use crate::error::RunError;

/// The reader of the bytes, with where it is.
pub(super) struct Reader<'b> {
    pub(super) bytes: &'b [u8],
    pub(super) at: usize,
}

impl<'b> Reader<'b> {
    pub(super) fn left(&self) -> usize {
        self.bytes.len().saturating_sub(self.at)
    }

    pub(super) fn take(&mut self, n: usize, what: &str) -> Result<&'b [u8], RunError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        match end.and_then(|e| self.bytes.get(self.at..e)) {
            Some(s) => {
                self.at += n;
                Ok(s)
            }
            None => Err(refused(what, self.at, "the end of the bytes")),
        }
    }

    pub(super) fn byte(&mut self, what: &str) -> Result<u8, RunError> {
        Ok(self.take(1, what)?.first().copied().unwrap_or_default())
    }

    /// A LEB128 varint of at most 64 bits, in its shortest form.
    pub(super) fn uint(&mut self, what: &str) -> Result<u64, RunError> {
        let start = self.at;
        let mut n: u64 = 0;
        let mut shift = 0u32;
        loop {
            let b = self.byte(what)?;
            let low = u64::from(b & 0x7f);
            if shift == 63 && low > 1 {
                return Err(refused(what, start, "a number past 64 bits"));
            }
            n |= low << shift;
            if b & 0x80 == 0 {
                if b == 0 && shift > 0 {
                    return Err(refused(what, start, "a number not in its shortest form"));
                }
                return Ok(n);
            }
            shift += 7;
            if shift > 63 {
                return Err(refused(what, start, "a number past 64 bits"));
            }
        }
    }

    /// A number of at most `max`.
    pub(super) fn at_most(&mut self, max: u64, what: &str) -> Result<u64, RunError> {
        let start = self.at;
        let n = self.uint(what)?;
        if n > max {
            return Err(refused(what, start, format_args!("{n} (past {max})")));
        }
        Ok(n)
    }

    /// An index below `len` (of a table of `what`).
    pub(super) fn index(&mut self, len: usize, what: &str) -> Result<usize, RunError> {
        let start = self.at;
        let n = self.uint(what)?;
        match usize::try_from(n) {
            Ok(i) if i < len => Ok(i),
            _ => Err(refused(what, start, format_args!("{n} (there are {len})"))),
        }
    }

    pub(super) fn u32(&mut self, what: &str) -> Result<u32, RunError> {
        Ok(self.at_most(u64::from(u32::MAX), what)? as u32)
    }

    pub(super) fn usize(&mut self, what: &str) -> Result<usize, RunError> {
        Ok(self.at_most(usize::MAX as u64, what)? as usize)
    }

    /// A count of items that take at least `each` bytes apiece, checked
    /// against the bytes left.
    pub(super) fn count(&mut self, each: usize, what: &str) -> Result<usize, RunError> {
        let start = self.at;
        let n = self.uint(what)?;
        let most = self.left() / each.max(1);
        match usize::try_from(n) {
            Ok(n) if n <= most => Ok(n),
            _ => Err(refused(
                what,
                start,
                format_args!("{n}, more than the {} bytes left could hold", self.left()),
            )),
        }
    }
}
