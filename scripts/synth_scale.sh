#!/usr/bin/env bash
# A large synthetic log, generated and scheduled (manual, not in CI;
# the scale target: 10⁷ jobs on 10⁶ cores, FCFS + EASY, within 30 s and 4 GiB of peak
# memory). Fits the probabilistic model on a source log, draws JOBS jobs for
# a machine of NODES nodes (sizes as fractions of the source machine,
# arrivals scaled to the source log's offered load: the model's
# workload: synthetic), simulates them and computes the metrics, printing
# each phase's wall and CPU time and the peak resident memory so far
# (scripts/synthscale), then /usr/bin/time's totals. On a shared machine
# the CPU time is the figure to read: the wall time counts the waits for a
# core.
#
#   scripts/synth_scale.sh
#
# Environment:
#   LOG=data/traces/CEA-Curie-2011-2.1-cln.swf.gz   the source log
#   JOBS=10000000 NODES=1000000   the synthetic log and its machine
#   SIZES=fraction                fraction | nodes (synth_sizes)
#   BACKFILL=easy                 none | easy | conservative
#   MODEL=0                       1: run through the model's Run instead
#                                 (the path a sweep takes, one timing)
# Exit status: 0 done, 1 a run failed, 2 bad input.
set -uo pipefail
cd "$(dirname "$0")/.."
log=${LOG:-data/traces/CEA-Curie-2011-2.1-cln.swf.gz}
[ -f "$log" ] || { echo "no log $log (schedfarm traces fetch, or set LOG)" >&2; exit 2; }
tmp=$(mktemp -d -t synth-scale.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/synthscale" ./scripts/synthscale || exit 2
flags=(-jobs "${JOBS:-10000000}" -nodes "${NODES:-1000000}" -sizes "${SIZES:-fraction}" -backfill "${BACKFILL:-easy}")
[ "${MODEL:-0}" = 1 ] && flags+=(-model)
if [ -x /usr/bin/time ]; then
  /usr/bin/time -v "$tmp/synthscale" "${flags[@]}" "$log" 2>"$tmp/time" || { cat "$tmp/time" >&2; exit 1; }
  grep -E 'User time|System time|Elapsed|Maximum resident' "$tmp/time"
else
  "$tmp/synthscale" "${flags[@]}" "$log" || exit 1
fi
