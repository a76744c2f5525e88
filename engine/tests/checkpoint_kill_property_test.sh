#!/usr/bin/env bash
# Property: wherever a run is killed, at a random step or at a random moment inside the save
# protocol, the checkpoint directory never holds a READY step that fails checking, and a resume
# always continues from the newest READY step. ITERATIONS kill points (default 50), seeded so a
# failure can be replayed (SEED=...). Further arguments go to every run (--async-save: the kills
# land at random moments of background writes).
set -uo pipefail
export MTENGINE=${1:?usage: checkpoint_kill_property_test.sh PATH/TO/mtengine [ITERATIONS [TRAIN FLAGS...]]}
ITERATIONS=${2:-50}
EXTRA=("${@:3}")
SEED=${SEED:-$(date +%s)}
source "$(dirname "$0")/checkpoint_lib.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
RANDOM=$SEED
echo "seed $SEED, $ITERATIONS kill points ${EXTRA[*]}"

for i in $(seq 1 "$ITERATIONS"); do
  dir="$WORK/run$i" strategy=${STRATEGIES[$((i % ${#STRATEGIES[@]}))]} rank=$((RANDOM % 2))
  if [ $((RANDOM % 2)) -eq 0 ]; then
    fault="kill:rank=$rank,step=$((1 + RANDOM % 11))"
  else  # save-every 2: checkpoints 2, 4, ..., 12; die after 1..4 tensors of one of them
    fault="save-kill:rank=$rank,step=$((2 * (1 + RANDOM % 6))),after=$((1 + RANDOM % 4))"
  fi
  train "${EXTRA[@]}" --strategy "$strategy" --checkpoint-dir "$dir" --save-every 2 --fault "$fault" >/dev/null 2>&1 &&
    fail "[$i] $strategy $fault: the run was not killed"
  check_ready_steps "$dir" || fail "[$i] $strategy $fault: a READY step fails checking"
  steps=$(ready_steps "$dir")
  newest=${steps##* }
  train "${EXTRA[@]}" --strategy "$strategy" --checkpoint-dir "$dir" --save-every 2 --resume latest --output "$dir.json" \
    >"$dir.log" 2>&1 || fail "[$i] $strategy $fault: resume failed: $(cat "$dir.log")"
  got=$(python3 -c "import json; r=json.load(open('$dir.json'))['resumed_from_step']; print('' if r is None else r)")
  [ "$got" = "$newest" ] || fail "[$i] $strategy $fault: resumed from '$got', newest READY step was '$newest'"
  rm -rf "$dir" "$dir.json" "$dir.log"
done
echo "ok: $ITERATIONS kill points: every READY step checked, every resume from the newest READY step"
