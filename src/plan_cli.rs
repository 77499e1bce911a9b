//! `writ plan FILE --policy P -o plan.json`: what a program would do under
//! a policy, shown in words and written as JSON, its acts not carried out
//! ([`writ_host::engine::Engine::plan`]); and reading a plan back for
//! `writ run --approve plan.json`.
//!
//! Invariants: `writ plan` carries out no act (payments and posts are
//! decided by the policy and simulated); the plan file is written readable
//! by its owner only (it holds what the program read), whole or not at
//! all; a plan file that cannot be read, is not a plan, or was changed
//! after it was made is a usage error (exit 2), and nothing runs.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use writ_host::engine::{Engine, Plan, RunOptions};

use crate::host_cli::{Shown, compile, out, policy_for, report, terminal_confirm};

/// The largest plan file read, in bytes (64 MiB).
const MAX_PLAN_BYTES: u64 = 64 * 1024 * 1024;

/// What `writ plan` was given.
pub struct PlanArgs<'a> {
    /// The program.
    pub file: &'a Path,
    /// The policy.
    pub policy: &'a Path,
    /// `--db`.
    pub db: Option<&'a Path>,
    /// `--limit`s.
    pub limit: &'a [String],
    /// `--input-type`s and `--inputs`.
    pub inputs: (&'a [String], Option<&'a Path>),
    /// `-o`: where the plan goes.
    pub output: &'a Path,
}

/// `writ plan`: plan the program, print the plan in words, write it.
pub fn plan(a: &PlanArgs<'_>) -> ExitCode {
    let (decls, values) = match (
        crate::inputs_cli::declared(a.inputs.0),
        crate::inputs_cli::values(a.inputs.1),
    ) {
        (Ok(d), Ok(v)) => (d, v),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let policy = match policy_for(a.policy, a.limit) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let path = a.file.display().to_string();
    let text = match crate::read_file(a.file) {
        Ok(t) => t,
        Err(d) => {
            err_print!(
                "{}",
                writ::render::human(&[d], &path, "", crate::color_err())
            );
            return ExitCode::from(2);
        }
    };
    let policy_shown = a.policy.display().to_string();
    let shown = Shown {
        path: &path,
        text: &text,
        policy_shown: &policy_shown,
        limit: a.limit,
        policy: &policy,
        json: false,
    };
    let engine = Engine::new().with_confirm(Arc::new(terminal_confirm));
    let program = match compile(&engine, &shown, &decls) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let options = RunOptions {
        store: a.db.map(|d| d.display().to_string()),
        inputs: values,
        ..RunOptions::default()
    };
    let plan = match engine.plan(&program, &policy, &options) {
        Ok(p) => p,
        Err(e) => return report(Err(e), &shown, false),
    };
    for line in &plan.log {
        crate::host_cli::log_line(line);
    }
    out(&format!("Plan of {path} for {}:\n", policy.principal.id));
    for line in plan.words(&policy) {
        out(&format!("{}\n", writ::render::terminal_safe(&line)));
    }
    let text = serde_json::to_string_pretty(&plan.to_json()).unwrap_or_default() + "\n";
    if let Err(e) = crate::pause_cli::write_private(a.output, text.as_bytes()) {
        err_println!(
            "[E9005] Error: cannot write the plan to `{}`: {e}",
            a.output.display()
        );
        return ExitCode::from(2);
    }
    // The command that runs it as approved: the same store (a plan is
    // approved only on the store it was made on), limits and inputs.
    let mut command = format!("writ run {path} --policy {policy_shown}");
    if let Some(db) = a.db {
        command.push_str(&format!(" --db {}", db.display()));
    }
    for l in a.limit {
        command.push_str(&format!(" --limit {l}"));
    }
    for t in a.inputs.0 {
        command.push_str(&format!(" --input-type {t}"));
    }
    if let Some(inputs) = a.inputs.1 {
        command.push_str(&format!(" --inputs {}", inputs.display()));
    }
    out(&format!(
        "Written to {}: run it as approved with `{command} --approve {}`\n",
        a.output.display(),
        a.output.display()
    ));
    match &plan.result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            err_println!("note: the planned run ended with an error: {e}");
            ExitCode::from(3)
        }
    }
}

/// The plan in the file `--approve` names, or the usage error (exit 2).
pub fn read_plan(path: &Path) -> Result<Plan, ExitCode> {
    let doc = crate::inputs_cli::read_json("--approve", path, MAX_PLAN_BYTES)?;
    Plan::from_json(&doc).map_err(|why| crate::inputs_cli::usage_error("--approve", path, &why))
}
