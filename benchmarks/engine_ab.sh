#!/usr/bin/env bash
# Before/after comparison of two mtengine builds on the ddp_vs_pytorch shape: the builds take turns
# round by round, and each run is summarised by its 25th-percentile step time (slowest rank per
# step, warmup excluded), which a noisy shared machine disturbs less than the mean, and by its
# optimizer phase (mean over the measured steps, slowest rank).
#   cp build/bin/mtengine /tmp/mtengine.before   # then change, rebuild, and:
#   benchmarks/engine_ab.sh RANKS ROUNDS /tmp/mtengine.before build/bin/mtengine
#   MODEL=upstream benchmarks/engine_ab.sh 1 5 /tmp/mtengine.before build/bin/mtengine
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 RANKS ROUNDS MTENGINE_A MTENGINE_B [MTENGINE...]" >&2
  exit 2
fi
RANKS=$1 ROUNDS=$2
shift 2
# MODEL=upstream times the 23.2M model of ddp_vs_pytorch instead of the small default.
source "$(dirname "$0")/model_shape.sh"
if [ "${MODEL:-small}" = upstream ]; then STEPS=(--steps 20 --warmup-steps 3); else STEPS=(--steps 30 --warmup-steps 3); fi
SHAPE=("${MODEL_FLAGS[@]}" "${STEPS[@]}")
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# Every build waits alike: an empty OMP_WAIT_POLICY is libgomp's own policy, and counts as the
# user's choice to builds that would otherwise set PASSIVE themselves.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY-}
for round in $(seq 1 "$ROUNDS"); do
  for i in $(seq 1 $#); do
    engine=${!i}
    mpirun --allow-run-as-root --bind-to none -np "$RANKS" "$engine" train "${SHAPE[@]}" \
      --output "$OUT/$i-$round.json" >/dev/null
  done
done
python3 - "$OUT" "$ROUNDS" "$@" <<'PY'
import json, statistics, sys
out, rounds, engines = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
for i, engine in enumerate(engines, 1):
    p25, optimizer = [], []
    for r in range(1, rounds + 1):
        result = json.load(open(f"{out}/{i}-{r}.json"))
        per_rank = result["per_step"]["step_time_ms"]
        steps = sorted([max(s) for s in zip(*per_rank)][result["warmup_steps"]:])
        p25.append(steps[len(steps) // 4])
        optimizer.append(result["optimizer_step_ms"])
    print(f"{engine}: median p25 step {statistics.median(p25):.2f} ms over {rounds} rounds "
          f"({', '.join(f'{x:.1f}' for x in p25)}); optimizer phase median {statistics.median(optimizer):.2f} ms")
PY
