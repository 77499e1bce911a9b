//! Writ's host side: the policy a person's program runs under, the engine
//! that checks and runs programs under it, the capabilities it grants, and
//! the store (SQLite) that holds the audit log, the ledger and the records.
//!
//! This is the only crate below the command line that touches files (the
//! store, and the seed and recorded-responses files a policy names) and
//! the network (`Http`), each only as a policy allows. The policy's own
//! text is given to it by the embedder.

pub mod arguments;
pub mod builtin;
pub mod capability;
pub mod engine;
mod http;
pub mod policy;
pub mod policy_host;
pub mod session;
pub mod store;
pub mod url;
