#!/usr/bin/env bash
# Resume anywhere: a checkpoint saved by one strategy and world size, rewritten offline for another
# (`mtengine reshard`) and compared with its source by logical state (`mtengine verify` across
# layouts: identical), and resumed online at the other layout (`--resume`): fsdp 2 -> ddp 1 and
# back, zero2 4 -> 2, ddp 2 -> fsdp 4. At an equal world size the resumed run's losses are the
# continuous run's, bit for bit; refusals name what differs.
set -euo pipefail
MTENGINE=${1:?usage: reshard_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader)
SHAPE=(--vocab-size 96 --d-model 32 --n-heads 4 --n-layers 2 --seq-length 16 --batch-size 2 --threads 1
       --warmup-steps 0 --steps 6 --collective-timeout 60)
run() {  # ranks log engine-args...
  local ranks=$1 log=$2
  shift 2
  "${MPIRUN[@]}" -np "$ranks" "$MTENGINE" "$@" > "$log" 2>&1 || fail "mtengine $1 on $ranks rank(s) failed: $(tail -5 "$log")"
}
losses() { python3 -c 'import json, sys; print(*json.load(open(sys.argv[1]))["per_step"]["loss"])' "$1"; }

# Source checkpoints: every layout the directions start from, saved at step 4 of 6.
for source in fsdp:2 ddp:1 zero2:4 ddp:2; do
  strategy=${source%:*} ranks=${source#*:}
  run "$ranks" "$WORK/src_${strategy}_$ranks.log" train "${SHAPE[@]}" --strategy "$strategy" \
    --checkpoint-dir "$WORK/src_${strategy}_$ranks" --save-every 2 --output "$WORK/src_${strategy}_$ranks.json"
done

for direction in fsdp:2:ddp:1 ddp:1:fsdp:2 zero2:4:zero2:2 ddp:2:fsdp:4; do
  IFS=: read -r from_strategy from_ranks to_strategy to_ranks <<< "$direction"
  src="$WORK/src_${from_strategy}_$from_ranks/step_00000004"
  dst="$WORK/dst_${to_strategy}_${to_ranks}_from_${from_strategy}_$from_ranks"
  echo "== $from_strategy x$from_ranks -> $to_strategy x$to_ranks"
  # Offline: the rewritten step holds the same logical state as its source.
  run "$to_ranks" "$dst.reshard.log" reshard "$src" "$dst" --strategy "$to_strategy"
  python3 - "$dst/step_00000004/metadata.json" "$to_strategy" "$to_ranks" <<'PY' || fail "resharded metadata: $direction"
import json, sys
meta = json.load(open(sys.argv[1]))
assert (meta["strategy"], meta["world_size"]) == (sys.argv[2], int(sys.argv[3])), meta
PY
  "$MTENGINE" verify "$src" "$dst/step_00000004" > "$dst.verify.log" 2>&1 ||
    fail "verify after reshard: $(cat "$dst.verify.log")"
  grep -q "exact match (logical state" "$dst.verify.log" || fail "verify output: $(cat "$dst.verify.log")"
  # The rewritten step resumes at its own layout like any checkpoint of it, and online resharding
  # of the source resumes too.
  run "$to_ranks" "$dst.resume.log" train "${SHAPE[@]}" --strategy "$to_strategy" --checkpoint-dir "$dst" \
    --resume latest --output "$dst.resumed.json"
  run "$to_ranks" "$dst.online.log" train "${SHAPE[@]}" --strategy "$to_strategy" --resume "$src" \
    --output "$dst.online.json"
  python3 - "$dst.online.json" "$from_strategy" "$from_ranks" "$dst.resumed.json" <<'PY' ||
import json, sys
online, resumed = json.load(open(sys.argv[1])), json.load(open(sys.argv[4]))
assert online["resharded_from"] == {"strategy": sys.argv[2], "world_size": int(sys.argv[3])}, online["resharded_from"]
assert resumed["resharded_from"] is None and resumed["resumed_from_step"] == 4, resumed["resumed_from_step"]
# Offline then resume, or resharded online: the same state, so the same losses.
assert online["per_step"]["loss"] == resumed["per_step"]["loss"], (online["per_step"]["loss"], resumed["per_step"]["loss"])
PY
    fail "online and offline resharding disagree: $direction"
done

# At an equal world size the batches are the same: fsdp 2 -> zero2 2 continues the fsdp run exactly.
run 2 "$WORK/same.log" train "${SHAPE[@]}" --strategy zero2 --resume "$WORK/src_fsdp_2/step_00000004" \
  --output "$WORK/same.json"
[ "$(losses "$WORK/same.json")" = "$(losses "$WORK/src_fsdp_2.json" | cut -d' ' -f5-)" ] ||
  fail "fsdp 2 -> zero2 2: $(losses "$WORK/same.json") against the continuous $(losses "$WORK/src_fsdp_2.json")"

# verify across layouts finds a difference and names it.
run 2 "$WORK/other.log" reshard "$WORK/src_fsdp_2/step_00000006" "$WORK/other" --strategy ddp
rc=0
"$MTENGINE" verify "$WORK/src_fsdp_2/step_00000004" "$WORK/other/step_00000006" > "$WORK/diff.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "verify of different steps: exit $rc ($(cat "$WORK/diff.log"))"
grep -q "model        differs first at model/" "$WORK/diff.log" || fail "verify output: $(cat "$WORK/diff.log")"

# What cannot be resharded is refused, naming why: other math (here the learning rate).
rc=0
"${MPIRUN[@]}" -np 1 "$MTENGINE" train "${SHAPE[@]}" --learning-rate 0.01 --strategy ddp --resume "$WORK/src_fsdp_2/step_00000004" \
  > "$WORK/refused.log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "resume with another learning rate: exit $rc"
grep -q "config_fingerprint" "$WORK/refused.log" || fail "refusal: $(cat "$WORK/refused.log")"
echo "PASS: checkpoints reshard across strategies and world sizes, offline and online"
