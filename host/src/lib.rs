//! Writ's host side: the policy a person's program runs under, the engine
//! that checks and runs programs under it, the capabilities it grants, and
//! the store (a SQLite file, or a PostgreSQL database a team shares) that
//! holds the audit log, the ledger and the records.
//!
//! This is the only crate below the command line that touches files (the
//! store, and the seed and recorded-responses files a policy names) and
//! the network (`Http`), each only as a policy allows. The policy's own
//! text is given to it by the embedder.
//!
//! # The surface
//!
//! What an embedder (and the command line) uses, and nothing else:
//!
//! - [`engine`]: the [`Engine`](engine::Engine) that checks a program
//!   against a policy into a [`Compiled`](engine::Compiled) program and runs it
//!   ([`RunOptions`](engine::RunOptions), [`Outcome`](engine::Outcome),
//!   each [`Operation`](engine::Operation) with its
//!   [`Decision`](engine::Decision)), and the embedder's own capabilities
//!   ([`Capability`](engine::Capability), [`Handler`](engine::Handler),
//!   [`Args`](engine::Args), [`FromValue`](engine::FromValue),
//!   [`IntoValue`](engine::IntoValue), [`Refusal`](engine::Refusal));
//! - [`policy`]: parsing a policy file into a [`Policy`](policy::Policy)
//!   (or its diagnostics), and the policy as data;
//! - [`session`]: a [`Session`](session::Session) that checks and runs
//!   inputs one at a time (the REPL's back end);
//! - [`store`]: the [`Store`](store::Store) opened, read and verified
//!   (the audit log, its head, the ledger), and its errors;
//! - [`url`]: the URLs and rules of a policy's `Http` allow-list;
//! - [`arguments`]: the fixed maximum size of each host operation's
//!   arguments.
//!
//! The built-in capabilities' dispatch (the policy host), the gate's
//! measuring, the network, and the store's writes are `pub(crate)`: only
//! the engine carries out an operation, and only after the policy's
//! checks.

#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod arguments;
mod builtin;
mod capability;
mod connections;
mod drive;
pub mod engine;
mod http;
mod plan;
pub mod policy;
mod policy_host;
mod reads;
pub mod session;
mod snapshot;
pub mod store;
pub mod url;
