//! Policies: a complete one is read as written, and every malformed one is
//! refused with the code and place of each problem (a malformed policy
//! never grants anything).

use writ_host::policy::{OnDeny, Scope, Subjects, parse};

const FULL: &str = r#"
[principal]
id = "e1001"
name = "Ada Lovelace"
role = "employee"

[limits]
fuel = 1e6
memory = "64M"
time = "5s"

[store]
path = "writ.db"
seed = "seed.sql"

[grants.Log]

[grants.Clock]
audit = true

[grants.Http]
allow = ["https://air-one.example/offers", "http://127.0.0.1:8080/"]
recorded = "responses.toml"
max_response_bytes = 65536
timeout = "2s"
on_deny = "fail"

[grants.Pay]
payees = ["Air-One.example"]
currency = "EUR"
max_payment_cents = 50000
max_day_cents = 80000
confirm = true

[grants.Records]
scope = "reports"
redact = ["salary"]

[grants.Audit]
[grants.Confirm]
"#;

#[test]
fn a_complete_policy_reads_as_written() {
    let p = match parse(FULL) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    assert_eq!(p.principal.id, "e1001");
    assert_eq!(p.principal.name, "Ada Lovelace");
    assert_eq!(p.limits.fuel, 1_000_000);
    assert_eq!(p.limits.memory, 64 << 20);
    assert_eq!(p.limits.time.as_secs(), 5);
    assert_eq!(p.store.path.as_deref(), Some("writ.db"));
    assert_eq!(
        p.granted(),
        ["Audit", "Clock", "Confirm", "Http", "Log", "Pay", "Records"]
    );
    let http = p.grants.get("Http").map(|g| (&g.scope, g.audit, g.on_deny));
    match http {
        Some((Scope::Http(h), true, OnDeny::Fail)) => {
            assert_eq!(h.allow.len(), 2);
            assert_eq!(h.max_response_bytes, 65536);
            assert_eq!(h.timeout_ms, 2000);
            assert_eq!(h.recorded.as_deref(), Some("responses.toml"));
        }
        other => panic!("{other:?}"),
    }
    match p.grants.get("Pay").map(|g| (&g.scope, g.on_deny)) {
        Some((Scope::Pay(pay), OnDeny::Stop)) => {
            assert_eq!(pay.payees, ["air-one.example"]);
            assert_eq!(pay.max_payment_cents, 50000);
            // The run cap defaults to the payment cap; the day cap is set.
            assert_eq!(pay.max_run_cents, 50000);
            assert_eq!(pay.max_day_cents, 80000);
            assert!(pay.confirm);
        }
        other => panic!("{other:?}"),
    }
    match p.grants.get("Records").map(|g| &g.scope) {
        Some(Scope::Records(r)) => {
            assert_eq!(r.subjects, Subjects::Reports);
            assert_eq!(r.redact, ["salary"]);
        }
        other => panic!("{other:?}"),
    }
    // Log is not audited unless asked; Clock was asked.
    assert_eq!(p.grants.get("Log").map(|g| g.audit), Some(false));
    assert_eq!(p.grants.get("Clock").map(|g| g.audit), Some(true));
}

/// The codes of the problems found in `text`, with the line of each.
fn problems(text: &str) -> Vec<(String, usize)> {
    match parse(text) {
        Ok(_) => Vec::new(),
        Err(ds) => ds
            .iter()
            .map(|d| {
                let at = d.labels.first().map_or(0, |l| l.span.start);
                let line = text.get(..at).map_or(0, |t| t.matches('\n').count() + 1);
                (d.code.to_string(), line)
            })
            .collect(),
    }
}

const HEAD: &str = "[principal]\nid = \"e1\"\nrole = \"employee\"\n";

#[test]
fn every_malformed_policy_is_refused_where_it_is_wrong() {
    let cases: &[(&str, &[(&str, usize)])] = &[
        ("[principal\nid = 1\n", &[("E6001", 1)]),
        ("", &[("E6005", 1)]),
        ("[principal]\nid = \"e1\"\n", &[("E6005", 1)]),
        ("[principal]\nid = 7\nrole = \"x\"\n", &[("E6003", 2)]),
        // Nobody: an empty id or role would act, and be audited, for no
        // one (and share one day's totals with every other nobody).
        ("[principal]\nid = \"\"\nrole = \"x\"\n", &[("E6003", 2)]),
        ("[principal]\nid = \"e1\"\nrole = \" \"\n", &[("E6003", 3)]),
        ("principal = \"me\"\n", &[("E6005", 1), ("E6003", 1)]),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\nteam = \"a\"\n",
            &[("E6002", 4)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[extra]\n",
            &[("E6002", 4)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[limits]\ntime = \"soon\"\n",
            &[("E6003", 5)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[limits]\nfuel = true\n",
            &[("E6003", 5)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Htp]\n",
            &[("E6004", 4)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants]\nLog = 1\n",
            &[("E6003", 5)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Log]\naudit = \"yes\"\n",
            &[("E6003", 5)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Log]\non_deny = \"ignore\"\n",
            &[("E6003", 5)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Log]\nscope = \"all\"\n",
            &[("E6002", 5)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Http]\n",
            &[("E6005", 4)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Http]\nallow = \"https://a.example/\"\n",
            &[("E6003", 5)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Http]\nallow = [\"https://u@a.example/\"]\n",
            &[("E6003", 5)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Http]\nallow = [\"https://a.example/?q=1\"]\n",
            &[("E6003", 5)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Http]\nallow = [\"http://127.1/\"]\n",
            &[("E6003", 5)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Http]\nallow = []\ntimeout = \"forever\"\n",
            &[("E6003", 6)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Pay]\ncurrency = \"EUR\"\nmax_payment_cents = 1\n",
            &[("E6005", 4)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Pay]\npayees = [\"a\"]\nmax_payment_cents = 1\n",
            &[("E6005", 4)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Pay]\npayees = [\"a\"]\ncurrency = \"EUR\"\n",
            &[("E6005", 4)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Pay]\npayees = [\"a\"]\ncurrency = \"euro\"\nmax_payment_cents = 1\n",
            &[("E6003", 6)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Pay]\npayees = [\"a\", 2]\ncurrency = \"EUR\"\nmax_payment_cents = 1\n",
            &[("E6003", 5)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Pay]\npayees = [\"a\"]\ncurrency = \"EUR\"\nmax_payment_cents = -1\n",
            &[("E6003", 7)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Pay]\npayees = [\"a\"]\ncurrency = \"EUR\"\nmax_payment_cents = 1.5\n",
            &[("E6003", 7)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Pay]\npayees = [\"a\"]\ncurrency = \"EUR\"\nmax_payment_cents = \"500\"\n",
            &[("E6003", 7)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Pay]\npayees = [\"a\"]\ncurrency = \"EUR\"\nmax_payment_cents = 1\nconfirm = 1\n",
            &[("E6003", 8)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Records]\n",
            &[("E6005", 4)],
        ),
        // A key of the wrong type is one error, not also a missing key.
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Pay]\npayees = \"a\"\ncurrency = \"EUR\"\nmax_payment_cents = 1\n",
            &[("E6003", 5)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Records]\nscope = 1\n",
            &[("E6003", 5)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[limits]\nfuel = 1.5\n",
            &[("E6003", 5)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Records]\nscope = \"team\"\n",
            &[("E6003", 5)],
        ),
        (
            "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Records]\nscope = \"self\"\nredact = \"salary\"\n",
            &[("E6003", 6)],
        ),
    ];
    let mut failures = Vec::new();
    for (text, want) in cases {
        let got = problems(text);
        let want: Vec<(String, usize)> = want.iter().map(|(c, l)| (c.to_string(), *l)).collect();
        if got != want {
            failures.push(format!("{text:?}: found {got:?}, expected {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(parse(HEAD).is_ok(), "a policy granting nothing is valid");
}

#[test]
fn a_malformed_policy_grants_nothing_even_where_the_rest_is_fine() {
    let text = format!("{HEAD}[grants.Log]\n[grants.Pay]\npayees = [\"a\"]\n");
    assert!(parse(&text).is_err());
}

/// The messages of a policy's diagnostics, in order.
fn messages(text: &str) -> Vec<String> {
    match parse(text) {
        Ok(_) => Vec::new(),
        Err(ds) => ds
            .iter()
            .map(|d| format!("{} {}", d.code.as_str(), d.message))
            .collect(),
    }
}

#[test]
fn a_store_on_postgresql_is_named_by_a_url_without_a_password() {
    let head = "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[store]\n";
    let p = match parse(&format!(
        "{head}url = \"postgres://writ@db.example:5432/team\"\npassword_env = \"TEAM_PG\"\nconnect_timeout = \"2s\"\nstatement_timeout = \"30s\"\nlock_wait = \"5s\"\nmax_connections = 4\n"
    )) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    assert_eq!(
        p.store.url.as_deref(),
        Some("postgres://writ@db.example:5432/team")
    );
    assert_eq!(p.store.password_env.as_deref(), Some("TEAM_PG"));
    assert_eq!(p.store.connect_timeout.map(|t| t.as_secs()), Some(2));
    assert_eq!(p.store.statement_timeout.map(|t| t.as_secs()), Some(30));
    assert_eq!(p.store.max_connections, Some(4));
    // The password comes from the variable the policy names, which must
    // be set; a run under the policy is refused before it starts if not.
    assert_eq!(
        writ_host::engine::postgres_options(&p).err(),
        Some("the policy takes the store's password from the environment variable TEAM_PG, which is not set".to_string())
    );
    // A password file that cannot be read refuses the run too; one that
    // can gives its first line.
    let missing = std::env::temp_dir().join(format!("writ-no-pw-{}", std::process::id()));
    let with_file = |file: &std::path::Path| {
        parse(&format!("{head}password_file = \"{}\"\n", file.display()))
            .map_err(|d| format!("{d:?}"))
            .and_then(|p| writ_host::engine::postgres_options(&p))
            .map(|o| o.password)
    };
    let refused = with_file(&missing).err().unwrap_or_default();
    assert!(
        refused.starts_with(&format!(
            "cannot read the store's password file {}: ",
            missing.display()
        )),
        "{refused}"
    );
    let file = std::env::temp_dir().join(format!("writ-pw-{}", std::process::id()));
    assert!(std::fs::write(&file, "s3cret\nignored\n").is_ok());
    assert_eq!(with_file(&file), Ok(Some("s3cret".to_string())));
    let _ = std::fs::remove_file(&file);
    // The PostgreSQL keys hold for a store named on the command line too:
    // they are read without `url`.
    assert_eq!(
        messages(&format!(
            "{head}password_file = \"pg.secret\"\nstatement_timeout = \"1s\"\n"
        )),
        Vec::<String>::new()
    );
    for (keys, said) in [
        (
            "url = \"postgres://writ:hunter2@db.example/team\"\n",
            "E6003 in `url` of [store]: a store's URL must not hold a password (it would show in policies, command lines and messages); put the password in PGPASSWORD, or name a file or variable in the policy's [store] password_file or password_env",
        ),
        (
            "url = \"team.db\"\n",
            "E6003 expected `url` in [store] to be a postgres:// URL, found a text that is not one",
        ),
        (
            "url = \"memory:team\"\n",
            "E6003 expected `url` in [store] to be a postgres:// URL, found a text that is not one",
        ),
        (
            "path = \"memory:team\"\n",
            "E6003 expected `path` in [store] to be a SQLite file's path, found a memory store's name",
        ),
        // Names SQLite opens as no file: each run would start with an
        // empty ledger (no day's cap) and lose its audit log.
        (
            "path = \"\"\n",
            "E6003 in `path` of [store]: expected a SQLite file's path, found an empty one (SQLite would open a temporary store that each run starts empty)",
        ),
        (
            "path = \":memory:\"\n",
            "E6003 in `path` of [store]: expected a SQLite file's path, found `:memory:` (SQLite would keep the store in memory, empty at each run: a day's cap would not hold and the audit log would be lost); to name a file called so, write `./:memory:`",
        ),
        (
            "path = \"file:cap.db?mode=memory\"\n",
            "E6003 in `path` of [store]: expected a SQLite file's path, found the SQLite URI `file:cap.db?mode=memory` (a store is named by its plain path; a URI's query could keep it in memory); to name a file called so, write `./file:cap.db?mode=memory`",
        ),
        (
            "url = \"mysql://db.example/team\"\n",
            "E6003 in `url` of [store]: expected a store's location to be a SQLite file's path or a postgres:// URL, found a URL of scheme `mysql`",
        ),
        (
            "path = \"team.db\"\nurl = \"postgres://writ@db.example/team\"\n",
            "E6003 expected one of `path` and `url` in [store], found both",
        ),
        (
            "statement_timeout = \"2m\"\n",
            "E6003 expected `statement_timeout` in [store] to be a time above 0 of at most 60s, found `2m`",
        ),
        (
            "connect_timeout = \"0s\"\n",
            "E6003 expected `connect_timeout` in [store] to be a time above 0 of at most 60s, found `0s`",
        ),
        (
            "max_connections = 0\n",
            "E6003 expected `max_connections` in [store] to be a whole number from 1 to 1000, found `0`",
        ),
        (
            "max_connections = \"16\"\n",
            "E6003 expected `max_connections` in [store] to be a whole number from 1 to 1000, found \"16\"",
        ),
        (
            "pasword_env = \"X\"\n",
            "E6002 expected a key of [store] (`path`, `url`, `seed`, `lock_wait`, `password_file`, `password_env`, `connect_timeout`, `statement_timeout`, `max_connections`), found `pasword_env`",
        ),
    ] {
        assert_eq!(
            messages(&format!("{head}{keys}")),
            vec![said.to_string()],
            "{keys}"
        );
    }
}

#[test]
fn a_count_of_the_wrong_form_gets_the_help_of_its_unit() {
    let head = "[principal]\nid = \"e1\"\nrole = \"r\"\n";
    for (grant, help) in [
        (
            "[grants.Http]\nallow = [\"https://a.example/x\"]\nmax_response_bytes = \"1M\"\n",
            "a size is a whole number of bytes, without a unit or quotes: `1048576` for 1 MiB",
        ),
        (
            "[grants.Pay]\npayees = [\"a\"]\ncurrency = \"EUR\"\nmax_payment_cents = \"5.00\"\n",
            "amounts are whole numbers of cents: `50000` for 500.00",
        ),
    ] {
        let d = match parse(&format!("{head}{grant}")) {
            Ok(_) => panic!("{grant:?} was accepted"),
            Err(d) => d,
        };
        let helps: Vec<Option<&str>> = d.iter().map(|d| d.help.as_deref()).collect();
        assert_eq!(helps, [Some(help)], "{grant:?}");
    }
}

#[test]
fn a_grant_of_fail_is_refused_with_the_reason() {
    let text = "[principal]\nid = \"e1\"\nrole = \"r\"\n[grants.Fail]\n";
    let d = match parse(text) {
        Ok(_) => panic!("a grant of Fail was accepted"),
        Err(d) => d,
    };
    let found: Vec<(&str, Option<&str>)> = d
        .iter()
        .map(|d| (d.code.as_str(), d.help.as_deref()))
        .collect();
    assert_eq!(
        found,
        [(
            "E6004",
            Some(
                "`Fail` needs no grant: every program may fail, and may handle `Fail` itself; remove this section"
            )
        )]
    );
}
