#!/usr/bin/env bash
# The engine is the one source of its flags: mtrun validates experiments against
# `mtengine train --describe`, the runner's test fixture is that description, and the experiment
# schema's train parameters are generated from it. This fails when any of them drift apart.
source "$MT_SOURCE_DIR/tests/e2e/lib.sh"
MTENGINE="$MT_BUILD_DIR/bin/mtengine"
export XDG_CACHE_HOME="$WORK/cache"

"$MTENGINE" train --describe >"$WORK/describe.json" || fail "mtengine train --describe"
python3 - "$WORK/describe.json" "$MT_SOURCE_DIR/runner/tests/data/engine_train_description.json" <<'PY' ||
import json, sys
live, fixture = (json.load(open(p)) for p in sys.argv[1:])
if live != fixture:
    sys.exit("runner/tests/data/engine_train_description.json is not `mtengine train --describe`: "
             "regenerate it from the engine")
print("ok: the runner's fixture is the engine's description")
PY
  fail "fixture drift"
python3 "$MT_SOURCE_DIR/scripts/experiment_schema.py" "$WORK/describe.json" --check || fail "schema drift"

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
echo "PASS"
