#!/usr/bin/env bash
# Gradient accumulation 4 on 2 ranks: sync mode `last` performs one all-reduce round per optimizer
# step (one all-reduce per bucket), `every` performs four. Read from the result JSON.
set -euo pipefail
MTENGINE=${1:?usage: train_collectives_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 2)
TINY=(--vocab-size 64 --d-model 32 --n-heads 4 --n-layers 2 --seq-length 16 --batch-size 2
      --steps 2 --warmup-steps 1 --grad-accum-steps 4 --bucket-cap-mb 0.01 --first-bucket-cap-mb 0.01 --threads 1)

field() {  # field FILE EXPR: prints the Python expression evaluated on the JSON document `r`
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

fail() { echo "FAIL: $*" >&2; exit 1; }

for mode in last every; do
  out="$WORK/$mode.json"
  "${MPIRUN[@]}" "$MTENGINE" train "${TINY[@]}" --gradient-sync-mode "$mode" --output "$out"
  [[ $(field "$out" "r['status']") == ok ]] || fail "$mode: status not ok"
  [[ $(field "$out" "r['world_size']") == 2 ]] || fail "$mode: world_size"
  [[ $(field "$out" "r['resolved_gradient_sync_mode']") == "$mode" ]] || fail "$mode: resolved mode"
  buckets=$(field "$out" "r['buckets']['count']")
  (( buckets > 1 )) || fail "$mode: expected several buckets with a 0.01 MiB cap, got $buckets"
  rounds=$(field "$out" "r['collectives_per_step']['sync_rounds']")
  all_reduce=$(field "$out" "r['collectives_per_step']['all_reduce']")
  expected_rounds=$([[ $mode == last ]] && echo 1 || echo 4)
  [[ $rounds == "$expected_rounds" ]] || fail "$mode: sync_rounds $rounds, expected $expected_rounds"
  [[ $all_reduce == $((expected_rounds * buckets)) ]] ||
    fail "$mode: all_reduce $all_reduce, expected $((expected_rounds * buckets))"
  [[ $(field "$out" "len(r['per_step']['step_time_ms'])") == 2 ]] || fail "$mode: per-rank series"
  [[ $(field "$out" "len(r['per_step']['step_time_ms'][1])") == 3 ]] || fail "$mode: per-step series"
  echo "ok: $mode -> sync_rounds $rounds, all_reduce $all_reduce, buckets $buckets"
done

# auto resolves to last for DDP.
"${MPIRUN[@]}" "$MTENGINE" train "${TINY[@]}" --output "$WORK/auto.json"
[[ $(field "$WORK/auto.json" "r['resolved_gradient_sync_mode']") == last ]] || fail "auto did not resolve to last"
[[ $(field "$WORK/auto.json" "r['gradient_sync_mode']") == auto ]] || fail "requested mode not recorded"
echo "ok: auto -> last"
