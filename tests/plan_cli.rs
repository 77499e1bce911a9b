//! `writ plan` and `writ run --approve`, each in its own process: the
//! book_ticket story planned (nothing paid), shown in words, approved and
//! executed (paid once); a second execution, a changed plan file and a
//! plan for another program refused. The transcript is the one
//! docs/embedding.md shows.

use std::path::{Path, PathBuf};
use std::process::Command;

fn story() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join("book_ticket")
}

fn temp(name: &str) -> String {
    let p = std::env::temp_dir().join(format!("writ-plan-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p.display().to_string()
}

fn writ(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_writ"))
        .args(args)
        .current_dir(story())
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("writ runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The plan's words, as docs/embedding.md shows them.
const PLANNED: &str = "\
5 offers, 4 within 12 hours and 1 stop
booked A1-318 with air-one.example for 389.00 EUR (receipt planned-1)
Plan of book.writ for ada:
It will, in this order (approve all or none):
  1. Pay 389.00 EUR to air-one.example (\"flight A1-318\")
  In all: 389.00 EUR in 1 payment.
It read, to decide (3):
  Http.get(\"https://air-one.example/offers\")
  Http.get(\"https://skyways.example/api/offers\")
  Http.get(\"https://jetlow.example/offers\")
";

#[test]
fn the_story_is_planned_shown_approved_and_executed_once() {
    let (db, plan) = (temp("story.db"), temp("story.json"));
    let (code, out, err) = writ(&[
        "plan",
        "book.writ",
        "--policy",
        "policy.toml",
        "--db",
        &db,
        "-o",
        &plan,
    ]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        format!(
            "{PLANNED}Written to {plan}: run it as approved with `writ run book.writ --policy policy.toml --db {db} --approve {plan}`\n"
        )
    );
    let guide =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/embedding.md"))
            .expect("guide");
    assert!(
        guide.contains(PLANNED),
        "docs/embedding.md shows the plan as writ plan prints it"
    );
    // Nothing paid by planning.
    let (_, log, _) = writ(&["audit", "show", "--db", &db]);
    assert!(!log.contains("Pay.pay"), "{log}");
    let (code, out, err) = writ(&[
        "run",
        "book.writ",
        "--policy",
        "policy.toml",
        "--db",
        &db,
        "--approve",
        &plan,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.ends_with("booked A1-318 with air-one.example for 389.00 EUR (receipt pay-1)\n"),
        "{out}"
    );
    let (_, log, _) = writ(&["audit", "show", "--db", &db]);
    assert_eq!(log.matches("Pay.pay(").count(), 1);
    assert!(log.contains("Plan.approve("), "{log}");
    let (code, _, err) = writ(&[
        "run",
        "book.writ",
        "--policy",
        "policy.toml",
        "--db",
        &db,
        "--approve",
        &plan,
    ]);
    assert_eq!(code, 3);
    assert!(
        err.starts_with("[E4014] Error: expected a plan not executed before"),
        "{err}"
    );
}

#[test]
fn a_changed_plan_or_a_plan_of_another_program_is_refused() {
    let (db, plan) = (temp("refused.db"), temp("refused.json"));
    let (code, _, _) = writ(&[
        "plan",
        "book.writ",
        "--policy",
        "policy.toml",
        "--db",
        &db,
        "-o",
        &plan,
    ]);
    assert_eq!(code, 0);
    let text = std::fs::read_to_string(&plan).expect("plan");
    let changed = temp("changed.json");
    std::fs::write(
        &changed,
        text.replace("\"flight A1-318\"", "\"flight A1-204\""),
    )
    .expect("written");
    let (code, _, err) = writ(&[
        "run",
        "book.writ",
        "--policy",
        "policy.toml",
        "--db",
        &db,
        "--approve",
        &changed,
    ]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!(
            "error: in `--approve {changed}`: expected act 0's digest"
        )),
        "{err}"
    );
    let (code, _, err) = writ(&[
        "run",
        "over_cap.writ",
        "--policy",
        "policy.toml",
        "--db",
        &db,
        "--approve",
        &plan,
    ]);
    assert_eq!(code, 3);
    assert!(
        err.starts_with("[E4014] Error: expected a plan of this program"),
        "{err}"
    );
}

#[test]
fn with_live_the_reads_are_performed_again() {
    let (db, plan) = (temp("live.db"), temp("live.json"));
    let (code, _, _) = writ(&[
        "plan",
        "book.writ",
        "--policy",
        "policy.toml",
        "--db",
        &db,
        "-o",
        &plan,
    ]);
    assert_eq!(code, 0);
    let (code, out, err) = writ(&[
        "run",
        "book.writ",
        "--policy",
        "policy.toml",
        "--db",
        &db,
        "--approve",
        &plan,
        "--live",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with("(receipt pay-1)\n"), "{out}");
    assert!(
        !err.contains("answered otherwise"),
        "the pages did not change: {err}"
    );
    let (_, log, _) = writ(&["audit", "show", "--db", &db]);
    assert!(
        !log.contains("replayed from the recording"),
        "performed again: {log}"
    );
}
