#!/usr/bin/env bash
# Collectives per optimizer step, by kind, read from the result JSON, against the design:
#   ddp   B buckets: all-reduce B per synchronised micro-batch
#   fsdp  U = layers + 1 units: all-gather 2·layers + 1 per micro-batch (root once, each block
#         for forward and again for backward); reduce-scatter U per synchronised micro-batch
#   zero1 all-reduce B per synchronised micro-batch; all-gather B after the step
#   zero2 reduce-scatter B per synchronised micro-batch; all-gather B after the step
# where a synchronised micro-batch is every one in mode `every`, the last one in mode `last`.
set -euo pipefail
MTENGINE=${1:?usage: strategy_collectives_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 2)
LAYERS=2
TINY=(--vocab-size 64 --d-model 32 --n-heads 4 --n-layers $LAYERS --seq-length 16 --batch-size 2
      --steps 2 --warmup-steps 1 --bucket-cap-mb 0.01 --first-bucket-cap-mb 0.01 --threads 1)

fail() { echo "FAIL: $*" >&2; exit 1; }

check() {  # check STRATEGY MODE ACCUM
  local strategy=$1 mode=$2 accum=$3 out="$WORK/$1_$2_$3.json"
  "${MPIRUN[@]}" "$MTENGINE" train "${TINY[@]}" --strategy "$strategy" --gradient-sync-mode "$mode" \
    --grad-accum-steps "$accum" --output "$out" >/dev/null
  python3 - "$out" "$strategy" "$mode" "$accum" "$LAYERS" <<'PY' || fail "$strategy $mode accum $accum"
import json, sys
r = json.load(open(sys.argv[1]))
strategy, mode, accum, layers = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
c = r["collectives_per_step"]
synced = accum if mode == "every" else 1
b = r["buckets"]["count"]
expected = {
    "ddp": {"all_reduce": synced * b, "all_gather": 0, "reduce_scatter": 0},
    "fsdp": {"all_reduce": 0, "all_gather": accum * (2 * layers + 1), "reduce_scatter": synced * (layers + 1)},
    "zero1": {"all_reduce": synced * b, "all_gather": b, "reduce_scatter": 0},
    "zero2": {"all_reduce": 0, "all_gather": b, "reduce_scatter": synced * b},
}[strategy]
expected["sync_rounds"] = synced
expected["broadcast"] = 0
got = {k: c[k] for k in expected}
assert r["status"] == "ok" and r["resolved_gradient_sync_mode"] == mode, r["status"]
if strategy == "ddp":
    assert b > 1, f"expected several buckets, got {b}"
if strategy == "fsdp":
    assert b == layers + 1, f"fsdp units {b}"
assert got == expected, f"got {got}, expected {expected}"
print(f"ok: {strategy} {mode} accum {accum}: {got} (buckets/units {b})")
PY
}

for strategy in ddp fsdp; do
  for mode in every last; do
    for accum in 1 4; do check "$strategy" "$mode" "$accum"; done
  done
done
for strategy in zero1 zero2; do
  for mode in every last; do check "$strategy" "$mode" 4; done
done
