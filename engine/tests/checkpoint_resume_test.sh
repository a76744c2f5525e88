#!/usr/bin/env bash
# Checkpoint and resume, for every strategy on 2 ranks with dropout: a run killed by SIGKILL and
# resumed from its latest checkpoint ends exactly where the continuous run ends (mtengine verify:
# model, optimizer, scheduler, train state, data cursor and every rank's RNG); a NaN stops every
# rank without a new checkpoint; a rank dying mid-save leaves no READY for that step and resume
# uses the one before; a resume with another configuration, or from a damaged file, is refused
# with exit 2 naming what differs.
set -uo pipefail
export MTENGINE=${1:?usage: checkpoint_resume_test.sh PATH/TO/mtengine}
source "$(dirname "$0")/checkpoint_lib.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

for strategy in "${STRATEGIES[@]}"; do
  C="$WORK/$strategy/continuous" F="$WORK/$strategy/faulted"
  train --strategy "$strategy" --checkpoint-dir "$C" --save-every 6 >/dev/null || fail "$strategy: continuous run"
  train --strategy "$strategy" --checkpoint-dir "$F" --save-every 6 --fault kill:rank=1,step=8 \
    >"$WORK/killed.log" 2>&1 && fail "$strategy: the killed run succeeded"
  [ "$(ready_steps "$F")" = "6" ] || fail "$strategy: after the kill, READY steps are '$(ready_steps "$F")', want '6'"
  train --strategy "$strategy" --checkpoint-dir "$F" --save-every 6 --resume latest \
    --output "$WORK/resumed.json" >/dev/null || fail "$strategy: resume"
  python3 -c "import json,sys; r=json.load(open('$WORK/resumed.json')); assert r['resumed_from_step']==6 and r['resume_deterministic'], r['resumed_from_step']" ||
    fail "$strategy: resumed_from_step"
  "${MPIRUN[@]}" "$MTENGINE" verify "$C/step_00000012" "$F/step_00000012" --output "$WORK/verify.json" \
    >"$WORK/verify.log" || fail "$strategy: resumed != continuous: $(cat "$WORK/verify.log")"
  python3 -c "import json; v=json.load(open('$WORK/verify.json')); assert v['exact_match'] and all(c['match'] for c in v['components'].values())" ||
    fail "$strategy: verify JSON"
  echo "ok: $strategy: SIGKILL at step 8, resumed from 6, step 12 equals the continuous run's"
done

# A resume computes on the GEMM backends its checkpoint was computed with (metadata.json records
# them per shape), whatever it would measure now: a run pinned to MKL, killed, and resumed without
# the pin takes MKL for every shape from its checkpoint and ends where the pinned continuous run
# ends; a resume pinned to another backend says it cannot repeat the continuous run bit for bit.
G="$WORK/gemm"
train --checkpoint-dir "$G/continuous" --save-every 6 --gemm-backend mkl >/dev/null || fail "gemm: continuous run"
train --checkpoint-dir "$G/faulted" --save-every 6 --gemm-backend mkl --fault kill:rank=1,step=8 >/dev/null 2>&1 &&
  fail "gemm: the killed run succeeded"
train --checkpoint-dir "$G/faulted" --save-every 6 --resume latest --output "$WORK/gemm.json" >/dev/null ||
  fail "gemm: resume without the pin"
python3 - "$WORK/gemm.json" "$G/faulted/step_00000012/metadata.json" <<'PY' || fail "gemm: backends taken from the checkpoint"
import json, sys
result, metadata = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
shapes = result["environment"]["gemm_backends"]
assert shapes and all(s["backend"] == "mkl" and s["chosen_by"] == "checkpoint" for s in shapes), shapes
assert result["resume_deterministic"], result["resume_deterministic"]
recorded = metadata["gemm_backends"]
assert sorted(r["shape"] for r in recorded) == sorted(s["shape"] for s in shapes), recorded
assert all(r["backend"] == "mkl" for r in recorded), recorded
PY
"${MPIRUN[@]}" "$MTENGINE" verify "$G/continuous/step_00000012" "$G/faulted/step_00000012" >"$WORK/verify.log" ||
  fail "gemm: resumed != continuous: $(cat "$WORK/verify.log")"
train --resume "$G/continuous/step_00000006" --gemm-backend onednn \
  --output "$WORK/gemm_pinned.json" >/dev/null 2>"$WORK/gemm_pinned.log" || fail "gemm: resume pinned to oneDNN"
grep -qF "mtengine: --gemm-backend onednn runs" "$WORK/gemm_pinned.log" || fail "gemm: $(cat "$WORK/gemm_pinned.log")"
python3 -c "import json; assert not json.load(open('$WORK/gemm_pinned.json'))['resume_deterministic']" ||
  fail "gemm: a resume on other backends called deterministic"
echo "ok: a resume takes its checkpoint's GEMM backends; pinned to others, it says it is not bit-exact"

# Verify tells what differs, and where.
"${MPIRUN[@]}" "$MTENGINE" verify "$WORK/zero2/continuous/step_00000006" "$WORK/zero2/continuous/step_00000012" \
  >"$WORK/verify.log"
rc=$?
[ "$rc" -eq 1 ] || fail "verify of different steps: exit $rc, want 1"
grep -q "model        differs first at model/unit_" "$WORK/verify.log" || fail "verify output: $(cat "$WORK/verify.log")"
grep -q "train_state  differs first at train_state/global_step on rank 0" "$WORK/verify.log" || fail "verify output"
echo "ok: verify names the first differing tensor and rank"

# A save written in the background (--async-save) publishes the same state as a synchronous one.
for strategy in "${STRATEGIES[@]}"; do
  A="$WORK/$strategy/async"
  train --strategy "$strategy" --checkpoint-dir "$A" --save-every 6 --async-save --output "$WORK/async.json" >/dev/null ||
    fail "$strategy: async-save run"
  "${MPIRUN[@]}" "$MTENGINE" verify "$WORK/$strategy/continuous/step_00000012" "$A/step_00000012" >"$WORK/verify.log" ||
    fail "$strategy: async save != sync save: $(cat "$WORK/verify.log")"
  python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["checkpoint_saves"]; assert [x["async"] for x in s] == [True, True], s' \
    "$WORK/async.json" || fail "$strategy: async saves not recorded"
  echo "ok: $strategy: async saves equal the synchronous ones"
done

# A resume whose math does not fit is refused, naming the field and both values.
C="$WORK/zero1/continuous"
expect_refusal() {  # MESSAGE ARGS...
  local message=$1
  shift
  train --checkpoint-dir "$C" --resume latest "$@" >"$WORK/refused.log" 2>&1
  local rc=$?
  [ "$rc" -eq 2 ] || fail "resume with $*: exit $rc, want 2: $(cat "$WORK/refused.log")"
  grep -qF "$message" "$WORK/refused.log" || fail "resume with $*: message: $(cat "$WORK/refused.log")"
  echo "ok: refused ($*): $message"
}
# Another strategy is not a refusal: the checkpoint is resharded (engine_reshard tests it).
train --checkpoint-dir "$C" --resume latest --strategy ddp >"$WORK/resharded.log" 2>&1 ||
  fail "resume as ddp: $(cat "$WORK/resharded.log")"
grep -q "resharding" "$WORK/resharded.log" || fail "resume as ddp did not say it reshards: $(cat "$WORK/resharded.log")"
expect_refusal "config_fingerprint: checkpoint has" --strategy zero1 --seed 7
expect_refusal "precision: checkpoint has 'fp32', this run 'bf16'" --strategy zero1 --precision bf16

# A damaged shard is refused on every rank (exit 2), never loaded.
D="$WORK/damaged"
cp -r "$WORK/zero1/continuous" "$D"
python3 - "$D/step_00000012/rank_00001.shard" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(-5, 2)
    b = f.read(1)
    f.seek(-5, 2)
    f.write(bytes([b[0] ^ 0xFF]))
PY
train --strategy zero1 --checkpoint-dir "$D" --resume latest >"$WORK/damaged.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "damaged shard: exit $rc, want 2: $(cat "$WORK/damaged.log")"
grep -q "rank_00001.shard' does not match its SHA-256" "$WORK/damaged.log" || fail "damaged: $(cat "$WORK/damaged.log")"
echo "ok: a damaged shard is refused"

# NaN at step 4: every rank stops at step 4, before its optimizer step; no checkpoint after it.
N="$WORK/nan"
train --strategy fsdp --checkpoint-dir "$N" --save-every 2 --fault nan:rank=1,step=4 --output "$WORK/nan.json" \
  >/dev/null 2>&1 && fail "the NaN run succeeded"
python3 -c "import json; e=json.load(open('$WORK/nan.json'))['error']; assert e['step']==4 and e['rank']==1 and 'non-finite loss' in e['reason'] and 'first on rank 1' in e['reason'] and json.load(open('$WORK/nan.json'))['hosts'], e" ||
  fail "NaN result"
[ "$(ready_steps "$N")" = "2 4" ] || fail "after NaN at step 4, READY steps are '$(ready_steps "$N")', want '2 4'"
echo "ok: NaN at step 4 stops every rank at step 4; no new checkpoint"

# A rank dying while it writes checkpoint 6: no READY for step 6; resume cleans it up and uses 3.
S="$WORK/save_kill"
train --strategy ddp --checkpoint-dir "$S" --save-every 3 --fault save-kill:rank=1,step=6,after=1 \
  >/dev/null 2>&1 && fail "the save-kill run succeeded"
[ "$(ready_steps "$S")" = "3" ] || fail "after a death during save, READY steps are '$(ready_steps "$S")'"
check_ready_steps "$S" || fail "a READY step fails checking"
train --strategy ddp --checkpoint-dir "$S" --save-every 3 --resume latest --output "$WORK/s.json" >"$WORK/s.log" 2>&1 ||
  fail "resume after a death during save: $(cat "$WORK/s.log")"
python3 -c "import json; assert json.load(open('$WORK/s.json'))['resumed_from_step']==3" || fail "resumed from"
[ ! -e "$S/.step_00000006.tmp" ] || fail "the partial save was not cleaned up"
echo "ok: death during save: step 6 never READY, resumed from 3"

# A published step that lost only its READY (a copy without it, removed by hand) is not resumed
# from, and not deleted either: --resume latest moves it into unready/ with its files and uses the
# newest READY step.
U="$WORK/lost_ready"
cp -r "$S" "$U"
rm "$U/step_00000012/READY"
train --strategy ddp --checkpoint-dir "$U" --save-every 3 --resume latest --output "$WORK/u.json" >"$WORK/u.log" 2>&1 ||
  fail "resume with a step lacking READY: $(cat "$WORK/u.log")"
python3 -c "import json; assert json.load(open('$WORK/u.json'))['resumed_from_step']==9" || fail "resumed from (want 9)"
[ -f "$U/unready/step_00000012/metadata.json" ] && [ -f "$U/unready/step_00000012/rank_00000.shard" ] ||
  fail "the step without READY was not kept aside: $(ls -R "$U" | head -30)"
grep -qF "set aside checkpoint without READY as '$U/unready/step_00000012'" "$WORK/u.log" ||
  fail "the set-aside step is not named: $(cat "$WORK/u.log")"
[ "$(ready_steps "$U")" = "3 6 9 12" ] || fail "after the resume, READY steps are '$(ready_steps "$U")'"
echo "ok: a step without READY is set aside in unready/, the resume used step 9"
