#!/usr/bin/env bash
# Checkpoints edited so that every recorded digest still matches (the file's SHA-256 recomputed in
# metadata.json) are refused by what they say, not loaded: a dtype changed from f32 to i32 (the
# bytes would be reinterpreted), one rank's shard from another step, a shard with an impossible
# shape, a bit flipped in a header key, a random generator's state replaced by noise, and data changed under an unchanged
# per-tensor digest, which `verify` must find.
set -uo pipefail
MTENGINE=${1:?usage: checkpoint_forgery_test.sh PATH/TO/mtengine}
export MTENGINE
source "$(dirname "$0")/checkpoint_lib.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The shape's 2 warmup and 10 measured steps, saved every 3: the latest READY step is 12.
train --strategy ddp --checkpoint-dir "$WORK/a" --save-every 3 >/dev/null 2>&1 || fail "training run"

# forge DIR STEP RANK ACTION: rewrites one shard, then its size and digest in metadata.json.
forge() {
  python3 - "$@" <<'PY'
import hashlib, json, os, struct, sys
root, step, rank, action = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
step_dir = os.path.join(root, f"step_{step:08d}")
shard = os.path.join(step_dir, f"rank_{rank:05d}.shard")
raw = open(shard, "rb").read()
(n,) = struct.unpack("<Q", raw[8:16])
header = json.loads(raw[16:16 + n])
data = bytearray(raw[16 + n:])
tensors = {t["name"]: t for t in header["tensors"]}
if action == "dtype":  # the first f32 model tensor claims to be i32: same size, other meaning
    t = next(t for t in header["tensors"] if t["name"].startswith("model/") and t["dtype"] == "f32")
    t["dtype"] = "i32"
elif action == "step":  # this rank's train state says another step (digest kept consistent)
    t = tensors["train_state/global_step"]
    data[t["offset"]:t["offset"] + 8] = struct.pack("<q", step - 3)
    t["sha256"] = hashlib.sha256(bytes(data[t["offset"]:t["offset"] + 8])).hexdigest()
elif action == "shape":
    t = next(t for t in header["tensors"] if t["name"].startswith("model/"))
    t["shape"] = [-1, 4]
elif action == "rng":  # the CPU generator's state replaced by noise of the same size (digest kept consistent)
    t = tensors["rng/cpu"]
    size = t["bytes"] if "bytes" in t else len(data) - t["offset"]
    noise = bytes((i * 2654435761 >> 13) & 0xFF for i in range(size))
    data[t["offset"]:t["offset"] + size] = noise
    t["sha256"] = hashlib.sha256(noise).hexdigest()
elif action == "data":  # a byte of data flipped, its tensor's digest left as it was
    t = next(t for t in header["tensors"] if t["name"].startswith("model/"))
    data[t["offset"]] ^= 0x01
body = json.dumps(header).encode()
if action == "key":  # one bit flipped in the first "dtype" key of the header: "dtypE"
    i = body.index(b'"dtype"') + 5
    body = body[:i] + bytes([body[i] ^ 0x20]) + body[i + 1:]
out = raw[:8] + struct.pack("<Q", len(body)) + body + bytes(data)
open(shard, "wb").write(out)
meta_path = os.path.join(step_dir, "metadata.json")
meta = json.load(open(meta_path))
for f in meta["files"]:
    if f["name"] == os.path.basename(shard):
        f["bytes"], f["sha256"] = len(out), hashlib.sha256(out).hexdigest()
json.dump(meta, open(meta_path, "w"))
PY
}

refused() {  # CASE MESSAGE: resume from $WORK/CASE must exit 2 naming MESSAGE
  local case=$1 message=$2
  train --strategy ddp --checkpoint-dir "$WORK/$case" --resume latest >"$WORK/$case.log" 2>&1
  local rc=$?
  [ "$rc" -eq 2 ] && grep -qF -- "$message" "$WORK/$case.log" || fail "$case: exit $rc: $(cat "$WORK/$case.log")"
  echo "ok: $case refused: $(grep -m1 -F -- "$message" "$WORK/$case.log")"
}

# DDP's rank 0 holds the replicated model; every rank holds its own train state.
for case in dtype:0 step:1 shape:0 rng:1 key:0; do
  action=${case%:*} rank=${case#*:}
  cp -r "$WORK/a" "$WORK/$action"
  forge "$WORK/$action" 12 "$rank" "$action" || fail "forging $action"
done
refused dtype "is Int, this model's is Float"
refused step "this rank's shard is at step 9, the checkpoint's metadata says 12"
refused shape "has an impossible shape (damaged header)"
refused rng "checkpoint's rng/cpu is not a CPU generator's state"
refused key "rank_00000.shard': damaged header: [json.exception.out_of_range.403] key 'dtype' not found"

cp -r "$WORK/a" "$WORK/data"
forge "$WORK/data" 12 0 data || fail "forging data"
"${MPIRUN[@]}" "$MTENGINE" verify "$WORK/data/step_00000012" "$WORK/a/step_00000012" >"$WORK/verify.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -qF "does not match its checksum" "$WORK/verify.log" ||
  fail "verify of changed data under a recomputed file digest: exit $rc: $(cat "$WORK/verify.log")"
echo "ok: verify re-hashes the data: $(grep -m1 -F 'does not match its checksum' "$WORK/verify.log")"
