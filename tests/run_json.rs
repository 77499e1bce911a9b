//! `writ run --format json`: the whole outcome as one JSON object, end to
//! end. Each case runs the binary and compares its standard output with
//! `tests/run_json/NAME.json`, after checking that the output is one JSON
//! object of the documented shape; the `usage` line (time varies from run
//! to run) is checked for its three numbers and then shown as
//! `"usage": …` in the golden file. Nothing is written to standard error.
//!
//! To change a case, run `WRIT_BLESS=1 cargo test --test run_json` and
//! read the diff of `tests/run_json/*.json`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh store path for one case.
fn store(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("writ-run-json-{name}-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// `text` with its `usage` line (which varies run to run) masked.
fn mask_usage(text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.starts_with("  \"usage\": ") {
                "  \"usage\": …,\n".to_string()
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

/// Run `writ run ARGS --format json` in `dir`; its exit code and its
/// standard output with the usage line checked and masked.
fn run_json(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_writ"))
        .arg("run")
        .args(args)
        .args(["--format", "json"])
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("the writ binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "{args:?}: nothing on stderr"
    );
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
    let keys: Vec<&str> = doc
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    let mut sorted = vec![
        "diagnostics",
        "error",
        "limits",
        "log",
        "operations",
        "recorded",
        "status",
        "usage",
        "value",
    ];
    sorted.sort_unstable();
    assert_eq!(keys, sorted, "{args:?}");
    for k in ["fuel", "memory_peak", "time_ms"] {
        assert!(doc["usage"][k].is_number(), "{args:?}: usage.{k}");
    }
    let masked = mask_usage(&stdout);
    (out.status.code().unwrap_or(-1), masked)
}

/// Compare with (or, with `WRIT_BLESS=1`, write) `tests/run_json/NAME.json`.
fn golden(name: &str, actual: &str) {
    let path = root()
        .join("tests")
        .join("run_json")
        .join(format!("{name}.json"));
    if std::env::var_os("WRIT_BLESS").is_some() {
        std::fs::write(&path, actual).expect("golden written");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        actual,
        expected,
        "{name}: the output differs from {} (bless with WRIT_BLESS=1 cargo test --test run_json)",
        path.display()
    );
}

fn case(name: &str, args: &[&str], exit: i32) -> serde_json::Value {
    let dir = root().join("tests").join("run_json");
    let file = format!("{name}.writ");
    let mut all = args.to_vec();
    all.push(&file);
    let (code, out) = run_json(&dir, &all);
    golden(name, &out);
    assert_eq!(code, exit, "{name}: exit code");
    serde_json::from_str(&out.replace("\"usage\": …", "\"usage\": null")).expect("JSON")
}

#[test]
fn a_finished_run_shows_its_value_as_data_and_as_displayed() {
    let doc = case("values", &[], 0);
    assert_eq!(doc["status"], "ok");
    assert_eq!(doc["log"], serde_json::json!(["computing"]));
    assert_eq!(
        doc["value"]["data"]["options"],
        serde_json::json!([1, null, {"some": null}, {"some": 2}])
    );
}

#[test]
fn a_failed_run_shows_its_error_with_its_code_and_what_it_logged() {
    let doc = case("failure", &[], 3);
    assert_eq!(doc["status"], "failed");
    assert_eq!(doc["error"]["code"], "E4002");
    assert_eq!(doc["value"], serde_json::Value::Null);
}

#[test]
fn a_value_too_large_for_the_output_limit_is_refused_with_e5004() {
    let doc = case("too_large", &["--limit", "output=64"], 4);
    assert_eq!(doc["error"]["code"], "E5004");
    assert_eq!(doc["value"]["data"], serde_json::Value::Null);
    assert_eq!(doc["limits"]["output"], 64);
}

#[test]
fn a_rejected_program_shows_its_diagnostics_and_does_not_run() {
    let doc = case("rejected", &[], 1);
    assert_eq!(doc["status"], "rejected");
    assert_eq!(doc["diagnostics"][0]["code"], "E2001");
}

/// `examples/book_ticket`, run under its policy with a fresh store.
fn book_ticket(name: &str, exit: i32) -> String {
    let db = store(name);
    let dir = root().join("examples").join("book_ticket");
    let file = format!("{name}.writ");
    let db_arg = db.display().to_string();
    let (code, out) = run_json(&dir, &[&file, "--policy", "policy.toml", "--db", &db_arg]);
    let _ = std::fs::remove_file(&db);
    assert_eq!(code, exit, "{name}: exit code");
    out
}

#[test]
fn a_run_under_a_policy_shows_its_operations_decisions_and_audit_ids() {
    let out = book_ticket("book", 0);
    golden("book", &out);
    let doc: serde_json::Value =
        serde_json::from_str(&out.replace("\"usage\": …", "\"usage\": null")).expect("JSON");
    assert_eq!(doc["status"], "ok");
    assert_eq!(doc["recorded"], true);
    let ops = doc["operations"].as_array().expect("operations");
    assert!(
        ops.iter()
            .any(|o| o["operation"] == "Pay.pay" && o["decision"] == "allowed")
    );
    assert!(
        ops.iter()
            .all(|o| o["audit_id"].is_number() || o["operation"] == "Log.info")
    );
}

#[test]
fn a_denial_that_stops_the_run_shows_the_denied_operation_and_e4005() {
    let out = book_ticket("over_cap", 3);
    golden("over_cap", &out);
    let doc: serde_json::Value =
        serde_json::from_str(&out.replace("\"usage\": …", "\"usage\": null")).expect("JSON");
    assert_eq!(doc["error"]["code"], "E4005");
    assert_eq!(doc["operations"][0]["decision"], "denied");
    assert_eq!(doc["operations"][0]["audit_id"], 1);
}

/// A case of `tests/run_json/` run under `denied_policy.toml` (payments to
/// one payee, denials stop the run) with a fresh store.
fn denied(name: &str) -> serde_json::Value {
    let db = store(name);
    let dir = root().join("tests").join("run_json");
    let file = format!("{name}.writ");
    let db_arg = db.display().to_string();
    let (code, out) = run_json(
        &dir,
        &[&file, "--policy", "denied_policy.toml", "--db", &db_arg],
    );
    let _ = std::fs::remove_file(&db);
    golden(name, &out);
    assert_eq!(code, 3, "{name}: exit code");
    serde_json::from_str(&out.replace("\"usage\": …", "\"usage\": null")).expect("JSON")
}

#[test]
fn a_denial_under_a_fail_handler_says_on_deny_fail_would_let_it_recover() {
    let doc = denied("denied_under_fail_handler");
    assert_eq!(doc["error"]["code"], "E4005");
    let help = doc["error"]["help"].as_str().unwrap_or_default();
    assert!(help.contains("on_deny = \"fail\""), "{help}");
    let doc = denied("denied_without_fail_handler");
    assert_eq!(doc["error"]["code"], "E4005");
    let help = doc["error"]["help"].as_str().unwrap_or_default();
    assert!(!help.contains("on_deny"), "{help}");
}

#[test]
fn the_guides_example_is_what_writ_prints() {
    let guide = std::fs::read_to_string(root().join("docs").join("embedding.md")).expect("guide");
    let after = |fence: &str, from: usize| -> (String, usize) {
        let start = guide[from..].find(fence).expect("fence") + from + fence.len();
        let end = guide[start..].find("\n```").expect("closing fence") + start;
        (
            guide[start..end].trim_start_matches('\n').to_string() + "\n",
            end,
        )
    };
    let at = guide
        .find("### From the command line")
        .expect("the section");
    let (program, end) = after("```writ\n", at);
    let (shown, _) = after("```json\n", end);
    let dir = std::env::temp_dir().join(format!("writ-run-json-guide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("main.writ"), program).expect("program");
    let (code, out) = run_json(&dir, &["main.writ"]);
    assert_eq!(code, 0);
    let shown = mask_usage(&shown);
    assert_eq!(out, shown, "docs/embedding.md's JSON example");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The input declaration the two cases below share.
const REQUEST: &str = "request={ to: Str, budget_cents: Int }";

#[test]
fn a_run_given_inputs_shows_the_value_it_made_of_them() {
    let doc = case(
        "inputs",
        &["--input-type", REQUEST, "--inputs", "inputs-values.json"],
        0,
    );
    assert_eq!(doc["status"], "ok");
    assert_eq!(doc["log"], serde_json::json!(["to BER"]));
    assert_eq!(
        doc["value"]["data"],
        serde_json::json!({"euros": 250, "to": "BER"})
    );
}

#[test]
fn an_input_that_does_not_fit_its_type_is_an_error_and_nothing_runs() {
    let doc = case(
        "inputs_mismatch",
        &[
            "--input-type",
            REQUEST,
            "--inputs",
            "inputs-mismatch-values.json",
        ],
        3,
    );
    assert_eq!(doc["status"], "failed");
    assert_eq!(doc["error"]["code"], "E4007");
    assert_eq!(doc["log"], serde_json::json!([]));
}
