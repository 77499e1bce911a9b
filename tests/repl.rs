//! The REPL with piped input: each `tests/repl/NAME.in` is fed to
//! `writ repl` (with the arguments in `NAME.args`, if any, `{tmp}` being a
//! fresh directory) and what it prints — standard output, standard error
//! and the exit code — must equal `NAME.out`. `WRIT_BLESS=1` rewrites the
//! expected files; review the diff.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn transcript(input: &Path) -> String {
    let name = input.file_stem().and_then(|s| s.to_str()).unwrap_or("case");
    let tmp = std::env::temp_dir().join(format!("writ-repl-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).expect("a temporary directory");
    let tmp_text = tmp.display().to_string();
    let args: Vec<String> = std::fs::read_to_string(input.with_extension("args"))
        .unwrap_or_default()
        .split_whitespace()
        .map(|a| a.replace("{tmp}", &tmp_text))
        .collect();
    let stdin = std::fs::File::open(input).expect("the input file");
    let out = Command::new(env!("CARGO_BIN_EXE_writ"))
        .arg("repl")
        .args(&args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env_remove("WRIT_HISTORY")
        .stdin(Stdio::from(stdin))
        .output()
        .expect("writ runs");
    let _ = std::fs::remove_dir_all(&tmp);
    let text = |b: &[u8]| String::from_utf8_lossy(b).replace(&tmp_text, "{tmp}");
    format!(
        "{}--- stderr ---\n{}--- exit: {} ---\n",
        text(&out.stdout),
        text(&out.stderr),
        out.status
            .code()
            .map_or("signal".to_string(), |c| c.to_string())
    )
}

#[test]
fn piped_transcripts() {
    let dir = root().join("tests/repl");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/repl")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "in"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 4, "the REPL cases are missing");
    let bless = std::env::var_os("WRIT_BLESS").is_some();
    let mut failures = Vec::new();
    for input in &inputs {
        let got = transcript(input);
        let expected_path = input.with_extension("out");
        if bless {
            std::fs::write(&expected_path, &got).expect("write the expected output");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if got != expected {
            failures.push(format!(
                "{}: the transcript differs\n--- expected ---\n{expected}\n--- got ---\n{got}",
                input.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
