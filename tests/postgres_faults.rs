//! The PostgreSQL store when things go wrong: a server that cannot be
//! reached, stopped in the middle of a run, or frozen; a paying process
//! killed with `kill -9`; a store of an older schema migrated by `writ db
//! migrate`. In each, the run ends with a clear error (E4006) or is
//! refused before it starts, and afterwards the ledger and the audit log
//! agree and verify: nothing is lost or half-written.
//!
//! The tests that stop or freeze a server start a private one each
//! (tests/postgres/server.sh), so that the shared test server goes on
//! serving the other tests.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use writ_host::store::{Location, PostgresOptions, Store};

#[path = "postgres/support.rs"]
mod postgres_support;

const POLICY: &str = "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n\
[store]\nlock_wait = \"1s\"\nstatement_timeout = \"1s\"\nconnect_timeout = \"1s\"\n\n[grants.Log]\n\n\
[grants.Pay]\npayees = [\"air-one.example\"]\ncurrency = \"USD\"\nmax_payment_cents = 5000\n\
max_run_cents = 100000000\nmax_day_cents = 100000000\n";

/// Pays a cent at a time, saying so after each payment, for a long time.
const PAYING: &str = "fn pay(n: Int) -> Int / {Pay, Log} {\n  if n == 0 { 0 } else {\n    Pay.pay(\"air-one.example\", 1, \"cent\")\n    Log.info(\"paid\")\n    pay(n - 1)\n  }\n}\npay(1000000)\n";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("writ-pgfault-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("policy.toml"), POLICY).expect("write");
    std::fs::write(dir.join("pay.writ"), PAYING).expect("write");
    dir
}

fn server_sh() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/postgres/server.sh")
}

/// A private server for one test: started in `dir`, stopped when dropped.
struct Server {
    dir: PathBuf,
    url: String,
    password: String,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let o = Command::new("bash")
            .arg(server_sh())
            .arg("start")
            .arg(dir)
            .output()
            .expect("server.sh runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let url = String::from_utf8_lossy(&o.stdout).trim().to_string();
        let password = std::fs::read_to_string(dir.join("password")).expect("password");
        Server {
            dir: dir.to_path_buf(),
            url: postgres_support::database_url(&url, "postgres"),
            password,
        }
    }

    fn control(&self, action: &str) {
        let o = Command::new("bash")
            .arg(server_sh())
            .arg(action)
            .arg(&self.dir)
            .output()
            .expect("server.sh runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }

    /// The server's processes: the postmaster (from its pid file) and
    /// its children (from /proc, whose `stat` names each one's parent).
    fn processes(&self) -> Vec<String> {
        let pid = std::fs::read_to_string(self.dir.join("data/postmaster.pid")).unwrap_or_default();
        let Some(pid) = pid.lines().next().map(str::to_string) else {
            return Vec::new();
        };
        let mut all = vec![pid.clone()];
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            // `PID (NAME) STATE PPID ...`: the fields after the name.
            let parent = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1));
            if parent == Some(pid.as_str()) {
                all.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        all
    }

    /// Send `signal` (`-STOP`, `-CONT`) to every process of the server,
    /// with the shell's own `kill`.
    fn signal(&self, signal: &str) {
        let pids = self.processes().join(" ");
        if !pids.is_empty() {
            let _ = Command::new("bash")
                .args(["-c", &format!("kill {signal} {pids}")])
                .status();
        }
    }

    /// A new database on this server: its URL.
    fn database(&self, name: &str) -> String {
        let o = Command::new("psql")
            .args([
                &self.url,
                "-X",
                "-q",
                "-c",
                &format!("CREATE DATABASE {name}"),
            ])
            .env("PGPASSWORD", &self.password)
            .output()
            .expect("psql runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        postgres_support::database_url(&self.url, name)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.signal("-CONT");
        self.control("stop");
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn writ(dir: &Path, password: &str, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_writ"));
    c.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("PGPASSWORD", password);
    c
}

/// Start paying against `db`; return once the run has paid (its first
/// Log line).
fn paying(dir: &Path, password: &str, db: &str) -> Child {
    let mut child = writ(
        dir,
        password,
        &["run", "pay.writ", "--policy", "policy.toml", "--db", db],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("writ starts");
    if let Some(out) = child.stdout.take() {
        use std::io::BufRead;
        let mut lines = std::io::BufReader::new(out).lines();
        assert!(matches!(lines.next(), Some(Ok(l)) if l == "paid"));
        // Read the rest so that the run never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
    }
    child
}

fn opened(url: &str, password: &str) -> Store {
    let options = PostgresOptions {
        password: Some(password.to_string()),
        ..PostgresOptions::default()
    };
    match Location::parse(url).and_then(|l| Store::open_at(&l, &options, None)) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

/// The ledger and the log agree: one row per allowed payment record, and
/// the chain and the ledger verify. Returns the number of payments.
fn agree(store: &Store) -> usize {
    // A session of the killed or thawed run may still be ending (its last
    // commit landing, or rolled back): read again until two reads agree.
    let mut last = None;
    for _ in 0..50 {
        let records = store.records().unwrap_or_default();
        let allowed = records
            .iter()
            .filter(|r| r.operation == "Pay.pay" && r.decision == "allowed")
            .count();
        let ledger = store.ledger().unwrap_or_default();
        let now = (records.len(), allowed, ledger.len());
        if last == Some(now) {
            assert_eq!(
                ledger.len(),
                allowed,
                "a payment without its record, or the reverse"
            );
            assert_eq!(store.verify(), Ok(records.len()));
            return allowed;
        }
        last = Some(now);
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the store never settled: {last:?}");
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A private server named `name`, a database on it, and a run paying
/// into it for a while; then `fault` done to the server: the server, the
/// database's URL, and how the run ended. `None` without a test server.
fn paying_through(name: &str, fault: impl FnOnce(&Server)) -> Option<(Server, String, Output)> {
    postgres_support::server()?;
    let dir = scratch(name);
    let server = Server::start(&dir.join("server"));
    let db = server.database(name);
    let run = paying(&dir, &server.password, &db);
    std::thread::sleep(Duration::from_millis(300));
    fault(&server);
    let o = run.wait_with_output().expect("writ ends");
    Some((server, db, o))
}

#[test]
fn a_server_stopped_in_the_middle_of_a_run_ends_it_with_nothing_half_written() {
    let Some((server, db, o)) = paying_through("stopped", |s| s.control("stop")) else {
        return;
    };
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    // Where the server went away decides which write failed: the
    // payment's transaction, or (once the day's total could not be read
    // and the payment was denied) the denial's record; or the payment's
    // commit, on its way when the connection went, whose outcome nobody
    // heard. Each ends the run on the store's error, saying which.
    let ended = err
        .lines()
        .find(|l| l.starts_with("[E4006] Error: "))
        .unwrap_or_default();
    assert!(
        (ended.starts_with("[E4006] Error: the payment could not be recorded (")
            && ended.ends_with("; nothing was paid"))
            || (ended
                .starts_with("[E4006] Error: the audit record of Pay.pay could not be written (")
                && ended.ends_with("; the operation was denied"))
            || (ended.starts_with("[E4006] Error: the payment's outcome is unknown (")
                && ended.ends_with(
                    "while the transaction was committing: the database kept all of what it wrote, or none of it); the ledger and the audit log say whether it was made"
                )),
        "{err}"
    );
    server.control("restart");
    let store = opened(&db, &server.password);
    assert!(agree(&store) > 0);
    // The restarted server takes payments again.
    let o = writ(
        &server.dir,
        &server.password,
        &["audit", "verify", "--db", &db],
    )
    .output()
    .expect("writ runs");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_frozen_server_ends_the_run_within_its_bounds() {
    let mut frozen = Instant::now();
    let Some((server, db, o)) = paying_through("frozen", |s| {
        s.signal("-STOP");
        frozen = Instant::now();
    }) else {
        return;
    };
    // The lock wait (1s) and the statement bound (1s), and some slack
    // for a loaded machine.
    assert!(
        frozen.elapsed() < Duration::from_secs(15),
        "{:?}",
        frozen.elapsed()
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    // The bound that ran out first says so: a statement's answer, or
    // (the connection given up at a transaction's start and made again)
    // the new connection's.
    assert!(
        err.lines().any(|l| l.starts_with("[E4006] Error: "))
            && (err.contains(
                "the store did not answer within its statement_timeout (1000 ms) beyond the lock wait"
            ) || err.contains("the server did not answer within the connect_timeout (1000 ms)")),
        "{err}"
    );
    server.signal("-CONT");
    let store = opened(&db, &server.password);
    assert!(agree(&store) > 0);
}

#[test]
fn a_paying_process_killed_leaves_the_ledger_and_the_log_in_agreement() {
    let Some(db) = postgres_support::fresh_database() else {
        return;
    };
    let password = std::env::var("PGPASSWORD").unwrap_or_default();
    let dir = scratch("killed");
    for _ in 0..3 {
        let mut run = paying(&dir, &password, &db);
        std::thread::sleep(Duration::from_millis(200));
        let _ = run.kill(); // SIGKILL
        let _ = run.wait();
    }
    let store = opened(&db, &password);
    assert!(agree(&store) > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_server_that_cannot_be_reached_refuses_the_run_before_it_starts() {
    let dir = scratch("unreachable");
    let run_on = |db: &str| {
        writ(
            &dir,
            "",
            &["run", "pay.writ", "--policy", "policy.toml", "--db", db],
        )
        .output()
        .expect("writ runs")
    };
    let started = Instant::now();
    let o = run_on("postgres://writ@127.0.0.1:1/none");
    assert!(started.elapsed() < Duration::from_secs(10));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.starts_with("[E4006] Error: cannot open the store postgres://writ@127.0.0.1:1/none: "),
        "{err}"
    );
    // A URL with a password is refused, and never shown.
    let o = run_on("postgres://writ:hunter2@127.0.0.1:1/none");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.starts_with("[E4006] Error: a store's URL must not hold a password"),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_store_of_an_older_schema_is_refused_until_migrated() {
    let Some(db) = postgres_support::fresh_database() else {
        return;
    };
    let password = std::env::var("PGPASSWORD").unwrap_or_default();
    let dir = scratch("migrate");
    let location = Location::parse(&db).expect("a URL");
    assert_eq!(Store::create_at_version(&location, 2), Ok(()));
    std::fs::write(
        dir.join("one.writ"),
        "Pay.pay(\"air-one.example\", 100, \"m\")\n",
    )
    .expect("write");
    let run = || {
        writ(
            &dir,
            &password,
            &["run", "one.writ", "--policy", "policy.toml", "--db", &db],
        )
        .output()
        .expect("writ runs")
    };
    let o = run();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.starts_with("[E4006] Error: expected a store of schema version 3, found version 2: a migration brings it up to date, in place"),
        "{err}"
    );
    let migrate = || {
        writ(&dir, &password, &["db", "migrate", "--db", &db])
            .output()
            .expect("writ runs")
    };
    let o = migrate();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("migrated {db} from schema version 2 to 3\n")
    );
    let o = migrate();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("{db} is at schema version 3 already\n")
    );
    let o = run();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(agree(&opened(&db, &password)), 1);
    let _ = std::fs::remove_dir_all(&dir);
}
