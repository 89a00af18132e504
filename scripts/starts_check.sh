#!/usr/bin/env bash
# Schedules bit for bit (manual, not in CI): runs the batch model
# over every whole log present in the data directory (KTH-SP2, SDSC-SP2,
# CTC-SP2, HPC2N, SDSC-BLUE, CEA-Curie) for every order × backfill ×
# convention with two builds, the work tree and BASE, and compares a digest
# of every job's start (scripts/startsdigest). Both builds run each log in
# turn, in the same run, so the simulation times it prints side by side
# (OUT/times.txt) compare the two on the same machine state.
#
#   scripts/starts_check.sh [OUT]
#
# Environment:
#   BASE=main         the revision compared with (git rev)
#   LOGS="KTH-SP2-1996-2.1-cln ..."  log names (data/traces/NAME.swf.gz)
#   ORDERS, BACKFILLS, CONVENTIONS  startsdigest's -orders, -backfills,
#                     -conventions (default: all)
#   DATA=data         the data directory
# Exit status: 0 every schedule equal, 1 some differ (OUT/diff.txt) or a run
# failed, 2 bad input.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d -t starts-check.XXXXXX)}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
base=${BASE:-main}
data=${DATA:-data}
logs=${LOGS:-KTH-SP2-1996-2.1-cln SDSC-SP2-1998-4.2-cln CTC-SP2-1996-3.1-cln HPC2N-2002-2.2-cln SDSC-BLUE-2000-4.2-cln CEA-Curie-2011-2.1-cln}
flags=()
[ -n "${ORDERS:-}" ] && flags+=(-orders "$ORDERS")
[ -n "${BACKFILLS:-}" ] && flags+=(-backfills "$BACKFILLS")
[ -n "${CONVENTIONS:-}" ] && flags+=(-conventions "$CONVENTIONS")
tmp=$(mktemp -d -t starts-check-tmp.XXXXXX)
cleanup() {
  git worktree remove --force "$tmp/base" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/head" ./scripts/startsdigest || exit 2
git worktree add --detach "$tmp/base" "$base" >/dev/null 2>&1 || { echo "cannot check out $base" >&2; exit 2; }
# the program itself may be newer than BASE: build this one against BASE's packages
mkdir -p "$tmp/base/scripts/startsdigest"
cp scripts/startsdigest/main.go "$tmp/base/scripts/startsdigest/"
(cd "$tmp/base" && go build -o "$tmp/basebin" ./scripts/startsdigest) || exit 2

: >"$out/head.txt"
: >"$out/base.txt"
: >"$out/head.ms"
: >"$out/base.ms"
status=0
for log in $logs; do
  f=$data/traces/$log.swf.gz
  [ -f "$f" ] || f=$data/traces/$log.swf
  if [ ! -f "$f" ]; then
    echo "skip $log: not in $data/traces" >&2
    continue
  fi
  echo "== $log" >&2
  "$tmp/basebin" "${flags[@]}" "$f" >>"$out/base.txt" 2>>"$out/base.ms" || status=1
  "$tmp/head" "${flags[@]}" "$f" >>"$out/head.txt" 2>>"$out/head.ms" || status=1
done
# times side by side: log order backfill event compress base_ms head_ms
paste -d' ' "$out/base.ms" <(awk '{print $NF}' "$out/head.ms") >"$out/times.txt"
awk '{printf "%-28s %-11s %-12s %-5s %-7s %10.1f ms %10.1f ms\n", $1, $2, $3, $4, $5, $6, $7}' "$out/times.txt"
if ! diff "$out/base.txt" "$out/head.txt" >"$out/diff.txt"; then
  echo "schedules differ from $base: $out/diff.txt" >&2
  exit 1
fi
n=$(wc -l <"$out/head.txt")
echo "$n schedules equal to $base's bit for bit (digests in $out)" >&2
exit $status
