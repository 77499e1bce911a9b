//! The standard library, checked once: the state every program's check
//! starts from.
//!
//! Checking `stdlib/*.writ` (with the same code that checks a program)
//! gives a [`Checker`] holding the library's types, effects, namespaces
//! and type nodes, and the resolution of its functions' names, file by
//! file, which lowering compiles them from ([`resolution::library`]). The
//! build makes it once: `lang/build.rs` compiles this crate's modules into
//! itself, checks the library and writes the result as an *image*
//! (postcard, every map in key order), which the crate embeds
//! (`cfg(writ_library_image)`, set by the build script for the crate
//! alone) and reads at its first use in a process. A program's check
//! starts from a copy of that checker, whose type nodes are shared with
//! it (see [`crate::types::ty::Arena`]), so a copy is cheap.
//!
//! Invariants: the image cannot go stale. It is made by this crate's own
//! source, compiled into the build script, from the library's sources;
//! cargo runs the script again whenever a file of the crate or of
//! `stdlib/` changes (`rerun-if-changed`), and a test checks that the
//! embedded image is, byte for byte, the library checked now. An image
//! that does not read (which would be a bug) is never used: the library
//! is then checked at first use, as in a build without an image.
//!
//! [`resolution::library`]: crate::types::resolution::library

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::image::WithInterfaces;

use serde::{Deserialize, Serialize};

use crate::ast::{FnDecl, Item};
use crate::span::Span;
use crate::types::calls::{FnSig, SigVars};
use crate::types::infer::{Binding, Checker, Scheme};
use crate::types::resolution::Resolution;
use crate::types::ty::{Kind, Node, TyId};

/// The standard library checked.
#[derive(Serialize, Deserialize)]
pub(crate) struct Library {
    /// A checker holding the library, its type nodes frozen (shared by
    /// every copy). Behind a lock: a checker's work meter is not shared
    /// between threads (each copy has its own).
    checker: Mutex<Checker>,
    /// The resolution of the names in the library's functions written in
    /// Writ, by file name (`list.writ`).
    #[serde(serialize_with = "crate::image::sorted")]
    resolution: HashMap<String, Resolution>,
}

/// The library's image, written by the build script.
#[cfg(writ_library_image)]
static IMAGE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/library.bin"));

/// The library, read from the image (or checked) at first use.
static LIBRARY: OnceLock<Library> = OnceLock::new();

/// The standard library, checked, for this process.
pub(crate) fn library() -> &'static Library {
    LIBRARY.get_or_init(|| {
        #[cfg(writ_library_image)]
        if let Some(library) = crate::image::read::<Library>(IMAGE) {
            return library;
        }
        check_library()
    })
}

/// The resolution of the library's functions, by file name.
pub(crate) fn resolution() -> &'static HashMap<String, Resolution> {
    &library().resolution
}

/// Check the standard library now.
pub(crate) fn check_library() -> Library {
    stacker::maybe_grow(super::STACK_RED_ZONE, super::STACK_CHUNK, || {
        let mut checker = Checker::new();
        load_stdlib(&mut checker);
        // A diagnostic of the library is a bug, caught by a test.
        checker.diagnostics.clear();
        // Memos of one unification, one requirement: empty for the next.
        checker.unified.clear();
        checker.required.clear();
        let resolution = std::mem::take(&mut checker.library_resolution);
        checker.arena.freeze();
        Library {
            checker: Mutex::new(checker),
            resolution,
        }
    })
}

/// The image of the library checked now: what the build script embeds.
/// The same library gives the same bytes (maps are written in key order).
#[allow(dead_code)] // used by the build script and the tests
pub(crate) fn image() -> Result<Vec<u8>, String> {
    postcard::to_stdvec(&check_library()).map_err(|e| e.to_string())
}

/// A checker holding the standard library and the embedder's capability
/// `interfaces` (their diagnostics kept), ready for user code.
pub(super) fn with_library(interfaces: &[String]) -> Checker {
    let mut c = if interfaces.is_empty() {
        library_checker()
    } else {
        with_interfaces(interfaces)
    };
    c.user_code = true;
    // The program's own row, a node of its own: binding one of the
    // library's would copy the library's nodes.
    c.top_row = c.arena.var(0, Kind::Row);
    c.cur_row = c.top_row;
    c
}

/// A copy of the checker holding the library alone.
fn library_checker() -> Checker {
    // A thread that panicked while copying left the checker as it was.
    library()
        .checker
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

/// A copy of the checker holding the library and `interfaces`, each set
/// of interfaces declared once (the last few sets kept).
fn with_interfaces(interfaces: &[String]) -> Checker {
    let made = INTERFACE_SETS.get(interfaces, || {
        let mut c = library_checker();
        for source in interfaces {
            let parsed = crate::parser::parse_library(source);
            for item in &parsed.program.items {
                if let Item::Effect(e) = item {
                    c.extra_hosts.push(e.name.name.clone());
                }
            }
            c.diagnostics.extend(parsed.diagnostics);
            c.declare(&parsed.program);
        }
        c.arena.freeze();
        Ok::<_, std::convert::Infallible>(c)
    });
    match made {
        Ok(c) => c,
        Err(never) => match never {},
    }
}

/// The checkers holding the library with recent sets of interfaces.
static INTERFACE_SETS: WithInterfaces<Checker> = WithInterfaces::new();

/// Declare the standard library's types, effects and namespaces in `c`,
/// and check its functions written in Writ (their names' resolution, file
/// by file, in `c.library_resolution`).
pub(super) fn load_stdlib(c: &mut Checker) {
    let mut bodies: Vec<(&str, String, FnDecl)> = Vec::new();
    for file in crate::stdlib::FILES {
        let namespace = file.name.strip_suffix(".writ").unwrap_or(file.name);
        let parsed = crate::parser::parse_library(file.source);
        c.diagnostics.extend(parsed.diagnostics);
        if matches!(namespace, "prelude" | "capabilities") {
            c.declare(&parsed.program);
            continue;
        }
        let mut members = HashMap::new();
        for item in &parsed.program.items {
            if let Item::Fn(f) = item {
                if f.body.is_some() {
                    bodies.push((
                        file.name,
                        format!("`{namespace}.{}`", f.name.name),
                        (**f).clone(),
                    ));
                }
                let scheme = c.library_fn(f);
                members.insert(
                    f.name.name.clone(),
                    Binding {
                        scheme,
                        span: Span::new(0, 0),
                    },
                );
            }
        }
        Arc::make_mut(&mut c.namespaces).insert(namespace.to_string(), members);
    }
    // Functions written in Writ are checked against their declarations
    // like any program's, once every namespace is known.
    // Each file's names are recorded apart: spans are unique only within
    // one file.
    for (file, name, f) in &bodies {
        c.library_body(name, f);
        let names = std::mem::take(&mut c.resolution);
        let into = c.library_resolution.entry(file.to_string()).or_default();
        for (at, r) in names.iter() {
            into.insert(at, r.clone());
        }
    }
}

impl Checker {
    /// A standard-library function's declared signature, its type
    /// variables rigid (at level 1); without a written row it is pure.
    fn library_sig(&mut self, f: &FnDecl) -> FnSig {
        self.level = 1;
        let mut sig = self.signature(
            &f.generics,
            &f.params,
            f.ret.as_ref(),
            f.effects.as_ref(),
            SigVars::Rigid,
        );
        if f.effects.is_none() {
            sig.row = self.arena.add(Node::RowEmpty);
        }
        sig
    }

    /// The scheme of a standard-library function, from its signature.
    fn library_fn(&mut self, f: &FnDecl) -> Scheme {
        let since = self.arena.len() as TyId;
        let saved = self.tyvars.names.len();
        let sig = self.library_sig(f);
        self.tyvars.names.truncate(saved);
        let ft = self.arena.add(Node::Fn(sig.params, sig.ret, sig.row));
        self.level = 0;
        self.generalize(ft, since)
    }

    /// Check the body of a standard-library function written in Writ
    /// against its declared signature.
    fn library_body(&mut self, name: &str, f: &FnDecl) {
        let Some(body) = &f.body else { return };
        let saved = self.tyvars.names.len();
        let sig = self.library_sig(f);
        self.infer_fn_body(
            name.to_string(),
            &f.params,
            &sig,
            body,
            f.ret.as_ref(),
            f.effects.as_ref(),
        );
        self.tyvars.names.truncate(saved);
        self.level = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standard library checks without a diagnostic (one would be a
    /// bug in the library).
    #[test]
    fn stdlib_type_checks_cleanly() {
        let mut c = Checker::new();
        load_stdlib(&mut c);
        assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
        assert!(c.pending.is_empty(), "a record type was left untranslated");
    }

    /// Checking the library twice gives the same image (what it holds
    /// does not depend on the order of a hash map), and it reads back to
    /// the same library.
    #[test]
    fn the_image_is_stable() {
        let made = crate::image::stable::<Library>(image);
        assert!(made.is_ok(), "{made:?}");
    }

    /// The image the build embedded is the library checked now, byte for
    /// byte (it cannot be stale), and it is the one the process uses.
    #[cfg(writ_library_image)]
    #[test]
    fn the_embedded_image_is_the_library_checked_now() {
        assert_eq!(crate::image::stable::<Library>(image).as_deref(), Ok(IMAGE));
        let used = postcard::to_stdvec(library()).unwrap_or_default();
        assert_eq!(used, IMAGE);
    }

    // A build always embeds an image (the build script sets the cfg when
    // it wrote one).
    const _: () = assert!(cfg!(writ_library_image));
}
