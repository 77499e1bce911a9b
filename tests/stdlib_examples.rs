//! Every `/// Example:` in the standard library's doc comments holds when
//! run: each is an expression that must evaluate to `true`, so the
//! documented behaviour of every function is its behaviour.

#[test]
fn every_documented_example_evaluates_to_true() {
    let mut examples = Vec::new();
    for file in writ_lang::stdlib::FILES {
        for line in file.source.lines() {
            if let Some(e) = line.trim_start().strip_prefix("/// Example:") {
                examples.push((file.name, e.trim().to_string()));
            }
        }
    }
    assert!(
        examples.len() >= 100,
        "expected examples, found {}",
        examples.len()
    );
    let program: String = examples
        .iter()
        .enumerate()
        .map(|(i, (_, e))| format!("Log.info(\"{i}: ${{{e}}}\")\n"))
        .collect();
    let mut lines = Vec::new();
    let ran = writ::run_source(
        &program,
        &writ::Limits::default(),
        &mut |l: &str| lines.push(l.to_string()),
        None,
    );
    assert!(ran.checked.accepted(), "{:#?}", ran.checked.diagnostics);
    assert!(matches!(ran.result, Some(Ok(_))), "{:?}", ran.result);
    let failures: Vec<String> = examples
        .iter()
        .enumerate()
        .filter(|(i, _)| lines.get(*i).map(String::as_str) != Some(&format!("{i}: true")))
        .map(|(i, (file, e))| format!("{file}: {e} (printed {:?})", lines.get(i)))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
