#!/usr/bin/env bash
# A run whose loss turns non-finite stops on every rank at the same step, exits 1 and still
# writes a result JSON with status "error" naming the step, rank and policy.
set -uo pipefail
MTENGINE=${1:?usage: train_failure_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 2)

# An absurd learning rate blows the weights up after the first optimizer step.
"${MPIRUN[@]}" "$MTENGINE" train --vocab-size 64 --d-model 32 --n-heads 4 --n-layers 2 \
  --seq-length 16 --steps 6 --warmup-steps 1 --threads 1 --learning-rate 1e20 \
  --output "$WORK/result.json" >"$WORK/out" 2>&1
rc=$?
if [[ $rc != 1 ]]; then
  echo "FAIL: exit $rc, want 1" >&2
  cat "$WORK/out" >&2
  exit 1
fi
python3 - "$WORK/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "error", r["status"]
e = r["error"]
assert e["policy"] == "all_rank_fail_fast", e
assert isinstance(e["step"], int) and e["step"] >= 1, e
assert "non-finite loss" in e["reason"], e
assert e["rank"] in (0, 1), e
print("ok: non-finite loss ->", e)
PY
