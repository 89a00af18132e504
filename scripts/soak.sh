#!/usr/bin/env bash
# Soak test (manual, not in CI): 100,000 bench jobs across 3 worker
# processes, one worker killed with SIGKILL and restarted every 30 s.
# Passes when every job has exactly one ok result: 0 lost, 0 duplicated.
#   scripts/soak.sh [JOBS] [WORK_MS]        (defaults 100000 and 2)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-100000}
work_ms=${2:-2}
tmp=$(mktemp -d)
bin="$tmp/schedfarm"
go build -o "$bin" ./cmd/schedfarm
port=$((20000 + RANDOM % 20000))
export SCHEDFARM_NATS="nats://127.0.0.1:$port" SCHEDFARM_RESULTS_DIR="$tmp/results" SCHEDFARM_ACK_WAIT=5s
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT
"$bin" server --port "$port" --store-dir "$tmp/nats" >"$tmp/server.log" 2>&1 & pids+=($!)
sleep 1
"$bin" coordinator >"$tmp/coordinator.log" 2>&1 & pids+=($!)
declare -A worker
start_worker() { "$bin" worker --workers 1 --name "soak$1" >>"$tmp/worker$1.log" 2>&1 & worker[$1]=$!; pids+=($!); }
for i in 0 1 2; do start_worker $i; done
reps=$((jobs / 100))
cat >"$tmp/soak.yaml" <<YAML
sweeps:
  - name: soak
    model: bench
    seed: 1
    replicates: $reps
    params: {work_ms: $work_ms}
    axes:
      - name: size
        range: {from: 1, to: 100, step: 1}
YAML
until "$bin" status >/dev/null 2>&1; do sleep 0.2; done
start=$(date +%s)
run=$("$bin" submit "$tmp/soak.yaml")
echo "run $run: $((reps * 100)) jobs submitted"
kills=0
complete() { "$bin" status "$run" | grep -c " complete " >/dev/null; }
while ! complete; do
  sleep 30
  complete && break
  victim=$((RANDOM % 3))
  kill -9 "${worker[$victim]}" 2>/dev/null || true
  kills=$((kills + 1))
  echo "$(date +%T) killed worker soak$victim (kill $kills); $("$bin" status "$run" | sed -n 2p | awk '{print $5" done"}')"
  start_worker $victim
done
elapsed=$(( $(date +%s) - start ))
status=$("$bin" status "$run")
echo "$status" | sed -n 1,2p
out=$("$bin" collect "$run")
echo "$out"
echo "elapsed ${elapsed}s, ${kills} workers killed"
echo "$out" | grep -q " $((reps * 100)) ok, 0 failed, 0 missing" || { echo "SOAK FAILED"; exit 1; }
echo "SOAK PASSED: $((reps * 100)) jobs, 0 lost, 0 duplicated"
