//! Sessions: definitions persist across inputs, redefinition replaces a
//! name for later inputs only, and a rejected or failed input defines
//! nothing.

use writ_host::engine::{Engine, RunOptions};
use writ_host::session::{Evaluation, Event, Session};

fn session() -> Session {
    Session::new(Engine::new(), None, RunOptions::default()).expect("a session")
}

fn eval(s: &mut Session, text: &str) -> Evaluation {
    s.eval("<input>", text, &mut |_: Event<'_>| {}, None)
}

/// The values an input shows, as `name : type = value` lines.
fn shown(s: &mut Session, text: &str) -> Vec<String> {
    let e = eval(s, text);
    assert!(
        e.diagnostics.iter().all(|d| !d.is_error()),
        "{text}: {:?}",
        e.diagnostics
    );
    assert!(e.error.is_none(), "{text}: {:?}", e.error);
    e.values
        .iter()
        .map(|v| format!("{} : {} = {}", v.name, v.ty, v.text))
        .collect()
}

/// A session under the policy of `examples/<name>`, on a fresh store;
/// the policy and the store's path too.
fn example_session(name: &str) -> (Session, writ_host::policy::Policy, std::path::PathBuf) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name);
    let text = std::fs::read_to_string(dir.join("policy.toml")).expect("the policy");
    let mut policy = writ_host::policy::parse(&text).expect("a valid policy");
    policy.dir = Some(dir);
    let db = std::env::temp_dir().join(format!("writ-session-{name}-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&db);
    let options = RunOptions {
        store: Some(db.display().to_string()),
        ..Default::default()
    };
    let s = Session::new(Engine::new(), Some(policy.clone()), options).expect("a session");
    (s, policy, db)
}

fn codes(e: &Evaluation) -> Vec<&str> {
    e.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

#[test]
fn lets_and_functions_persist() {
    let mut s = session();
    assert_eq!(
        shown(&mut s, "let xs = [1, 2, 3]"),
        ["xs : List[Int] = [1, 2, 3]"]
    );
    assert_eq!(
        shown(&mut s, "fn double(x) { x * 2 }"),
        Vec::<String>::new()
    );
    assert_eq!(
        shown(&mut s, "list.map(xs, double)"),
        ["- : List[Int] = [2, 4, 6]"]
    );
    assert_eq!(
        shown(&mut s, "let ys = xs ++ [4]\nys"),
        [
            "ys : List[Int] = [1, 2, 3, 4]",
            "- : List[Int] = [1, 2, 3, 4]"
        ]
    );
    assert_eq!(shown(&mut s, "\"s\" ++ \"t\""), ["- : Str = \"st\""]);
}

#[test]
fn redefinition_replaces_for_later_inputs_only() {
    let mut s = session();
    shown(&mut s, "fn f(x) { x + 1 }");
    shown(&mut s, "fn g(x) { f(x) * 10 }");
    shown(&mut s, "fn f(x) { x + 2 }");
    assert_eq!(shown(&mut s, "(f(0), g(0))"), ["- : (Int, Int) = (2, 10)"]);
    // A let and a fn of the same name: the later one wins.
    shown(&mut s, "let f = 5");
    assert_eq!(shown(&mut s, "f + 1"), ["- : Int = 6"]);
    shown(&mut s, "fn f() { \"fn again\" }");
    assert_eq!(shown(&mut s, "f()"), ["- : Str = \"fn again\""]);
    // A let may use the name it replaces.
    shown(&mut s, "let n = 1");
    assert_eq!(shown(&mut s, "let n = n + 1"), ["n : Int = 2"]);
}

#[test]
fn types_and_effects_can_be_redeclared() {
    let mut s = session();
    shown(&mut s, "type Shape = Circle(Float) | Square(Float)");
    shown(
        &mut s,
        "fn area(s) { match s { Circle(r) => 3.0 * r * r, Square(a) => a * a } }",
    );
    assert_eq!(shown(&mut s, "area(Square(2.0))"), ["- : Float = 4.0"]);
    shown(&mut s, "type Shape = Dot");
    assert_eq!(shown(&mut s, "Dot"), ["- : Shape = Dot"]);
    // The old constructor's type is the old Shape, which area still takes.
    assert_eq!(shown(&mut s, "area(Circle(1.0))"), ["- : Float = 3.0"]);
    let e = eval(&mut s, "area(Dot)");
    assert_eq!(codes(&e), ["E2001"], "{:?}", e.diagnostics);

    shown(&mut s, "effect Ask { fn ask() -> Int }");
    shown(&mut s, "fn twice() { Ask.ask() + Ask.ask() }");
    assert_eq!(
        shown(&mut s, "handle twice() with { Ask.ask() => resume(21) }"),
        ["- : Int = 42"]
    );
    shown(&mut s, "effect Ask { fn ask() -> Str }");
    assert_eq!(
        shown(
            &mut s,
            "handle Ask.ask() with { Ask.ask() => resume(\"new\") }"
        ),
        ["- : Str = \"new\""]
    );
    // twice performs the old Ask, which a handler of the new one does not
    // handle: rejected, not run.
    let e = eval(&mut s, "handle twice() with { Ask.ask() => resume(\"x\") }");
    assert!(!e.accepted, "{:?}", e.diagnostics);
}

#[test]
fn a_rejected_or_failed_input_defines_nothing() {
    let mut s = session();
    let e = eval(&mut s, "fn ok() { 1 }\nlet bad: Int = \"no\"");
    assert!(!e.accepted);
    let e = eval(&mut s, "ok()");
    assert_eq!(codes(&e), ["E1001"]);

    let e = eval(&mut s, "let a = 1\nlet b = 1 / 0");
    assert!(e.accepted);
    assert_eq!(e.error.as_ref().map(|e| e.code.as_str()), Some("E4002"));
    let e = eval(&mut s, "a");
    assert_eq!(codes(&e), ["E1001"], "{:?}", e.diagnostics);
    assert_eq!(shown(&mut s, "let a = 2"), ["a : Int = 2"]);
}

#[test]
fn without_a_policy_only_log_is_granted() {
    let mut s = session();
    let mut lines = Vec::new();
    let mut sink = |e: Event<'_>| {
        if let Event::Log(l) = e {
            lines.push(l.to_string());
        }
    };
    let e = s.eval("<input>", "Log.info(\"hi\")", &mut sink, None);
    assert!(e.error.is_none() && e.values.is_empty());
    assert_eq!(lines, ["hi"]);
    let e = eval(&mut s, "Http.get(\"https://example.com\")");
    assert_eq!(codes(&e), ["E3002"]);
    // A function that performs Http can be defined, but not called.
    let e = eval(&mut s, "fn fetch() { Http.get(\"https://example.com\") }");
    assert!(e.accepted);
    let e = eval(&mut s, "fetch()");
    assert_eq!(codes(&e), ["E3002"]);
}

#[test]
fn spans_name_the_input_they_are_in() {
    let mut s = session();
    eval(&mut s, "let a = 1");
    let e = eval(&mut s, "let b = 2\nb + \"x\"");
    let d = e.diagnostics.first().expect("a diagnostic");
    let span = d.primary_span().expect("a span");
    let (source, local) = s.locate(span).expect("located");
    assert_eq!(source.text, "let b = 2\nb + \"x\"");
    assert!(
        source.text[local.start..local.end].contains('x'),
        "{local:?}"
    );
}

#[test]
fn under_a_policy_operations_are_told_as_they_happen_and_audited() {
    let (mut s, _, db) = example_session("my_benefits");
    let mut seen: Vec<String> = Vec::new();
    let mut sink = |e: Event<'_>| match e {
        Event::Log(l) => seen.push(format!("log {l}")),
        Event::Operation(op) => seen.push(format!(
            "{} {} {:?}",
            op.operation, op.decision, op.audit_id
        )),
    };
    let e = s.eval(
        "<input>",
        "let me = Records.read(\"e1002\")\nLog.info(me.name)\nlet other = handle Records.read(\"e1001\").name with { Fail.fail(_) => \"no\" }",
        &mut sink,
        None,
    );
    assert!(e.error.is_none(), "{:?}", e.error);
    assert_eq!(
        seen,
        [
            "Records.read allowed Some(1)",
            "Log.info allowed None",
            "log Grace Hopper",
            "Records.read denied Some(2)"
        ]
    );
    // Both reads are in the audit log; the session's definitions stay.
    let audited: Vec<i64> = e.operations.iter().filter_map(|o| o.audit_id).collect();
    assert_eq!(audited, [1, 2]);
    assert_eq!(s.audit_tail(5).map(|r| r.len()), Ok(2));
    assert_eq!(shown(&mut s, "other"), ["- : Str = \"no\""]);
    // Definitions survive a switch of policy; grants do not.
    s.set_policy(None).expect("no policy");
    let e = eval(&mut s, "Records.read(\"e1002\")");
    assert_eq!(codes(&e), ["E3002"]);
    assert_eq!(shown(&mut s, "me.name"), ["- : Str = \"Grace Hopper\""]);
    let _ = std::fs::remove_file(&db);
}

#[test]
fn a_session_is_one_run_for_the_per_run_cap() {
    let (mut s, policy, db) = example_session("book_ticket");
    let pay = "handle { Pay.pay(\"air-one.example\", 30000, \"seat\"); \"paid\" } with { Fail.fail(why) => why }";
    assert_eq!(shown(&mut s, pay), ["- : Str = \"paid\""]);
    // 300.00 more would bring the session's payments to 600.00, over the
    // 500.00 a run may pay: refused (the grant stops the run on a denial),
    // though each input pays under the cap.
    let refused = eval(&mut s, pay);
    let err = refused.error.expect("refused");
    assert_eq!(err.code.as_str(), "E4005");
    assert!(
        err.message.contains("this run's payments to 600.00 EUR"),
        "{}",
        err.message
    );
    // Switching policy, even to the same one, or forgetting definitions
    // does not start a new run.
    s.set_policy(Some(policy.clone())).expect("the same policy");
    s.reset().expect("reset");
    let again = eval(&mut s, pay);
    assert_eq!(again.error.map(|e| e.code.as_str()), Some("E4005"));
    let _ = std::fs::remove_file(&db);
}

#[test]
fn only_kept_inputs_take_room_in_the_session() {
    let mut s = session();
    shown(&mut s, "let a = 1");
    for bad in ["a + \"x\"", "1 / 0", "nope"] {
        eval(&mut s, bad);
        assert_eq!(s.sources().len(), 2, "{bad}");
    }
    shown(&mut s, "let b = a + 1");
    let (first, second) = (&s.sources()[0], &s.sources()[1]);
    assert_eq!(second.base, first.base + first.text.len() + 1);
    assert_eq!(second.text, "let b = a + 1");
    // And what was kept still runs, its errors placed in its own text.
    shown(&mut s, "fn boom(x) { x / 0 }");
    let e = eval(&mut s, "boom(1)");
    let err = e.error.expect("division by zero");
    let (src, _) = s.locate(err.span.expect("a span")).expect("located");
    assert_eq!(src.text, "fn boom(x) { x / 0 }");
}
