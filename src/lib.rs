//! Writ: a statically typed functional language with algebraic effects, for
//! running programs that an LLM writes on a person's behalf.
//!
//! This crate is the stable face of the project: the embedding API and the
//! `writ` command line both go through it. Today it checks programs up to
//! the parse stage; later stages (types, effects, the capability manifest,
//! the machine) arrive behind the same functions.
//!
//! ```
//! let checked = writ::check_source("let x = 1 +\n");
//! assert!(!checked.accepted());
//! assert_eq!(checked.diagnostics[0].code, writ::Code::UnexpectedToken);
//! ```
//!
//! Invariants: nothing here or below touches the file system, network or
//! terminal, except [`source_text`], which only interprets bytes it is given;
//! no input makes any function here panic.

#![warn(missing_docs)]

pub mod explain;
pub mod render;

pub use writ_lang::types::{ManifestEntry, Signature};
pub use writ_lang::{Code, Diagnostic, Label, LineIndex, Position, Severity, Span};

/// The largest source file Writ accepts, in bytes (4 MiB).
pub const MAX_SOURCE_BYTES: u64 = 4 * 1024 * 1024;

/// The outcome of checking one program.
#[derive(Clone, Debug)]
pub struct Checked {
    /// Every diagnostic, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    /// The inferred signature of every top-level function (empty unless
    /// the program is accepted).
    pub signatures: Vec<Signature>,
    /// The effects the program performs, with where (empty unless the
    /// program is accepted).
    pub manifest: Vec<ManifestEntry>,
}

impl Checked {
    /// Whether the program is accepted (no error; warnings allowed).
    pub fn accepted(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Check a program's source text: parse it, then (if it parsed) resolve
/// its names and infer its types.
pub fn check_source(text: &str) -> Checked {
    check_source_granted(text, None)
}

/// Check a program's source text as [`check_source`] does and, with
/// `granted`, also reject it if it needs a host capability outside the
/// granted set (`E3002`: the program would not be run).
///
/// ```
/// let src = "let page = Http.get(\"https://a.example\")\nLog.info(page)\n";
/// let granted = vec!["Log".to_string()];
/// let checked = writ::check_source_granted(src, Some(&granted));
/// assert!(!checked.accepted());
/// assert_eq!(checked.diagnostics[0].code, writ::Code::EffectNotGranted);
/// let all = writ::check_source(src);
/// let needs: Vec<&str> = all.manifest.iter().map(|m| m.effect.as_str()).collect();
/// assert_eq!(needs, ["Http", "Log"]);
/// ```
pub fn check_source_granted(text: &str, granted: Option<&[String]>) -> Checked {
    let parsed = writ_lang::parse(text);
    if parsed.has_errors() {
        return Checked {
            diagnostics: parsed.diagnostics,
            signatures: Vec::new(),
            manifest: Vec::new(),
        };
    }
    let typed = writ_lang::types::check_granted(&parsed.program, granted);
    let mut diagnostics = parsed.diagnostics;
    diagnostics.extend(typed.diagnostics);
    writ_lang::diagnostic::sort_and_dedup(&mut diagnostics);
    Checked {
        diagnostics,
        signatures: typed.signatures,
        manifest: typed.manifest,
    }
}

/// Check only a program's syntax (lexing and parsing), as `writ check
/// --syntax-only` does.
pub fn check_syntax(text: &str) -> Checked {
    let parsed = writ_lang::parse(text);
    Checked {
        diagnostics: parsed.diagnostics,
        signatures: Vec::new(),
        manifest: Vec::new(),
    }
}

/// Interpret a file's bytes as Writ source: at most [`MAX_SOURCE_BYTES`],
/// and UTF-8. A leading byte-order mark is skipped.
pub fn source_text(bytes: &[u8]) -> Result<&str, Diagnostic> {
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.strip_prefix('\u{FEFF}').unwrap_or(text)),
        Err(e) => {
            let at = e.valid_up_to();
            let before = bytes.get(..at).unwrap_or(&[]);
            let line = before.iter().filter(|b| **b == b'\n').count() + 1;
            Err(Diagnostic::new(
                Code::NotUtf8,
                format!("expected UTF-8 text, found an invalid byte at offset {at} (line {line})"),
            )
            .with_help("save the file as UTF-8"))
        }
    }
}

/// The diagnostic for a file whose size is unknown (a device, a pipe) but
/// over the limit.
pub fn too_large_unknown() -> Diagnostic {
    Diagnostic::new(
        Code::FileTooLarge,
        format!("expected a source file of at most {MAX_SOURCE_BYTES} bytes, found more"),
    )
    .with_help("a program is one file: keep data out of the source and let an effect (such as `Http` or `Records`) supply it")
}

/// The diagnostic for a file of `size` bytes, over the limit.
pub fn too_large(size: u64) -> Diagnostic {
    Diagnostic::new(
        Code::FileTooLarge,
        format!("expected a source file of at most {MAX_SOURCE_BYTES} bytes, found {size} bytes"),
    )
    .with_help("a program is one file: keep data out of the source and let an effect (such as `Http` or `Records`) supply it")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_text_checks_encoding_and_size() {
        assert_eq!(source_text(b"\xEF\xBB\xBFlet x = 1"), Ok("let x = 1"));
        let e = source_text(b"ok\n\xFF").unwrap_err();
        assert_eq!(e.code, Code::NotUtf8);
        assert!(e.message.contains("offset 3 (line 2)"));
        let big = vec![b' '; MAX_SOURCE_BYTES as usize + 1];
        assert_eq!(source_text(&big).unwrap_err().code, Code::FileTooLarge);
    }
}
