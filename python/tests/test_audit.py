"""`engine.audit()` and `engine.verify()`: the records a run writes, the
hash chain, and a log tampered with in the SQLite file."""

from __future__ import annotations

import hashlib
import sqlite3
import time

import pytest

import writ
from conftest import LOG, PAY, make_policy

HTTP_A = '[grants.Http]\nallow = ["https://a.example/"]'
PAY_SRC = 'Pay.pay("air-one.example", 1200, "pen").id\n'
DENIED_SRC = 'Http.get("https://b.example/x")\n'


@pytest.fixture
def audited(store):
    """An engine whose store holds three records: a payment, an audit
    note and a denial."""
    engine = writ.Engine(make_policy(LOG, PAY, HTTP_A, "[grants.Audit]"), store=store)
    assert engine.run(PAY_SRC).value == "pay-1"
    engine.run('Audit.note("checked the invoice")\n')
    with pytest.raises(writ.Denied):
        engine.run(DENIED_SRC)
    return engine


def _unlock(path: str) -> sqlite3.Connection:
    """Open the store as someone who bypasses Writ would: without the
    triggers that refuse updates and deletes."""
    db = sqlite3.connect(path)
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        db.execute(f'DROP TRIGGER "{name}"')
    db.commit()
    return db


def test_records_after_runs(audited):
    records = audited.audit()
    assert [(r.seq, r.operation, r.decision) for r in records] == [
        (1, "Pay.pay", "allowed"),
        (2, "Audit.note", "allowed"),
        (3, "Http.get", "denied"),
    ]
    pay, note, denied = records
    assert pay.arguments == '"air-one.example", 1200, "pen"'
    assert pay.rule == "air-one.example is an allowed payee and 12.00 EUR is within the caps"
    assert note.arguments == '"checked the invoice"'
    assert denied.arguments == '"https://b.example/x"'
    assert denied.rule == "https://b.example/x is not in the allow-list"
    for r in records:
        assert r.principal == "ada"
        assert abs(r.time_ms - time.time() * 1000) < 60_000
    assert pay.program == hashlib.sha256(PAY_SRC.encode()).hexdigest()
    assert denied.program == hashlib.sha256(DENIED_SRC.encode()).hexdigest()
    # The chain: each record holds the previous one's hash.
    assert pay.prev_hash == "0" * 64
    assert note.prev_hash == pay.hash
    assert denied.prev_hash == note.hash
    assert all(len(r.hash) == 64 and int(r.hash, 16) >= 0 for r in records)
    assert len({r.hash for r in records}) == 3


def test_record_to_dict(audited):
    r = audited.audit()[0]
    d = r.to_dict()
    for key in ("seq", "time_ms", "principal", "program", "operation", "arguments", "decision", "rule", "hash", "prev_hash"):
        assert d[key] == getattr(r, key), key


def test_audit_last(audited):
    assert [r.seq for r in audited.audit(last=1)] == [3]
    assert [r.seq for r in audited.audit(last=2)] == [2, 3]
    assert [r.seq for r in audited.audit(last=10)] == [1, 2, 3]
    assert audited.audit(last=0) == []


def test_audit_ids_match_records(store):
    engine = writ.Engine(make_policy(LOG, PAY), store=store)
    out = engine.run('let a = Pay.pay("air-one.example", 100, "a")\nlet b = Pay.pay("air-one.example", 200, "b")\n(a.id, b.id)\n')
    assert out.value == ["pay-1", "pay-2"]
    assert list(out.audit_ids) == [1, 2]
    assert [r.seq for r in engine.audit()] == list(out.audit_ids)


def test_verify_counts(audited):
    assert audited.verify() == 3
    audited.run('Audit.note("one more")\n')
    assert audited.verify() == 4


def test_engines_share_a_store(store):
    policy = make_policy(LOG, PAY)
    a = writ.Engine(policy, store=store)
    b = writ.Engine(policy, store=store)
    assert a.run(PAY_SRC).value == "pay-1"
    assert b.run(PAY_SRC).value == "pay-2"
    assert [r.seq for r in a.audit()] == [1, 2]
    assert a.verify() == 2 and b.verify() == 2


def test_verify_finds_an_edited_record(audited, store):
    db = _unlock(store)
    db.execute("UPDATE audit SET rule = 'allowed: nothing to see' WHERE seq = 3")
    db.commit()
    db.close()
    with pytest.raises(writ.AuditError) as info:
        audited.verify()
    e = info.value
    assert isinstance(e, writ.WritError)
    assert e.code == "E4015"
    assert e.message == "the audit log does not verify: record 3 does not match its hash: it was edited"


def test_verify_finds_a_changed_decision(audited, store):
    db = _unlock(store)
    db.execute("UPDATE audit SET decision = 'allowed' WHERE seq = 3")
    db.commit()
    db.close()
    with pytest.raises(writ.AuditError) as info:
        audited.verify()
    assert info.value.code == "E4015"
    assert info.value.message == "the audit log does not verify: record 3 does not match its hash: it was edited"


def test_verify_finds_a_removed_record(audited, store):
    db = _unlock(store)
    db.execute("DELETE FROM audit WHERE seq = 2")
    db.commit()
    db.close()
    with pytest.raises(writ.AuditError) as info:
        audited.verify()
    assert info.value.code == "E4015"
    assert info.value.message == "the audit log does not verify: record 2 is missing (the next record is 3)"


def test_verify_finds_an_edited_ledger(audited, store):
    db = _unlock(store)
    db.execute("UPDATE ledger SET cents = 1")
    db.commit()
    db.close()
    with pytest.raises(writ.AuditError) as info:
        audited.verify()
    assert info.value.code == "E4015"
    assert info.value.message == (
        "the audit log does not verify: ledger row 1 does not match the hash in its audit record 1: it was edited"
    )


def test_store_refuses_updates_without_tampering(audited, store):
    db = sqlite3.connect(store)
    with pytest.raises(sqlite3.DatabaseError):
        db.execute("UPDATE audit SET rule = 'x' WHERE seq = 1")
    db.close()
    assert audited.verify() == 3


def test_store_that_cannot_be_read(tmp_path):
    path = tmp_path / "garbage.db"
    path.write_bytes(b"this is not a SQLite file, not even close" * 100)
    engine = writ.Engine(make_policy(LOG), store=path)
    with pytest.raises(writ.AuditError) as info:
        engine.verify()
    assert info.value.code == "E4006"
    assert info.value.message == f"the store {path} could not be opened: file is not a database"
    with pytest.raises(writ.AuditError):
        engine.audit()


def test_empty_store(engine):
    engine.run('Log.info("not audited")\n')
    assert engine.audit() == []
    assert engine.audit(last=3) == []
    assert engine.verify() == 0


@pytest.mark.parametrize("read", ["audit", "verify"])
def test_a_store_that_does_not_exist_is_an_error_never_an_empty_log(tmp_path, read):
    """A mistyped store path (or one no run has made yet) raises, as `writ
    audit` refuses it, and nothing is created there."""
    path = tmp_path / "mistyped.db"
    engine = writ.Engine(make_policy(LOG), store=path)
    with pytest.raises(writ.AuditError) as info:
        getattr(engine, read)()
    e = info.value
    assert e.code == "E4006"
    assert e.message == (
        f"there is no store at {path}: expected an existing store (a run creates one), found none; nothing was created"
    )
    assert not path.exists()
    # In a directory that does not exist either.
    missing_dir = tmp_path / "nowhere" / "writ.db"
    with pytest.raises(writ.AuditError):
        getattr(writ.Engine(make_policy(LOG), store=missing_dir), read)()
    assert not missing_dir.parent.exists()


def test_an_empty_file_is_no_store(tmp_path):
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    engine = writ.Engine(make_policy(LOG), store=path)
    with pytest.raises(writ.AuditError) as info:
        engine.audit()
    assert info.value.message.startswith(f"there is no store at {path}")
