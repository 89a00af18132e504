#!/usr/bin/env bash
# Regenerates docs/figures/{faceted,log-axis,overlay}.png: three figures of
# krallmann1999 Table 3 (the CTC trace, 27 jobs, about 10 s on two cores) as a run
# draws them: relative-to-fcfs-easy (two facets, each on its own axes),
# awrt-weighted (a log axis) and art-unweighted (the paper's values beside ours);
# and docs/lin2007-fig3.png, lin2007 Fig. 3 (200 jobs, about 2 s), the quickstart's.
# Needs the CTC trace in data/ (schedfarm traces fetch CTC-SP2-1996-3.1-cln.swf.gz).
#
#   bash scripts/figure-screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -trimpath -o "$tmp/schedfarm" ./cmd/schedfarm
"$tmp/schedfarm" run --state-dir "$tmp/state" --results-dir "$tmp/runs" configs/krallmann1999/table3.yaml >/dev/null
figs=$(ls -d "$tmp"/runs/krallmann1999-table3/*/figures)
mkdir -p docs/figures
cp "$figs/relative-to-fcfs-easy.png" docs/figures/faceted.png
cp "$figs/awrt-weighted.png" docs/figures/log-axis.png
cp "$figs/art-unweighted.png" docs/figures/overlay.png
"$tmp/schedfarm" run --state-dir "$tmp/state" --results-dir "$tmp/runs" configs/lin2007/fig3.yaml >/dev/null
cp "$(ls -d "$tmp"/runs/lin2007-fig3/*/figures)/fig3.png" docs/lin2007-fig3.png
echo "wrote docs/figures/faceted.png, log-axis.png, overlay.png and docs/lin2007-fig3.png"
