#!/usr/bin/env bash
# Krallmann et al. 1999 (model batch) under the readings of Tables 4 and 6 (docs/models/batch.md):
# runs configs/krallmann1999/table4-arrivals.yaml (Table 4 under readings of
# §6.2's generator) and table6-smart-recompute.yaml (weighted SMART with
# backfilling, exact against requested run times) into OUT_DIR, then writes
# the tables of docs/models/batch.md (between its "generated" markers) with
# scripts/krallreadings. The two sweeps take about 20 minutes on an idle
# 2-core machine (conservative backfilling at an offered load of 1.4 and
# SMART recomputed at every submission are the slow runs). SKIP_RUN=1 only
# writes the tables from the runs already in OUT_DIR.
#   scripts/krall_readings.sh OUT_DIR
# Exit status: 0 written, 1 a run failed, 2 bad input.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 1 ]; then
  echo "usage: scripts/krall_readings.sh OUT_DIR" >&2
  exit 2
fi
mkdir -p "$1" || exit 2
out=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
if [ -z "${SKIP_RUN:-}" ]; then
  bin="$tmp/schedfarm"
  go build -o "$bin" ./cmd/schedfarm || exit 2
  for f in table4-arrivals table6-smart-recompute; do
    echo "krall_readings: $f" >&2
    if ! "$bin" run --workers "${WORKERS:-1}" --state-dir "$tmp/state-$f" --results-dir "$out" \
      "configs/krallmann1999/$f.yaml" >"$out/$f.log" 2>&1; then
      echo "krall_readings: $f failed; see $out/$f.log" >&2
      rc=1
    fi
  done
fi
go run ./scripts/krallreadings "$out" >"$tmp/tables.md" || exit 1
scripts/gen_block.sh docs/models/batch.md scripts/krall_readings.sh "$tmp/tables.md"
exit $rc
