#!/usr/bin/env bash
# On a machine with GPUs (label gpu; CI has none): doctor's NCCL all-reduce on device buffers, and
# every strategy trains on the GPU over NCCL, with CUDA memory peaks in the result. Uses as many
# ranks as GPUs, up to 2.
set -uo pipefail
MTENGINE=${1:?usage: gpu_train_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$gpus" -ge 1 ] || fail "no GPU visible (nvidia-smi -L)"
ranks=$(( gpus >= 2 ? 2 : 1 ))
MPIRUN=(mpirun --allow-run-as-root -np "$ranks")
doctor=$("${MPIRUN[@]}" "$MTENGINE" doctor) || fail "doctor failed: $doctor"
grep -F "all-reduce       nccl" <<<"$doctor" | grep -F ": ok" >/dev/null || fail "NCCL all-reduce"
for strategy in $("$MTENGINE" describe | python3 -c \
    'import json, sys; print(" ".join(s["name"] for s in json.load(sys.stdin)["strategies"]))'); do
  "${MPIRUN[@]}" "$MTENGINE" train --backend nccl --strategy "$strategy" --precision bf16 \
    --vocab-size 8192 --d-model 512 --n-heads 8 --n-layers 6 --seq-length 256 --batch-size 2 \
    --steps 5 --warmup-steps 2 --output "$WORK/$strategy.json" >/dev/null || fail "$strategy on GPU"
  python3 - "$WORK/$strategy.json" <<'PY' || fail "$strategy result"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "ok" and r["device"] == "cuda", r.get("error")
assert r["cuda_max_allocated_mb"] > 0 and r["environment"]["gpu_model"], r["environment"]
print(f"ok: {r['strategy']} x{r['world_size']} on {r['environment']['gpu_model']}: "
      f"{r['tokens_per_sec']:.0f} tok/s, {r['cuda_max_allocated_mb']:.0f} MiB allocated at peak")
PY
done
# Profiled on the GPU: our trace per rank, and LibTorch's profiler records the last warmup step's
# host operators and, through CUPTI, the kernels they launched.
"${MPIRUN[@]}" "$MTENGINE" train --backend nccl --strategy ddp --vocab-size 8192 --d-model 512 --n-heads 8 \
  --n-layers 6 --seq-length 256 --batch-size 2 --steps 4 --warmup-steps 2 --profile "$WORK/profile" \
  --output "$WORK/profiled.json" >/dev/null || fail "profiled run on GPU"
python3 "$(dirname "$0")/../../tests/profile/check_trace.py" "$WORK"/profile/rank_*.trace.json >/dev/null || fail "GPU trace format"
python3 - "$WORK/profiled.json" "$WORK/profile" <<'PY' || fail "GPU operator profile"
import json, sys
ops = json.load(open(sys.argv[1]))["profile"]["ranks"][0]["operators"]
assert ops.get("top"), ops
kineto = json.load(open(f"{sys.argv[2]}/{ops['trace']}"))
kernels = [e for e in kineto["traceEvents"] if e.get("cat") == "kernel"]
assert kernels, "no GPU kernels in LibTorch's trace"
print(f"ok: GPU profile: {len(kernels)} kernels in step {ops['step']}, top host operator {ops['top'][0]['name']}")
PY
