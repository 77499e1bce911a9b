//! The standard library's reference (`docs/stdlib.md`), generated from the
//! declarations and `///` comments of the embedded `stdlib/` files, so the
//! reference cannot drift from the code: a test compares the committed file
//! with [`markdown`].
//!
//! Conventions the generator relies on (and the tests enforce): every
//! namespace file starts with `//` lines describing the namespace; every
//! function's `///` comment says what it returns, and its lines starting
//! `Example:` hold an expression that evaluates to `true`.

use crate::ast::{Item, Program};
use crate::parser::parse_library;
use crate::stdlib::FILES;

/// One function of a standard-library namespace, as documented.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The namespace (`list`, `str`, ...).
    pub namespace: String,
    /// The function's name in it.
    pub name: String,
    /// Its declaration as written, on one line, without the body.
    pub signature: String,
    /// The lines of its `///` comment that are not examples.
    pub doc: Vec<String>,
    /// The expressions of its `Example:` lines.
    pub examples: Vec<String>,
    /// Whether the runtime implements it natively (the declaration has no
    /// body) rather than in Writ.
    pub native: bool,
}

/// The namespaces, in the order the library files list them.
pub fn namespaces() -> Vec<&'static str> {
    FILES
        .iter()
        .map(|f| f.name.strip_suffix(".writ").unwrap_or(f.name))
        .filter(|n| !matches!(*n, "prelude" | "capabilities"))
        .collect()
}

/// Every function of every namespace, in file order.
pub fn entries() -> Vec<Entry> {
    let mut out = Vec::new();
    for file in FILES {
        let namespace = file.name.strip_suffix(".writ").unwrap_or(file.name);
        if matches!(namespace, "prelude" | "capabilities") {
            continue;
        }
        let program = parse_library(file.source).program;
        for item in &program.items {
            if let Item::Fn(f) = item {
                let end = f.body.as_ref().map_or(f.span.end, |b| b.span.start);
                let (doc, examples) = split_doc(f.doc.as_deref().unwrap_or(""));
                out.push(Entry {
                    namespace: namespace.to_string(),
                    name: f.name.name.clone(),
                    signature: one_line(file.source.get(f.span.start..end).unwrap_or("")),
                    doc,
                    examples,
                    native: f.body.is_none(),
                });
            }
        }
    }
    out
}

/// The whole reference, as committed in `docs/stdlib.md`.
pub fn markdown() -> String {
    let entries = entries();
    let mut md = String::new();
    md.push_str("# The standard library\n\n");
    md.push_str(
        "<!-- Generated from the doc comments in stdlib/*.writ; do not edit by hand.\n     \
         Regenerate with: WRIT_BLESS=1 cargo test --test stdlib_reference -->\n\n",
    );
    md.push_str(
        "Every program can call these functions by their namespace: `list.map(xs, f)`, \
         `str.trim(s)`, `json.parse(text)`. None of them performs an effect, and none \
         stops a program except as its description says: a function that can fail says \
         so in its type, with `Option` or `Result`. The only exceptions are the ones the \
         operators share, such as an `Int` result that does not fit 64 bits \
         (runtime error E4001), and the limits of a run (E5xxx), which library functions \
         respect like any other code.\n\n\
         A function marked *native* is carried out by the runtime; the others are \
         written in Writ in `stdlib/`. Both kinds are checked against the same \
         declaration, shown here. A type parameter written `a: Ord` must be ordered, \
         `a: Eq` comparable with `==`, `n: Num` `Int` or `Float`, `a: Show` printable; \
         `/ {e}` means the function performs whatever effects the function passed to it \
         performs.\n\n\
         Every example below is run by the test suite and evaluates to `true`. \
         A name from another language (`list.len`, `str.substring`, `string.length`) \
         is not a function, but the checker says which one is meant.\n\n",
    );
    md.push_str("## Contents\n\n");
    md.push_str("- [The prelude](#the-prelude): `Option`, `Result`, `Json`, `Fail`\n");
    for ns in namespaces() {
        let names: Vec<String> = entries
            .iter()
            .filter(|e| e.namespace == ns)
            .map(|e| format!("[{}](#{}{})", e.name, ns, e.name))
            .collect();
        md.push_str(&format!("- [`{ns}`](#{ns}): {}\n", names.join(", ")));
    }
    md.push_str("- [Host capabilities](#host-capabilities): `Http`, `Pay`, `Records`, `Audit`, `Log`, `Clock`, `Confirm`\n\n");

    if let Some(prelude) = FILES.iter().find(|f| f.name == "prelude.writ") {
        md.push_str("## The prelude\n\n");
        declarations(&mut md, prelude.source);
    }
    for file in FILES {
        let ns = file.name.strip_suffix(".writ").unwrap_or(file.name);
        if matches!(ns, "prelude" | "capabilities") {
            continue;
        }
        md.push_str(&format!("## `{ns}`\n\n"));
        md.push_str(&header(file.source));
        md.push_str("\n\n");
        for e in entries.iter().filter(|e| e.namespace == ns) {
            md.push_str(&format!("### `{}.{}`\n\n", e.namespace, e.name));
            md.push_str(&format!("```writ\n{}\n```\n\n", e.signature));
            if !e.doc.is_empty() {
                md.push_str(&e.doc.join("\n"));
                md.push_str("\n\n");
            }
            for x in &e.examples {
                md.push_str(&format!("Example: `{x}`\n\n"));
            }
            if e.native {
                md.push_str("*Native.*\n\n");
            }
        }
    }
    if let Some(caps) = FILES.iter().find(|f| f.name == "capabilities.writ") {
        md.push_str("## Host capabilities\n\n");
        md.push_str(&header(caps.source));
        md.push_str("\n\n");
        declarations(&mut md, caps.source);
    }
    while md.ends_with("\n\n") {
        md.pop();
    }
    md
}

/// The types and effects a file declares, each with its comment.
fn declarations(md: &mut String, source: &str) {
    let program: Program = parse_library(source).program;
    for item in &program.items {
        match item {
            Item::Type(t) => {
                md.push_str(&format!("### `{}`\n\n", t.name.name));
                let text = source.get(t.span.start..t.span.end).unwrap_or("");
                md.push_str(&format!("```writ\n{}\n```\n\n", one_line(text)));
                if let Some(doc) = &t.doc {
                    md.push_str(&one_paragraph(doc));
                    md.push_str("\n\n");
                }
            }
            Item::Effect(e) => {
                md.push_str(&format!("### `{}`\n\n", e.name.name));
                if let Some(doc) = &e.doc {
                    md.push_str(&one_paragraph(doc));
                    md.push_str("\n\n");
                }
                md.push_str("| Operation | |\n|---|---|\n");
                for op in &e.ops {
                    let text = source.get(op.span.start..op.span.end).unwrap_or("");
                    let sig = one_line(text).replacen("fn ", &format!("{}.", e.name.name), 1);
                    let doc = op.doc.as_deref().map(one_paragraph).unwrap_or_default();
                    md.push_str(&format!("| `{sig}` | {doc} |\n"));
                }
                md.push('\n');
            }
            _ => {}
        }
    }
}

/// The `//` comment lines a library file starts with, as one paragraph.
fn header(source: &str) -> String {
    let lines: Vec<&str> = source
        .lines()
        .take_while(|l| l.starts_with("//") && !l.starts_with("///"))
        .map(|l| l.trim_start_matches('/').trim())
        .collect();
    lines.join(" ")
}

/// A doc comment's lines: the description, and the examples.
fn split_doc(doc: &str) -> (Vec<String>, Vec<String>) {
    let mut text = Vec::new();
    let mut examples = Vec::new();
    for line in doc.lines() {
        let line = line.trim();
        match line.strip_prefix("Example:") {
            Some(e) => examples.push(e.trim().to_string()),
            None if !line.is_empty() => text.push(line.to_string()),
            None => {}
        }
    }
    (text, examples)
}

fn one_paragraph(doc: &str) -> String {
    doc.lines().map(str::trim).collect::<Vec<_>>().join(" ")
}

/// `text` with its runs of white space (line breaks included) made single
/// spaces, and without its `///` lines (a declaration's span starts at its
/// doc comment).
fn one_line(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("///"))
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_leave_out_bodies() {
        let all = entries();
        let map = all
            .iter()
            .find(|e| e.namespace == "list" && e.name == "map")
            .map(|e| e.signature.as_str());
        assert_eq!(
            map,
            Some("fn map(xs: List[a], f: fn(a) -> b / {e}) -> List[b] / {e}")
        );
        let length = all
            .iter()
            .find(|e| e.namespace == "list" && e.name == "length");
        assert!(length.is_some_and(|e| e.native && e.examples.len() == 1));
    }
}
