#!/usr/bin/env bash
# Anderson et al. 2005 (model dssp): writes the generated tables of
# docs/models/dssp.md (between its "generated" markers) with
# scripts/dsspsens, which runs the model in process at paper scale (P =
# 1,000, D = 13 h, the 56-night synthetic traces) under the default nights
# and each sensitivity setting of configs/anderson2005. About two minutes on
# one core.
#   scripts/dssp_sens.sh
# Exit status: 0 written, 1 the generator failed.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run ./scripts/dsspsens >"$tmp/tables.md"
scripts/gen_block.sh docs/models/dssp.md scripts/dssp_sens.sh "$tmp/tables.md"
