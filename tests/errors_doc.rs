//! `docs/errors.md` against the binary, so that the reference cannot drift
//! from what `writ` does.
//!
//! Every example in the document is a ```` ```writ ```` block, one lead-in
//! line naming the command (`` `writ check main.writ` prints: ``) and a
//! ```` ```text ```` (or ```` ```json ````) block with that command's output.
//! Each is written to a fresh temporary directory as `main.writ`, the command
//! is run there with `NO_COLOR=1`, and its output must equal the documented
//! one exactly. Every other ```` ```writ ```` block must be a fix (it comes
//! after the section's `**Fix**` line), and must be accepted by `writ
//! check` with the options of the section's first example (its arguments
//! less the last, the file; such as `--grant Log` for E3002).
//!
//! A few examples cannot be written to a file exactly as shown, and are set
//! up by [`prepare`]: `⟨U+XXXX⟩` stands for an invisible character (E0007),
//! E9002 needs its file inside a directory, E9003 needs a file that is not
//! UTF-8, and E9004 a file over [`writ::MAX_SOURCE_BYTES`].
//!
//! When this test fails after a deliberate change to a diagnostic,
//! regenerate the document (`cargo build`, then
//! `python3 docs/tools/gen_errors.py` from the repository root) and review
//! the diff of `docs/errors.md`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Sections whose examples are not run, with the reason. Every other code
/// section must have at least one example that is run.
const SKIPPED: &[(&str, &str)] = &[
    (
        "E4004",
        "no checked program reaches an internal error; it reports a bug in Writ",
    ),
    (
        "E4009",
        "a snapshot is refused when a run an earlier command saved is resumed (`writ resume`); an example is one command",
    ),
    (
        "E4010",
        "a reply is given to a run an earlier command saved (`writ resume`); an example is one command",
    ),
    (
        "E4013",
        "a deviation needs a plan an earlier command made and a program that then takes another path",
    ),
    (
        "E4014",
        "a plan that does not apply needs a plan an earlier command made",
    ),
    (
        "E4015",
        "only a store changed from outside Writ breaks the audit log; no program does (the Python package's tests tamper with one)",
    ),
    (
        "E5006",
        "only a host embedding Writ can cancel a run (from another thread); no command does",
    ),
];

/// A ```` ```writ ```` block with the documented output of a command.
struct Example {
    /// The section's code, or `introduction`.
    section: String,
    /// Line number (1-based) of the block in `docs/errors.md`.
    line: usize,
    source: String,
    /// The arguments after `writ`, from the lead-in line.
    args: Vec<String>,
    output: String,
    /// The section's latest ```` ```toml ```` block before the example: the
    /// policy file it names (written as `policy.toml`).
    policy: Option<String>,
}

/// A ```` ```writ ```` block after a section's `**Fix**` line.
struct Fix {
    section: String,
    line: usize,
    source: String,
    /// The section's latest ```` ```toml ```` block before the fix.
    policy: Option<String>,
}

struct Doc {
    examples: Vec<Example>,
    fixes: Vec<Fix>,
    /// Code sections, in order.
    codes: Vec<String>,
}

fn read_doc() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs")
        .join("errors.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The fenced block starting at `lines[at]` (the opening fence): its
/// language, its text, and the index of the line after the closing fence.
fn fenced(lines: &[&str], at: usize) -> Option<(String, String, usize)> {
    let lang = lines.get(at)?.strip_prefix("```")?.trim().to_string();
    let close = (at + 1..lines.len()).find(|&i| lines[i] == "```")?;
    Some((lang, lines[at + 1..close].join("\n"), close + 1))
}

/// The command of a lead-in line such as `` `writ check main.writ` prints: ``
/// (the words after `writ`).
fn lead_command(line: &str) -> Option<Vec<String>> {
    let rest = line.strip_prefix("`writ ")?;
    let (command, after) = rest.split_once('`')?;
    after
        .trim_start()
        .starts_with("prints")
        .then(|| shell_words(command))
}

/// `command` split into words as a shell splits it: at spaces, except
/// inside single quotes (`--input-type 'request={ to: Str }'`).
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quoted = false;
    for c in command.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                word.get_or_insert_with(String::new);
            }
            c if c.is_whitespace() && !quoted => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

fn next_non_blank(lines: &[&str], mut at: usize) -> usize {
    while lines.get(at).is_some_and(|l| l.trim().is_empty()) {
        at += 1;
    }
    at
}

fn parse_doc(text: &str) -> Result<Doc, Vec<String>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut doc = Doc {
        examples: Vec::new(),
        fixes: Vec::new(),
        codes: Vec::new(),
    };
    let mut problems = Vec::new();
    let mut section = "introduction".to_string();
    let mut after_fix = false;
    let mut policy: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(heading) = line.strip_prefix("## ") {
            section = heading.split(':').next().unwrap_or("").trim().to_string();
            doc.codes.push(section.clone());
            after_fix = false;
            policy = None;
            i += 1;
            continue;
        }
        if line.starts_with("**Fix**") {
            after_fix = true;
        }
        if !line.starts_with("```") {
            i += 1;
            continue;
        }
        let Some((lang, source, next)) = fenced(&lines, i) else {
            problems.push(format!("line {}: unclosed code block", i + 1));
            break;
        };
        let block_line = i + 1;
        i = next;
        if lang == "toml" {
            policy = Some(source);
            continue;
        }
        if lang != "writ" {
            continue;
        }
        // An example: the block, one lead-in line, then the output.
        let lead = next_non_blank(&lines, next);
        if let Some(args) = lines.get(lead).and_then(|l| lead_command(l)) {
            let out_at = next_non_blank(&lines, lead + 1);
            match fenced(&lines, out_at) {
                Some((out_lang, output, after)) if out_lang == "text" || out_lang == "json" => {
                    doc.examples.push(Example {
                        section: section.clone(),
                        line: block_line,
                        source,
                        args,
                        output,
                        policy: policy.clone(),
                    });
                    i = after;
                }
                _ => problems.push(format!(
                    "{section} (line {block_line}): the lead-in line {:?} is not followed by a ```text or ```json block",
                    lines[lead]
                )),
            }
            continue;
        }
        if after_fix {
            doc.fixes.push(Fix {
                section: section.clone(),
                line: block_line,
                source,
                policy: policy.clone(),
            });
        } else {
            problems.push(format!(
                "{section} (line {block_line}): a ```writ block that is neither an example \
                 (followed by a `writ check ...` prints: line and the output) nor a fix \
                 (after the **Fix** line), so nothing checks it"
            ));
        }
    }
    if problems.is_empty() {
        Ok(doc)
    } else {
        Err(problems)
    }
}

/// A fresh directory under the system's temporary directory, removed when
/// dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(purpose: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "writ-errors-doc-{}-{nanos}-{n}-{purpose}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Run `writ ARGS` in `dir`: stdout, stderr and the exit code.
fn run_writ(dir: &Path, args: &[String]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_writ"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("the writ binary runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// `⟨U+XXXX⟩` in a documented example stands for that character, which the
/// document must not contain (it is invisible, or changes how text around
/// it is displayed). Returns the text with the real characters, and the
/// characters replaced.
fn expand_placeholders(text: &str) -> (String, Vec<char>) {
    let mut out = String::new();
    let mut chars = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("⟨U+") {
        out.push_str(&rest[..start]);
        let after = &rest[start + "⟨U+".len()..];
        let decoded = after.split_once('⟩').and_then(|(hex, tail)| {
            let c = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)?;
            Some((c, tail))
        });
        if let Some((c, tail)) = decoded {
            out.push(c);
            chars.push(c);
            rest = tail;
        } else {
            out.push_str("⟨U+");
            rest = after;
        }
    }
    out.push_str(rest);
    (out, chars)
}

/// Write the files an example needs into `dir`, as the generator did.
fn prepare(example: &Example, dir: &Path) -> Result<(), String> {
    let (source, _) = expand_placeholders(&example.source);
    let text = source + "\n";
    let write = |rel: &str, bytes: &[u8]| -> Result<(), String> {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    if let Some(policy) = &example.policy {
        write("policy.toml", format!("{policy}\n").as_bytes())?;
    }
    match example.section.as_str() {
        // `writ check src`, with the program inside the directory.
        "E9002" => write("src/main.writ", text.as_bytes()),
        // `writ run --inputs inputs.json`: the values file the section
        // shows beside the program (as `files` in errors_sections.py).
        "E4007" => {
            write(
                "inputs.json",
                b"{ \"request\": { \"to\": \"BER\", \"budget_cents\": \"500\" } }\n",
            )?;
            write("main.writ", text.as_bytes())
        }
        // `writ run --replay reads.json`: the recording the section shows.
        "E4012" => {
            write("reads.json", b"{ \"format\": 1, \"reads\": [] }\n")?;
            write("main.writ", text.as_bytes())
        }
        // The program saved in Latin-1 rather than UTF-8.
        "E9003" => {
            let bytes = text
                .chars()
                .map(|c| u8::try_from(u32::from(c)).map_err(|_| format!("{c:?} is not Latin-1")))
                .collect::<Result<Vec<u8>, String>>()?;
            if std::str::from_utf8(&bytes).is_ok() {
                return Err("the Latin-1 encoding of the example is valid UTF-8".into());
            }
            write("main.writ", &bytes)
        }
        // A file of the size the documented output names, over the limit;
        // the example only shows how it starts.
        "E9004" => {
            let size: usize = example
                .output
                .split("found ")
                .nth(1)
                .and_then(|s| s.split(' ').next())
                .and_then(|n| n.parse().ok())
                .ok_or("no `found N bytes` in the documented output")?;
            if size as u64 <= writ::MAX_SOURCE_BYTES {
                return Err(format!(
                    "{size} bytes is not over the limit of {}",
                    writ::MAX_SOURCE_BYTES
                ));
            }
            let head = "let table = [";
            let mut big = String::with_capacity(size);
            big.push_str(head);
            while big.len() < size - 2 {
                big.push_str("0, ");
            }
            big.truncate(size - 2);
            big.push_str("]\n");
            write("main.writ", big.as_bytes())
        }
        // A program that spends the checker's budget is long: the example
        // shows its first function and a line naming the copies that follow.
        "E2013" => write("main.writ", expand_copies(&text)?.as_bytes()),
        // `writ test main_test.writ`: the program is the test file the
        // command names.
        _ if example.args.first().is_some_and(|c| c == "test") => {
            let file = example.args.last().map_or("main_test.writ", String::as_str);
            write(file, text.as_bytes())
        }
        _ => write("main.writ", text.as_bytes()),
    }
}

/// The E2013 example with its marker line `// decide1 to decideN: the same
/// function again, renamed` replaced by N renamed copies of `decide0` (from
/// its `fn` line to the first line that is `}`).
fn expand_copies(text: &str) -> Result<String, String> {
    let marker = text
        .lines()
        .find(|l| l.starts_with("// decide1 to decide"))
        .ok_or("no `// decide1 to decideN` line")?;
    let count: usize = marker
        .trim_start_matches("// decide1 to decide")
        .split(':')
        .next()
        .and_then(|n| n.parse().ok())
        .ok_or("no count in the marker line")?;
    let function: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("fn decide0("))
        .take_while(|l| *l != "}")
        .collect();
    if function.is_empty() {
        return Err("no `fn decide0(`".into());
    }
    let mut copies = Vec::new();
    for i in 1..=count {
        let mut lines = function.clone();
        let head = lines[0].replace("decide0", &format!("decide{i}"));
        lines[0] = &head;
        copies.push(format!("{}\n}}", lines.join("\n")));
    }
    Ok(text.replace(marker, &copies.join("\n\n")))
}

/// The exit code the documented output implies (see "Exit codes of `writ
/// check`" in the document).
fn implied_exit_code(output: &str) -> i32 {
    if output.contains("[E5") {
        return 4;
    }
    if output.contains("[E4") {
        return 3;
    }
    let unreadable = output.contains(": not checked")
        || output.contains("[E9005]")
        || output.contains("\"unreadable\"")
        || output.contains(": malformed policy");
    let rejected = output.contains(": rejected") || output.contains("\"rejected\"");
    if unreadable {
        2
    } else if rejected {
        1
    } else {
        0
    }
}

fn doc_or_panic() -> Doc {
    match parse_doc(&read_doc()) {
        Ok(doc) => doc,
        Err(problems) => panic!("docs/errors.md:\n{}", problems.join("\n")),
    }
}

const REGENERATE: &str = "if the change is deliberate, run `cargo build` and \
    `python3 docs/tools/gen_errors.py` from the repository root, and review the diff of docs/errors.md";

#[test]
fn every_example_prints_what_the_document_shows() {
    let doc = doc_or_panic();
    assert!(
        doc.examples.len() >= doc.codes.len(),
        "expected an example per code, found {} examples for {} codes",
        doc.examples.len(),
        doc.codes.len()
    );
    let mut failures = Vec::new();
    for (n, example) in doc.examples.iter().enumerate() {
        let where_ = format!("{} (docs/errors.md line {})", example.section, example.line);
        if let Some((_, reason)) = SKIPPED.iter().find(|(c, _)| *c == example.section) {
            eprintln!("skipped {where_}: {reason}");
            continue;
        }
        if (example.section == "E9001" || example.section == "E9005") && !cfg!(unix) {
            // The message quotes the operating system's own error text.
            eprintln!("skipped {where_}: the documented OS error text is from a Unix system");
            continue;
        }
        let command = example.args.first().map(String::as_str);
        if command != Some("check") && command != Some("run") && command != Some("test") {
            failures.push(format!(
                "{where_}: the lead-in line runs `writ {}`, not `writ check`, `writ run` or `writ test`",
                example.args.join(" ")
            ));
            continue;
        }
        let testing = command == Some("test");
        let running = command == Some("run");
        let dir = TempDir::new(&format!("example-{n}"));
        if let Err(e) = prepare(example, &dir.0) {
            failures.push(format!("{where_}: cannot set up the example: {e}"));
            continue;
        }
        let (stdout, stderr, code) = run_writ(&dir.0, &example.args);
        // Show the characters the document writes as placeholders the same
        // way in the actual output.
        let (_, hidden) = expand_placeholders(&example.source);
        // `writ run` prints the program's output, then its diagnostics on
        // standard error; the document shows both, in that order.
        let printed = if running {
            format!("{stdout}{stderr}")
        } else {
            stdout.clone()
        };
        let mut actual = printed.trim_end_matches('\n').to_string();
        for c in hidden {
            actual = actual.replace(c, &format!("⟨U+{:04X}⟩", u32::from(c)));
        }
        if actual != example.output {
            failures.push(format!(
                "{where_}: `writ {}` prints something else\n--- documented\n{}\n--- actual\n{actual}\n---",
                example.args.join(" "),
                example.output
            ));
        }
        if !stderr.is_empty() && !running {
            failures.push(format!(
                "{where_}: unexpected standard error output:\n{stderr}"
            ));
        }
        // `writ test` exits 1 whenever a test fails, whatever the code.
        let want_code = if testing {
            1
        } else {
            implied_exit_code(&example.output)
        };
        if code != want_code {
            failures.push(format!("{where_}: exit code {code}, expected {want_code}"));
        }
        if example.section.starts_with('E')
            && !example.output.contains(&format!("\"{}\"", example.section))
            && !example.output.contains(&format!("[{}]", example.section))
        {
            failures.push(format!("{where_}: the example does not show its own code"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} examples in docs/errors.md do not match the binary ({REGENERATE}):\n\n{}",
        failures.len(),
        doc.examples.len(),
        failures.join("\n\n")
    );
}

/// The command a fix of `section` is checked with, less the file: `check`
/// and the options of the section's first example (its arguments less the
/// last, the file), so that the fix of E3002 is checked with the same
/// `--grant` as its example.
fn fix_options(doc: &Doc, section: &str) -> Vec<String> {
    let mut args = doc
        .examples
        .iter()
        .find(|e| e.section == section)
        .map_or_else(
            || vec!["check".to_string(), "main.writ".to_string()],
            |e| e.args.clone(),
        );
    args.pop();
    args
}

#[test]
fn every_fix_is_accepted() {
    let doc = doc_or_panic();
    assert!(!doc.fixes.is_empty(), "no fixes found in docs/errors.md");
    let mut failures = Vec::new();
    for (n, fix) in doc.fixes.iter().enumerate() {
        let dir = TempDir::new(&format!("fix-{n}"));
        let path = dir.0.join("main.writ");
        std::fs::write(&path, format!("{}\n", fix.source))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        if let Some(policy) = &fix.policy {
            let at = dir.0.join("policy.toml");
            std::fs::write(&at, format!("{policy}\n"))
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", at.display()));
        }
        let mut args = fix_options(&doc, &fix.section);
        args.push("main.writ".to_string());
        let (stdout, stderr, code) = run_writ(&dir.0, &args);
        if code != 0 || !stderr.is_empty() {
            failures.push(format!(
                "{} (docs/errors.md line {}): the fix is not accepted by `writ {}` (exit {code})\n{}\n--- writ check prints\n{stdout}{stderr}",
                fix.section,
                fix.line,
                args.join(" "),
                fix.source
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_code_section_has_a_checked_example() {
    let doc = doc_or_panic();
    for code in &doc.codes {
        let skipped = SKIPPED.iter().any(|(c, _)| c == code);
        let examples = doc.examples.iter().filter(|e| &e.section == code).count();
        assert!(
            skipped || examples > 0,
            "{code}: no example with its output (a ```writ block, a `writ check ...` prints: line and a ```text block); \
             add one, or list the section in SKIPPED with the reason"
        );
    }
    for (code, reason) in SKIPPED {
        assert!(
            doc.codes.iter().any(|c| c == code),
            "SKIPPED lists {code}, which has no section"
        );
        assert!(!reason.is_empty(), "{code}: SKIPPED needs a reason");
    }
}

#[test]
fn placeholders_expand_to_the_character() {
    let (text, chars) = expand_placeholders("a⟨U+202E⟩b ⟨U+zz⟩");
    assert_eq!(text, "a\u{202E}b ⟨U+zz⟩");
    assert_eq!(chars, vec!['\u{202E}']);
}
