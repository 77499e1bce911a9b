//! Every standard-library function is total on awkward arguments: called
//! with every combination of edge values of its parameter types (empty and
//! Unicode strings, the Int extremes, NaN, infinities and -0.0, empty and
//! duplicated lists and maps, every `Json` kind), it returns a value or
//! stops with a documented run-time error (overflow, division by zero) or
//! an exhausted limit, and never panics or reaches an internal error
//! (E4004).
//!
//! The calls are generated from the declarations in `stdlib/`, so a new
//! function is covered as soon as it is declared. Type parameters are
//! instantiated at `Int`; a function argument is a lambda that ignores its
//! parameters and returns an edge value of its result type.

use writ_lang::ast::{Item, TypeExpr, TypeExprKind};

/// Edge values of a type, as Writ source; `None` for a type the test does
/// not know how to build (the test then fails, naming it).
fn pool(t: &TypeExpr) -> Option<Vec<String>> {
    let strs = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect());
    match &t.kind {
        TypeExprKind::Var(_) => pool_named("Int", &[]),
        TypeExprKind::Unit => strs(&["()"]),
        TypeExprKind::Tuple(parts) => {
            let pools: Vec<Vec<String>> = parts.iter().map(pool).collect::<Option<_>>()?;
            Some(
                (0..2)
                    .map(|i| {
                        let items: Vec<String> = pools
                            .iter()
                            .map(|p| p.get((i * 3) % p.len().max(1)).cloned().unwrap_or_default())
                            .collect();
                        format!("({})", items.join(", "))
                    })
                    .collect(),
            )
        }
        TypeExprKind::Fn { params, ret, .. } => {
            let results = pool(ret)?;
            let args = vec!["_"; params.len()].join(", ");
            let mut out = vec![format!("fn({args}) {{ {} }}", results.first()?)];
            if let Some(last) = results
                .last()
                .filter(|l| *l != results.first().unwrap_or(l))
            {
                out.push(format!("fn({args}) {{ {last} }}"));
            }
            Some(out)
        }
        TypeExprKind::Named { name, args } => pool_named(&name.name, args),
        _ => None,
    }
}

fn pool_named(name: &str, args: &[TypeExpr]) -> Option<Vec<String>> {
    let strs = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect());
    match (name, args) {
        ("Int", []) => strs(&[
            "0",
            "-1",
            "3",
            "9223372036854775807",
            "(-9223372036854775807 - 1)",
        ]),
        ("Float", []) => strs(&["0.0", "-0.0", "2.5", "(0.0 / 0.0)", "(1.0 / 0.0)", "-1e308"]),
        ("Str", []) => strs(&[
            "\"\"",
            "\"a,b\\n\"",
            "\" é😀 \"",
            "\"e\\u{301}x\"",
            "\"-12\"",
        ]),
        ("Bool", []) => strs(&["true", "false"]),
        ("Json", []) => strs(&[
            "Null",
            "Number(0.0 / 0.0)",
            "Array([Number(1.0), String(\"x\")])",
            "Object(map.from_list([(\"a\", Bool(true))]))",
            "String(\"\\u{0}\")",
        ]),
        ("List", [t]) => {
            let p = pool(t)?;
            let two: Vec<String> = p.iter().rev().take(2).cloned().collect();
            Some(vec![
                "[]".to_string(),
                format!("[{}]", p.first()?),
                format!("[{}, {}]", two.join(", "), p.first()?),
            ])
        }
        ("Map", [k, v]) => {
            let (k, v) = (pool(k)?, pool(v)?);
            Some(vec![
                "map.empty()".to_string(),
                format!(
                    "map.from_list([({}, {}), ({}, {})])",
                    k.first()?,
                    v.first()?,
                    k.last()?,
                    v.last()?
                ),
            ])
        }
        ("Option", [t]) => Some(vec![
            "None".to_string(),
            format!("Some({})", pool(t)?.last()?),
        ]),
        ("Result", [t, e]) => Some(vec![
            format!("Ok({})", pool(t)?.last()?),
            format!("Err({})", pool(e)?.first()?),
        ]),
        _ => None,
    }
}

/// Every combination of one value from each pool, at most `cap` of them.
fn combinations(pools: &[Vec<String>], cap: usize) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![Vec::new()];
    for p in pools {
        out = out
            .iter()
            .flat_map(|prefix| {
                p.iter().map(move |v| {
                    let mut next = prefix.clone();
                    next.push(v.clone());
                    next
                })
            })
            .take(cap)
            .collect();
    }
    out
}

#[test]
fn every_library_function_is_total_on_edge_values() {
    let mut limits = writ::Limits::default();
    for (name, value) in [("memory", "64M"), ("fuel", "50000000"), ("time", "20s")] {
        if let Err(e) = limits.set(name, value) {
            panic!("{name}: {e}");
        }
    }
    let mut calls = Vec::new();
    let mut unknown = Vec::new();
    for file in writ_lang::stdlib::FILES {
        let ns = file.name.strip_suffix(".writ").unwrap_or(file.name);
        if matches!(ns, "prelude" | "capabilities") {
            continue;
        }
        for item in writ_lang::parse_library(file.source).program.items {
            let Item::Fn(f) = item else { continue };
            let pools: Option<Vec<Vec<String>>> = f
                .params
                .iter()
                .map(|p| p.ty.as_ref().and_then(pool))
                .collect();
            match pools {
                Some(pools) => {
                    for args in combinations(&pools, 150) {
                        calls.push(format!("{ns}.{}({})", f.name.name, args.join(", ")));
                    }
                }
                None => unknown.push(format!("{ns}.{}", f.name.name)),
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "no edge values for the parameters of {unknown:?}"
    );
    assert!(calls.len() > 1000, "only {} calls", calls.len());

    // Run the calls in order; when one stops the run, record why and go on
    // from the next.
    let mut start = 0;
    let mut stops = Vec::new();
    while start < calls.len() {
        let program: String = calls
            .iter()
            .enumerate()
            .skip(start)
            .map(|(i, c)| format!("Log.info(\"{i}: ${{{c}}}\")\n"))
            .collect();
        let mut printed = 0usize;
        let ran = writ::run_source(&program, &limits, &mut |_: &str| printed += 1, None);
        assert!(
            ran.checked.accepted(),
            "the generated calls do not check: {:#?}",
            ran.checked.diagnostics.first()
        );
        match ran.result {
            Some(Ok(_)) => break,
            Some(Err(e)) => {
                let at = start + printed;
                let call = calls.get(at).cloned().unwrap_or_default();
                let code = e.code.to_string();
                // An assertion that does not hold stops the run by design.
                let assertion = code == "E4016" && call.starts_with("assert.");
                assert!(
                    assertion || matches!(code.as_str(), "E4001" | "E4002" | "E5001" | "E5002"),
                    "{call} stopped with {code}: {}",
                    e.message
                );
                stops.push(format!("{call}: {code}"));
                start = at + 1;
            }
            None => panic!("not run"),
        }
    }
    // The extremes must make some calls stop (an overflow, a list too
    // large): if none did, the edge values are not reaching the functions.
    assert!(
        stops.iter().any(|s| s.ends_with("E4001")) && stops.iter().any(|s| s.ends_with("E5002")),
        "{stops:#?}"
    );
}
