#!/usr/bin/env bash
# Lin et al. 2007 (model divisible) under each reading: runs the figure sweeps
# of configs/lin2007 with parameters overridden, into OUT_DIR/<reading>/, then
# writes the tables of docs/models/divisible.md (between its "generated"
# markers) with scripts/linreadings. Readings:
#   default, rtgrid                  every figure (fig3..fig16, sec52)
#   the others (below)               sec52 and fig5 only (the User-Split question)
# Replicates are fixed at REPLICATES (default 10, the paper's "ten
# simulations"; adaptive files' {min, max} is replaced) so that the whole set
# (about 96,000 jobs of ~10 ms) takes ~10 minutes on a busy 2-core machine.
# ONLY="name ..." runs only those readings and keeps the others' results
# already in OUT_DIR (the tables are made from everything there).
#   scripts/lin_readings.sh OUT_DIR
# Exit status: 0 written, 1 a run failed, 2 bad input.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 1 ]; then
  echo "usage: scripts/lin_readings.sh OUT_DIR" >&2
  exit 2
fi
mkdir -p "$1" || exit 2
out=$(cd "$1" && pwd)
reps=${REPLICATES:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$tmp/schedfarm"
go build -o "$bin" ./cmd/schedfarm || exit 2

# reading name → params (YAML flow mapping body); "" = the model's defaults.
readings=(
  "default|"
  "rtgrid|node_release: rtgrid"
  "release-actual|node_release: actual"
  "deadline-per-task|deadline_rule: per_task"
  "sigma-uniform|sigma_dist: uniform"
  "split-code|user_split: code"
  "plan-per-task|planning: per_task"
  "integer-time|integer_time: true"
  "authors-code|node_release: rtgrid, deadline_rule: per_task, sigma_dist: uniform, user_split: code, integer_time: true"
  "authors-generator|deadline_rule: per_task, sigma_dist: uniform, user_split: code, integer_time: true"
)
all_figs="fig3 fig4 fig5 fig6 fig7 fig8 fig9 fig10 fig11 fig12 fig13 fig14 fig15 fig16 sec52"
rc=0
for r in "${readings[@]}"; do
  name=${r%%|*}
  params=${r#*|}
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then
    continue
  fi
  rm -rf "${out:?}/$name"
  figs="fig5 sec52"
  case $name in default | rtgrid) figs=$all_figs ;; esac
  mkdir -p "$tmp/$name" "$out/$name"
  for f in $figs; do
    src=configs/lin2007/$f.yaml
    dst=$tmp/$name/$f.yaml
    # One sweep per file ("  - name: lin2007-…" or "    name: lin2007-…"
    # after "  - <<: *base"), no params key of its own.
    if grep -q '^ *params:' "$src"; then
      echo "lin_readings: $src has a params key; the override would clash" >&2
      exit 2
    fi
    sed -e "s/^\( *\)replicates: .*/\1replicates: $reps/" "$src" >"$dst"
    if [ -n "$params" ]; then
      sed -i -e "s/^\(  - \|    \)name: lin2007-.*/&\n    params: {$params}/" "$dst"
      if [ "$(grep -c '^    params: ' "$dst")" != 1 ]; then
        echo "lin_readings: could not set params in $src" >&2
        exit 2
      fi
    fi
    echo "lin_readings: $name $f" >&2
    if ! "$bin" run --state-dir "$tmp/state-$name-$f" --results-dir "$out/$name" "$dst" >"$out/$name/$f.log" 2>&1; then
      echo "lin_readings: $name $f failed; see $out/$name/$f.log" >&2
      rc=1
    fi
    rm -rf "$tmp/state-$name-$f"
  done
done
go run ./scripts/linreadings "$out" >"$tmp/tables.md" || exit 1
scripts/gen_block.sh docs/models/divisible.md scripts/lin_readings.sh "$tmp/tables.md"
exit $rc
