//! The store in memory: its name, its seeds (the one form read, anything
//! else refused), its content taken out and put back (and found changed
//! when changed), its transactions (a failed write leaves nothing), the
//! watcher of its commits, and its randomness.

use std::sync::{Arc, Mutex};

use super::tests::{entry, fresh_memory_name, over, payment};
use super::*;

fn open(name: &str, seed: Option<&str>) -> Store {
    match Store::open(&format!("memory:{name}"), seed) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn a_memory_location_is_a_name_after_memory_colon() {
    assert_eq!(
        Location::parse("memory:play.1"),
        Ok(Location::Memory("play.1".into()))
    );
    assert_eq!(
        Location::parse("memory:play.1").map(|l| l.to_string()),
        Ok("memory:play.1".into())
    );
    let said = |text: &str| Location::parse(text).err().map(|e| e.to_string());
    for bad in [
        "memory:",
        "memory:a/b",
        "memory:a b",
        &format!("memory:{}", "x".repeat(65)),
    ] {
        assert!(
            said(bad).is_some_and(|e| e.contains(
                "expected a memory store's name after `memory:` (1 to 64 letters, digits, `_`, `-` or `.`)"
            )),
            "{bad}: {:?}",
            said(bad)
        );
    }
    // A file named like it is still a file when it has a directory.
    assert_eq!(
        Location::parse("./memory:x"),
        Ok(Location::Sqlite("./memory:x".into()))
    );
}

#[test]
fn names_sqlite_opens_as_no_file_are_refused() {
    let said = |text: &str| Location::parse(text).err().map(|e| e.to_string());
    for (bad, why) in [
        ("", "found an empty one"),
        ("  ", "found an empty one"),
        (":memory:", "found `:memory:`"),
        (":MEMORY:", "found `:MEMORY:`"),
        (
            "file:cap.db?mode=memory",
            "found the SQLite URI `file:cap.db?mode=memory`",
        ),
        ("FILE:cap.db", "found the SQLite URI `FILE:cap.db`"),
    ] {
        assert!(
            said(bad).is_some_and(|e| e.contains(why)),
            "{bad:?}: {:?}",
            said(bad)
        );
    }
    // With a directory before them, they are plain files' names.
    for good in ["./:memory:", "./file:cap.db", "dir/:memory:", "cap.db"] {
        assert_eq!(Location::parse(good), Ok(Location::Sqlite(good.into())));
    }
}

#[test]
fn stores_opened_by_one_name_are_one_store_and_forget_drops_it() {
    let name = fresh_memory_name();
    let mut a = open(&name, None);
    assert_eq!(a.audit(&entry("Log.info")), Ok(1));
    let b = open(&name, None);
    assert_eq!(b.records().map(|r| r.len()), Ok(1));
    assert_eq!(b.kind(), "memory");
    // Another name is another store.
    let other = open(&fresh_memory_name(), None);
    assert_eq!(other.records().map(|r| r.len()), Ok(0));
    memory::forget(&name);
    assert_eq!(open(&name, None).records().map(|r| r.len()), Ok(0));
}

#[test]
fn the_examples_seed_is_read_and_reports_follow_the_chart() {
    let org = include_str!("../../../examples/shared/org.sql");
    let s = open(&fresh_memory_name(), Some(org));
    assert_eq!(
        s.reports("h100"),
        Ok(vec!["e1001".into(), "e1002".into(), "e1004".into()])
    );
    let ada = s.read(|tx| tx.employee("e1001"));
    assert!(
        matches!(&ada, Ok(Some((name, Some(boss), fields))) if name == "Ada Lovelace" && boss == "h100" && fields.contains("\"plan\": \"Silver\"")),
        "{:?}",
        ada.is_ok()
    );
    assert_eq!(s.read(|tx| tx.employee_ids()).map(|ids| ids.len()), Ok(6));
    // Quotes in a string, NULL, columns in another order, comments.
    let seed = "-- two\ninsert into Employees (name, id, fields) values ('O''Brien', 'x1', '{}');\nINSERT INTO employees (id, name, manager) VALUES ('x2', 'Y', 'x1') -- end";
    let mut t = open(&fresh_memory_name(), Some(seed));
    assert!(matches!(
        t.read(|tx| tx.employee("x1")),
        Ok(Some((n, None, f))) if n == "O'Brien" && f == "{}"
    ));
    assert_eq!(t.reports("x1"), Ok(vec!["x2".into()]));
    // A chart with a cycle: the walk ends where it comes back (as the
    // databases' recursive query does, the manager among her reports).
    let cycle = "INSERT INTO employees (id, name, manager) VALUES ('a', 'A', 'b'), ('b', 'B', 'a'), ('c', 'C', 'b');";
    let u = open(&fresh_memory_name(), Some(cycle));
    assert_eq!(u.reports("a"), Ok(vec!["a".into(), "b".into(), "c".into()]));
    assert!(t.execute_raw("").is_ok());
}

#[test]
fn a_seed_of_anything_else_is_refused_and_nothing_of_it_is_kept() {
    let cases = [
        (
            "DROP TABLE audit;",
            "expected `INSERT`, found `DROP TABLE audit;`",
        ),
        (
            "INSERT INTO ledger (id) VALUES ('1');",
            "expected `employees`, found `ledger (id) VALUES ('1')`",
        ),
        (
            "INSERT INTO employees (id, salary) VALUES ('a', '1');",
            "expected the columns id, name, manager and fields, each once, found `salary`",
        ),
        (
            "INSERT INTO employees (id, name) VALUES ('a', 'A') ('b', 'B');",
            "expected `;` or the end of the seed, found `('b', 'B');`",
        ),
        (
            "INSERT INTO employees (id, name) VALUES ('a', NULL);",
            "expected a string for `name`, found `NULL`",
        ),
        (
            "INSERT INTO employees (id, name) VALUES ('a', 'A'), ('a', 'B');",
            "the seed gives the employee `a` twice",
        ),
        (
            "INSERT INTO employees (id, name) VALUES ('a, 'A');",
            "expected `,`, found `A');`",
        ),
        (
            "INSERT INTO employees (id, name) VALUES ('a', 'A",
            "expected the string's closing quote, found `the end of the seed`",
        ),
        (
            "INSERT INTO employees (manager) VALUES ('a');",
            "expected the columns id and name, found `manager`",
        ),
    ];
    for (seed, said) in cases {
        let name = fresh_memory_name();
        match Store::open(&format!("memory:{name}"), Some(seed)) {
            Err(e @ StoreError::Seed { .. }) => {
                assert!(e.to_string().contains(said), "{seed}: {e}")
            }
            Err(e) => panic!("{seed}: not a seed error: {e}"),
            Ok(_) => panic!("{seed}: accepted"),
        }
        // The failed creation left nothing: not even the schema.
        assert_eq!(
            memory::export(&name).map(|c| c.meta.len()),
            Some(0),
            "{seed}"
        );
    }
}

#[test]
fn contents_taken_out_and_put_back_verify_and_changes_are_found() {
    let name = fresh_memory_name();
    let mut s = open(&name, None);
    assert!(s.audit(&entry("Audit.note")).is_ok());
    assert_eq!(
        s.pay(&entry("Pay.pay"), &payment("a", 300), &over),
        Ok(Paid::Made { id: 1, seq: 2 })
    );
    assert!(s.audit(&entry("Audit.note")).is_ok());
    let Some(kept) = memory::export(&name) else {
        panic!("no store")
    };
    assert_eq!((kept.records.len(), kept.ledger.len()), (3, 1));

    let put_back = |contents: Contents| {
        let copy = fresh_memory_name();
        assert_eq!(memory::import(&copy, contents), Ok(()));
        open(&copy, None).verify()
    };
    assert_eq!(put_back(kept.clone()), Ok(3));

    let mut edited = kept.clone();
    if let Some(r) = edited.records.get_mut(0) {
        r.decision = "denied".into();
    }
    assert_eq!(put_back(edited), Err(Break::Edited { seq: 1 }.into()));

    // Put back in another order, the records and rows are put in order;
    // two of one number are refused.
    let mut shuffled = kept.clone();
    shuffled.records.reverse();
    assert_eq!(put_back(shuffled), Ok(3));
    let mut twice = kept.clone();
    if let Some(first) = twice.records.first().cloned() {
        twice.records.push(first);
    }
    assert_eq!(
        memory::import(&fresh_memory_name(), twice).map_err(|e| e.to_string()),
        Err("expected each audit record's sequence number once in the store put back, found 1 twice".to_string())
    );

    let mut removed = kept.clone();
    removed.records.remove(2);
    removed.records.remove(0);
    assert!(matches!(put_back(removed), Err(VerifyError::Broken(_))));

    let mut unpaid = kept.clone();
    unpaid.ledger.clear();
    assert_eq!(
        put_back(unpaid),
        Err(Break::RowDeleted { id: 1, seq: 2 }.into())
    );

    let mut cheaper = kept;
    if let Some(row) = cheaper.ledger.get_mut(0) {
        row.cents = 3;
    }
    assert_eq!(
        put_back(cheaper),
        Err(Break::RowEdited { id: 1, seq: 2 }.into())
    );
}

use memory::Contents;

#[test]
fn a_write_that_fails_leaves_nothing_and_the_watcher_sees_only_commits() {
    let name = fresh_memory_name();
    let seen: Arc<Mutex<Vec<(String, usize, usize)>>> = Arc::default();
    let log = seen.clone();
    let watched = name.clone();
    memory::set_watcher(Some(Arc::new(move |store: &str, c: &memory::Committed| {
        // Other tests' stores commit meanwhile: only this one's count.
        if store == watched
            && let Ok(mut l) = log.lock()
        {
            l.push((store.to_string(), c.records.len(), c.ledger.len()));
        }
    })));
    let mut s = open(&name, None);
    assert_eq!(s.audit(&entry("Log.info")), Ok(1));
    assert_eq!(
        s.pay(&entry("Pay.pay"), &payment("a", 300), &over),
        Ok(Paid::Made { id: 1, seq: 2 })
    );
    // A write that appends, then fails: rolled back, and not told.
    let failed: Result<(), StoreError> = s.write(|tx| {
        append(tx, &entry("Log.info"))?;
        Err(StoreError::Database {
            reason: "no".into(),
        }
        .into())
    });
    assert!(failed.is_err());
    assert_eq!(s.records().map(|r| r.len()), Ok(2));
    assert_eq!(s.verify(), Ok(2));
    // One that sets a value of `meta` and seeds the chart, then fails:
    // both put back.
    let failed: Result<(), StoreError> = s.write(|tx| {
        tx.put_meta("plan:x", "1")?;
        tx.batch("INSERT INTO employees (id, name) VALUES ('z', 'Z');")?;
        Err(StoreError::Database {
            reason: "no".into(),
        }
        .into())
    });
    assert!(failed.is_err());
    let kept = memory::export(&name).unwrap_or_default();
    assert!(!kept.meta.contains_key("plan:x"));
    assert!(kept.employees.is_empty());
    // An append out of order is refused, as a database's key refuses it.
    let out_of_order = s.write(|tx| {
        let mut r = tx.records_from(1)?.remove(0);
        r.seq = 2;
        tx.insert_record(&r)
    });
    assert!(
        out_of_order.as_ref().is_err_and(|e| e
            .to_string()
            .contains("expected an audit record after the last, found record 2 at or before it")),
        "{out_of_order:?}"
    );
    let told = seen.lock().map(|l| l.clone()).unwrap_or_default();
    assert_eq!(told, [(name.clone(), 1, 0), (name, 1, 1)]);
}

#[test]
fn snapshot_keys_come_from_the_pool_and_differ_by_draw() {
    memory::add_entropy(b"the page's randomness");
    let mut s = open(&fresh_memory_name(), None);
    let (Ok(a), Ok(b)) = (s.nonce(), s.nonce()) else {
        panic!("no randomness")
    };
    assert_eq!(a.len(), 32);
    assert_ne!(a, b);
    let key = s.snapshot_key();
    assert!(key.is_ok());
    // Kept: the same key at the next ask.
    assert_eq!(s.snapshot_key().ok(), key.ok());
}
