# Shared by the checkpoint tests: a small 2-rank training shape with dropout (so every rank's RNG
# matters), and helpers that read a checkpoint directory.
MTENGINE=${MTENGINE:?}
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 2)
SHAPE=(--vocab-size 128 --d-model 32 --n-heads 4 --n-layers 2 --seq-length 16 --batch-size 2 --dropout 0.1
       --threads 1 --warmup-steps 2 --steps 10 --collective-timeout 60)

fail() { echo "FAIL: $*" >&2; exit 1; }
# Every strategy the engine has, from `mtengine describe` (its one table).
mapfile -t STRATEGIES < <("$MTENGINE" describe | python3 -c \
  'import json, sys; print("\n".join(s["name"] for s in json.load(sys.stdin)["strategies"]))')
[ ${#STRATEGIES[@]} -gt 0 ] || fail "mtengine describe lists no strategy"
train() { "${MPIRUN[@]}" "$MTENGINE" train "${SHAPE[@]}" "$@"; }

# Published steps of a checkpoint directory, oldest first: "2 4 6".
ready_steps() {
  local dir=$1 out=()
  for d in "$dir"/step_*; do
    [ -f "$d/READY" ] && out+=("$((10#${d##*step_}))")
  done
  echo "${out[@]}"
}

# Every READY step's files match the sizes and SHA-256 its metadata records. A run killed before
# its first save leaves no directory at all, which holds no bad step either.
check_ready_steps() {
  python3 - "$1" <<'PY'
import hashlib, json, os, sys
root = sys.argv[1]
for name in sorted(os.listdir(root) if os.path.isdir(root) else []):
    step = os.path.join(root, name)
    if not name.startswith("step_") or not os.path.exists(os.path.join(step, "READY")):
        continue
    meta = json.load(open(os.path.join(step, "metadata.json")))
    for f in meta["files"]:
        path = os.path.join(step, f["name"])
        data = open(path, "rb").read()
        assert len(data) == f["bytes"], f"{path}: {len(data)} bytes, metadata says {f['bytes']}"
        assert hashlib.sha256(data).hexdigest() == f["sha256"], f"{path}: checksum differs"
PY
}
