//! The check corpus (`tests/corpus/` at the root of the workspace) through
//! the library: every case is parsed and checked in this process, with
//! [`writ_lang::parse`] for the cases under `parse/` (what
//! `writ check --syntax-only` runs) and [`writ_lang::analyse`] for the
//! others (what `writ check` runs, the standard library included, as the
//! `writ` facade's `check_source` calls it), so that
//! `cargo test -p writ-lang` exercises the checker without building or
//! spawning the `writ` binary. The corpus stays the specification; the
//! root harness, `tests/corpus.rs`, runs the same cases through the binary.
//!
//! For each case this harness asserts:
//! - the header (`// expect: accepted` or `// expect: CODE ...`): the codes
//!   of the diagnostics found, in order, and so whether it is accepted;
//! - everything the case's `.json` records of the check, field by field:
//!   the status, each diagnostic's code, severity, message, notes, help and
//!   labels (primary or not, message, and both ends as line, column and
//!   byte offset), the signatures, and the capability manifest with its
//!   sites.
//!
//! What needs the command line or the renderer is not compared here:
//! - the `.out` file (the diagnostics as rendered for people, and the
//!   summary lines), nor the file name and exit code, which are the CLI's;
//! - the help of `E3002`, which says where to grant a capability in the
//!   words of the command line (`--grant`, `--policy`): for it the code,
//!   message and labels are compared, not the help.
//!
//! The `// args:` line is read as `writ check` reads it: `--grant A,B`
//! (names trimmed; empty names and `Fail` dropped) grants those
//! capabilities as the flag does. A case with any other argument fails
//! here until this harness learns it. Under `WRIT_BLESS=1` (when the root
//! harness rewrites the expected files) only the headers are compared.

#[path = "../../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use writ_lang::types::{CheckOptions, Grants, ManifestEntry, Signature};
use writ_lang::{Code, Diagnostic, LineIndex, Span};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("tests")
        .join("corpus")
}

/// What checking a case found: what `writ check` builds its output from.
struct Found {
    diagnostics: Vec<Diagnostic>,
    signatures: Vec<Signature>,
    manifest: Vec<ManifestEntry>,
}

/// The capabilities a case's `// args:` line grants (`None`: no `--grant`,
/// so no grant is checked), or why the arguments need the command line.
fn granted(args: &[String]) -> Result<Option<Vec<String>>, String> {
    match args {
        [] => Ok(None),
        [flag, list] if flag == "--grant" => Ok(Some(
            list.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty() && *s != "Fail")
                .map(str::to_string)
                .collect(),
        )),
        _ => Err(format!(
            "arguments {args:?} need the command line; teach lang/tests/corpus.rs to read them"
        )),
    }
}

/// Check a case the way `writ check` does, through the library.
fn check(rel: &str, text: &str, args: &[String]) -> Result<Found, String> {
    let names = granted(args)?;
    if rel.starts_with("parse/") {
        if names.is_some() {
            return Err("a syntax-only case grants nothing".to_string());
        }
        return Ok(Found {
            diagnostics: writ_lang::parse(text).diagnostics,
            signatures: Vec::new(),
            manifest: Vec::new(),
        });
    }
    let options = CheckOptions {
        grants: names.as_deref().map(Grants::list),
        ..Default::default()
    };
    let a = writ_lang::analyse(text, &options);
    let (signatures, manifest) = a
        .typed
        .map(|t| (t.signatures, t.manifest))
        .unwrap_or_default();
    Ok(Found {
        diagnostics: a.diagnostics,
        signatures,
        manifest,
    })
}

/// One diagnostic as the case's `.json` records it, without the file name.
fn diagnostic(d: &Diagnostic, text: &str, lines: &LineIndex<'_>) -> Value {
    let labels: Vec<Value> = d
        .labels
        .iter()
        .map(|l| {
            // Where the JSON renderer (`src/render.rs`) places a label.
            let at = l.span.within(text);
            json!({
                "primary": l.primary,
                "message": l.message,
                "start": lines.position(at.start),
                "end": lines.position(at.end),
            })
        })
        .collect();
    let mut v = json!({
        "code": d.code.as_str(),
        "severity": d.severity,
        "message": d.message,
        "labels": labels,
        "notes": d.notes,
        "help": d.help,
    });
    if d.code == Code::EffectNotGranted
        && let Some(fields) = v.as_object_mut()
    {
        fields.remove("help");
    }
    v
}

/// What the case's `.json` records of one file, without its name.
fn document(found: &Found, text: &str) -> Value {
    let lines = LineIndex::new(text);
    let accepted = !found.diagnostics.iter().any(Diagnostic::is_error);
    let at = |span: Span| lines.position(span.start);
    json!({
        "status": if accepted { "accepted" } else { "rejected" },
        "diagnostics": found.diagnostics.iter().map(|d| diagnostic(d, text, &lines)).collect::<Vec<_>>(),
        "manifest": found.manifest.iter().map(|m| json!({
            "effect": m.effect,
            "capability": m.capability,
            "sites": m.sites.iter().map(|(op, span)| {
                let p = at(*span);
                let kind = writ_lang::types::builtin_op_kind(&m.effect, op).map(|k| k.as_str());
                json!({ "operation": op, "kind": kind, "line": p.line, "column": p.column })
            }).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "signatures": found.signatures.iter().map(|s| {
            let p = at(s.span);
            json!({ "name": s.name, "signature": s.signature, "line": p.line, "column": p.column })
        }).collect::<Vec<_>>(),
    })
}

/// The file of a `.json` expected file, with what is not compared here
/// removed: the file names, and the help of `E3002`.
fn expected_document(json: &str) -> Result<Value, String> {
    let doc: Value = serde_json::from_str(json).map_err(|e| format!("unreadable .json: {e}"))?;
    let mut file = doc
        .get("files")
        .and_then(|f| f.get(0))
        .cloned()
        .ok_or("the .json has no file")?;
    if let Some(fields) = file.as_object_mut() {
        fields.remove("path");
    }
    for d in file
        .get_mut("diagnostics")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        let edge = d.get("code").and_then(Value::as_str) == Some(Code::EffectNotGranted.as_str());
        if let Some(fields) = d.as_object_mut() {
            fields.remove("file");
            if edge {
                fields.remove("help");
            }
        }
    }
    Ok(file)
}

/// Where `actual` first differs from `want`, as a path of keys and indices.
fn first_difference(want: &Value, actual: &Value, path: String) -> Option<String> {
    match (want, actual) {
        (Value::Object(w), Value::Object(a)) => {
            let mut keys: Vec<&String> = w.keys().chain(a.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                let (w, a) = (w.get(k), a.get(k));
                match (w, a) {
                    (Some(w), Some(a)) => first_difference(w, a, format!("{path}.{k}")),
                    _ => Some(format!(
                        "{path}.{k}: expected {}, found {}",
                        show(w),
                        show(a)
                    )),
                }
            })
        }
        (Value::Array(w), Value::Array(a)) if w.len() == a.len() => w
            .iter()
            .zip(a)
            .enumerate()
            .find_map(|(i, (w, a))| first_difference(w, a, format!("{path}[{i}]"))),
        _ if want == actual => None,
        _ => Some(format!(
            "{path}: expected {}, found {}",
            show(Some(want)),
            show(Some(actual))
        )),
    }
}

fn show(v: Option<&Value>) -> String {
    v.map_or("nothing".to_string(), |v| {
        serde_json::to_string_pretty(v).unwrap_or_default()
    })
}

#[test]
fn corpus_through_the_library() {
    let all = common::cases(&corpus_dir());
    assert!(
        all.len() >= 60,
        "expected at least 60 corpus cases in {}, found {}",
        corpus_dir().display(),
        all.len()
    );
    let mut failures = common::Failures::new("WRIT_BLESS=1 cargo test --test corpus");
    for case in &all {
        let rel = &case.rel;
        let expected_codes = match common::expected_codes(&case.text) {
            Ok(h) => h.unwrap_or_default(),
            Err(e) => {
                failures.push(format!("{rel}: {e}"));
                continue;
            }
        };
        let text = case.text.strip_prefix('\u{FEFF}').unwrap_or(&case.text);
        let found = match check(rel, text, &case.args()) {
            Ok(found) => found,
            Err(e) => {
                failures.push(format!("{rel}: {e}"));
                continue;
            }
        };
        let codes: Vec<&str> = found.diagnostics.iter().map(|d| d.code.as_str()).collect();
        if codes != expected_codes {
            failures.push(format!(
                "{rel}: the header expects codes {expected_codes:?}, the library found {codes:?}"
            ));
        }
        if failures.bless {
            continue;
        }
        let Some(json) = case.expected("json") else {
            failures.push(format!(
                "{rel}: no .json file; run `WRIT_BLESS=1 cargo test --test corpus` and review it"
            ));
            continue;
        };
        let want = match expected_document(&json) {
            Ok(want) => want,
            Err(e) => {
                failures.push(format!("{rel}: {e}"));
                continue;
            }
        };
        let actual = document(&found, text);
        if let Some(difference) = first_difference(&want, &actual, String::new()) {
            failures.push(format!(
                "{rel}: the library's result differs from the .json at {difference}"
            ));
        }
    }
    failures.finish("corpus (through the library)");
}
