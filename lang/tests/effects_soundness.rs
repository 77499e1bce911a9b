//! The capability manifest misses no effect: whatever way a program hides an
//! operation (in a closure, a record, a list, a returned function, a local
//! function, a higher-order call, a branch, a handler of another effect),
//! performing it at the top level puts its effect in the manifest; and a
//! handler of that effect removes it.

use proptest::prelude::*;
use writ_lang::types::{self, Typed};

const PRELUDE: &str = "effect Ask { fn ask(q: Str) -> Int }
fn twice(f) { f(); f() }
fn make(f) { fn() { f() } }
fn apply(f, x) { f(x) }
";

/// Wrap `inner` (an expression of type `Unit` that performs an effect) in
/// one of the ways a program can carry a computation around.
fn wrap(inner: String, how: u8) -> String {
    match how % 12 {
        0 => format!("(fn() {{ {inner} }})()"),
        1 => format!("{{\n let r = {{ run: fn() {{ {inner} }} }}\n r.run()\n}}"),
        2 => format!(
            "{{\n let fs = [fn() {{ {inner} }}]\n let _ = list.map(fs, fn(f) {{ f() }})\n ()\n}}"
        ),
        3 => format!("{{\n fn helper() {{ {inner} }}\n helper()\n}}"),
        4 => format!("twice(fn() {{ {inner} }})"),
        5 => format!("handle {{ {inner} }} with {{ Ask.ask(q) => resume(1) }}"),
        6 => format!("if list.is_empty([1]) {{ {inner} }} else {{ () }}"),
        7 => format!("match Some(1) {{ Some(_) => {inner}, None => () }}"),
        8 => format!("{{\n let k = make(fn() {{ {inner} }})\n k()\n}}"),
        9 => format!("apply(fn(u) {{ {inner} }}, ())"),
        // A warning (an unreachable arm) among the arguments or branches
        // must not drop anything.
        10 => format!("apply(fn(u) {{ {inner} }}, match 0 {{ _ => (), _ => () }})"),
        _ => format!(
            "(if list.is_empty([1]) {{ fn() {{ {inner} }} }} else {{ match 0 {{ _ => fn() {{ () }}, _ => fn() {{ () }} }} }})()"
        ),
    }
}

fn check(src: &str) -> Typed {
    let parsed = writ_lang::parse(src);
    assert!(
        parsed.diagnostics.is_empty(),
        "{src}\n{:#?}",
        parsed.diagnostics
    );
    types::check(&parsed.program, &Default::default())
}

fn effects(t: &Typed) -> Vec<String> {
    t.manifest.iter().map(|m| m.effect.clone()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn hidden_effects_reach_the_manifest(
        hows in prop::collection::vec(any::<u8>(), 1..5),
        log in any::<bool>(),
    ) {
        let (op, effect) = if log {
            ("Log.info(\"x\")", "Log")
        } else {
            ("Audit.note(\"x\")", "Audit")
        };
        let mut e = op.to_string();
        for h in &hows {
            e = wrap(e, *h);
        }
        let src = format!("{PRELUDE}let _ = {e}\n");
        let t = check(&src);
        prop_assert!(
            t.diagnostics.iter().all(|d| !d.is_error()),
            "{src}\n{:#?}", t.diagnostics
        );
        prop_assert!(effects(&t).contains(&effect.to_string()), "{src}\n{:?}", effects(&t));
    }

    #[test]
    fn a_handler_of_the_effect_removes_it(
        hows in prop::collection::vec(any::<u8>(), 1..4),
    ) {
        let mut e = "Log.info(\"x\")".to_string();
        for h in &hows {
            e = wrap(e, *h);
        }
        let src = format!(
            "{PRELUDE}let _ = handle {{ {e} }} with {{ Log.info(m) => resume(()) }}\n"
        );
        let t = check(&src);
        prop_assert!(t.diagnostics.iter().all(|d| !d.is_error()), "{src}\n{:#?}", t.diagnostics);
        prop_assert!(!effects(&t).contains(&"Log".to_string()), "{src}\n{:?}", effects(&t));
    }

    #[test]
    fn a_pure_annotation_rejects_hidden_effects(
        hows in prop::collection::vec(any::<u8>(), 1..4),
    ) {
        let mut e = "Log.info(\"x\")".to_string();
        for h in &hows {
            e = wrap(e, *h);
        }
        let src = format!("{PRELUDE}fn quiet() -> Unit / {{}} {{\n  {e}\n}}\n");
        let t = check(&src);
        prop_assert!(
            t.diagnostics.iter().any(|d| d.code == writ_lang::Code::EffectNotAllowed),
            "{src}\n{:#?}", t.diagnostics
        );
        let errors = t.diagnostics.iter().filter(|d| d.is_error()).count();
        prop_assert_eq!(errors, 1, "{}\n{:#?}", src, t.diagnostics);
    }
}

#[test]
fn a_granted_set_without_the_effect_rejects() {
    let src = format!(
        "{PRELUDE}let _ = {}\n",
        wrap(wrap("Http.get(\"https://a.example\"); ()".into(), 1), 8)
    );
    let parsed = writ_lang::parse(&src);
    let granted = vec!["Log".to_string()];
    let t = types::check(
        &parsed.program,
        &types::CheckOptions {
            grants: Some(types::Grants::list(&granted)),
            ..Default::default()
        },
    );
    let codes: Vec<_> = t.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![writ_lang::Code::EffectNotGranted]);
}
