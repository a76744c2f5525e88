#!/usr/bin/env bash
# The engine's GPT against a PyTorch reference written from the same description
# (tests/reference/nanogpt_reference.py), on the same weights and tokens, exchanged as safetensors:
#   - the first step's loss and every parameter's gradient: fp32 and bf16, activation
#     checkpointing off and on, 1 rank and every strategy on 2 ranks (gradients gathered);
#   - weights the reference initialised, loaded with --init-from;
#   - a short training run from the same weights with the same AdamW: loss curves step by step;
#   - the PyTorch DDP peer of the performance comparison from the engine's weights and tokens:
#     the same losses on 1 and 2 ranks;
#   - an FSDP checkpoint of 2 ranks, exported with its optimizer, loaded by the reference: the
#     losses of the next two steps.
set -euo pipefail
MTENGINE=${1:?usage: reference_test.sh PATH/TO/mtengine PATH/TO/python}
PYTHON=${2:?usage: reference_test.sh PATH/TO/mtengine PATH/TO/python}
HERE=$(cd "$(dirname "$0")" && pwd)
COMPARE=(env OMP_NUM_THREADS=1 "$PYTHON" "$HERE/../../tests/reference/compare_with_engine.py")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

MODEL=(--vocab-size 96 --d-model 32 --n-heads 4 --n-layers 2 --seq-length 16)
BATCH=(--batch-size 3 --seed 11)
TRAIN=(train "${MODEL[@]}" "${BATCH[@]}" --threads 1 --warmup-steps 0 --collective-timeout 60)
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader)
mapfile -t STRATEGIES < <("$MTENGINE" describe | python3 -c \
  'import json, sys; print("\n".join(s["name"] for s in json.load(sys.stdin)["strategies"]))')

# The tokens every rank trains on at `step`: one file per rank.
tokens() {  # step ranks accum dir
  local r
  for ((r = 0; r < $2; r++)); do
    "$MTENGINE" tokens "${BATCH[@]}" --vocab-size 96 --seq-length 16 --step "$1" --rank "$r" --world-size "$2" \
      --grad-accum-steps "$3" --output "$4/step$1_rank$r.safetensors" || fail "mtengine tokens failed"
  done
}

# One first-step comparison: name ranks strategy precision accum [extra train flags...]
check_gradients() {
  local name=$1 ranks=$2 strategy=$3 precision=$4 accum=$5
  shift 5
  local dir="$WORK/$name" files=()
  mkdir -p "$dir"
  "${MPIRUN[@]}" -np "$ranks" "$MTENGINE" "${TRAIN[@]}" --steps 1 --strategy "$strategy" --precision "$precision" \
    --grad-accum-steps "$accum" --weights-out "$dir/weights.safetensors" \
    --gradients-out "$dir/gradients.safetensors" --output "$dir/result.json" "$@" > "$dir/engine.log" 2>&1 ||
    fail "$name: the engine failed: $(tail -5 "$dir/engine.log")"
  tokens 0 "$ranks" "$accum" "$dir"
  for ((r = 0; r < ranks; r++)); do files+=("$dir/step0_rank$r.safetensors"); done
  echo "== $name"
  "${COMPARE[@]}" gradients --weights "$dir/weights.safetensors" --gradients "$dir/gradients.safetensors" \
    --precision "$precision" --tokens "${files[@]}" || fail "$name: the engine differs from the reference"
}

check_gradients fp32_1rank 1 ddp fp32 1
check_gradients fp32_1rank_checkpointing 1 ddp fp32 1 --activation-checkpointing
check_gradients fp32_1rank_accum2 1 ddp fp32 2
check_gradients bf16_1rank 1 ddp bf16 1
check_gradients bf16_1rank_checkpointing 1 ddp bf16 1 --activation-checkpointing
# The emulation CPUs without bf16 instructions run (bf16-rounded operands, fp32 products), here too.
MT_BF16_GEMM=emulated check_gradients bf16_1rank_emulated 1 ddp bf16 1
MT_BF16_GEMM=emulated check_gradients bf16_2ranks_fsdp_emulated 2 fsdp bf16 1
for strategy in "${STRATEGIES[@]}"; do
  check_gradients "fp32_2ranks_$strategy" 2 "$strategy" fp32 1
  check_gradients "fp32_2ranks_${strategy}_checkpointing" 2 "$strategy" fp32 1 --activation-checkpointing
  check_gradients "bf16_2ranks_$strategy" 2 "$strategy" bf16 1
done

# Weights the reference made, loaded by the engine: names and layout agree in both directions.
mkdir -p "$WORK/init"
"${COMPARE[@]}" init --vocab-size 96 --d-model 32 --n-heads 4 --n-layers 2 --seq-length 16 --seed 5 \
  --output "$WORK/init/reference.safetensors"
check_gradients fp32_init_from_reference 1 ddp fp32 1 --init-from "$WORK/init/reference.safetensors"
python3 - "$WORK/fp32_init_from_reference/result.json" "$WORK/init/reference.safetensors" <<'PY' ||
import hashlib, json, sys
result, weights = json.load(open(sys.argv[1])), sys.argv[2]
assert result["initial_weights"]["sha256"] == hashlib.sha256(open(weights, "rb").read()).hexdigest(), result["initial_weights"]
PY
  fail "the result does not record the --init-from file's digest"

# A short run of both from the same weights: the loss curves agree step by step.
STEPS=8
dir="$WORK/training"
mkdir -p "$dir"
"$MTENGINE" "${TRAIN[@]}" --steps "$STEPS" --learning-rate 0.003 --weights-out "$dir/weights.safetensors" \
  --output "$dir/result.json" > "$dir/engine.log" 2>&1 || fail "training run failed: $(tail -5 "$dir/engine.log")"
for ((s = 0; s < STEPS; s++)); do tokens "$s" 1 1 "$dir"; done
echo "== training"
"${COMPARE[@]}" training --weights "$dir/weights.safetensors" --result "$dir/result.json" --tokens-dir "$dir" \
  --learning-rate 0.003 --bound 1e-4 || fail "the loss curves of the engine and the reference differ"

# The PyTorch DDP peer of the ddp_vs_pytorch comparison, started from the engine's weights
# (--init-from-engine) on the engine's tokens: the same losses step by step, 1 and 2 ranks, with the
# engine's freed-memory policy.
PEER="$HERE/../../benchmarks/pytorch_ddp_peer.py"
for ranks in 1 2; do
  dir="$WORK/peer_$ranks"
  mkdir -p "$dir"
  "${MPIRUN[@]}" -np "$ranks" "$MTENGINE" "${TRAIN[@]}" --steps 3 --learning-rate 0.001 --output "$dir/engine.json" \
    > "$dir/engine.log" 2>&1 || fail "engine run for the peer failed: $(tail -5 "$dir/engine.log")"
  "${MPIRUN[@]}" -np "$ranks" -x OMP_NUM_THREADS=1 "$PYTHON" "$PEER" "${MODEL[@]}" "${BATCH[@]}" --threads 1 \
    --warmup-steps 0 --steps 3 --learning-rate 0.001 --init-from-engine "$MTENGINE" --output "$dir/peer.json" \
    > "$dir/peer.log" 2>&1 || fail "the PyTorch peer failed: $(tail -5 "$dir/peer.log")"
  python3 - "$dir/engine.json" "$dir/peer.json" <<'PY' || fail "the peer on $ranks rank(s) is not the engine's computation"
import json, sys
engine = json.load(open(sys.argv[1]))["per_step"]["loss"]
peer = json.load(open(sys.argv[2]))
assert peer["initial_weights"]["source"].startswith("mtengine"), peer["initial_weights"]
# It trains with the engine's freed-memory policy, as the engine's result records it.
engine_kept = json.load(open(sys.argv[1]))["environment"]["freed_memory_kept_bytes"]
assert peer["environment"]["freed_memory_kept_bytes"] == engine_kept == 1 << 30, (peer["environment"], engine_kept)
# And with its heap on huge pages wherever the engine's is.
engine_huge = json.load(open(sys.argv[1]))["environment"]["heap_huge_pages_bytes"]
assert (peer["environment"]["heap_huge_pages_bytes"] > 0) == (engine_huge > 0), (peer["environment"], engine_huge)
# Each rank's CPU time and its view of its host, as the engine reports them.
assert len(peer["rank_cpu_s"]) == len(peer["rank_host_window"]) == len(peer["hosts"]), peer["hosts"]
boot_id = open("/proc/sys/kernel/random/boot_id").read().strip()
assert all(w["boot_id"] == boot_id and w["wall_s"] > 0 and w["cpus"] >= 1 for w in peer["rank_host_window"]), peer
for step, (e, p) in enumerate(zip(engine, peer["per_step"]["loss"], strict=True)):
    print(f"peer step {step}: engine {e:.9g}, PyTorch DDP {p:.9g}")
    assert abs(e - p) <= 1e-5 * abs(e), (step, e, p)
PY
done

# A 2-rank FSDP checkpoint, exported with its AdamW moments and loaded by the reference: the loss
# of the step it was saved before, and after one AdamW step from the exported moments, the next.
dir="$WORK/fsdp_export"
mkdir -p "$dir"
"${MPIRUN[@]}" -np 2 "$MTENGINE" "${TRAIN[@]}" --strategy fsdp --steps 4 --learning-rate 0.003 \
  --checkpoint-dir "$dir/ckpt" --save-every 2 --output "$dir/result.json" > "$dir/engine.log" 2>&1 ||
  fail "fsdp run failed: $(tail -5 "$dir/engine.log")"
"$MTENGINE" export "$dir/ckpt/step_00000002" "$dir/exported.safetensors" --with-optimizer ||
  fail "export of the fsdp checkpoint failed"
tokens 2 2 1 "$dir"
tokens 3 2 1 "$dir"
echo "== fsdp export"
"${COMPARE[@]}" resume --weights "$dir/exported.safetensors" --result "$dir/result.json" --tokens-dir "$dir" \
  --ranks 2 --learning-rate 0.003 --bound 1e-5 || fail "the exported fsdp checkpoint does not continue as the engine did"
# Unusable input is named and refused with exit 2, before any work.
refused() {  # expected-message command...
  local expected=$1 out rc=0
  shift
  out=$("$@" 2>&1) || rc=$?
  [ "$rc" -eq 2 ] || fail "exit $rc, not 2, from: $* ($out)"
  [[ "$out" == *"$expected"* ]] || fail "no '$expected' in: $out"
}
weights="$WORK/fp32_1rank/weights.safetensors"
refused "'transformer.wte.weight' has shape [96, 32], this configuration needs [96, 64]" \
  "$MTENGINE" train --vocab-size 96 --d-model 64 --n-heads 4 --n-layers 2 --seq-length 16 --steps 1 --init-from "$weights"
refused "lacks 'transformer.h.2.ln_1.weight'" \
  "$MTENGINE" train --vocab-size 96 --d-model 32 --n-heads 4 --n-layers 3 --seq-length 16 --steps 1 --init-from "$weights"
head -c 100 "$weights" > "$WORK/truncated.safetensors"
refused "is not a safetensors file" "$MTENGINE" train "${MODEL[@]}" --steps 1 --init-from "$WORK/truncated.safetensors"
refused "does not exist" "$MTENGINE" train "${MODEL[@]}" --steps 1 --init-from "$WORK/missing.safetensors"
refused "outside a world of 2" "$MTENGINE" tokens --step 0 --rank 2 --world-size 2 --output "$WORK/t.safetensors"
cp -r "$dir/ckpt/step_00000002" "$WORK/unready" && rm "$WORK/unready/READY"
refused "no READY" "$MTENGINE" export "$WORK/unready" "$WORK/x.safetensors"
refused "OUT '$WORK/no-such-dir/x.safetensors': directory '$WORK/no-such-dir' does not exist" \
  "$MTENGINE" export "$dir/ckpt/step_00000002" "$WORK/no-such-dir/x.safetensors"
refused "OUT '$WORK' names a directory, not a file" "$MTENGINE" export "$dir/ckpt/step_00000002" "$WORK"
cp -r "$dir/ckpt/step_00000002" "$WORK/step_00000002"
python3 - "$WORK/step_00000002/metadata.json" <<'PY'
import json, sys
meta = json.load(open(sys.argv[1]))
del meta["layout"]  # as checkpoints of earlier versions were written
json.dump(meta, open(sys.argv[1], "w"))
PY
refused "does not record where its parameters live" "$MTENGINE" export "$WORK/step_00000002" "$WORK/x.safetensors"
[ ! -e "$WORK/x.safetensors" ] || fail "a refused export left a file behind"
echo "PASS: the engine's GPT computes the reference's loss and gradients"
