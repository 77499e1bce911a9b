//! The REPL on a terminal, driven through a pseudo-terminal: the banner,
//! continuation lines, tab completion, Ctrl-C (dropping the input being
//! typed, stopping a running one, refusing a question a run waits on),
//! Ctrl-D, and the history file; and `writ run` escaping what a program
//! logs when it writes to a terminal and refusing a question left
//! unanswered.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rexpect::session::{PtySession, spawn_command};

fn spawn(history: &Path, args: &[&str]) -> PtySession {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_writ"));
    cmd.arg("repl")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("TERM", "xterm")
        .env("WRIT_HISTORY", history);
    match spawn_command(cmd, Some(20_000)) {
        Ok(s) => s,
        Err(e) => panic!("cannot start the REPL on a pseudo-terminal: {e}"),
    }
}

fn history(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("writ-history-{name}-{}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

fn expect(s: &mut PtySession, text: &str) {
    if let Err(e) = s.exp_string(text) {
        panic!("expected {text:?} from the REPL: {e}");
    }
}

/// Wait for a fresh, empty prompt (rustyline redraws it with the cursor
/// moved back, hence the `\r`): keys typed before it could be read as
/// the terminal's answer to rustyline's queries and lost.
fn prompt(s: &mut PtySession) {
    expect(s, "writ> \r");
}

fn send(s: &mut PtySession, text: &str) {
    if let Err(e) = s.send(text) {
        panic!("cannot type {text:?}: {e}");
    }
    let _ = s.flush();
}

fn line(s: &mut PtySession, text: &str) {
    send(s, text);
    send(s, "\r");
}

fn control(s: &mut PtySession, c: char) {
    if let Err(e) = s.send_control(c) {
        panic!("cannot send Ctrl-{c}: {e}");
    }
}

#[test]
fn banner_multi_line_input_and_ctrl_d() {
    let h = history("multi");
    let mut s = spawn(&h, &[]);
    expect(&mut s, "No policy: only Log is granted");
    prompt(&mut s);
    line(&mut s, "fn add3(a, b, c) {");
    expect(&mut s, "  ... ");
    line(&mut s, "  a + b +");
    expect(&mut s, "  ... ");
    line(&mut s, "  c");
    expect(&mut s, "  ... ");
    line(&mut s, "}");
    expect(&mut s, "fn add3");
    line(&mut s, "add3(1, 2, 3)");
    expect(&mut s, "- : Int = 6");
    prompt(&mut s);
    control(&mut s, 'd');
    if let Err(e) = s.exp_eof() {
        panic!("Ctrl-D should end the REPL: {e}");
    }
    // The whole multi-line input is one history entry, kept in the file.
    let saved = std::fs::read_to_string(&h).unwrap_or_default();
    assert!(saved.contains("add3(1, 2, 3)"), "{saved}");
    assert!(saved.contains("fn add3(a, b, c) {"), "{saved}");
    // A new session finds it.
    let mut s = spawn(&h, &[]);
    prompt(&mut s);
    control(&mut s, 'p');
    expect(&mut s, "add3(1, 2, 3)");
    send(&mut s, "\r");
    expect(&mut s, "[E1001]");
    let _ = std::fs::remove_file(&h);
}

#[test]
fn tab_completes_members_names_and_commands() {
    let h = history("complete");
    let mut s = spawn(&h, &[]);
    prompt(&mut s);
    // A unique member is completed in place.
    send(&mut s, "str.repe\t");
    line(&mut s, "(\"ab\", 2)");
    expect(&mut s, "- : Str = \"abab\"");
    prompt(&mut s);
    // A name defined in the session.
    line(&mut s, "let greeting_text = \"hi\"");
    expect(&mut s, "greeting_text : Str");
    prompt(&mut s);
    send(&mut s, "greeting_t\t");
    line(&mut s, " ++ \"!\"");
    expect(&mut s, "- : Str = \"hi!\"");
    prompt(&mut s);
    // Several candidates are listed.
    send(&mut s, "list.ma\t\t");
    expect(&mut s, "list.max");
    control(&mut s, 'c');
    prompt(&mut s);
    // Commands.
    send(&mut s, ":gra\t");
    send(&mut s, "\r");
    expect(&mut s, "No policy: only Log is granted (every operation");
    control(&mut s, 'd');
    let _ = s.exp_eof();
    let _ = std::fs::remove_file(&h);
}

#[test]
fn ctrl_c_drops_the_input_or_stops_the_run() {
    let h = history("ctrlc");
    let mut s = spawn(&h, &[]);
    prompt(&mut s);
    // While typing: the input is dropped and nothing is checked.
    line(&mut s, "let dropped = [1,");
    expect(&mut s, "  ... ");
    control(&mut s, 'c');
    prompt(&mut s);
    line(&mut s, "2 + 2");
    expect(&mut s, "- : Int = 4");
    prompt(&mut s);
    // A line that would continue an input that has already run is
    // refused with a hint, not run on its own.
    line(&mut s, "let xs = [1, 2]");
    expect(&mut s, "xs : List[Int] = [1, 2]");
    prompt(&mut s);
    line(&mut s, "  |> list.length");
    expect(&mut s, "found `|>` at the start of an input");
    expect(&mut s, "end the line before with the operator");
    prompt(&mut s);
    line(&mut s, "xs |>");
    expect(&mut s, "  ... ");
    line(&mut s, "  list.length");
    expect(&mut s, "- : Int = 2");
    prompt(&mut s);
    // While running: the run stops, the REPL stays.
    line(&mut s, "fn spin(n) { spin(n + 1) }");
    expect(&mut s, "fn spin");
    prompt(&mut s);
    line(&mut s, "let never = spin(0)");
    std::thread::sleep(Duration::from_millis(500));
    control(&mut s, 'c');
    expect(&mut s, "E5006");
    expect(&mut s, "(the input defined nothing)");
    prompt(&mut s);
    line(&mut s, "1 + 1");
    expect(&mut s, "- : Int = 2");
    prompt(&mut s);
    line(&mut s, ":quit");
    if let Err(e) = s.exp_eof() {
        panic!(":quit should end the REPL: {e}");
    }
    let _ = std::fs::remove_file(&h);
}

#[test]
fn writ_run_escapes_what_a_program_logs_on_a_terminal() {
    let dir = std::env::temp_dir().join(format!("writ-run-tty-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("paint.writ");
    let _ = std::fs::write(&file, "Log.info(\"\\u{1b}[2Jcleared \\u{202E}txt.exe\")\n");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_writ"));
    cmd.arg("run")
        .arg(&file)
        .env("NO_COLOR", "1")
        .env("TERM", "xterm");
    let mut s = match spawn_command(cmd, Some(20_000)) {
        Ok(s) => s,
        Err(e) => panic!("cannot start writ run on a pseudo-terminal: {e}"),
    };
    expect(&mut s, "\\u{1b}[2Jcleared \\u{202e}txt.exe");
    let _ = s.exp_eof();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_question_left_unanswered_is_refused_when_the_runs_time_is_up() {
    let dir = std::env::temp_dir().join(format!("writ-confirm-tty-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("ask.writ");
    let _ = std::fs::write(
        &file,
        "let ok = Confirm.ask(\"go on?\")\nLog.info(if ok { \"yes\" } else { \"no\" })\n",
    );
    let policy = dir.join("policy.toml");
    let _ = std::fs::write(
        &policy,
        "[principal]\nid = \"ana\"\nname = \"Ana\"\nrole = \"employee\"\n\n[grants.Log]\n[grants.Confirm]\n\n[limits]\ntime = \"1s\"\n",
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_writ"));
    cmd.arg("run")
        .arg(&file)
        .arg("--policy")
        .arg(&policy)
        .arg("--db")
        .arg(dir.join("writ.db"))
        .env("NO_COLOR", "1")
        .env("TERM", "xterm");
    let mut s = match spawn_command(cmd, Some(20_000)) {
        Ok(s) => s,
        Err(e) => panic!("cannot start writ run on a pseudo-terminal: {e}"),
    };
    // Nobody answers: within the run's second (the session's 20 s would
    // fail the test), the question is refused.
    expect(
        &mut s,
        "go on? [y/N] (no answer before the run's time was up: refused)",
    );
    // The run ends there, with its time limit, not with the program's
    // `no`.
    expect(&mut s, "E5005");
    let _ = s.exp_eof();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_question_in_the_repl_is_answered_or_refused_by_ctrl_c() {
    let dir = std::env::temp_dir().join(format!("writ-confirm-repl-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let policy = dir.join("policy.toml");
    // A run's time far beyond the session's 20 s: only Ctrl-C can end
    // the second question's wait in time.
    let _ = std::fs::write(
        &policy,
        "[principal]\nid = \"ana\"\nname = \"Ana\"\nrole = \"employee\"\n\n[grants.Log]\n[grants.Confirm]\n\n[limits]\ntime = \"10m\"\n",
    );
    let (policy, db) = (policy.display().to_string(), dir.join("writ.db"));
    let h = history("confirm");
    let mut s = spawn(
        &h,
        &["--policy", &policy, "--db", &db.display().to_string()],
    );
    prompt(&mut s);
    line(&mut s, "Confirm.ask(\"go on?\")");
    expect(&mut s, "go on? [y/N] ");
    line(&mut s, "y");
    expect(&mut s, "- : Bool = true");
    prompt(&mut s);
    line(&mut s, "Confirm.ask(\"and this?\")");
    expect(&mut s, "and this? [y/N] ");
    control(&mut s, 'c');
    expect(&mut s, "(cancelled: refused)");
    expect(&mut s, "[E5006] Error: the run was stopped with Ctrl-C");
    prompt(&mut s);
    line(&mut s, "1 + 1");
    expect(&mut s, "- : Int = 2");
    prompt(&mut s);
    line(&mut s, ":quit");
    let _ = s.exp_eof();
    let _ = std::fs::remove_file(&h);
    let _ = std::fs::remove_dir_all(&dir);
}
