//! The standard library's Writ sources, embedded in the binary.
//!
//! The files live in the repository's `stdlib/` directory; each is
//! included here at compile time so that the front end can read the host
//! capability interfaces without touching the file system.

/// One embedded source file of the standard library.
#[derive(Clone, Copy, Debug)]
pub struct StdlibFile {
    /// The file's name inside `stdlib/`.
    pub name: &'static str,
    /// Its text.
    pub source: &'static str,
}

/// Every embedded standard-library file.
pub const FILES: &[StdlibFile] = &[StdlibFile {
    name: "capabilities.writ",
    source: include_str!("../../stdlib/capabilities.writ"),
}];
