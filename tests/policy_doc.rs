//! Every ```` ```toml ```` block of `docs/policy.md` is a policy, or part of
//! one, that `writ` accepts: a block without `[principal]` is checked
//! after a principal is put before it. The `[[response]]` block is a
//! recorded-responses file, checked as TOML with a `url` and a `body`.

#[test]
fn every_policy_in_the_document_is_accepted() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/policy.md");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut current {
            None if line.trim() == "```toml" => current = Some((i + 1, String::new())),
            Some((start, body)) if line.trim() == "```" => {
                blocks.push((*start, std::mem::take(body)));
                current = None;
            }
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {}
        }
    }
    assert!(blocks.len() >= 6, "found {} blocks", blocks.len());
    let mut failures = Vec::new();
    for (line, block) in &blocks {
        if block.contains("[[response]]") {
            let ok = toml::from_str::<toml::Table>(block).is_ok_and(|t| {
                t.get("response")
                    .and_then(toml::Value::as_array)
                    .is_some_and(|rs| {
                        rs.iter()
                            .all(|r| r.get("url").is_some() && r.get("body").is_some())
                    })
            });
            if !ok {
                failures.push(format!("line {line}: not a recorded-responses file"));
            }
            continue;
        }
        let policy = if block.contains("[principal]") {
            block.clone()
        } else {
            format!("[principal]\nid = \"a\"\nrole = \"r\"\n\n{block}")
        };
        if let Err(d) = writ_host::policy::parse(&policy) {
            failures.push(format!(
                "line {line}: {:?}",
                d.iter().map(|d| &d.message).collect::<Vec<_>>()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
