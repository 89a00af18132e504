#!/usr/bin/env bash
# Scaling study (manual, not in CI): throughput of a suite with
# 1, 2 and 4 worker processes against one standalone NATS server and one
# coordinator, with the CPU time the coordinator and the NATS server spend
# per job. Then projects 1..256 workers with scripts/scalemodel.
#
#   scripts/scaling.sh [OUT]
#
# OUT (default: a new temp dir) receives scaling.csv (one row per worker
# count), saturated.csv (the same for 0-ms jobs), results/ (the collected
# runs: jobs.parquet), jobs.csv (every job's duration_ms by W and run),
# logs/, projection.txt (Markdown tables) and scaling.png. Nothing is
# written in the repo unless PNG points there.
# Traces come from the default --data-dir (data/ at the repo root, where the
# script runs, then the user cache; `schedfarm traces fetch --for SUITE`) or
# SCHEDFARM_DATA_DIR.
# Environment:
#   SUITE=configs/quick-all.yaml   the sweep file submitted (any sweep works)
#   WORKERS="1 2 4"                worker process counts, one --workers 1 each
#   REPEAT=5                       submissions per worker count (--force, new run each)
#   IDLE=3                         seconds of idle CPU measured per worker count first
#   SATURATION_SUITE=configs/bench/overhead.yaml   then measured the same way
#                                  (SATURATION_WORKERS=2, SATURATION_REPEAT=2) into
#                                  saturated.csv: per-job costs at a high rate; empty: skip
#   WORKER_FLAGS="--flush-every 2s"  extra flags of every worker process
#   PAPER=FILE                     optional per-sweep job times of the paper-scale
#                                  suite for the projection (see scalemodel -help)
#   PNG=FILE                       where the plot goes (default OUT/scaling.png;
#                                  PNG=docs/scaling.png refreshes the committed one)
set -euo pipefail
out=${1:-$(mktemp -d -t schedfarm-scaling.XXXXXX)}
mkdir -p "$out/logs" "$out/results"
out=$(cd "$out" && pwd)
png=$(realpath -m "${PNG:-$out/scaling.png}")
cd "$(dirname "$0")/.."
suite=${SUITE:-configs/quick-all.yaml}
workers=${WORKERS:-1 2 4}
repeat=${REPEAT:-5}
idle=${IDLE:-3}
saturation=${SATURATION_SUITE-configs/bench/overhead.yaml}
tmp=$(mktemp -d -t schedfarm-scaling-tmp.XXXXXX)
bin="$tmp/schedfarm"

pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

go build -o "$bin" ./cmd/schedfarm

# A free port: bind port 0 and read back what the kernel chose.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
  echo $((20000 + RANDOM % 20000)))
export SCHEDFARM_NATS="nats://127.0.0.1:$port" SCHEDFARM_RESULTS_DIR="$out/results" SCHEDFARM_PREFIX=scaling

# cpu PID: utime+stime of a process in seconds (fields 14 and 15 of
# /proc/PID/stat, counted after the parenthesised command name).
tck=$(getconf CLK_TCK)
cpu() { awk -v t="$tck" '{ sub(/^.*\) /, ""); printf "%.2f", ($12 + $13) / t }' "/proc/$1/stat"; }
cpusum() { local p; for p in "$@"; do cpu "$p"; echo; done | awk '{ s += $1 } END { printf "%.2f", s }'; }
# calc EXPR: floating-point arithmetic
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
# epoch seconds of an RFC 3339 field of a run.json
stamp() { date -d "$(sed -n "s/.*\"$1\": \"\([^\"]*\)\".*/\1/p" "$2")" +%s.%N; }

"$bin" server --port "$port" --store-dir "$tmp/nats" >"$out/logs/server.log" 2>&1 &
server=$!
pids+=("$server")
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
  kill -0 "$server" 2>/dev/null || { echo "scaling: the NATS server did not start; see $out/logs/server.log" >&2; exit 1; }
  sleep 0.2
done
"$bin" coordinator --name scaling-coordinator >"$out/logs/coordinator.log" 2>&1 &
coord=$!
pids+=("$coord")
until "$bin" status >/dev/null 2>&1; do
  kill -0 "$coord" 2>/dev/null || { echo "scaling: the coordinator exited; see $out/logs/coordinator.log" >&2; exit 1; }
  sleep 0.2
done

header="W,repeats,jobs,wall_s,jobs_per_s,submit_wall_s,coord_cpu_s,nats_cpu_s,worker_cpu_s,coord_cpu_ms_per_job,nats_cpu_ms_per_job,worker_cpu_ms_per_job,idle_s,coord_idle_cpu_s,nats_idle_cpu_s,load1_before,load1_after,runs"

# measure SUITE "W..." REPEAT CSV TAG: for each W, start W worker
# processes, submit SUITE REPEAT times, and append a row to CSV.
measure() {
  local suite=$1 workers=$2 repeat=$3 csv=$4 tag=$5
  local w i r run rec row wall jobs ci ni c0 c1 n0 n1 k0 k1 t0 t1 load_before load_after wpids runs
  echo "$suite: $("$bin" expand --count "$suite") jobs per run, $repeat run(s) per worker count"
  echo "$header" >"$csv"
  for w in $workers; do
    wpids=()
    for ((i = 0; i < w; i++)); do
      # shellcheck disable=SC2086 # WORKER_FLAGS is a list of flags
      "$bin" worker --workers 1 --name "$tag$w-$i" ${WORKER_FLAGS:-} >"$out/logs/worker-$tag$w-$i.log" 2>&1 &
      wpids+=($!)
      pids+=($!)
    done
    until [[ $("$bin" status | grep -c "^$tag$w-.* alive ") -ge $w ]]; do sleep 0.2; done
    # What the coordinator and the server spend with nothing to do (worker
    # heartbeats, lease renewals), to tell fixed costs from per-job ones.
    ci=$(cpu "$coord") ni=$(cpu "$server")
    sleep "$idle"
    ci=$(calc "$(cpu "$coord") - $ci") ni=$(calc "$(cpu "$server") - $ni")
    load_before=$(cut -d' ' -f1 /proc/loadavg)
    c0=$(cpu "$coord") n0=$(cpu "$server") k0=$(cpusum "${wpids[@]}")
    t0=$(date +%s.%N)
    runs=()
    for ((r = 0; r < repeat; r++)); do
      run=$("$bin" submit --wait --force "$suite" 2>>"$out/logs/submit-$tag$w.log") ||
        { echo "scaling: submit failed with $w worker(s); see $out/logs/submit-$tag$w.log" >&2; exit 1; }
      runs+=("$run")
    done
    t1=$(date +%s.%N)
    c1=$(cpu "$coord") n1=$(cpu "$server") k1=$(cpusum "${wpids[@]}")
    load_after=$(cut -d' ' -f1 /proc/loadavg)
    kill -TERM "${wpids[@]}"
    wait "${wpids[@]}" 2>/dev/null || true

    # Wall time from the coordinator's own run records (created → finished):
    # free of the submit client's start-up and its 200 ms progress polling.
    wall=0 jobs=0
    for run in "${runs[@]}"; do
      "$bin" collect "$run" >>"$out/logs/collect.log"
      rec=$(find "$out/results" -path "*/$run/run.json" | head -n 1)
      wall=$(calc "$wall + $(stamp finished "$rec") - $(stamp created "$rec")")
      jobs=$((jobs + $(sed -n 's/.*"total": \([0-9]*\).*/\1/p' "$rec")))
    done
    row=$(awk -v w="$w" -v rep="$repeat" -v jobs="$jobs" -v wall="$wall" -v sw="$(calc "$t1 - $t0")" \
      -v c="$(calc "$c1 - $c0")" -v n="$(calc "$n1 - $n0")" -v k="$(calc "$k1 - $k0")" \
      -v idle="$idle" -v ci="$ci" -v ni="$ni" -v lb="$load_before" -v la="$load_after" -v runs="$(
        IFS=';'
        echo "${runs[*]}"
      )" \
      'BEGIN { printf "%d,%d,%d,%.3f,%.2f,%.3f,%.2f,%.2f,%.2f,%.3f,%.3f,%.3f,%s,%.2f,%.2f,%s,%s,%s\n",
        w, rep, jobs, wall, jobs / wall, sw, c, n, k, 1000 * c / jobs, 1000 * n / jobs, 1000 * k / jobs, idle, ci, ni, lb, la, runs }')
    echo "$row" >>"$csv"
    echo "W=$w: $(echo "$row" | awk -F, '{ printf "%d jobs in %.2f s = %.1f jobs/s; CPU/job: coordinator %.3f ms, NATS %.3f ms, workers %.2f ms; idle CPU in %s s: coordinator %s s, NATS %s s; load %s→%s", $3, $4, $5, $10, $11, $12, $13, $14, $15, $16, $17 }')"
  done
}

echo "output in $out"
measure "$suite" "$workers" "$repeat" "$out/scaling.csv" w
if [[ -n $saturation ]]; then
  # The same costs at a high rate: 0-ms jobs keep the server and the
  # coordinator busy, so their per-job CPU is what it is near saturation.
  measure "$saturation" "${SATURATION_WORKERS:-2}" "${SATURATION_REPEAT:-2}" "$out/saturated.csv" s
fi

args=(-csv "$out/scaling.csv" -results "$out/results" -png "$png" -jobs-out "$out/jobs.csv")
[[ -n $saturation ]] && args+=(-saturated "$out/saturated.csv")
[[ -n ${PAPER:-} ]] && args+=(-paper "$PAPER")
go run ./scripts/scalemodel "${args[@]}" | tee "$out/projection.txt"
echo "scaling: CSV $out/scaling.csv, plot $png, projection $out/projection.txt"
