#!/usr/bin/env bash
# The engine is the one source of its flags: mtrun validates experiments against
# `mtengine WORKLOAD --describe`, the runner's test fixtures are those descriptions, and the
# experiment schema's parameters of each workload are generated from them, and the result schema's
# strategy and collective names from `mtengine describe`. This fails when any of them drift apart.
source "$MT_SOURCE_DIR/tests/e2e/lib.sh"
MTENGINE="$MT_BUILD_DIR/bin/mtengine"
export XDG_CACHE_HOME="$WORK/cache"

DESCRIPTIONS=()
WORKLOADS=$("$MTENGINE" describe | python3 -c \
  'import json, sys; print(" ".join(s["name"] for s in json.load(sys.stdin)["subcommands"] if s["options"]))')
[ -n "$WORKLOADS" ] || fail "mtengine describe lists no workload with options"
for workload in $WORKLOADS; do
  "$MTENGINE" "$workload" --describe >"$WORK/$workload.json" || fail "mtengine $workload --describe"
  fixture="runner/tests/data/engine_${workload}_description.json"
  python3 - "$WORK/$workload.json" "$MT_SOURCE_DIR/$fixture" "$workload" <<'PY' || fail "fixture drift"
import json, sys
live, fixture = (json.load(open(p)) for p in sys.argv[1:3])
if live != fixture:
    sys.exit(f"{sys.argv[2]} is not `mtengine {sys.argv[3]} --describe`: regenerate it from the engine")
print(f"ok: the runner's fixture is the engine's description of {sys.argv[3]}")
PY
  DESCRIPTIONS+=("$WORK/$workload.json")
done
python3 "$MT_SOURCE_DIR/scripts/experiment_schema.py" "${DESCRIPTIONS[@]}" --check || fail "schema drift"
"$MTENGINE" describe >"$WORK/describe.json" || fail "mtengine describe"
python3 "$MT_SOURCE_DIR/scripts/result_schema_names.py" "$WORK/describe.json" --check || fail "result schema drift"

# mtrun asks the engine: a value past the engine's bound fails at plan time, at its position.
cat >"$WORK/bounds.yaml" <<'YAML'
name: bounds
studies:
  - name: s
    workload: train
    matrix:
      seq_length: [128, 1000000000]
YAML
capture "$MTRUN" plan "$WORK/bounds.yaml"
expect_eq "$RC" 2 "plan exit code for an out-of-bound value"
expect_contains "$OUT" "bounds.yaml:6:25: seq_length must be at most 1048576, got 1000000000" "plan message"
ls "$XDG_CACHE_HOME"/mtrun/*-train.json >/dev/null 2>&1 || fail "the description was not cached"

# An engine that cannot describe itself: studies of its workloads say why; others still plan.
capture "$MTRUN" plan --engine /bin/true "$WORK/bounds.yaml"
expect_eq "$RC" 2 "plan exit code without a describing engine"
expect_contains "$OUT" "workload 'train' cannot be checked: mtengine at /bin/true did not describe it" "plan message"
# What every workload writes fits schemas/result.schema.json (tiny runs: the shape, not the speed).
MPI=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader)
"${MPI[@]}" -np 2 "$MTENGINE" train --vocab-size 64 --d-model 16 --n-heads 2 --n-layers 1 --seq-length 8 \
  --batch-size 2 --steps 2 --warmup-steps 1 --threads 1 --output "$WORK/r_train.json" >/dev/null
"${MPI[@]}" -np 2 "$MTENGINE" comm --ops all_reduce --sizes 4096 --warmup 1 --iters 2 --output "$WORK/r_comm.json" >/dev/null
"${MPI[@]}" -np 2 "$MTENGINE" moe --tokens 32 --d-model 16 --warmup 1 --iters 1 --threads 1 --output "$WORK/r_moe.json" >/dev/null
"${MPI[@]}" -np 2 "$MTENGINE" tp --seq-length 8 --d-model 16 --threads 1 --output "$WORK/r_tp.json" >/dev/null
"${MPI[@]}" -np 4 "$MTENGINE" groups --tp 2 --bytes 4096 --steps 1 --warmup 1 --output "$WORK/r_groups.json" >/dev/null
python3 - "$MT_SOURCE_DIR/schemas/result.schema.json" "$WORK"/r_*.json <<'PY' || fail "result schema"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for path in sys.argv[2:]:
    try:
        jsonschema.validate(json.load(open(path)), schema)
    except jsonschema.ValidationError as e:
        sys.exit(f"{path}: {e.message} at {list(e.path)}")
print(f"ok: {len(sys.argv) - 2} workloads' results fit schemas/result.schema.json")
PY
echo "PASS"
