//! Lowering the standard library: its types and effects are declared, its
//! functions written in Writ are lowered like a program's (from the
//! checker's resolution of their file,
//! [`writ_lang::types::resolution::library`]), and each
//! body-less function is bound to its native (found by name; a missing one
//! is an error, so the library and the natives cannot drift apart).

use std::collections::HashMap;

use writ_lang::ast::{FnDecl, Item};

use super::{Lowerer, Slot};
use crate::code::NativeInfo;
use crate::natives;

impl Lowerer {
    /// Declare the standard library's types and effects, and lower its
    /// functions (natives are looked up by name); with `walks`, the walks
    /// over a list that [`super::loops`] has as loops take that code.
    pub(super) fn library(&mut self, walks: bool) -> Result<(), String> {
        let mut bodies: Vec<(&str, FnDecl, u32)> = Vec::new();
        for file in writ_lang::stdlib::FILES {
            let ns = file.name.strip_suffix(".writ").unwrap_or(file.name);
            let parsed = writ_lang::parse_library(file.source);
            if parsed.has_errors() {
                return Err(format!(
                    "the standard library file {} does not parse",
                    file.name
                ));
            }
            if matches!(ns, "prelude" | "capabilities") {
                self.declare(&parsed.program);
                if ns == "prelude" {
                    self.prelude_ctors()?;
                }
                continue;
            }
            let mut members = HashMap::new();
            for item in parsed.program.items {
                let Item::Fn(f) = item else { continue };
                let qualified = format!("{ns}.{}", f.name.name);
                if f.body.is_some() {
                    let id = self.reserve_fn(&qualified, f.params.len());
                    members.insert(f.name.name.clone(), Slot::Func(id));
                    bodies.push((file.name, *f, id));
                } else {
                    let Some(id) = natives::lookup(&qualified) else {
                        return Err(format!("no native implementation of `{qualified}`"));
                    };
                    self.module.natives.push(NativeInfo {
                        name: qualified,
                        arity: f.params.len() as u32,
                        entry: id,
                    });
                    let index = self.module.natives.len() as u32 - 1;
                    members.insert(f.name.name.clone(), Slot::Native(index));
                }
            }
            std::sync::Arc::make_mut(&mut self.namespaces).insert(ns.to_string(), members);
        }
        let resolutions = writ_lang::types::resolution::library();
        for (file, f, id) in bodies {
            let Some(r) = resolutions.get(file) else {
                return Err(format!(
                    "the checker did not resolve the standard library file {file}"
                ));
            };
            let name = self
                .module
                .functions
                .get(id as usize)
                .map(|g| g.name.clone());
            let (some, none) = (self.module.prelude.some, self.module.prelude.none);
            if walks
                && let Some(name) = name
                && let Some(walk) =
                    super::loops::function(&name, f.params.len() as u32, some, none, f.span)
                && let Some(slot) = self.module.functions.get_mut(id as usize)
            {
                *slot = walk;
                continue;
            }
            self.resolution = std::borrow::Cow::Borrowed(r);
            self.function(&f, id);
        }
        Ok(())
    }

    /// The native summing `Float`s (registered on first use).
    pub(super) fn float_sum(&mut self) -> Option<Slot> {
        if let Some(n) = self.float_sum_native {
            return Some(Slot::Native(n));
        }
        let entry = natives::lookup(natives::FLOAT_SUM)?;
        self.module.natives.push(NativeInfo {
            name: "list.sum".into(),
            arity: 1,
            entry,
        });
        let n = self.module.natives.len() as u32 - 1;
        self.float_sum_native = Some(n);
        Some(Slot::Native(n))
    }

    /// Record the prelude's constructors, which natives build.
    fn prelude_ctors(&mut self) -> Result<(), String> {
        let id = |name: &str| {
            self.ctor_ids
                .get(name)
                .copied()
                .ok_or_else(|| format!("the prelude does not declare `{name}`"))
        };
        self.module.prelude = crate::code::PreludeCtors {
            some: id("Some")?,
            none: id("None")?,
            ok: id("Ok")?,
            err: id("Err")?,
            null: id("Null")?,
            bool: id("Bool")?,
            number: id("Number")?,
            string: id("String")?,
            array: id("Array")?,
            object: id("Object")?,
        };
        Ok(())
    }
}
