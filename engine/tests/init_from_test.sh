#!/usr/bin/env bash
# `train --init-from FILE`: a file that can never start this run (missing, not safetensors, a
# weight of another shape, a weight that is NaN or infinite) is bad input, refused with exit 2 on
# every rank and a message naming the file and the tensor, so mtrun does not retry it.
set -uo pipefail
MTENGINE=${1:?usage: init_from_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 2)
MODEL=(--vocab-size 96 --n-heads 4 --seq-length 16 --batch-size 2 --threads 1 --warmup-steps 0 --collective-timeout 60)
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# expect CODE MESSAGE [mpirun] ARGS...: runs `mtengine train MODEL ARGS` on 1 rank, or 2 with mpirun;
# D_MODEL and N_LAYERS change the model's shape.
expect() {
  local code=$1 message=$2 launcher=()
  shift 2
  if [ "$1" = mpirun ]; then
    launcher=("${MPIRUN[@]}")
    shift
  fi
  "${launcher[@]}" "$MTENGINE" train "${MODEL[@]}" --d-model "${D_MODEL:-32}" --n-layers "${N_LAYERS:-2}" "$@" \
    >"$WORK/out" 2>&1
  local rc=$?
  if [[ $rc != "$code" ]] || ! grep -qF -- "$message" "$WORK/out"; then
    fail "train $* -> exit $rc (want $code with '$message'): $(cat "$WORK/out")"
  else
    echo "ok: ${launcher:+2 ranks: }--init-from ${*: -1} -> $code: $message"
  fi
}

# set_value FILE TENSOR ELEMENT VALUE: writes VALUE (a float: nan, inf) into one f32 element.
set_value() {
  python3 - "$@" <<'PY'
import json, struct, sys
path, name, element, value = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
raw = bytearray(open(path, "rb").read())
(n,) = struct.unpack("<Q", raw[:8])
entry = json.loads(raw[8:8 + n])[name]
assert entry["dtype"] == "F32", entry
offset = 8 + n + entry["data_offsets"][0] + 4 * element
raw[offset:offset + 4] = struct.pack("<f", value)
open(path, "wb").write(raw)
PY
}

W="$WORK/weights.safetensors"
"$MTENGINE" train "${MODEL[@]}" --d-model 32 --n-layers 2 --steps 1 --weights-out "$W" >"$WORK/out" 2>&1 || fail "writing weights: $(cat "$WORK/out")"
expect 0 "mtengine train: ddp x1" --steps 1 --init-from "$W"

# Weights that are not finite: the tensor, how many and where the first one is.
cp "$W" "$WORK/nan.safetensors"
set_value "$WORK/nan.safetensors" transformer.h.1.attn.c_attn.weight 33 nan
set_value "$WORK/nan.safetensors" transformer.h.1.attn.c_attn.weight 40 -inf
expect 2 "--init-from '$WORK/nan.safetensors': 'transformer.h.1.attn.c_attn.weight' holds 2 value(s) that are not finite, the first nan at [1, 1]" \
  --steps 1 --init-from "$WORK/nan.safetensors"
cp "$W" "$WORK/inf.safetensors"
set_value "$WORK/inf.safetensors" transformer.wte.weight 0 inf
expect 2 "'transformer.wte.weight' holds 1 value(s) that are not finite, the first inf at [0, 0]" \
  mpirun --steps 1 --output "$WORK/inf.json" --init-from "$WORK/inf.safetensors"
python3 - "$WORK/inf.json" <<'PY' || fail "no error result for weights that are not finite"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "error" and "'transformer.wte.weight' holds 1 value(s)" in r["error"]["reason"], r["error"]
PY

# Files that are not weights of this model.
expect 2 "--init-from: '$WORK/missing.safetensors' does not exist" --steps 1 --init-from "$WORK/missing.safetensors"
head -c 100 "$W" >"$WORK/truncated.safetensors"
expect 2 "is not a safetensors file" --steps 1 --init-from "$WORK/truncated.safetensors"
echo "not a tensor file, but long enough to have a header length" >"$WORK/text.safetensors"
expect 2 "is not a safetensors file" mpirun --steps 1 --init-from "$WORK/text.safetensors"
expect 2 "is not a regular file" --steps 1 --init-from "$WORK"
D_MODEL=64 expect 2 "'transformer.wte.weight' has shape [96, 32], this configuration needs [96, 64]" \
  mpirun --steps 1 --init-from "$W"
N_LAYERS=3 expect 2 "lacks 'transformer.h.2.ln_1.weight'" --steps 1 --init-from "$W"

[ "$failures" -eq 0 ] || exit 1
echo "PASS: --init-from refuses what can never start the run with exit 2, naming the file and tensor"
