//! The standard library's Writ sources, embedded in the binary.
//!
//! The files live in the repository's `stdlib/` directory; each is
//! included here at compile time so that the front end can read the host
//! capability interfaces without touching the file system. [`mod@reference`]
//! turns their declarations and doc comments into `docs/stdlib.md`.

pub mod reference;

/// One embedded source file of the standard library.
#[derive(Clone, Copy, Debug)]
pub struct StdlibFile {
    /// The file's name inside `stdlib/`.
    pub name: &'static str,
    /// Its text.
    pub source: &'static str,
}

/// Every embedded standard-library file: the prelude first, then the host
/// capabilities, then one file per namespace.
pub const FILES: &[StdlibFile] = &[
    StdlibFile {
        name: "prelude.writ",
        source: include_str!("../../../stdlib/prelude.writ"),
    },
    StdlibFile {
        name: "capabilities.writ",
        source: include_str!("../../../stdlib/capabilities.writ"),
    },
    StdlibFile {
        name: "list.writ",
        source: include_str!("../../../stdlib/list.writ"),
    },
    StdlibFile {
        name: "str.writ",
        source: include_str!("../../../stdlib/str.writ"),
    },
    StdlibFile {
        name: "map.writ",
        source: include_str!("../../../stdlib/map.writ"),
    },
    StdlibFile {
        name: "option.writ",
        source: include_str!("../../../stdlib/option.writ"),
    },
    StdlibFile {
        name: "result.writ",
        source: include_str!("../../../stdlib/result.writ"),
    },
    StdlibFile {
        name: "json.writ",
        source: include_str!("../../../stdlib/json.writ"),
    },
    StdlibFile {
        name: "math.writ",
        source: include_str!("../../../stdlib/math.writ"),
    },
    StdlibFile {
        name: "assert.writ",
        source: include_str!("../../../stdlib/assert.writ"),
    },
];
