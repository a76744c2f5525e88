#!/usr/bin/env bash
# Bad input stops every rank with exit 2 and a message naming the flag and value.
set -uo pipefail
MTENGINE=${1:?usage: train_validation_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 2)
failures=0

expect() {  # expect CODE MESSAGE ARGS...: runs mtengine on 2 ranks
  local code=$1 message=$2
  shift 2
  "${MPIRUN[@]}" "$MTENGINE" "$@" >"$WORK/out" 2>&1
  local rc=$?
  if [[ $rc != "$code" ]] || ! grep -qF -- "$message" "$WORK/out"; then
    echo "FAIL: mtengine $* -> exit $rc (want $code), output:" >&2
    cat "$WORK/out" >&2
    failures=$((failures + 1))
  else
    echo "ok: $* -> $code: $message"
  fi
}

expect 2 "mtengine train: --n-heads 7 does not divide --d-model 512" train --n-heads 7
expect 2 "mtengine train: --batch-size 0 must be positive" train --batch-size 0
expect 2 "mtengine train: --strategy 'fdsp' is not available (available: ddp, fsdp, zero1, zero2)" train --strategy fdsp
expect 2 "mtengine train: --precision 'fp16' must be one of fp32, bf16" train --precision fp16
expect 2 "mtengine train: --lr-scheduler 'linear' must be one of constant, cosine" train --lr-scheduler linear
expect 2 "mtengine train: --grad-reduce-dtype 'fp8' must be one of fp32, bf16" train --grad-reduce-dtype fp8
expect 2 "--no-such-flag" train --no-such-flag 3
expect 2 "--steps" train --steps notanumber

# Version information is JSON with the build facts.
"$MTENGINE" version --json >"$WORK/version.json" || failures=$((failures + 1))
python3 - "$WORK/version.json" <<'PY' || failures=$((failures + 1))
import json, sys
v = json.load(open(sys.argv[1]))
for key in ("libtorch", "mpi", "compiler", "build_type", "build_revision", "build_tree_dirty"):
    assert key in v, key
assert v["libtorch"].startswith("1."), v["libtorch"]
print("ok: version --json", v["libtorch"], "|", v["mpi"])
PY

exit $((failures > 0))
