//! The Writ runtime: lowering from the checked AST, the abstract machine,
//! values, handlers, limits and the host API.
//!
//! Nothing is here yet: the front end (`writ-lang`) currently stops at
//! parsing. The crate exists so that the dependency direction is fixed from
//! the start: `runtime` depends on `lang`, never the reverse, and nothing in
//! it touches the file system, network or terminal except through the host
//! API it will define.

#![warn(missing_docs)]
