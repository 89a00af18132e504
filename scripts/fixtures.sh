#!/usr/bin/env bash
# Derives the small trace fixtures under internal/datatest/testdata/traces/ from whole logs of
# the Parallel Workloads Archive: each keeps the log's header (with its
# acknowledgements), adds one line saying what the fixture is, and keeps the
# first N job lines. gzip -n makes the bytes reproducible; SHA256SUMS pins them
# (internal/datatest checks them).
#   scripts/fixtures.sh [DATA_DIR]     (default: data; get the logs with
#                                       `schedfarm traces fetch --all`)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-data}
out=internal/datatest/testdata/traces
mkdir -p "$out"
fixture() { # file jobs
  local src="$data/traces/$1" n=$2 base=${1%.gz}
  base=${base%.swf}
  [ -f "$src" ] || { echo "fixtures: $src missing (schedfarm traces fetch $base)" >&2; exit 2; }
  gzip -dc "$src" | awk -v n="$n" -v f="$1" '
    /^;/ && !started { print; next }
    !started {
      started = 1
      print "; schedfarm fixture: the first " n " job lines of " f " (Parallel Workloads Archive;"
      print ";   cite Feitelson, Tsafrir, Krakov, JPDC 74(10) 2014, and the acknowledgements above),"
      print ";   derived by scripts/fixtures.sh"
    }
    started && /[^ \t]/ && ++jobs <= n { print }
  ' | gzip -n -9 >"$out/$base.first$n.swf.gz"
}
fixture CTC-SP2-1996-3.1-cln.swf.gz 5000
fixture SDSC-Par-1996-3.1-cln.swf.gz 2000
fixture OSC-Clust-2000-3.1-cln.swf.gz 2000
(cd "$out" && sha256sum -- *.swf.gz >SHA256SUMS)
ls -l "$out"
