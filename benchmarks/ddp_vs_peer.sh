#!/usr/bin/env bash
# Interleaved comparison of mtengine's DDP with the PyTorch DDP peer, same model, batch, ranks and
# threads, the same starting weights and tokens; ROUNDS rounds of (peer, ours) at each rank count; result JSONs under OUT.
#   benchmarks/ddp_vs_peer.sh [MTENGINE] [OUT] [ROUNDS]
#   MODEL=upstream benchmarks/ddp_vs_peer.sh build/bin/mtengine /tmp/upstream 4
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
MTENGINE=${1:-$HERE/../build/bin/mtengine}
OUT=${2:-results/ddp_vs_peer}
ROUNDS=${3:-3}
mkdir -p "$OUT"
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader)
# MODEL=upstream compares on ddp_vs_pytorch's 23.2M model (its steps and warmup) instead.
source "$HERE/model_shape.sh"
if [ "${MODEL:-small}" = upstream ]; then STEPS=(--steps 20 --warmup-steps 5); else STEPS=(--steps 10 --warmup-steps 3); fi
SHAPE=("${MODEL_FLAGS[@]}" "${STEPS[@]}")
# As in experiments/ddp_vs_pytorch.yaml, neither side is given an OpenMP wait policy (libgomp's own
# is the faster where ranks x threads fit the cores); an OMP_WAIT_POLICY in the caller's
# environment reaches both.
for round in $(seq 1 "$ROUNDS"); do
  for n in 1 2; do
    "${MPIRUN[@]}" -np "$n" "$HERE/../.venv/bin/python" "$HERE/pytorch_ddp_peer.py" "${SHAPE[@]}" \
      --init-from-engine "$MTENGINE" --output "$OUT/peer_np${n}_r$round.json" | tail -1
    "${MPIRUN[@]}" -np "$n" "$MTENGINE" train "${SHAPE[@]}" --output "$OUT/ours_np${n}_r$round.json" | tail -1
  done
done
/usr/bin/python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
for n in (1, 2):
    tps = {k: [json.load(open(f"{out}/{k}_np{n}_r{r}.json"))["tokens_per_sec"] for r in range(1, rounds + 1)]
           for k in ("peer", "ours")}
    m = {k: statistics.mean(v) for k, v in tps.items()}
    s = {k: statistics.stdev(v) if len(v) > 1 else 0.0 for k, v in tps.items()}
    print(f"ranks {n}: ours {m['ours']:.0f} ± {s['ours']:.0f} tok/s, peer {m['peer']:.0f} ± {s['peer']:.0f} tok/s, "
          f"ratio {m['ours'] / m['peer']:.2f} (n={rounds} each)")
PY
