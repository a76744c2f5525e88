#!/usr/bin/env bash
# Memory accounting from the result JSON (max over ranks, exact bytes of the tensors held):
#  - FSDP on N ranks holds about 1/N of DDP's parameter + gradient + optimizer-state bytes (the
#    excess is padding, at most one element per rank per unit and buffer);
#  - FSDP's `last` sync mode with accumulation keeps full gradients through the window: more
#    gradient bytes than `every`;
#  - ZeRO-1 shards the optimizer state, ZeRO-2 also the gradients.
set -euo pipefail
MTENGINE=${1:?usage: strategy_memory_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SHAPE=(--vocab-size 256 --d-model 64 --n-heads 4 --n-layers 3 --seq-length 16 --batch-size 2
       --steps 1 --warmup-steps 0 --threads 1)

run() {  # run RANKS STRATEGY OUT [ARGS...]
  local ranks=$1 strategy=$2 out=$3
  shift 3
  mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np "$ranks" \
    "$MTENGINE" train "${SHAPE[@]}" --strategy "$strategy" --output "$out" "$@" >/dev/null
}

for n in 2 4; do
  run "$n" ddp "$WORK/ddp$n.json"
  run "$n" fsdp "$WORK/fsdp$n.json"
  run "$n" zero1 "$WORK/zero1_$n.json"
  run "$n" zero2 "$WORK/zero2_$n.json"
  run "$n" fsdp "$WORK/fsdp_every$n.json" --grad-accum-steps 4 --gradient-sync-mode every
  run "$n" fsdp "$WORK/fsdp_last$n.json" --grad-accum-steps 4 --gradient-sync-mode last
  python3 - "$WORK" "$n" <<'PY'
import json, sys
work, n = sys.argv[1], int(sys.argv[2])
load = lambda name: json.load(open(f"{work}/{name}.json"))["memory"]
held = lambda m: m["parameter_bytes"] + m["gradient_bytes"] + m["optimizer_state_bytes"]
ddp, fsdp = load(f"ddp{n}"), load(f"fsdp{n}")
units = 3 + 1
padding = 4 * units * n * 4  # bytes: < n elements per unit in each of 4 sharded buffers
ratio = held(fsdp) / held(ddp)
print(f"N={n}: ddp {held(ddp)} B, fsdp {held(fsdp)} B, ratio {ratio:.4f} (1/N = {1/n:.4f})")
assert held(ddp) / n <= held(fsdp) <= held(ddp) / n + padding, (ddp, fsdp)
assert fsdp["peak_full_parameter_bytes"] < ddp["peak_full_parameter_bytes"], (ddp, fsdp)
# Only a strategy that shards its parameters gathers them: its transient full units are its peak.
assert ddp["gathered_parameter_bytes"] == 0, ddp
assert 0 < fsdp["gathered_parameter_bytes"] == fsdp["peak_full_parameter_bytes"], fsdp

every, last = load(f"fsdp_every{n}"), load(f"fsdp_last{n}")
print(f"N={n}: fsdp accum 4 gradient bytes: every {every['gradient_bytes']}, last {last['gradient_bytes']}")
assert last["gradient_bytes"] >= every["gradient_bytes"] + ddp["gradient_bytes"] * 0.9, (every, last)

z1, z2 = load(f"zero1_{n}"), load(f"zero2_{n}")
print(f"N={n}: optimizer state ddp {ddp['optimizer_state_bytes']}, zero1 {z1['optimizer_state_bytes']}; "
      f"gradients zero1 {z1['gradient_bytes']}, zero2 {z2['gradient_bytes']}")
assert z1["optimizer_state_bytes"] <= ddp["optimizer_state_bytes"] / n + padding
assert z2["gradient_bytes"] < z1["gradient_bytes"]
assert z1["gathered_parameter_bytes"] == 0 and z2["gathered_parameter_bytes"] == 0, (z1, z2)
PY
done
