//! The real `Http` client against a test server on loopback: an allowed
//! request, a host outside the allow-list, a redirect inside and one to a
//! host outside it, an oversized body and a slow response; encoded
//! traversal refused before any request; each redirect hop audited. Every
//! denial carries out nothing further and is audited.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod common;

use writ_host::engine::Engine;
use writ_host::policy;
use writ_host::store::Store;

/// How the test server answers a path: status line, extra headers, body.
type Answer = (&'static str, String, String);

/// Serve `n` connections on a fresh loopback port, answering each path
/// with `route`; the paths requested, in order.
fn serve_with(n: usize, route: fn(&str) -> Answer) -> (u16, Arc<Mutex<Vec<String>>>) {
    let Ok(listener) = TcpListener::bind("127.0.0.1:0") else {
        panic!("cannot bind loopback");
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(n) {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(match stream.try_clone() {
                Ok(s) => s,
                Err(_) => continue,
            });
            let mut request = String::new();
            let _ = reader.read_line(&mut request);
            // Skip the headers.
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).map_or(true, |n| n == 0) || line == "\r\n" {
                    break;
                }
            }
            let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
            if let Ok(mut l) = log.lock() {
                l.push(path.clone());
            }
            let (status, extra, body) = route(&path);
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (port, seen)
}

/// Serve `n` connections on a fresh loopback port, answering by path.
fn serve(n: usize) -> u16 {
    serve_with(n, |path| match path {
        "/ok" => ("200 OK", String::new(), "hello from loopback".to_string()),
        "/in" => ("302 Found", "Location: /ok\r\n".to_string(), String::new()),
        "/out" => (
            "302 Found",
            "Location: http://evil.example/steal\r\n".to_string(),
            String::new(),
        ),
        "/big" => ("200 OK", String::new(), "x".repeat(5000)),
        "/slow" => {
            std::thread::sleep(Duration::from_millis(1500));
            ("200 OK", String::new(), "late".to_string())
        }
        _ => ("404 Not Found", String::new(), "no".to_string()),
    })
    .0
}

/// A policy granting `Log` and `Http` for `allow` (`on_deny = "fail"`).
fn http_policy(allow: &str) -> policy::Policy {
    let text = format!(
        "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Log]\n\n[grants.Http]\nallow = [\"{allow}\"]\ntimeout = \"2s\"\non_deny = \"fail\"\n"
    );
    match policy::parse(&text) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    }
}

/// Run a program that logs `Http.get` of each URL (or why it was denied)
/// under `policy`; its `Log` lines and its store's audit records, as
/// `operation(arguments) decision: rule`.
fn get_each(name: &str, policy: &policy::Policy, urls: &[String]) -> (Vec<String>, Vec<String>) {
    let mut program = String::from(
        "fn get(url: Str) -> Str / {Http} {\n  handle Http.get(url) with { Fail.fail(why) => \"denied: ${why}\" }\n}\n",
    );
    for u in urls {
        program.push_str(&format!("Log.info(get(\"{u}\"))\n"));
    }
    let db = common::db("http", name);
    let outcome = common::run_with(&Engine::new(), &program, policy, &db);
    assert!(outcome.result.is_ok(), "{:?}", outcome.result);
    let records = common::audit_lines(&db);
    let _ = std::fs::remove_file(&db);
    (outcome.output, records)
}

#[test]
fn the_real_client_is_scoped_at_every_hop() {
    let port = serve(6);
    let policy_text = format!(
        "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Log]\n\n[grants.Http]\nallow = [\"http://127.0.0.1:{port}/\"]\nmax_response_bytes = 1000\ntimeout = \"500ms\"\non_deny = \"fail\"\n"
    );
    let policy = match policy::parse(&policy_text) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    let program = format!(
        "fn get(url: Str) -> Str / {{Http}} {{\n  handle Http.get(url) with {{ Fail.fail(why) => \"denied: ${{why}}\" }}\n}}\n\
Log.info(get(\"http://127.0.0.1:{port}/ok\"))\n\
Log.info(get(\"http://localhost:{port}/ok\"))\n\
Log.info(get(\"http://127.0.0.1:{port}/in\"))\n\
Log.info(get(\"http://127.0.0.1:{port}/out\"))\n\
Log.info(get(\"http://127.0.0.1:{port}/big\"))\n\
Log.info(get(\"http://127.0.0.1:{port}/slow\"))\n\
Log.info(get(\"http://ada@127.0.0.1:{port}/ok\"))\n"
    );
    let db = common::db("http", "scoped");
    let outcome = common::run_with(&Engine::new(), &program, &policy, &db);
    assert!(outcome.result.is_ok(), "{:?}", outcome.result);
    let lines = outcome.output;
    assert_eq!(
        lines.first().map(String::as_str),
        Some("hello from loopback")
    );
    assert!(
        lines
            .get(1)
            .is_some_and(|l| l.contains("is not in the allow-list")),
        "another host: {lines:?}"
    );
    assert_eq!(
        lines.get(2).map(String::as_str),
        Some("hello from loopback"),
        "a redirect inside the list is followed"
    );
    assert!(
        lines.get(3).is_some_and(|l| l
            .contains("redirected to http://evil.example/steal, which is not in the allow-list")),
        "{lines:?}"
    );
    assert!(
        lines
            .get(4)
            .is_some_and(|l| l.contains("larger than 1000 bytes")),
        "{lines:?}"
    );
    assert!(
        lines
            .get(5)
            .is_some_and(|l| l.starts_with("denied:") && l.contains("failed")),
        "{lines:?}"
    );
    assert!(
        lines.get(6).is_some_and(|l| l.contains("user information")),
        "{lines:?}"
    );
    // Every request is in the audit log, allowed before it was made, and
    // each failure or refusal after it.
    let store = match Store::open(&db, None) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    let decisions: Vec<String> = store
        .records()
        .unwrap_or_default()
        .iter()
        .map(|r| r.decision.clone())
        .collect();
    assert_eq!(
        decisions,
        [
            "allowed", "denied", "allowed", "allowed", "allowed", "denied", "allowed", "denied",
            "allowed", "denied", "denied"
        ]
    );
    assert_eq!(store.verify(), Ok(11));
    let _ = std::fs::remove_file(&db);
}

#[test]
fn encoded_traversal_is_refused_before_any_request() {
    let (port, seen) = serve_with(10, |path| match path {
        "/q/ok" => ("200 OK", String::new(), "fine".to_string()),
        _ => ("200 OK", String::new(), "ADMIN".to_string()),
    });
    let base = format!("http://127.0.0.1:{port}");
    let policy = http_policy(&format!("{base}/q"));
    let tricks = [
        "/q/..%2Fadmin",
        "/q/..%2fadmin",
        "/q/..;/admin",
        "/q;/../admin",
        "/q/%2e%2e/admin",
        "/q/.%2E/admin",
        "/q/..%5Cadmin",
        "/q/..%252Fadmin",
    ];
    let mut urls: Vec<String> = tricks.iter().map(|t| format!("{base}{t}")).collect();
    urls.push(format!("{base}/q/ok"));
    let (lines, records) = get_each("traversal", &policy, &urls);
    let expected_why = |t: &str| {
        if t.contains(';') {
            "a URL path may not contain `;` (a path parameter, which servers read differently)"
                .to_string()
        } else {
            let at = t.find('%').unwrap_or(0);
            let code = t.get(at + 1..at + 3).unwrap_or("");
            let ch = match code.to_ascii_uppercase().as_str() {
                "2F" => "/",
                "5C" => "\\",
                "2E" => ".",
                _ => "%",
            };
            format!(
                "a URL path may not contain an encoded `{ch}` (`%{code}`), which servers read differently"
            )
        }
    };
    for (i, t) in tricks.iter().enumerate() {
        let why = expected_why(t);
        assert_eq!(
            lines.get(i).map(String::as_str),
            Some(
                format!("denied: Http.get(\"{base}{t}\") was denied: the URL is malformed: {why}")
                    .as_str()
            )
        );
        assert_eq!(
            records.get(i).map(String::as_str),
            Some(format!("Http.get(\"{base}{t}\") denied: the URL is malformed: {why}").as_str())
        );
    }
    assert_eq!(lines.last().map(String::as_str), Some("fine"));
    // Only the plain request reached the server.
    let seen = seen.lock().map(|l| l.clone()).unwrap_or_default();
    assert_eq!(seen, ["/q/ok"]);
}

#[test]
fn each_redirect_hop_is_checked_and_audited() {
    let (port, seen) = serve_with(11, |path| {
        let to = |p: &str| ("302 Found", format!("Location: {p}\r\n"), String::new());
        match path {
            "/q/a" => to("/q/b"),
            // Relative references, resolved against the URL they came from.
            "/q/f" => to("b"),
            "/q/g" => to("../admin"),
            "/q/b" => ("200 OK", String::new(), "b".to_string()),
            "/q/c" => to("/q/d"),
            "/q/d" => to("/admin"),
            "/q/e" => to("/q/missing"),
            "/admin" => ("200 OK", String::new(), "ADMIN".to_string()),
            _ => ("404 Not Found", String::new(), "no".to_string()),
        }
    });
    let base = format!("http://127.0.0.1:{port}");
    let policy = http_policy(&format!("{base}/q"));
    let urls: Vec<String> = ["/q/a", "/q/c", "/q/e", "/q/f", "/q/g"]
        .iter()
        .map(|p| format!("{base}{p}"))
        .collect();
    let (lines, records) = get_each("hops", &policy, &urls);
    assert_eq!(
        lines,
        [
            "b".to_string(),
            format!(
                "denied: Http.get(\"{base}/admin\") was denied: {base}/q/d redirected to {base}/admin, which is not in the allow-list"
            ),
            format!(
                "denied: Http.get(\"{base}/q/missing\") failed after the policy allowed it: {base}/q/missing answered with status 404"
            ),
            "b".to_string(),
            format!(
                "denied: Http.get(\"{base}/admin\") was denied: {base}/q/g redirected to {base}/admin, which is not in the allow-list"
            ),
        ]
    );
    let rule = format!("allowed by {base}/q");
    let hop = |from: &str| format!("a redirect from {base}{from}, allowed by {base}/q");
    assert_eq!(
        records,
        [
            format!("Http.get(\"{base}/q/a\") allowed: {rule}"),
            format!("Http.get(\"{base}/q/b\") allowed: {}", hop("/q/a")),
            format!("Http.get(\"{base}/q/c\") allowed: {rule}"),
            format!("Http.get(\"{base}/q/d\") allowed: {}", hop("/q/c")),
            format!(
                "Http.get(\"{base}/admin\") denied: {base}/q/d redirected to {base}/admin, which is not in the allow-list"
            ),
            format!("Http.get(\"{base}/q/e\") allowed: {rule}"),
            format!("Http.get(\"{base}/q/missing\") allowed: {}", hop("/q/e")),
            format!(
                "Http.get(\"{base}/q/missing\") denied: {base}/q/missing answered with status 404"
            ),
            format!("Http.get(\"{base}/q/f\") allowed: {rule}"),
            format!("Http.get(\"{base}/q/b\") allowed: {}", hop("/q/f")),
            format!("Http.get(\"{base}/q/g\") allowed: {rule}"),
            format!(
                "Http.get(\"{base}/admin\") denied: {base}/q/g redirected to {base}/admin, which is not in the allow-list"
            ),
        ]
    );
    // The denied hops were never requested.
    let seen = seen.lock().map(|l| l.clone()).unwrap_or_default();
    assert_eq!(
        seen,
        [
            "/q/a",
            "/q/b",
            "/q/c",
            "/q/d",
            "/q/e",
            "/q/missing",
            "/q/f",
            "/q/b",
            "/q/g"
        ]
    );
}

#[test]
fn a_request_ends_when_the_runs_time_is_up() {
    // The server answers after 1.5 s, the grant would wait 60 s, and the
    // run has 300 ms: the request is cut at the run's time, which ends
    // the run (E5005) without the late answer ever reaching the program.
    let port = serve(1);
    let text = format!(
        "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[limits]\ntime = \"300ms\"\n\n[grants.Log]\n\n[grants.Http]\nallow = [\"http://127.0.0.1:{port}/\"]\ntimeout = \"60s\"\non_deny = \"fail\"\n"
    );
    let policy = match policy::parse(&text) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    let program = format!(
        "let page = handle Http.get(\"http://127.0.0.1:{port}/slow\") with {{ Fail.fail(why) => \"denied: ${{why}}\" }}\nLog.info(page)\n"
    );
    let db = common::db("http", "run-time");
    let outcome = common::run_with(&Engine::new(), &program, &policy, &db);
    let err = outcome
        .result
        .err()
        .map(|e| (e.code.to_string(), e.message));
    assert_eq!(
        err,
        Some((
            "E5005".to_string(),
            "expected the program to finish within 300 ms, but it ran longer".to_string()
        ))
    );
    assert!(outcome.output.is_empty(), "{:?}", outcome.output);
    let records = common::audit_lines(&db);
    assert_eq!(records.len(), 2, "{records:?}");
    assert!(
        records[1].contains("denied: the request to") && records[1].contains("timeout"),
        "{records:?}"
    );
    let _ = std::fs::remove_file(&db);
}

#[test]
fn a_request_that_fails_once_allowed_says_it_may_have_reached_the_server() {
    let port = serve(1);
    let base = format!("http://127.0.0.1:{port}");
    let text = format!(
        "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Http]\nallow = [\"{base}\"]\ntimeout = \"2s\"\n"
    );
    let policy = policy::parse(&text).unwrap_or_else(|d| panic!("{d:#?}"));
    let db = common::db("http", "failed-once-allowed");
    let program = format!("Http.post(\"{base}/missing\", \"order 1 pizza\")\n");
    let outcome = common::run_with(&Engine::new(), &program, &policy, &db);
    let _ = std::fs::remove_file(&db);
    let Err(e) = outcome.result else {
        panic!("expected the run to stop, found {:?}", outcome.result);
    };
    assert_eq!(e.code.as_str(), "E4005");
    assert_eq!(
        e.message,
        format!(
            "Http.post(\"{base}/missing\", \"order 1 pizza\") failed after the policy allowed it: {base}/missing answered with status 404"
        )
    );
    let help = e.help.unwrap_or_default();
    assert!(help.contains("may have reached the server"), "{help}");
    assert!(!help.contains("nothing was carried out"), "{help}");
}
