#!/usr/bin/env bash
# Nightly verification: runs the quick config of every paper (configs/*/quick.yaml,
# and configs/smoke.yaml for the bench model) with a fresh state dir, verifies each
# sweep against its golden summary under configs/golden/<sweep>/summary.parquet,
# and writes one combined report: runs/nightly/<date>/report.md.
# Exit status: 0 all match, 1 drift (or a failed run), 2 bad input.
#   scripts/nightly.sh [OUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
date=$(date -u +%Y-%m-%d)
out=${1:-runs/nightly/$date}
mkdir -p "$out"
out=$(cd "$out" && pwd)
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
bin="$state/schedfarm"
go build -o "$bin" ./cmd/schedfarm || exit 2
report="$out/report.md"
{
  echo "# Nightly verification, $date"
  echo
  echo "schedfarm: \`$("$bin" version)\`"
  echo
} >"$report"
status=0
shopt -s nullglob
for cfg in configs/smoke.yaml configs/*/quick.yaml; do
  echo "== $cfg" >&2
  log="$out/$(echo "$cfg" | tr / _).log"
  if ! "$bin" run --state-dir "$state/$(basename "$(dirname "$cfg")")-$(basename "$cfg" .yaml)" \
      --results-dir "$out/results" "$cfg" >"$log" 2>&1; then
    echo "run failed: $cfg (see $log)" >&2
    status=1
  fi
  run=$(grep -o 'run [0-9a-f-]\{36\}' "$log" | head -1 | cut -d' ' -f2)
  echo "## $cfg (run ${run:-none})" >>"$report"
  echo >>"$report"
  if [ -z "$run" ]; then
    echo "The run did not start; see \`$(basename "$log")\`." >>"$report"
    status=1
    continue
  fi
  echo '```' >>"$report"
  "$bin" verify "$run" --against configs/golden --results-dir "$out/results" --limit 20 >>"$report" 2>&1
  rc=$?
  echo '```' >>"$report"
  echo >>"$report"
  if [ $rc -ne 0 ]; then status=1; fi
  for dir in "$out"/results/*/"$run"; do
    [ -f "$dir/report.md" ] || continue
    # Each sweep's report, one heading level down, figure links made relative to $out.
    rel=${dir#"$out"/}
    sed -e 's/^#/##/' -e "s#](figures/#]($rel/figures/#g" "$dir/report.md" >>"$report"
    echo >>"$report"
  done
done
echo "nightly: $report (status $status)" >&2
exit $status
