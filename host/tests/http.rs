//! The real `Http` client against a test server on loopback: an allowed
//! request, a host outside the allow-list, a redirect inside and one to a
//! host outside it, an oversized body and a slow response. Every denial
//! carries out nothing further and is audited.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::Duration;

use writ_host::engine::{Engine, RunOptions};
use writ_host::policy;
use writ_host::store::Store;

/// Serve `n` connections on a fresh loopback port, answering by path.
fn serve(n: usize) -> u16 {
    let Ok(listener) = TcpListener::bind("127.0.0.1:0") else {
        panic!("cannot bind loopback");
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
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
            let (status, extra, body) = match path.as_str() {
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
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
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
    let engine = Engine::new();
    let checked = match engine.check(&program, &policy) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    let db = std::env::temp_dir().join(format!("writ-http-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&db);
    let options = RunOptions {
        store: Some(db.display().to_string()),
    };
    let outcome = match engine.run(&checked, &policy, &options, &mut |_: &str| {}) {
        Ok(o) => o,
        Err(e) => panic!("{e:?}"),
    };
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
    let store = match Store::open(&db.display().to_string(), None) {
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
            "allowed", "denied", "allowed", "allowed", "denied", "allowed", "denied", "allowed",
            "denied", "denied"
        ]
    );
    assert_eq!(store.verify(), Ok(10));
    let _ = std::fs::remove_file(&db);
}
