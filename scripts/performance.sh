#!/usr/bin/env bash
# Regenerates the measured block of docs/performance.md: the machine (nproc,
# CPU model, memory, Go), `schedfarm bench --markdown` (each model's
# representative paper-scale jobs and the farm's own runs), and the timings of
# a paper-scale run of configs/all.yaml written by scripts/paper-scale.sh
# OUT_DIR (its run.log and results/: the suite report's totals, per model and
# per sweep, the commit it ran at). Sweep names of a run made before the papers'
# keys were unified (krallmann-*, saule-*) are shown under today's keys.
#   scripts/performance.sh PAPER_SCALE_DIR [BENCH_MD]
# BENCH_MD: a file with the output of `schedfarm bench --markdown` on this
# machine; without it the bench runs now (several minutes, run it on a quiet
# machine). Exit status: 0 written, 1 a step failed, 2 bad input.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: scripts/performance.sh PAPER_SCALE_DIR [BENCH_MD]" >&2
  exit 2
fi
ps=$1
log="$ps/run.log"
[ -f "$log" ] || { echo "performance: no $log (a scripts/paper-scale.sh OUT_DIR?)" >&2; exit 2; }
run=$(grep -m1 -o 'run [0-9a-f-]\{36\}' "$log" | cut -d' ' -f2)
report="$ps/results/report-$run.md"
[ -f "$report" ] || { echo "performance: no suite report $report" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bench=${2:-}
load="not recorded (the bench output was given)"
if [ -z "$bench" ]; then
  go build -o "$tmp/schedfarm" ./cmd/schedfarm
  echo "performance: running schedfarm bench --markdown (several minutes)" >&2
  before=$(cut -d' ' -f1-3 /proc/loadavg)
  "$tmp/schedfarm" bench --markdown >"$tmp/bench.md"
  load="$before before, $(cut -d' ' -f1-3 /proc/loadavg) after (1, 5, 15 minutes; \`/proc/loadavg\`)"
  bench="$tmp/bench.md"
fi
# The commit and file of the run, from a sweep report's provenance.
reports=("$ps"/results/*/"$run"/report.md)
sweep_report=${reports[0]}
revision=$(grep -m1 '^| schedfarm |' "$sweep_report" | sed -E 's/.*revision ([0-9a-f]+).*/\1/')
file=$(grep -m1 '^| file |' "$sweep_report" | sed -E 's/^\| file \| (.*) \|$/\1/')
keys='s/^\| krallmann-/| krallmann1999-/; s/^\| saule-/| saule2012-/'
out="$tmp/block.md"
{
  echo
  echo "### The machine"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| cores (\`nproc\`) | $(nproc) |"
  echo "| CPU (\`/proc/cpuinfo\`) | $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') |"
  echo "| memory | $(awk '/^MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) |"
  echo "| Go | $(go version | sed 's/^go version //') |"
  echo "| load average around the bench | $load |"
  echo
  echo "### Models and the farm (\`schedfarm bench --markdown\`)"
  echo
  # bench's own headings one level down, under this page's.
  sed -e 's/^## /#### /' "$bench"
  echo
  echo "### The paper-scale suite"
  echo
  echo "\`scripts/paper-scale.sh OUT_DIR\` ran \`$file\` at commit \`${revision:0:7}\` (run \`$run\`), 2 workers in one process:"
  echo
  echo "- $(sed -n 3p "$report" | sed -E 's/^File `[^`]*`: //')"
  echo "- $(grep -m1 '^run .* finished in' "$log" | sed -E 's/^run [0-9a-f-]+ /the run /')"
  echo "- $(grep -m1 '^farm efficiency' "$log")"
  echo
  echo "Per model:"
  echo
  sed -n '/^## Per model$/,/^## Per sweep$/p' "$report" | sed -e '1,2d' -e '$d' | sed '/^$/d'
  echo
  echo "Per sweep:"
  echo
  sed -n '/^## Per sweep$/,/^## Claims$/p' "$report" | sed -e '1,2d' -e '$d' | sed '/^$/d' |
    sed -E -e 's/ \| [^|]* \|$/ |/' \
      -e 's/^(\|---){9}\|$/|---|---|---|---|---|---|---|---|/' -e "$keys"
  echo
} >"$out"
scripts/gen_block.sh docs/performance.md scripts/performance.sh "$out"
echo "performance: docs/performance.md" >&2
