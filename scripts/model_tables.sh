#!/usr/bin/env bash
# Writes the generated "paper against ours" tables of every model's page
# (docs/models/<model>.md): from a paper-scale run (a scripts/paper-scale.sh
# OUT_DIR: claims per sweep, published values against ours, every claim's
# status, naming the run and its commit) and from the quick goldens
# (configs/golden/: each quick claim's verdict and each point's values).
# go test ./scripts/modeltables checks the golden tables against the goldens;
# rerun with --golden after scripts/golden.sh.
#   scripts/model_tables.sh PAPER_SCALE_DIR   # both blocks
#   scripts/model_tables.sh --golden          # the golden block only
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  "") echo "usage: scripts/model_tables.sh PAPER_SCALE_DIR | --golden" >&2; exit 2 ;;
  --golden) exec go run ./scripts/modeltables -golden ;;
  *) exec go run ./scripts/modeltables -paper-scale "$1" -golden ;;
esac
