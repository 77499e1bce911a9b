//! Writ's host side: the policy a person's program runs under, and (as
//! they are built) the capabilities it grants.
//!
//! This crate reads no file and opens no connection by itself: it is given
//! the policy's text, and the embedder decides where it came from.

pub mod engine;
pub mod policy;
pub mod store;
pub mod url;
