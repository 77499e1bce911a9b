//! `writ mcp` over standard input and output, driven with raw JSON-RPC
//! messages: the handshake, the tools and their annotations, a check with
//! errors, a run, a denied payment, a confirmation asked through
//! elicitation, a plan declined then accepted through elicitation, a
//! client without elicitation, the resources, and the bounds (a malformed message, an
//! oversized source, an oversized message), after each of which the
//! server keeps serving. docs/mcp.md describes what is tested here;
//! tests/mcp_python/ drives the same server with the official Python SDK.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// How long a test waits for one message before it fails.
const WAIT: Duration = Duration::from_secs(60);

/// A running `writ mcp`, its messages read on a thread of their own.
struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    db: PathBuf,
}

impl Server {
    /// `writ mcp` under examples/book_ticket/policy.toml with a store of
    /// its own, initialized; `elicitation`: whether the client declares
    /// it can elicit.
    fn start(name: &str, elicitation: bool) -> Server {
        Server::under("examples/book_ticket/policy.toml", name, elicitation)
    }

    /// As [`Server::start`], under the policy file `policy`.
    fn under(policy: &str, name: &str, elicitation: bool) -> Server {
        let db = std::env::temp_dir().join(format!("writ-mcp-{name}-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&db);
        let mut child = Command::new(env!("CARGO_BIN_EXE_writ"))
            .args(["mcp", "--policy", policy, "--db"])
            .arg(&db)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("writ mcp starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut s = Server {
            child,
            stdin,
            lines,
            db,
        };
        let capabilities = if elicitation {
            json!({ "elicitation": { "form": {} } })
        } else {
            json!({})
        };
        let init = s.request(
            0,
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "clientInfo": { "name": "tests/mcp.rs", "version": "1" },
            }),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "writ", "{init}");
        s.send_line(
            &json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }).to_string(),
        );
        s
    }

    fn send_line(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).expect("write");
        self.stdin.write_all(b"\n").expect("write");
        self.stdin.flush().expect("flush");
    }

    /// The next message from the server.
    fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(WAIT)
            .expect("a message from the server");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Send a request; the response to it.
    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send_line(
            &json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string(),
        );
        self.response(id)
    }

    /// The response with `id` (the server sends nothing else unasked).
    fn response(&self, id: i64) -> Value {
        let m = self.next();
        assert_eq!(m["id"], id, "expected the response to {id}, found {m}");
        m
    }

    /// Call `tool`; whether it is an error, and its text parsed as JSON.
    fn call(&mut self, id: i64, tool: &str, arguments: Value) -> (bool, Value) {
        let r = self.request(
            id,
            "tools/call",
            json!({ "name": tool, "arguments": arguments }),
        );
        tool_result(&r)
    }
}

fn tool_result(r: &Value) -> (bool, Value) {
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a tool result, found {r}"));
    let doc = serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    (r["result"]["isError"] == json!(true), doc)
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.db);
    }
}

#[test]
fn the_tools_are_listed_with_annotations_from_the_policy() {
    let mut s = Server::start("list", false);
    let r = s.request(1, "tools/list", json!({}));
    let tools = r["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["check", "run", "plan", "approve", "explain"]);
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).expect("the tool");
    let hints = |name: &str| {
        let a = &tool(name)["annotations"];
        (
            a["readOnlyHint"].clone(),
            a["destructiveHint"].clone(),
            a["idempotentHint"].clone(),
            a["openWorldHint"].clone(),
        )
    };
    // Checking and explaining change nothing and reach nothing.
    assert_eq!(
        hints("check"),
        (json!(true), Value::Null, json!(true), json!(false))
    );
    assert_eq!(
        hints("explain"),
        (json!(true), Value::Null, json!(true), json!(false))
    );
    // The policy grants `Pay`: a run may act, and reaches the payees.
    assert_eq!(
        hints("run"),
        (json!(false), json!(true), json!(false), json!(true))
    );
    assert_eq!(
        hints("approve"),
        (json!(false), json!(true), json!(false), json!(true))
    );
    // A plan carries out no act; its `Http` reads are recorded responses.
    assert_eq!(
        hints("plan"),
        (json!(true), Value::Null, json!(true), json!(false))
    );
    let check = tool("check")["description"].as_str().unwrap_or("");
    assert!(check.contains(writ::primer::core()), "{check}");
    assert!(check.contains("Pay"), "{check}");
}

#[test]
fn check_reports_errors_as_data_then_accepts_the_repair() {
    let mut s = Server::start("check", false);
    let (is_error, doc) = s.call(1, "check", json!({ "source": "let x = 1 +\n" }));
    assert!(!is_error);
    assert_eq!(doc["status"], "rejected");
    let d = &doc["diagnostics"][0];
    assert_eq!(d["code"], "E0100");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["labels"][0]["start"]["line"], 1);
    assert_eq!(d["labels"][0]["start"]["column"], 12);
    assert!(d["help"].is_string());
    let (_, doc) = s.call(
        2,
        "check",
        json!({ "source": "fn double(n: Int) -> Int { n * 2 }\nLog.info(\"${double(input)}\")\n", "input_types": { "input": "Int" } }),
    );
    assert_eq!(doc["status"], "accepted", "{doc}");
    assert_eq!(doc["signatures"][0]["name"], "double");
    assert_eq!(doc["manifest"][0]["effect"], "Log");
    assert_eq!(doc["manifest"][0]["sites"][0]["kind"], "read");
    assert_eq!(doc["inputs"][0]["type"], "Int");
}

#[test]
fn run_answers_the_outcome_as_data() {
    let mut s = Server::start("run", false);
    let (is_error, doc) = s.call(
        1,
        "run",
        json!({ "source": "Log.info(\"hi\")\nlist.length(xs) + 1\n", "input_types": { "xs": "List[Int]" }, "inputs": { "xs": [1, 2] } }),
    );
    assert!(!is_error, "{doc}");
    assert_eq!(doc["status"], "ok");
    assert_eq!(doc["value"]["data"], 3);
    assert_eq!(doc["log"], json!(["hi"]));
    assert_eq!(doc["operations"][0]["operation"], "Log.info");
    // A rejected program is not run: its diagnostics say why.
    let (is_error, doc) = s.call(2, "run", json!({ "source": "Records.read(\"x\")\n" }));
    assert!(is_error);
    assert_eq!(doc["status"], "rejected");
    assert_eq!(doc["diagnostics"][0]["code"], "E3002");
}

#[test]
fn a_payment_over_the_cap_is_denied_and_audited() {
    let mut s = Server::start("denied", false);
    let source = std::fs::read_to_string("examples/book_ticket/over_cap.writ").expect("example");
    let (is_error, doc) = s.call(1, "run", json!({ "source": source }));
    assert!(is_error);
    assert_eq!(doc["status"], "failed");
    assert_eq!(doc["error"]["code"], "E4005");
    let op = &doc["operations"][0];
    assert_eq!(op["operation"], "Pay.pay");
    assert_eq!(op["decision"], "denied");
    assert_eq!(op["audit_id"], 1);
    let r = s.request(2, "resources/read", json!({ "uri": "writ://audit" }));
    let audit: Value =
        serde_json::from_str(r["result"]["contents"][0]["text"].as_str().unwrap_or(""))
            .expect("the audit log as JSON");
    assert_eq!(audit["total"], 1);
    assert_eq!(audit["records"][0]["decision"], "denied");
}

/// A store may be shared by several people: the audit resource shows
/// the model only the records of its own person's runs.
#[test]
fn the_audit_resource_shows_only_this_persons_records() {
    let mut s = Server::start("shared", false);
    let dir = std::env::temp_dir().join(format!("writ-mcp-shared-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let other = dir.join("eve.toml");
    std::fs::write(
        &other,
        "[principal]\nid = \"eve\"\nrole = \"employee\"\n\n[grants.Pay]\npayees = [\"shop.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 100\n",
    )
    .expect("a policy");
    let program = dir.join("secret.writ");
    std::fs::write(
        &program,
        "Pay.pay(\"shop.example\", 500, \"eve's secret memo\")\n",
    )
    .expect("a program");
    let out = Command::new(env!("CARGO_BIN_EXE_writ"))
        .arg("run")
        .arg(&program)
        .arg("--policy")
        .arg(&other)
        .arg("--db")
        .arg(&s.db)
        .output()
        .expect("writ runs");
    assert_eq!(
        out.status.code(),
        Some(3),
        "eve's payment is denied (exit 3)"
    );
    let source = std::fs::read_to_string("examples/book_ticket/over_cap.writ").expect("example");
    let (is_error, _) = s.call(1, "run", json!({ "source": source }));
    assert!(is_error);
    let r = s.request(2, "resources/read", json!({ "uri": "writ://audit" }));
    let text = r["result"]["contents"][0]["text"].as_str().unwrap_or("");
    let audit: Value = serde_json::from_str(text).expect("the audit log as JSON");
    assert_eq!(audit["total"], 1, "{audit}");
    assert_eq!(audit["records"][0]["operation"], "Pay.pay");
    assert_ne!(audit["records"][0]["principal"], "eve");
    assert!(!text.contains("eve"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_confirmation_is_asked_of_the_person_through_elicitation() {
    let mut s = Server::start("confirm", true);
    let source =
        std::fs::read_to_string("examples/book_ticket/book_confirmed.writ").expect("example");
    s.send_line(
        &json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "run", "arguments": { "source": source } } })
            .to_string(),
    );
    let ask = s.next();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let message = ask["params"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("Pay 389.00 EUR to air-one.example for A1-318?"),
        "{message}"
    );
    s.send_line(
        &json!({ "jsonrpc": "2.0", "id": ask["id"], "result": { "action": "accept" } }).to_string(),
    );
    let (is_error, doc) = tool_result(&s.response(1));
    assert!(!is_error, "{doc}");
    assert!(
        doc["value"]["data"]
            .as_str()
            .unwrap_or("")
            .starts_with("booked A1-318"),
        "{doc}"
    );
}

/// A program's question is shown on one line: its line breaks cannot
/// draw what looks like the server's own words (a plan to approve).
#[test]
fn a_programs_question_cannot_imitate_the_servers_words() {
    let mut s = Server::start("question", true);
    let source = "Confirm.ask(\"hello\\n\\nApprove this plan of a Writ program, for ada?\\n  1. Pay 0.01 EUR\")\n";
    s.send_line(
        &json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "run", "arguments": { "source": source } } })
            .to_string(),
    );
    let ask = s.next();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let message = ask["params"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains(
            "hello\\u{a}\\u{a}Approve this plan of a Writ program, for ada?\\u{a}  1. Pay 0.01 EUR"
        ),
        "{message}"
    );
    assert!(!message.contains("\nApprove this plan"), "{message}");
    s.send_line(
        &json!({ "jsonrpc": "2.0", "id": ask["id"], "result": { "action": "decline" } })
            .to_string(),
    );
    let (_, doc) = tool_result(&s.response(1));
    assert_eq!(doc["value"]["data"], false, "{doc}");
}

#[test]
fn a_client_without_elicitation_gets_a_denial() {
    let mut s = Server::start("no-elicitation", false);
    let source =
        std::fs::read_to_string("examples/book_ticket/book_confirmed.writ").expect("example");
    let (_, doc) = s.call(1, "run", json!({ "source": source }));
    assert_eq!(doc["value"]["data"], "not booked: Ada said no", "{doc}");
    let (_, planned) = s.call(
        2,
        "plan",
        json!({ "source": "Pay.pay(\"jetlow.example\", 100, \"x\")\n" }),
    );
    let (is_error, refused) = s.call(3, "approve", json!({ "plan_id": planned["plan_id"] }));
    assert!(is_error);
    assert_eq!(refused["status"], "refused");
    assert_eq!(refused["ran"], false);
}

#[test]
fn malformed_messages_get_json_rpc_errors_and_the_server_keeps_serving() {
    let mut s = Server::start("malformed", false);
    s.send_line("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ");
    let m = s.next();
    assert_eq!(m["error"]["code"], -32700, "{m}");
    assert_eq!(m["id"], Value::Null);
    s.send_line(&json!({ "jsonrpc": "2.0", "id": 2, "params": 5 }).to_string());
    let m = s.next();
    assert_eq!(m["error"]["code"], -32600, "{m}");
    assert_eq!(m["id"], 2);
    for not_a_message in ["[1, 2]", "{\"hello\": 1}", "42"] {
        s.send_line(not_a_message);
        let m = s.next();
        assert_eq!(m["error"]["code"], -32600, "{m}");
        assert_eq!(m["id"], Value::Null);
    }
    // A malformed notification is not answered: the next answer is 3's.
    s.send_line("{\"jsonrpc\": \"2.0\", \"method\": \"notifications/cancelled\", \"params\": 7}");
    let m = s.request(
        3,
        "tools/call",
        json!({ "name": "compile", "arguments": {} }),
    );
    assert_eq!(m["error"]["code"], -32602, "{m}");
    let m = s.request(4, "no/such/method", json!({}));
    assert_eq!(m["error"]["code"], -32601, "{m}");
    let (is_error, doc) = s.call(5, "check", json!({ "source": 42 }));
    assert!(is_error);
    assert_eq!(
        doc["error"],
        "expected `source` to be a string, found a number"
    );
    let (_, doc) = s.call(6, "run", json!({ "source": "1 + 1" }));
    assert_eq!(doc["value"]["data"], 2);
}

#[test]
fn an_oversized_source_is_e9004_and_an_oversized_message_is_refused() {
    let mut s = Server::start("oversized", false);
    let big = format!("// {}\n1\n", "x".repeat(2 * 1024 * 1024));
    // `check` answers in its own shape (a rejection is not an error);
    // `run` in its, with the policy's limits.
    let (is_error, doc) = s.call(1, "check", json!({ "source": big }));
    assert!(!is_error);
    assert_eq!(doc["status"], "rejected");
    assert_eq!(doc["diagnostics"][0]["code"], "E9004");
    assert!(
        doc.get("usage").is_none() && doc["manifest"] == json!([]),
        "{doc}"
    );
    let (is_error, doc) = s.call(7, "run", json!({ "source": big }));
    assert!(is_error);
    assert_eq!(doc["status"], "rejected");
    assert_eq!(doc["diagnostics"][0]["code"], "E9004");
    let (_, shown) = s.call(8, "run", json!({ "source": "1" }));
    assert_eq!(
        doc["limits"], shown["limits"],
        "the policy's limits, not the defaults"
    );
    let huge = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "check", "arguments": { "source": "x".repeat(5 * 1024 * 1024) } } });
    s.send_line(&huge.to_string());
    let m = s.next();
    assert_eq!(m["error"]["code"], -32600, "{m}");
    assert!(
        m["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("at most 4194304 bytes")
    );
    let (_, doc) = s.call(3, "run", json!({ "source": "\"still serving\"" }));
    assert_eq!(doc["value"]["data"], "still serving");
}

#[test]
fn explain_and_the_resources() {
    let mut s = Server::start("explain", false);
    let r = s.request(
        1,
        "tools/call",
        json!({ "name": "explain", "arguments": { "code": "E4005" } }),
    );
    let text = r["result"]["content"][0]["text"].as_str().unwrap_or("");
    assert!(text.starts_with("## E4005"), "{text}");
    let r = s.request(2, "resources/list", json!({}));
    let uris: Vec<&str> = r["result"]["resources"]
        .as_array()
        .map(|a| a.iter().filter_map(|r| r["uri"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(uris, ["writ://primer", "writ://grants", "writ://audit"]);
    let r = s.request(3, "resources/read", json!({ "uri": "writ://primer" }));
    let primer = r["result"]["contents"][0]["text"].as_str().unwrap_or("");
    // The primer, followed by what the policy grants.
    assert!(primer.len() > writ::primer::core().len(), "{primer}");
    assert!(primer.contains("Pay"), "{primer}");
    let r = s.request(4, "resources/read", json!({ "uri": "writ://nothing" }));
    assert!(r["error"]["code"].is_i64(), "{r}");
}

#[test]
fn a_plan_runs_only_once_the_person_accepts_it() {
    let mut s = Server::start("plan", true);
    let source = "let r = Pay.pay(\"jetlow.example\", 30000, \"flight JL-9\")\nr.id\n";
    let (is_error, planned) = s.call(1, "plan", json!({ "source": source }));
    assert!(!is_error, "{planned}");
    assert_eq!(planned["status"], "planned");
    let words = planned["words"].to_string();
    assert!(words.contains("jetlow.example"), "{words}");
    let id = planned["plan_id"].clone();
    let approve = |s: &mut Server, call: i64, action: &str| {
        s.send_line(
            &json!({ "jsonrpc": "2.0", "id": call, "method": "tools/call", "params": { "name": "approve", "arguments": { "plan_id": id } } })
                .to_string(),
        );
        let ask = s.next();
        assert_eq!(ask["method"], "elicitation/create", "{ask}");
        let message = ask["params"]["message"].as_str().unwrap_or("");
        assert!(message.contains("300.00 EUR"), "{message}");
        assert!(message.contains("jetlow.example"), "{message}");
        s.send_line(
            &json!({ "jsonrpc": "2.0", "id": ask["id"], "result": { "action": action } })
                .to_string(),
        );
        tool_result(&s.response(call))
    };
    let (is_error, refused) = approve(&mut s, 2, "decline");
    assert!(is_error);
    assert_eq!(refused["status"], "refused");
    assert_eq!(refused["ran"], false);
    assert!(
        refused["why"]
            .as_str()
            .unwrap_or("")
            .contains("the person declined")
    );
    let (is_error, ran) = approve(&mut s, 3, "accept");
    assert!(!is_error, "{ran}");
    assert_eq!(ran["status"], "ok");
    let pay = &ran["operations"][0];
    assert_eq!(pay["operation"], "Pay.pay");
    assert_eq!(pay["decision"], "allowed");
    // Carried out once: the plan is spent.
    let (is_error, again) = s.call(4, "approve", json!({ "plan_id": id }));
    assert!(is_error);
    assert_eq!(again["status"], "usage");
}

#[test]
fn a_policy_that_cannot_be_read_is_said_on_standard_error_and_nothing_is_served() {
    let dir = std::env::temp_dir().join(format!("writ-mcp-policy-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let bad = dir.join("policy.toml");
    std::fs::write(&bad, "[grants.Teleport]\n").expect("write");
    for policy in [dir.join("missing.toml"), bad] {
        let out = Command::new(env!("CARGO_BIN_EXE_writ"))
            .args(["mcp", "--policy"])
            .arg(&policy)
            .stdin(Stdio::null())
            .output()
            .expect("writ mcp runs");
        assert_eq!(out.status.code(), Some(2));
        assert!(
            out.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("policy"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_run_is_bounded_by_the_policys_time_and_a_long_result_is_cut_and_says_so() {
    let dir = std::env::temp_dir().join(format!("writ-mcp-time-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let policy = dir.join("policy.toml");
    std::fs::write(
        &policy,
        "[principal]\nid = \"t\"\nname = \"T\"\nrole = \"tester\"\n\n[limits]\ntime = \"300ms\"\n\n[grants.Log]\n",
    )
    .expect("write");
    let mut s = Server::under(&policy.display().to_string(), "time", false);
    let (is_error, doc) = s.call(
        1,
        "run",
        json!({ "source": "fn spin(n: Int) -> Int { spin(n + 1) }\nspin(0)\n" }),
    );
    assert!(is_error);
    assert_eq!(doc["error"]["code"], "E5005", "{doc}");
    assert_eq!(doc["limits"]["time_ms"], 300.0);
    // The value, as data and as displayed: past 1 MiB of text.
    let r = s.request(
        2,
        "tools/call",
        json!({ "name": "run", "arguments": { "source": "str.repeat(\"x\", 700000)" } }),
    );
    let text = r["result"]["content"][0]["text"].as_str().unwrap_or("");
    assert_eq!(text.find("\n[cut:"), Some(1024 * 1024));
    assert!(
        text.contains("[cut: the result was 14"),
        "{}",
        text.get(text.len().saturating_sub(200)..).unwrap_or("")
    );
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_call_the_client_cancels_stops_its_run_and_frees_its_place() {
    let dir = std::env::temp_dir().join(format!("writ-mcp-cancel-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let policy = dir.join("policy.toml");
    // Runs may take 10 minutes (and as many steps as they like): only the
    // cancellation can end them in time.
    std::fs::write(
        &policy,
        "[principal]\nid = \"t\"\nname = \"T\"\nrole = \"tester\"\n\n[limits]\ntime = \"600s\"\nfuel = \"1e12\"\n\n[grants.Log]\n",
    )
    .expect("write");
    let mut s = Server::under(&policy.display().to_string(), "cancel", false);
    let spin = json!({ "name": "run", "arguments": { "source": "fn spin(n: Int) -> Int { spin(n + 1) }\nspin(0)\n" } });
    // Two spinning runs take both of the server's places.
    for id in [1, 2] {
        s.send_line(
            &json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": spin })
                .to_string(),
        );
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    for id in [1, 2] {
        s.send_line(
            &json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": id, "reason": "the test" } })
                .to_string(),
        );
    }
    // A third call is answered: the cancelled runs stopped and gave their
    // places back (else it would wait, then be told the server is busy).
    s.send_line(
        &json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "run", "arguments": { "source": "1 + 1" } } })
            .to_string(),
    );
    let answer = loop {
        let m = s.next();
        if m["id"] == 3 {
            break m;
        }
        // A cancelled call may still be answered; never with a value.
        let (_, doc) = tool_result(&m);
        assert_eq!(doc["error"]["code"], "E5006", "{doc}");
    };
    let (is_error, doc) = tool_result(&answer);
    assert!(!is_error, "{doc}");
    assert_eq!(doc["value"]["data"], 2, "{doc}");
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}
