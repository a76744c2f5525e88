#!/usr/bin/env bash
# `train --init-from FILE`: a file that can never start this run (missing, not safetensors, a
# weight of another shape, a weight that is NaN or infinite) is bad input, refused with exit 2 on
# every rank and a message naming the file and the tensor, so mtrun does not retry it. A file
# `export --with-optimizer` wrote starts the run from its weights; its AdamW moments are unread.
set -uo pipefail
MTENGINE=${1:?usage: init_from_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
LAUNCH=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader)
MPIRUN=("${LAUNCH[@]}" -np 2)
MODEL=(--vocab-size 96 --n-heads 4 --seq-length 16 --batch-size 2 --threads 1 --warmup-steps 0 --collective-timeout 60)
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# expect CODE MESSAGE [mpirun] ARGS...: runs `mtengine train MODEL ARGS` on 1 rank, or 2 with mpirun;
# D_MODEL and N_LAYERS change the model's shape.
expect() {
  local code=$1 message=$2 launcher=() file
  file=$(sed -n 's/.*--init-from \([^ ]*\).*/\1/p' <<<"$*")
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
    echo "ok: ${launcher:+2 ranks: }--init-from $file -> $code: $message"
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

# A file `export --with-optimizer` wrote starts a run from its weights, its AdamW moments unread;
# its weights are checked as any file's are.
"${MPIRUN[@]}" "$MTENGINE" train "${MODEL[@]}" --d-model 32 --n-layers 2 --steps 2 --strategy fsdp \
  --checkpoint-dir "$WORK/ck" --save-every 2 >"$WORK/out" 2>&1 || fail "the run to export: $(cat "$WORK/out")"
E="$WORK/exported.safetensors"
"$MTENGINE" export "$WORK/ck/step_00000002" "$E" --with-optimizer >"$WORK/out" 2>&1 || fail "export: $(cat "$WORK/out")"
expect 0 "mtengine: --init-from '$E': took its weights; its 56 AdamW moment tensors are not used" \
  mpirun --steps 1 --init-from "$E" --weights-out "$WORK/started.safetensors"
python3 - "$E" "$WORK/started.safetensors" <<'PY' || fail "the run did not start from the exported weights"
import json, struct, sys
def tensors(path):
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    return {k: raw[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]] for k, v in header.items()}
exported, started = tensors(sys.argv[1]), tensors(sys.argv[2])
weights = {k: v for k, v in exported.items() if not k.startswith("optimizer.")}
assert len(weights) == 28 and len(exported) == 3 * 28, (len(weights), len(exported))
assert started == weights, sorted(k for k in weights if started.get(k) != weights[k])
PY
# drop_tensors FILE OUT PREFIX...: FILE without the tensors whose names start with a PREFIX.
drop_tensors() {
  python3 - "$@" <<'PY'
import json, struct, sys
path, out, prefixes = sys.argv[1], sys.argv[2], tuple(sys.argv[3:])
raw = open(path, "rb").read()
(n,) = struct.unpack("<Q", raw[:8])
header, data = json.loads(raw[8:8 + n]), raw[8 + n:]
kept, offset = bytearray(), 0
for key in [k for k in header if k != "__metadata__"]:
    if key.startswith(prefixes):
        del header[key]
        continue
    begin, end = header[key]["data_offsets"]
    kept += data[begin:end]
    header[key]["data_offsets"] = [offset, offset + end - begin]
    offset += end - begin
text = json.dumps(header).encode()
open(out, "wb").write(struct.pack("<Q", len(text)) + text + kept)
PY
}
drop_tensors "$E" "$WORK/no_weight.safetensors" transformer.h.0.mlp.c_fc.weight
expect 2 "--init-from '$WORK/no_weight.safetensors': lacks 'transformer.h.0.mlp.c_fc.weight'" \
  --steps 1 --init-from "$WORK/no_weight.safetensors"
D_MODEL=64 expect 2 "'transformer.wte.weight' has shape [96, 32], this configuration needs [96, 64]" \
  --steps 1 --init-from "$E"
N_LAYERS=1 expect 2 "tensor 'transformer.h.1." --steps 1 --init-from "$E"
# Moments of a parameter the model lacks are not this model's either.
drop_tensors "$E" "$WORK/orphan_moments.safetensors" transformer.h.1.
N_LAYERS=1 expect 2 "tensor 'optimizer.exp_avg.transformer.h.1." --steps 1 --init-from "$WORK/orphan_moments.safetensors"

# Each rank reads its own host's copy: ranks in different folders here, one relative path. All decide
# together, so one rank's bad copy stops the job at once with exit 2 (not a rank waiting in a
# collective until --collective-timeout), rank 0 naming that rank; copies that differ are refused.
# ranks_in FOLDER0 FOLDER1 ARGS...: rank 0 starts in FOLDER0, rank 1 in FOLDER1.
ranks_in() {
  local first=$1 second=$2
  shift 2
  local engine=("$MTENGINE" train "${MODEL[@]}" --d-model 32 --n-layers 2 --steps 1 "$@")
  timeout 50 "${LAUNCH[@]}" -np 1 -wdir "$first" "${engine[@]}" : -np 1 -wdir "$second" "${engine[@]}" \
    >"$WORK/out" 2>&1
}
mkdir -p "$WORK/host_a" "$WORK/host_b" "$WORK/host_c"
cp "$W" "$WORK/host_a/w.safetensors"
cp "$WORK/nan.safetensors" "$WORK/host_b/w.safetensors"
"$MTENGINE" train "${MODEL[@]}" --d-model 32 --n-layers 2 --steps 1 --seed 5 --weights-out "$WORK/host_c/w.safetensors" \
  >"$WORK/out" 2>&1 || fail "writing other weights: $(cat "$WORK/out")"
expect_ranks() {  # expect_ranks FOLDER0 FOLDER1 MESSAGE
  ranks_in "$1" "$2" --init-from w.safetensors --output "$WORK/ranks.json"
  local rc=$?
  if [[ $rc != 2 ]] || ! grep -qF -- "$3" "$WORK/out"; then
    fail "ranks in $1 and $2 -> exit $rc (want 2 with '$3'): $(cat "$WORK/out")"
  elif ! python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["status"] == "error" and sys.argv[2] in r["error"]["reason"]' \
    "$WORK/ranks.json" "$3"; then
    fail "ranks in $1 and $2: no error result naming it: $(cat "$WORK/ranks.json" 2>&1)"
  else
    echo "ok: ranks in $(basename "$1") and $(basename "$2") -> 2: $3"
  fi
  rm -f "$WORK/ranks.json"
}
expect_ranks "$WORK/host_a" "$WORK/host_b" \
  "rank 1 on host '$(hostname)': --init-from 'w.safetensors': 'transformer.h.1.attn.c_attn.weight' holds 2 value(s) that are not finite"
expect_ranks "$WORK/host_b" "$WORK/host_a" \
  "--init-from 'w.safetensors': 'transformer.h.1.attn.c_attn.weight' holds 2 value(s) that are not finite"
expect_ranks "$WORK/host_a" "$WORK/host_c" \
  "--init-from 'w.safetensors' is not the same file on every rank: rank 1 on host '$(hostname)' read sha256 $(sha256sum "$WORK/host_c/w.safetensors" | cut -c1-64)"
ranks_in "$WORK/host_a" "$WORK/host_a" --init-from w.safetensors || fail "ranks with the same copy: $(cat "$WORK/out")"

[ "$failures" -eq 0 ] || exit 1
echo "PASS: --init-from takes exported weights (moments unread) and refuses what can never start the run, on any rank, with exit 2"
