#!/usr/bin/env bash
# Builds the seed corpus of every fuzz target, under fuzz/seeds/TARGET/,
# from the project's own files (nothing here is committed: the seeds are
# rebuilt from the sources they come from):
#   parse, check, run, session  the programs in tests/corpus, tests/run,
#                               examples/, stdlib/ and the docs' ```writ
#                               blocks (session: also the REPL transcripts
#                               of tests/repl, one input per line)
#   policy                      the policies under examples/ and tests/ and
#                               the docs' ```toml blocks
#   recorded                    the recorded-responses files, and the
#                               docs' ```toml blocks that are one
#   json                        the JSON files under tests/ and the bodies
#                               of the recorded responses
#   url                         "RULE\nURL" pairs from the policies' allow
#                               lists, with variants
#   seed                        the SQL seeds of the examples and the
#                               course (the memory store's seeds)
#   snapshot                    the snapshots of fuzz/src/snapshot.writ's
#                               run at each of its pauses (written by the
#                               runtime's snapshot_seeds example)
# Usage: fuzz/seed.sh   (from anywhere)
set -euo pipefail
fuzz="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$fuzz")"
seeds="$fuzz/seeds"
rm -rf "$seeds"
for t in parse check run session policy recorded json url seed snapshot; do
  mkdir -p "$seeds/$t"
done

n=0
# put TARGET FILE...: copies each file into TARGET's seeds under a fresh name.
put() {
  local target="$1"
  shift
  for f in "$@"; do
    n=$((n + 1))
    cp "$f" "$seeds/$target/$n-$(basename "$f")"
  done
}

# blocks LANG FILE...: writes each ```LANG block of the files to its own
# file in a temporary directory, and prints the directory.
blocks() {
  local lang="$1"
  shift
  local dir
  dir="$(mktemp -d)"
  awk -v lang="$lang" -v dir="$dir" '
    /^```/ { if (inside) { inside = 0; close(out); next }
             if ($0 == "```" lang) { inside = 1; k++; out = dir "/block" k "." lang; printf "" > out; next } }
    inside { print > out }
  ' "$@"
  echo "$dir"
}

mapfile -t programs < <(find "$root/tests/corpus" "$root/tests/run" "$root/examples" "$root/stdlib" -name '*.writ' | sort)
docs_writ="$(blocks writ "$root"/docs/*.md "$root/README.md")"
for t in parse check run session; do
  put "$t" "${programs[@]}"
  put "$t" "$docs_writ"/*
done
for f in "$root"/tests/repl/*.in; do
  n=$((n + 1))
  tr '\n' '\0' < "$f" > "$seeds/session/$n-$(basename "$f")"
done
rm -rf "$docs_writ"

mapfile -t policies < <(find "$root/examples" "$root/tests" -name '*.toml' ! -name 'responses*.toml' | sort)
docs_toml="$(blocks toml "$root"/docs/*.md)"
put policy "${policies[@]}" "$docs_toml"/*

mapfile -t responses < <(find "$root/examples" "$root/tests" -name 'responses*.toml' | sort)
mapfile -t docs_responses < <(grep -l '^\[\[response\]\]' "$docs_toml"/* || true)
put recorded "${responses[@]}" "${docs_responses[@]}"
rm -rf "$docs_toml"

mapfile -t sqls < <(find "$root/examples" "$root/docs/course" "$root/tests" -name '*.sql' | sort)
put seed "${sqls[@]}"

mapfile -t jsons < <(find "$root/tests" -name '*.json' | sort)
put json "${jsons[@]}"
for f in "${responses[@]}"; do
  # Each body = '''...''' (or "...") of a recorded response.
  awk -v dir="$seeds/json" -v base="$(basename "$f")" '
    /^body *= *'"'''"'/ { inside = 1; k++; out = dir "/body" k "-" base ".json"; sub(/^body *= *'"'''"'/, ""); }
    inside && /'"'''"'/ { sub(/'"'''"'.*/, ""); print > out; inside = 0; close(out); next }
    inside { print > out }
  ' "$f"
done
for j in '{}' '[]' '0' '-0.5e-3' '"\u00e9\ud83d\ude00"' '[1, [2, [3, {"a": null}]]]' 'true' '{"a": 1, "a": 2}'; do
  n=$((n + 1))
  printf '%s' "$j" > "$seeds/json/$n-literal.json"
done

grep -ohE '"https?://[^"]*"' "${policies[@]}" "${responses[@]}" | tr -d '"' | sort -u |
  while read -r u; do
    for v in "$u" "$u/a" "$u/../x" "$u/..%2Fadmin" "$u/..;/admin" "$u?q=1#f"; do
      n=$((n + 1))
      printf '%s\n%s' "$u" "$v" > "$seeds/url/$n"
    done
  done

(cd "$root" && cargo run -q -p writ-runtime --example snapshot_seeds -- \
  "$fuzz/src/snapshot.writ" "$seeds/snapshot" >/dev/null)

for t in "$seeds"/*; do
  echo "$(basename "$t"): $(find "$t" -type f | wc -l) seeds"
done
