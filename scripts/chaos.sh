#!/usr/bin/env bash
# Chaos test: two farms (prefixes chaos-a and chaos-b) on one token-protected
# NATS server, every process separate, loopback only. While farm A runs a few
# thousand bench jobs on 3 workers, in one run:
#   kill -9 a worker (and start a new one), kill -9 the coordinator and
#   restart it, kill -9 the server and restart it on its store, SIGSTOP a
#   worker past the ack wait (then SIGCONT);
# farm B runs its own sweep beside it on 2 workers. Passes when each farm's
# `submit --wait` ended 0, each run's collected results hold every job exactly
# once (N ok, 0 failed, 0 missing, N distinct job IDs in jobs.parquet), and
# nothing of one farm is in the other's results.
# Then the damaged-part case: bytes of farm A's object
# store block file overwritten while the server is down; the next submission
# skips every job, its collection exits 4 naming the bad part(s) (never a
# timeout) and marks them invalid, and the submission after that reruns their
# jobs: its collection holds every job exactly once, all ok.
# Then the crash-neighbour case, on a third farm (chaos-c):
# a sweep whose n_tasks would exhaust memory is refused by validate, naming
# the parameter and its maximum; and one worker process of two loops, under
# `ulimit -v 3000000` and restarted after each exit, runs three good bench jobs
# and one that crashes its process (fail: crash, a Go fatal error as running
# out of memory is), all four in one pack. Passes when the process died
# exactly 5 times (--max-deliver 5), the three good jobs ended ok, and the
# crasher failed with "worker crashed while running it" and its parameters.
#   scripts/chaos.sh [--short] [OUT_DIR]
# --short is CI's form (about a minute on 2 cores); the default is larger.
set -euo pipefail
cd "$(dirname "$0")/.."
short=false
if [ "${1:-}" = "--short" ]; then short=true; shift; fi
out=${1:-$(mktemp -d -t schedfarm-chaos.XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if $short; then jobs_a=1500 jobs_b=400 work_ms=20; else jobs_a=6000 jobs_b=2000 work_ms=25; fi
bin="$out/schedfarm"
go build -o "$bin" ./cmd/schedfarm
port=$((20000 + RANDOM % 20000))
export SCHEDFARM_NATS="nats://127.0.0.1:$port" SCHEDFARM_TOKEN="chaos-$RANDOM$RANDOM"
export SCHEDFARM_LOG_LEVEL=warn
ackwait=3s
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
log() { echo "$(date +%T) $*"; }
kill9() { kill -9 "$1"; wait "$1" 2>/dev/null || true; } # quietly: no job-control notice
fail() { echo "CHAOS FAILED: $*" >&2; echo "logs in $out" >&2; exit 1; }

start_server() {
  "$bin" server --host 127.0.0.1 --port "$port" --store-dir "$out/nats" >>"$out/server.log" 2>&1 &
  server=$!
  pids+=("$server")
  for _ in $(seq 100); do
    (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.1
  done
  fail "the server did not listen on $port"
}
declare -A coord
start_coordinator() { # farm
  "$bin" coordinator --prefix "chaos-$1" --name "coord-$1-$RANDOM" --ack-wait "$ackwait" --max-deliver 20 \
    >>"$out/coordinator-$1.log" 2>&1 &
  coord[$1]=$!
  pids+=("$!")
}
declare -A worker
start_worker() { # farm index
  "$bin" worker --prefix "chaos-$1" --workers 1 --name "$1-w$2" >>"$out/worker-$1-$2.log" 2>&1 &
  worker[$1$2]=$!
  pids+=("$!")
}
sweep() { # farm jobs
  cat >"$out/$1.yaml" <<YAML
sweeps:
  - name: chaos-$1-sweep
    model: bench
    seed: 7
    replicates: $(($2 / 50))
    params: {work_ms: $work_ms}
    axes:
      - {name: size, range: {from: 1, to: 50, step: 1}}
YAML
}

start_server
# The server must refuse a client without the token.
if SCHEDFARM_TOKEN=wrong timeout 20 "$bin" status --prefix chaos-a >"$out/wrong-token.log" 2>&1; then
  fail "a client with a wrong token was served"
fi
grep -qi "authorization" "$out/wrong-token.log" || fail "wrong token: $(cat "$out/wrong-token.log")"
for f in a b; do start_coordinator $f; done
for i in 0 1 2; do start_worker a $i; done
for i in 0 1; do start_worker b $i; done
sweep a $jobs_a
sweep b $jobs_b
# submit --wait of each farm, in the background; their exit codes are the verdict.
"$bin" submit --prefix chaos-a --wait "$out/a.yaml" >"$out/submit-a.out" 2>"$out/submit-a.log" &
submit_a=$!
"$bin" submit --prefix chaos-b --wait "$out/b.yaml" >"$out/submit-b.out" 2>"$out/submit-b.log" &
submit_b=$!
run_of() { # farm: the run ID submit printed
  for _ in $(seq 300); do
    r=$(head -1 "$out/submit-$1.out" 2>/dev/null || true)
    [ -n "$r" ] && { echo "$r"; return 0; }
    sleep 0.1
  done
  fail "submit of farm $1 printed no run ID: $(cat "$out/submit-$1.log")"
}
run_a=$(run_of a)
run_b=$(run_of b)
log "farm A: run $run_a ($jobs_a jobs); farm B: run $run_b ($jobs_b jobs)"
done_a() { "$bin" status --prefix chaos-a "$run_a" 2>/dev/null | awk 'NR==2 {print $5}'; }
wait_done() { # at least N jobs of A done (or A finished)
  for _ in $(seq 600); do
    d=$(done_a || true)
    [ -n "$d" ] && [ "$d" -ge "$1" ] && return 0
    kill -0 "$submit_a" 2>/dev/null || return 0
    sleep 0.2
  done
}

wait_done $((jobs_a / 10))
log "kill -9 worker a-w0 at $(done_a) done; a new worker takes its place"
kill9 "${worker[a0]}"
start_worker a 3

wait_done $((jobs_a * 25 / 100))
log "kill -9 coordinator A at $(done_a) done; restarted 2 s later"
kill9 "${coord[a]}"
sleep 2
start_coordinator a

wait_done $((jobs_a * 45 / 100))
log "kill -9 the server at $(done_a) done; restarted on its store 1 s later"
kill9 "$server"
sleep 1
start_server

wait_done $((jobs_a * 60 / 100))
log "SIGSTOP worker a-w1 past the ack wait ($ackwait) at $(done_a) done"
kill -STOP "${worker[a1]}"
sleep 5
kill -CONT "${worker[a1]}"
log "SIGCONT worker a-w1"

rc_a=0 rc_b=0
wait "$submit_a" || rc_a=$?
wait "$submit_b" || rc_b=$?
log "submit --wait ended: farm A $rc_a, farm B $rc_b"
[ "$rc_a" -eq 0 ] || fail "submit --wait of farm A exited $rc_a: $(tail -3 "$out/submit-a.log")"
[ "$rc_b" -eq 0 ] || fail "submit --wait of farm B exited $rc_b: $(tail -3 "$out/submit-b.log")"

check_farm() { # farm run jobs
  local res="$out/results-$1"
  "$bin" collect --prefix "chaos-$1" --results-dir "$res" "$2" >"$out/collect-$1.log" 2>&1 ||
    fail "collect of farm $1: $(cat "$out/collect-$1.log")"
  grep -q "chaos-$1-sweep: $3 ok, 0 failed, 0 missing" "$out/collect-$1.log" ||
    fail "farm $1 results: $(cat "$out/collect-$1.log")"
  # Nothing of the other farm: only this farm's sweep under its results.
  local sweeps
  sweeps=$(cd "$res" && ls -d */ | tr -d / | grep -v "^chaos-$1-sweep$" || true)
  [ -z "$sweeps" ] || fail "farm $1's results hold other sweeps: $sweeps"
  log "farm $1: $(cat "$out/collect-$1.log")"
}
check_farm a "$run_a" "$jobs_a"
check_farm b "$run_b" "$jobs_b"
# Neither farm knows the other's run.
if "$bin" status --prefix chaos-b "$run_a" >"$out/cross.log" 2>&1; then
  fail "farm B knows farm A's run $run_a"
fi
# Every job exactly once: as many distinct job IDs as jobs, in each jobs.parquet.
go run ./scripts/chaoscheck "$out/results-a/chaos-a-sweep/$run_a/jobs.parquet" "$jobs_a" \
  "$out/results-b/chaos-b-sweep/$run_b/jobs.parquet" "$jobs_b" || fail "job counts"

# --- a damaged stored part ---
# Bytes flipped in farm A's object store block file while the server is down:
# the next submission skips every job (nothing is known to be wrong yet), its
# collection names each part it finds bad, marks it invalid and exits 4 (before
# the fix it waited for the unreadable chunk and failed with `nats: timeout`,
# exit 3, every time); the submission after that runs the bad parts' jobs again
# and its collection holds every job exactly once, all ok.
blk=$(ls "$out"/nats/jetstream/*/streams/OBJ_CHAOS_A_PARTS/msgs/*.blk 2>/dev/null | head -1)
[ -n "$blk" ] || fail "no block file of farm A's parts under $out/nats"
log "stop the server; overwrite 16 bytes in the middle of farm A's parts block $(basename "$blk"); start it again"
kill "$server"
wait "$server" 2>/dev/null || true
size=$(stat -c %s "$blk")
printf 'DAMAGED-BYTES!!!' | dd of="$blk" bs=1 seek=$((size / 2)) conv=notrunc status=none
start_server
"$bin" submit --prefix chaos-a --wait "$out/a.yaml" >"$out/submit-a2.out" 2>"$out/submit-a2.log" ||
  fail "the submission after the damage: $(tail -3 "$out/submit-a2.log")"
grep -q ": 0 jobs published, $jobs_a already done" "$out/submit-a2.log" ||
  fail "the submission after the damage ran jobs: $(cat "$out/submit-a2.log")"
run_a2=$(head -1 "$out/submit-a2.out")
rc=0
timeout 300 "$bin" collect --prefix chaos-a --results-dir "$out/results-a2" "$run_a2" >"$out/collect-a2.log" 2>&1 || rc=$?
[ "$rc" -eq 4 ] || fail "collect after the damage exited $rc, want 4 (a bad part): $(tail -3 "$out/collect-a2.log")"
grep -q "is bad, left out and marked invalid" "$out/collect-a2.log" ||
  fail "collect after the damage names no bad part: $(cat "$out/collect-a2.log")"
if grep -qi "timeout" "$out/collect-a2.log"; then fail "collect after the damage timed out: $(cat "$out/collect-a2.log")"; fi
bad=$(grep -c "is bad, left out and marked invalid" "$out/collect-a2.log")
log "damaged part: collect exited 4 naming $bad bad part(s): $(grep -m1 "is bad" "$out/collect-a2.log" | cut -c1-200)"
"$bin" submit --prefix chaos-a --wait "$out/a.yaml" >"$out/submit-a3.out" 2>"$out/submit-a3.log" ||
  fail "the submission after the collection: $(tail -3 "$out/submit-a3.log")"
rerun=$(sed -n 's/.*: \([0-9]*\) jobs published, .*/\1/p' "$out/submit-a3.log")
[ "${rerun:-0}" -gt 0 ] || fail "the submission after the collection ran no job: $(cat "$out/submit-a3.log")"
run_a3=$(head -1 "$out/submit-a3.out")
"$bin" collect --prefix chaos-a --results-dir "$out/results-a3" "$run_a3" >"$out/collect-a3.log" 2>&1 ||
  fail "collect after the rerun: $(cat "$out/collect-a3.log")"
grep -q "chaos-a-sweep: $jobs_a ok, 0 failed, 0 missing" "$out/collect-a3.log" ||
  fail "results after the rerun: $(cat "$out/collect-a3.log")"
go run ./scripts/chaoscheck "$out/results-a3/chaos-a-sweep/$run_a3/jobs.parquet" "$jobs_a" || fail "job counts after the rerun"
log "damaged part: the next submission reran $rerun job(s); $(cat "$out/collect-a3.log")"

# --- crash neighbours ---
cat >"$out/oom.yaml" <<YAML
sweeps:
  - name: oom
    model: stretch
    seed: 1
    params: {m: 4}
    axes:
      - {name: n_tasks, values: [50, 60, 70, 1000000000]}
YAML
if "$bin" validate "$out/oom.yaml" >"$out/oom.log" 2>&1; then
  fail "validate accepted n_tasks: 1000000000"
fi
grep -q 'parameter "n_tasks": 1000000000 is above the maximum 10000000' "$out/oom.log" ||
  fail "validate of n_tasks 1000000000: $(cat "$out/oom.log")"
cat >"$out/c.yaml" <<YAML
sweeps:
  - name: chaos-c-sweep
    model: bench
    seed: 44
    axes:
      - zip:
          size: [50, 60, 70, 1000000000]
          fail: [never, never, never, crash]
YAML
"$bin" coordinator --prefix chaos-c --name "coord-c-$RANDOM" --ack-wait 2s --max-deliver 5 --packing 4 \
  >>"$out/coordinator-c.log" 2>&1 &
pids+=("$!")
# A worker process restarted after each exit, as a service manager would.
(
  ulimit -v 3000000
  i=0
  while [ ! -e "$out/c.stop" ]; do
    "$bin" worker --prefix chaos-c --workers 2 --flush-every 1m --name "c-w$i" >>"$out/worker-c.log" 2>&1 &
    echo $! >"$out/c.pid"
    rc=0
    wait $! || rc=$?
    [ -e "$out/c.stop" ] || echo "$rc" >>"$out/c.exits"
    i=$((i + 1))
  done
) &
pids+=("$!")
rc_c=0
timeout 180 "$bin" submit --prefix chaos-c --wait "$out/c.yaml" >"$out/submit-c.out" 2>"$out/submit-c.log" || rc_c=$?
touch "$out/c.stop"
kill "$(cat "$out/c.pid")" 2>/dev/null || true
run_c=$(head -1 "$out/submit-c.out")
exits=$(wc -l <"$out/c.exits" 2>/dev/null || echo 0)
log "crash neighbours: submit --wait ended $rc_c; the worker process died $exits times (exit statuses: $(tr '\n' ' ' <"$out/c.exits" 2>/dev/null))"
[ "$rc_c" -eq 1 ] || fail "submit --wait of the crash sweep exited $rc_c, want 1 (one job failed): $(tail -3 "$out/submit-c.log")"
[ "$exits" -eq 5 ] || fail "the worker process died $exits times, want 5 (once per delivery of the crasher)"
grep -qv '^2$' "$out/c.exits" && fail "a worker exit other than 2 (a Go fatal error): $(tr '\n' ' ' <"$out/c.exits")"
"$bin" status --prefix chaos-c "$run_c" >"$out/status-c.log" 2>&1 || fail "status of farm C: $(cat "$out/status-c.log")"
grep -q 'index=3 attempts=5 .*worker crashed while running it.*fail="crash".*size=1000000000' "$out/status-c.log" ||
  fail "the crasher's failure: $(grep failed "$out/status-c.log")"
"$bin" collect --prefix chaos-c --results-dir "$out/results-c" "$run_c" >"$out/collect-c.log" 2>&1 ||
  fail "collect of farm C: $(cat "$out/collect-c.log")"
grep -q "chaos-c-sweep: 3 ok, 1 failed, 0 missing" "$out/collect-c.log" || fail "farm C results: $(cat "$out/collect-c.log")"
log "farm C: $(cat "$out/collect-c.log")"

echo "CHAOS PASSED: farm A $jobs_a jobs and farm B $jobs_b jobs, each exactly once, through a worker kill, a coordinator kill, a server kill and a stopped worker; a damaged part was named and its jobs rerun; a crashing job failed alone, its 3 neighbours ok, and a sweep that would exhaust memory was refused"
