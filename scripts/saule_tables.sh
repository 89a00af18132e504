#!/usr/bin/env bash
# Saule et al. (model stretch): runs the sequential-task sweeps behind the
# tables of docs/models/stretch.md into OUT_DIR and writes the tables between
# the doc's "generated" markers with scripts/saule_tables.py. The sweeps:
#   configs/saule2012/table1b.yaml          Table 1(b), the paper's rule and band
#   configs/saule2012/table1b-load302.yaml  Table 1(b), loads capped at 302
#   configs/saule2012/sens-table1b-fcfs-spread.yaml  FCFS's spreads vs the band's upper end
#   configs/saule2012/dasedf-largest.yaml   DASEDF's worst instance vs exact load
#   configs/saule2012/dasedf-rules.yaml     the same under DASEDF's check and target readings
#   configs/saule2012/fig1.yaml             Fig. 1
#   configs/saule2012/fig2-reservation-dasedf.yaml  DASEDF at fixed (X, T)
#   configs/saule2012/mold-readings.yaml    readings of DBOS, SCOJO-P, Improved Iterative
# Every run is at the paper's instance size (20,000 tasks on 300 processors,
# 8,000 moldable tasks on 512); by default the adaptive sweeps (table1b,
# fig1) are cut to their first round (replicates fixed at their min: 60 and
# 12). The sequential sweeps take about 10 CPU-minutes,
# mold-readings about as much again (its high-load DBOS and Iterative runs).
# SCALE=paper keeps the adaptive replicates (the rounds of configs/all.yaml;
# up to 480 and 96 replicates). ONLY="name ..." runs only those files (names
# without .yaml) and keeps the other results already in OUT_DIR (the tables
# are made from everything there).
#   scripts/saule_tables.sh OUT_DIR
# Exit status: 0 written, 1 a run failed, 2 bad input.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 1 ]; then
  echo "usage: scripts/saule_tables.sh OUT_DIR" >&2
  exit 2
fi
mkdir -p "$1" || exit 2
out=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$tmp/schedfarm"
go build -o "$bin" ./cmd/schedfarm || exit 2
# The sweep files are run from a copy of the folder, so that the
# explained_by of one file finds the other files beside it.
cp -r configs/saule2012 "$tmp/saule2012" || exit 2
rc=0
for f in table1b table1b-load302 sens-table1b-fcfs-spread dasedf-largest dasedf-rules fig1 fig2-reservation-dasedf mold-readings; do
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $f "* ]]; then
    continue
  fi
  dst=$tmp/saule2012/$f.yaml
  if [ "${SCALE:-reduced}" != paper ]; then
    # replicates: {min: N, max: M} → replicates: N (the first round only).
    sed -i -e 's/^\( *\)replicates: {min: \([0-9]*\), max: [0-9]*}.*/\1replicates: \2/' "$dst"
  fi
  echo "saule_tables: $f" >&2
  if ! "$bin" run --workers "${WORKERS:-1}" --state-dir "$tmp/state-$f" --results-dir "$out" "$dst" >"$out/$f.log" 2>&1; then
    echo "saule_tables: $f failed; see $out/$f.log" >&2
    rc=1
  fi
  rm -rf "$tmp/state-$f"
done
python3 scripts/saule_tables.py "$out" >"$tmp/tables.md" || exit 1
scripts/gen_block.sh docs/models/stretch.md scripts/saule_tables.sh "$tmp/tables.md"
exit $rc
