//! The standard library lowered once: the state every program's lowering
//! starts from.
//!
//! Lowering `stdlib/*.writ` (from the checker's resolution of each file,
//! [`super::library`]) gives a [`Lowerer`] holding the library's
//! functions, natives, constructors, effects and symbols. The build makes
//! it once: `runtime/build.rs` compiles this crate's modules into itself,
//! lowers the library and writes the result as an *image* (postcard,
//! every map in key order), which the crate embeds
//! (`cfg(writ_library_image)`, set by the build script for the crate
//! alone) and reads at its first use in a process. Each program starts
//! from a copy of it.
//!
//! Invariants: the image cannot go stale. It is made by this crate's own
//! source and the `writ-lang` it is compiled against (a build dependency:
//! cargo runs the script again when either changes, or a file of
//! `stdlib/`), and a test checks that the embedded image is, byte for
//! byte, the library lowered now. An image that does not read (which
//! would be a bug) is never used: the library is then lowered at first
//! use, as in a build without an image.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use writ_lang::image::WithInterfaces;
use writ_lang::types::Resolution;

use super::Lowerer;
use crate::code::Module;

/// The library's image, written by the build script.
#[cfg(writ_library_image)]
static IMAGE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/lowered.bin"));

/// The library, read from the image (or lowered) at first use.
static LIBRARY: OnceLock<Result<Lowerer, String>> = OnceLock::new();

/// The lowerers holding the library with recent sets of interfaces.
static INTERFACE_SETS: WithInterfaces<Lowerer> = WithInterfaces::new();

/// The standard library, lowered, for this process.
fn library() -> Result<&'static Lowerer, String> {
    LIBRARY
        .get_or_init(|| {
            #[cfg(writ_library_image)]
            // Its code is checked again (a module read from bytes starts
            // unchecked), as lowering checks it.
            if let Some(mut lowerer) = writ_lang::image::read::<Lowerer>(IMAGE)
                && lowerer.module.verify().is_ok()
            {
                return Ok(lowerer);
            }
            Lowerer::library_fresh()
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The image of the library lowered now: what the build script embeds.
/// The same library gives the same bytes (maps are written in key order).
#[allow(dead_code)] // used by the build script and the tests
pub(crate) fn image() -> Result<Vec<u8>, String> {
    postcard::to_stdvec(&Lowerer::library_fresh()?).map_err(|e| e.to_string())
}

impl Lowerer {
    /// A lowerer holding the standard library and the host capability
    /// `interfaces`, ready for a program.
    pub(crate) fn library_only(interfaces: &[String]) -> Result<Lowerer, String> {
        if interfaces.is_empty() {
            return library().cloned();
        }
        // Each set of interfaces is declared once (the last few kept).
        INTERFACE_SETS.get(interfaces, || {
            let mut l = library()?.clone();
            l.in_library = true;
            for source in interfaces {
                let parsed = writ_lang::parse_library(source);
                if parsed.has_errors() {
                    return Err("a host capability interface does not parse".to_string());
                }
                l.declare(&parsed.program);
                // A host gives each operation's result as data: the field
                // names of its records must be symbols of the module.
                for item in &parsed.program.items {
                    if let writ_lang::ast::Item::Effect(e) = item {
                        for (_, ty) in writ_lang::types::operation_results(source, &e.name.name) {
                            if let Ok(ty) = ty {
                                l.symbols_of(&ty);
                            }
                        }
                    }
                }
            }
            l.in_library = false;
            l.resolution = Cow::Owned(Resolution::default());
            Ok(l)
        })
    }

    /// A lowerer holding the standard library alone, lowered now.
    fn library_fresh() -> Result<Lowerer, String> {
        Lowerer::library_lowered(true)
    }

    /// The standard library lowered now, with its walks over a list as
    /// loops ([`super::loops`]) or, without `walks`, as their Writ text
    /// is written (what the tests compare the loops with).
    pub(super) fn library_lowered(walks: bool) -> Result<Lowerer, String> {
        let mut l = Lowerer {
            module: Module::default(),
            ctor_ids: Arc::default(),
            effect_ids: Arc::default(),
            never_ops: Vec::new(),
            symbol_ids: Arc::default(),
            shape_ids: Arc::default(),
            string_ids: Arc::default(),
            namespaces: Arc::default(),
            top: HashMap::new(),
            in_library: true,
            ctor_wrappers: Arc::default(),
            fns: Vec::new(),
            resolution: Cow::Owned(Resolution::default()),
            float_sum_native: None,
            session: HashMap::new(),
            inputs: HashMap::new(),
        };
        stacker::maybe_grow(crate::STACK_RED_ZONE, crate::STACK_CHUNK, || {
            l.library(walks)
        })?;
        super::finish(&mut l.module, 0)?;
        l.in_library = false;
        l.resolution = Cow::Owned(Resolution::default());
        Ok(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lowering the library twice gives the same image (what it holds
    /// does not depend on the order of a hash map), and it reads back to
    /// the same library.
    #[test]
    fn the_image_is_stable() {
        let made = writ_lang::image::stable::<Lowerer>(image);
        assert!(made.is_ok(), "{made:?}");
    }

    /// The image the build embedded is the library lowered now, byte for
    /// byte (it cannot be stale), and it is the one the process uses.
    #[cfg(writ_library_image)]
    #[test]
    fn the_embedded_image_is_the_library_lowered_now() {
        assert_eq!(
            writ_lang::image::stable::<Lowerer>(image).as_deref(),
            Ok(IMAGE)
        );
        let used = library().map(|l| postcard::to_stdvec(l).unwrap_or_default());
        assert_eq!(used.as_deref(), Ok(IMAGE));
    }

    /// The image holds no record of its code's check: read back, the
    /// library starts unchecked, and the one the process uses was
    /// checked after it was read.
    #[cfg(writ_library_image)]
    #[test]
    fn the_library_read_from_its_image_is_checked_again() {
        let read = writ_lang::image::read::<Lowerer>(IMAGE);
        assert!(
            read.as_ref()
                .is_some_and(|l| !l.module.functions.is_empty())
        );
        assert!(read.is_some_and(|l| l.module.verified == 0));
        assert!(library().is_ok_and(|l| l.module.is_verified()));
    }

    // A build always embeds an image (the build script sets the cfg when
    // it wrote one).
    const _: () = assert!(cfg!(writ_library_image));
}
