#!/usr/bin/env bash
# Nightly verification: runs the quick config of every paper (configs/*/quick.yaml,
# and configs/smoke.yaml for the bench model) with a fresh state dir, verifies each
# sweep against its golden summary under configs/golden/<sweep>/summary.parquet,
# then runs them once more as one suite (configs/quick-all.yaml) and compares its
# scoreboard (every claim's status per paper) with
# configs/golden/scoreboard-quick-all.json, so a change that loses a reproduced
# claim shows as drift; and writes one combined report: runs/nightly/<date>/report.md.
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
# The quick suite as one run: its scoreboard against the golden one.
cfg=configs/quick-all.yaml
golden=configs/golden/scoreboard-quick-all.json
echo "== $cfg (scoreboard)" >&2
log="$out/$(echo "$cfg" | tr / _).log"
if ! "$bin" run --state-dir "$state/quick-all" --results-dir "$out/suite" "$cfg" >"$log" 2>&1; then
  echo "run failed: $cfg (see $log)" >&2
  status=1
fi
run=$(grep -o 'run [0-9a-f-]\{36\}' "$log" | head -1 | cut -d' ' -f2)
sb="$out/suite/scoreboard-$run.json"
echo "## Scoreboard: $cfg (run ${run:-none})" >>"$report"
echo >>"$report"
if [ -z "$run" ] || [ ! -f "$sb" ]; then
  echo "No scoreboard; see \`$(basename "$log")\`." >>"$report"
  status=1
elif diff -u "$golden" "$sb" >"$out/scoreboard.diff"; then
  echo "Scoreboard matches \`$golden\`." >>"$report"
else
  echo "scoreboard drift: $sb differs from $golden (see $out/scoreboard.diff)" >&2
  { echo "**DRIFT**: the scoreboard differs from \`$golden\` (a claim's status or a register count changed; if on purpose, refresh it with scripts/golden.sh):"; echo
    echo '```diff'; cat "$out/scoreboard.diff"; echo '```'; } >>"$report"
  status=1
fi
echo >>"$report"
if [ -n "$run" ] && [ -f "$out/suite/report-$run.md" ]; then
  # The suite report's scoreboard section, one heading level down.
  sed -n '/^## Scoreboard$/,/^## Per model$/p' "$out/suite/report-$run.md" | sed -e '1d' -e '$d' >>"$report"
fi
echo "nightly: $report (status $status)" >&2
exit $status
