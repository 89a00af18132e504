#!/usr/bin/env bash
# Peak memory of the coordinator and of a worker, each in its own process
# (manual, not in CI; the scaling study's targets: coordinator under 1 KB per job,
# each worker under 1 GB on the largest job).
#
#   scripts/memory.sh [OUT]
#
# Coordinator: for each job count N in COORD_JOBS, a fresh NATS server,
# coordinator and worker process run one sweep of N zero-millisecond bench
# jobs; the coordinator's peak resident set (VmHWM) is read from /proc when
# the run has finished. Reported: the peak, the peak per job, and the
# marginal cost per job between consecutive N (what each extra job adds,
# free of the process's fixed size).
# Worker: one worker process (one model goroutine) runs WORKER_SUITES, the
# sweeps with the largest jobs of each paper; its VmHWM at the end is the
# peak over every one of their jobs.
# OUT (default: a new temp dir) receives memory.csv, worker.csv and logs/.
# Environment:
#   COORD_JOBS="20000 100000 400000"   job counts of the coordinator runs
#   WORKER_SUITES="..."               sweep files run by the single worker
set -euo pipefail
out=${1:-$(mktemp -d -t schedfarm-memory.XXXXXX)}
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."
coordJobs=${COORD_JOBS:-20000 100000 400000}
workerSuites=${WORKER_SUITES:-configs/krallmann1999/table3.yaml configs/saule2012/fig3.yaml configs/casanova2010/paper.yaml}
tmp=$(mktemp -d -t schedfarm-memory-tmp.XXXXXX)
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

# hwm PID: peak resident set in KiB
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }

# farm TAG: a fresh server, coordinator and one worker process; sets
# server, coord, worker; SCHEDFARM_* point at them.
farm() {
  local tag=$1 port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000)))
  export SCHEDFARM_NATS="nats://127.0.0.1:$port" SCHEDFARM_RESULTS_DIR="$tmp/results-$tag" SCHEDFARM_PREFIX="mem$tag"
  "$bin" server --port "$port" --store-dir "$tmp/nats-$tag" >"$out/logs/server-$tag.log" 2>&1 &
  server=$!
  pids+=("$server")
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    kill -0 "$server" 2>/dev/null || { echo "memory: the NATS server did not start; see $out/logs/server-$tag.log" >&2; exit 1; }
    sleep 0.2
  done
  "$bin" coordinator --name "mem-coordinator-$tag" >"$out/logs/coordinator-$tag.log" 2>&1 &
  coord=$!
  pids+=("$coord")
  until "$bin" status >/dev/null 2>&1; do
    kill -0 "$coord" 2>/dev/null || { echo "memory: the coordinator exited; see $out/logs/coordinator-$tag.log" >&2; exit 1; }
    sleep 0.2
  done
  "$bin" worker --workers 1 --name "mem-worker-$tag" >"$out/logs/worker-$tag.log" 2>&1 &
  worker=$!
  pids+=("$worker")
  until "$bin" status | grep -q "^mem-worker-$tag.* alive "; do sleep 0.2; done
}

stop() {
  kill -TERM "$worker" "$coord" "$server" 2>/dev/null || true
  wait "$worker" "$coord" "$server" 2>/dev/null || true
}

echo "N,coord_hwm_kib,coord_bytes_per_job,marginal_bytes_per_job,worker_hwm_kib,nats_hwm_kib" >"$out/memory.csv"
prevN=0 prevK=0
for n in $coordJobs; do
  reps=$(((n + 99) / 100))
  cat >"$tmp/sweep-$n.yaml" <<EOF
sweeps:
  - name: memory-$n
    model: bench
    seed: 1
    replicates: $reps
    params: {work_ms: 0}
    axes:
      - {name: size, range: {from: 1, to: 100, step: 1}}
EOF
  farm "$n"
  "$bin" submit --wait --force "$tmp/sweep-$n.yaml" >"$out/logs/submit-$n.log" 2>&1 ||
    { echo "memory: submit of $n jobs failed; see $out/logs/submit-$n.log" >&2; exit 1; }
  jobs=$((reps * 100))
  k=$(hwm "$coord") wk=$(hwm "$worker") nk=$(hwm "$server")
  marginal=""
  if ((prevN > 0)); then
    marginal=$(awk -v a="$prevK" -v b="$k" -v m="$prevN" -v n="$jobs" 'BEGIN { printf "%.0f", 1024 * (b - a) / (n - m) }')
  fi
  echo "$jobs,$k,$(awk -v k="$k" -v n="$jobs" 'BEGIN { printf "%.0f", 1024 * k / n }'),$marginal,$wk,$nk" >>"$out/memory.csv"
  echo "coordinator, $jobs jobs: peak $((k / 1024)) MiB = $(awk -v k="$k" -v n="$jobs" 'BEGIN { printf "%.0f", 1024 * k / n }') B/job${marginal:+ (marginal $marginal B/job)}; NATS peak $((nk / 1024)) MiB"
  prevN=$jobs prevK=$k
  stop
done

echo "suite,jobs,worker_hwm_kib,coord_hwm_kib" >"$out/worker.csv"
farm worker
for s in $workerSuites; do
  "$bin" submit --wait --force "$s" >"$out/logs/submit-worker.log" 2>&1 ||
    { echo "memory: $s failed; see $out/logs/submit-worker.log" >&2; exit 1; }
  wk=$(hwm "$worker") k=$(hwm "$coord")
  echo "$s,$("$bin" expand --count "$s"),$wk,$k" >>"$out/worker.csv"
  echo "worker after $s: peak $((wk / 1024)) MiB (coordinator $((k / 1024)) MiB)"
done
stop
echo "memory: $out/memory.csv, $out/worker.csv"
