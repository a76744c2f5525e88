#!/usr/bin/env bash
# `mtengine tp` on 2 and 4 ranks: column- and row-parallel linears, the tensor-parallel MLP and its
# sequence-parallel form all match the single-device reference (output, input gradient, weight
# and bias gradients) within 1e-5; a shape the ranks cannot split is refused with exit 2.
set -uo pipefail
MTENGINE=${1:?usage: tp_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for n in 2 4; do
  mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np "$n" "$MTENGINE" tp \
    --batch 2 --seq-length 16 --d-model 32 --threads 1 --output "$WORK/tp$n.json" >"$WORK/out" 2>&1 ||
    fail "tp on $n ranks: $(cat "$WORK/out")"
  python3 - "$WORK/tp$n.json" <<'PY' || fail "tp result on $n ranks"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["all_pass"] and len(r["checks"]) == 4 + 4 + 6 + 6, r["checks"]
assert {c["layer"] for c in r["checks"]} == {"column", "row", "mlp", "sp_mlp"}
worst = max(c["max_abs_error"] for c in r["checks"])
print(f"ok: {r['world_size']} ranks, {len(r['checks'])} tensors, worst |error| {worst:.2g}")
PY
done
mpirun --allow-run-as-root --oversubscribe -np 3 "$MTENGINE" tp --seq-length 16 --d-model 32 >"$WORK/out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -qF "must divide by the 3 ranks" "$WORK/out" || fail "indivisible shape: exit $rc: $(cat "$WORK/out")"
echo "ok: an indivisible shape is refused"
mpirun --allow-run-as-root --oversubscribe -np 2 "$MTENGINE" tp --d-model 1000000 >"$WORK/out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -qF -- "--d-model 1000000 must be at most 65536" "$WORK/out" || fail "huge d-model: exit $rc: $(cat "$WORK/out")"
mpirun --allow-run-as-root --oversubscribe -np 2 "$MTENGINE" tp --d-model 65536 --seq-length 65536 --batch 64 >"$WORK/out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -qF "tp with this --d-model, --batch and --seq-length needs about" "$WORK/out" || fail "tp beyond memory: exit $rc: $(cat "$WORK/out")"
echo "ok: tp shapes beyond the bounds or the memory are refused"
