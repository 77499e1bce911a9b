#!/usr/bin/env bash
# Runs fuzz targets one after another for SECONDS each and prints, per
# target, the figures libFuzzer reports: executions, executions a second,
# coverage (edges) and features, corpus size, peak memory, and whether it
# stopped on a finding (then the input is under fuzz/artifacts/TARGET/).
#
# Usage: fuzz/run.sh SECONDS [TARGET...]   (default: every target)
# Builds the seeds (fuzz/seed.sh) if they are missing and the targets if
# needed (cargo fuzz, stable toolchain: -s none). Each target starts from
# its corpus (fuzz/corpus/TARGET, which it grows), its seeds and the inputs
# kept in fuzz/regressions/TARGET (if any). An input slower than
# FUZZ_TIMEOUT seconds (default 10) is a finding. Extra libFuzzer flags: FUZZ_FLAGS, e.g.
# "-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1" to go on
# after a finding (one child process at a time).
# Exit status: 0 if no target had a finding, 1 otherwise (after the table,
# the end of each such target's log is printed on standard error).
set -euo pipefail
fuzz="$(cd "$(dirname "$0")" && pwd)"
cd "$fuzz"
seconds="${1:?usage: fuzz/run.sh SECONDS [TARGET...]}"
shift
if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo fuzz list)
fi
[ -d seeds ] || ./seed.sh >/dev/null
mkdir -p logs
cargo fuzz build -s none
status=0
failed=()
printf '%-10s %8s %12s %9s %8s %8s %7s %8s  %s\n' target seconds execs execs/s cov ft corpus rss_mb result
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t" "seeds/$t"
  inputs=("corpus/$t" "seeds/$t")
  if [ -d "regressions/$t" ]; then
    inputs+=("regressions/$t")
  fi
  log="logs/$t.log"
  start=$(date +%s)
  touch "logs/$t.start"
  # shellcheck disable=SC2086
  if cargo fuzz run -s none "$t" "${inputs[@]}" -- \
      -max_total_time="$seconds" -rss_limit_mb=2048 -timeout="${FUZZ_TIMEOUT:-10}" \
      -print_final_stats=1 -artifact_prefix="artifacts/$t/" ${FUZZ_FLAGS:-} \
      </dev/null >"$log" 2>&1; then
    result=ok
  else
    result="stopped on a finding"
    status=1
  fi
  found=$(find "artifacts/$t" -type f -newer "logs/$t.start" | wc -l)
  if [ "$found" -gt 0 ]; then
    result="$found finding(s) in fuzz/artifacts/$t/ (log: fuzz/$log)"
    status=1
  fi
  if [ "$result" != ok ]; then
    failed+=("$log")
  fi
  took=$(($(date +%s) - start))
  stat() { grep -oE "^stat::$1: *[0-9]+" "$log" | grep -oE '[0-9]+$' | tail -1; }
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(grep -oE 'cov: [0-9]+' <<<"$last" | grep -oE '[0-9]+' || echo '?')
  ft=$(grep -oE 'ft: [0-9]+' <<<"$last" | grep -oE '[0-9]+' || echo '?')
  corp=$(grep -oE 'corp: [0-9]+' <<<"$last" | grep -oE '[0-9]+' || echo '?')
  execs=$(stat number_of_executed_units || grep -oE '^#[0-9]+' <<<"$last" | tr -d '#' || echo '?')
  rate=$(stat average_exec_per_sec ||
    { [[ "$execs" =~ ^[0-9]+$ ]] && echo $((execs / (took > 0 ? took : 1))); } || echo '?')
  rss=$(stat peak_rss_mb || echo '?')
  printf '%-10s %8s %12s %9s %8s %8s %7s %8s  %s\n' "$t" "$took" "$execs" "$rate" "$cov" "$ft" "$corp" "$rss" "$result"
done
for log in "${failed[@]}"; do
  printf '\n== the end of fuzz/%s\n' "$log" >&2
  tail -n 40 "$log" >&2
done
exit "$status"
