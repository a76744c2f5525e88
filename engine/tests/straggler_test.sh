#!/usr/bin/env bash
# A straggler is part of the step it delays, and a rank that stops answering ends the job.
#  1. rank 1 sleeps 2 s before step 3 (within --collective-timeout): rank 0's step 3 takes at
#     least that long, its wait for rank 1 is recorded (per_step.rank_wait_ms), and the run's
#     rank_wait_ms and step_time_ms carry it.
#  2. rank 1 sleeps 40 s with --collective-timeout 4: the job aborts within seconds, naming the
#     control-channel operation that timed out and its sequence number, and exits non-zero.
set -uo pipefail
MTENGINE=${1:?usage: straggler_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 2)
TINY=(--vocab-size 64 --d-model 32 --n-heads 4 --n-layers 2 --seq-length 16 --threads 1
      --steps 7 --warmup-steps 1)

"${MPIRUN[@]}" "$MTENGINE" train "${TINY[@]}" --collective-timeout 30 \
  --fault sleep:rank=1,step=3,seconds=2 --output "$WORK/slow.json" >"$WORK/slow.out" 2>&1 \
  || { echo "FAIL: the run with a 2 s straggler failed" >&2; cat "$WORK/slow.out" >&2; exit 1; }
python3 - "$WORK/slow.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
steps = r["per_step"]["step_time_ms"]
waits = r["per_step"]["rank_wait_ms"]
assert steps[0][3] >= 1900, f"rank 0's step 3 took {steps[0][3]:.1f} ms: the straggler's 2 s are missing"
assert waits[0][3] >= 1900, f"rank 0 waited {waits[0][3]:.1f} ms at step 3, want >= 1900"
assert waits[1][3] < 1000, f"rank 1 (the straggler) waited {waits[1][3]:.1f} ms at step 3"
others = [s for i, s in enumerate(steps[0]) if i not in (0, 3)]
assert max(others) < steps[0][3] / 2, (others, steps[0][3])
# The measured steps (warmup excluded) include the 2 s one: the mean carries its share.
measured = len(steps[0]) - r["warmup_steps"]
assert r["step_time_ms"] >= 1900 / measured, (r["step_time_ms"], measured)
assert r["rank_wait_ms"] >= 1900 / measured, (r["rank_wait_ms"], measured)
print(f"ok: straggler step {steps[0][3]:.0f} ms, wait {waits[0][3]:.0f} ms, mean step {r['step_time_ms']:.1f} ms")
PY

start=$(date +%s)
timeout 60 "${MPIRUN[@]}" "$MTENGINE" train "${TINY[@]}" --collective-timeout 4 \
  --fault sleep:rank=1,step=3,seconds=40 --output "$WORK/stuck.json" >"$WORK/stuck.out" 2>&1
rc=$?
elapsed=$(( $(date +%s) - start ))
if [[ $rc == 0 || $rc == 124 ]]; then
  echo "FAIL: a rank stuck for 40 s with --collective-timeout 4: exit $rc after ${elapsed} s" >&2
  cat "$WORK/stuck.out" >&2
  exit 1
fi
grep -q "control channel timeout: waited 4 s for barrier #" "$WORK/stuck.out" || {
  echo "FAIL: no control-channel timeout message" >&2; cat "$WORK/stuck.out" >&2; exit 1; }
grep -q "rank 0 (" "$WORK/stuck.out" || { echo "FAIL: the message does not name the rank" >&2; exit 1; }
if (( elapsed >= 35 )); then
  echo "FAIL: the job ended only after ${elapsed} s, when the straggler woke" >&2
  exit 1
fi
echo "ok: stuck rank -> exit $rc after ${elapsed} s: $(grep -m1 'control channel timeout' "$WORK/stuck.out")"
