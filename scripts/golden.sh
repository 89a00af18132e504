#!/usr/bin/env bash
# Refreshes the golden summaries nightly.sh verifies against: runs every quick
# config (configs/smoke.yaml, configs/*/quick.yaml) with a fresh state dir and
# copies each sweep's summary.parquet to configs/golden/<sweep>/summary.parquet;
# then runs configs/quick-all.yaml as one suite and copies its scoreboard to
# configs/golden/scoreboard-quick-all.json; last rewrites the model pages'
# tables of the goldens (scripts/model_tables.sh --golden).
# Review the diff (schedfarm verify prints it) before committing new goldens.
#   scripts/golden.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/schedfarm" ./cmd/schedfarm
shopt -s nullglob
for cfg in configs/smoke.yaml configs/*/quick.yaml; do
  "$tmp/schedfarm" run --state-dir "$tmp/state-$(echo "$cfg" | tr / _)" --results-dir "$tmp/results" "$cfg" >"$tmp/log" 2>&1 || {
    cat "$tmp/log" >&2; exit 1; }
done
for sum in "$tmp"/results/*/*/summary.parquet; do
  sweep=$(basename "$(dirname "$(dirname "$sum")")")
  mkdir -p "configs/golden/$sweep"
  cp "$sum" "configs/golden/$sweep/summary.parquet"
  echo "configs/golden/$sweep/summary.parquet"
done
"$tmp/schedfarm" run --state-dir "$tmp/state-quick-all" --results-dir "$tmp/suite" configs/quick-all.yaml >"$tmp/log" 2>&1 || {
  cat "$tmp/log" >&2; exit 1; }
cp "$tmp"/suite/scoreboard-*.json configs/golden/scoreboard-quick-all.json
echo "configs/golden/scoreboard-quick-all.json"
go run ./scripts/modeltables -golden
