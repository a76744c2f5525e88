#!/usr/bin/env bash
# A rank killed mid-run is recorded as `crashed`, attributed to that rank with its signal, and the
# rest of its job does not linger.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
cat > "$WORK/death.yaml" <<'YAML'
name: death
timeout_s: 300
studies:
  - name: s
    workload: train
    defaults: {vocab_size: 256, d_model: 32, n_heads: 2, n_layers: 1, seq_length: 16, steps: 100000, warmup_steps: 0}
    matrix: {ranks: [2]}
YAML
"$MTRUN" --db "$DB" run "$WORK/death.yaml" > "$WORK/run.log" 2>&1 &
RUNNER=$!
# Find rank 1 of our job: Open MPI puts the rank in each process's environment.
victim=""
for _ in $(seq 1 300); do
  for pid in $(pgrep -f -- "--output $WORK/" || true); do
    if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1"; then victim=$pid; fi
  done
  [ -n "$victim" ] && break
  sleep 0.1
done
[ -n "$victim" ] || fail "rank 1 never started"
sleep 1   # let it get into training
kill -9 "$victim"
set +e; wait $RUNNER; RC=$?; set -e
cat "$WORK/run.log"
expect_eq "$RC" 1 "run exit code"
expect_eq "$(sql "select state, error_rank, signal from attempts")" "crashed|1|9" "crash attributed to rank 1"
expect_eq "$(pgrep -f -- "--output $WORK/" | wc -l)" 0 "no rank left running"
echo "PASS"
