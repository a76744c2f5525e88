#!/usr/bin/env bash
# Checkpoints at the edges: a resume at the run's end succeeds but trains nothing, and its result
# carries no throughput, step time or loss (null, never 0: a store would keep 0 as a measurement).
# verify calls checkpoints whose parameter shapes differ a mismatch of the model and of the
# optimizer (moments of another shape cannot match), and refuses a step without READY (exit 2)
# like resume, reshard and export do. A resume refused for its configuration fingerprint names
# each setting that differs, with both values, leaving out what the schedule never reads (a constant
# rate's decay length, which --steps changes). A resume from an older step never saves over the
# newer steps of its checkpoint directory.
set -uo pipefail
MTENGINE=${1:?usage: checkpoint_edges_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 2)
TINY=(--vocab-size 128 --n-heads 2 --n-layers 1 --seq-length 16 --batch-size 2 --warmup-steps 0
      --threads 1 --collective-timeout 60)
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
train() { "${MPIRUN[@]}" "$MTENGINE" train "${TINY[@]}" --d-model "${D_MODEL:-32}" "$@"; }

C="$WORK/ck"
train --steps 4 --checkpoint-dir "$C" --save-every 2 >/dev/null 2>"$WORK/saved.log" ||
  fail "the run that saves: $(cat "$WORK/saved.log")"

# Resuming at the run's end, by `latest` and by the step's path.
for resume in latest "$C/step_00000004"; do
  before=$failures dir_args=()
  [ "$resume" = latest ] && dir_args=(--checkpoint-dir "$C")
  train --steps 4 "${dir_args[@]}" --resume "$resume" --output "$WORK/end.json" >"$WORK/end.out" 2>"$WORK/end.err"
  rc=$?
  [ "$rc" -eq 0 ] || fail "resume $resume at the run's end: exit $rc, want 0: $(cat "$WORK/end.err")"
  grep -qF "resumed from step 4, which is the run's end" "$WORK/end.err" &&
    grep -qF "nothing left to train" "$WORK/end.err" ||
    fail "resume $resume at the run's end: stderr does not say nothing was left to train: $(cat "$WORK/end.err")"
  grep -q "tokens/s=" "$WORK/end.out" && fail "resume $resume at the run's end printed a throughput: $(cat "$WORK/end.out")"
  python3 - "$WORK/end.json" <<'PY' || fail "resume $resume at the run's end: result"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "ok" and r["resumed_from_step"] == 4, (r["status"], r["resumed_from_step"])
assert r["nothing_to_train"] is True and "nothing left to train" in r["note"], r.get("note")
for name in ("tokens_per_sec", "step_time_ms", "data_time_ms", "forward_backward_ms", "optimizer_step_ms",
             "rank_wait_ms", "loss", "grad_norm", "mfu", "collectives_per_step"):
    assert r.get(name) is None, f"{name}: {r.get(name)!r}, want null"
def zeros(node, path=""):  # a measurement of zero anywhere outside the per-step series and settings
    if isinstance(node, dict):
        for k, v in node.items():
            if k not in ("per_step", "environment", "lr_scheduler", "model_config", "buckets"):
                yield from zeros(v, f"{path}.{k}")
    elif isinstance(node, (int, float)) and not isinstance(node, bool) and node == 0 and path.split(".")[-1] in (
            "tokens_per_sec", "step_time_ms", "loss", "achieved_gflops", "sync_rounds"):
        yield path
bad = list(zeros(r))
assert not bad, bad
PY
  [ "$failures" -eq "$before" ] && echo "ok: resume $resume at the run's end: success, nothing trained, no figures"
done

# A resume with steps left is measured as before. The constant learning rate never reads the decay
# length that --steps changes, so a run extended by more --steps resumes, and saves on beside the
# steps it continues (a copy of them: the checks below keep using $C).
cp -r "$C" "$WORK/extended"
train --steps 6 --checkpoint-dir "$WORK/extended" --save-every 2 --resume latest --output "$WORK/more.json" \
  >/dev/null 2>"$WORK/more.err"
python3 -c "import json, sys; r = json.load(open(sys.argv[1])); assert r['tokens_per_sec'] > 0 and not r['nothing_to_train'] and r['resumed_from_step'] == 4, r.get('tokens_per_sec')" \
  "$WORK/more.json" 2>>"$WORK/more.err" || fail "a constant-rate run extended by --steps: $(cat "$WORK/more.err")"
[ "$(readlink "$WORK/extended/latest")" = step_00000006 ] || fail "the extended run did not save step 6"

# A resume from an older step must not save into a directory holding newer steps of the run: it
# would overwrite them and move `latest` back. Refused before training; a branch elsewhere works.
before=$failures
latest_before=$(readlink "$C/latest") step4_before=$(sha256sum "$C"/step_00000004/*)
train --steps 4 --checkpoint-dir "$C" --save-every 2 --resume "$C/step_00000002" >"$WORK/older.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] &&
  grep -qF "mtengine train: --checkpoint-dir '$C' holds step_00000004 of this run, newer than step 2 that this run resumes from ('$C/step_00000002')" "$WORK/older.out" &&
  grep -qF "resume from its newest step (--resume latest); to branch from step 2, choose another --checkpoint-dir" "$WORK/older.out" ||
  fail "resume from an older step into its own directory: exit $rc, want 2 naming the newer step: $(cat "$WORK/older.out")"
grep -q "tokens/s=" "$WORK/older.out" && fail "the refused resume trained"
[ "$(readlink "$C/latest")" = "$latest_before" ] || fail "the refused resume moved latest to $(readlink "$C/latest")"
[ "$(sha256sum "$C"/step_00000004/*)" = "$step4_before" ] || fail "the refused resume changed step 4"
train --steps 4 --checkpoint-dir "$WORK/branch" --save-every 2 --resume "$C/step_00000002" >"$WORK/branch.out" 2>&1 ||
  fail "resume from an older step into another directory: $(cat "$WORK/branch.out")"
"${MPIRUN[@]}" "$MTENGINE" verify "$C/step_00000004" "$WORK/branch/step_00000004" >"$WORK/branch.verify" 2>&1 ||
  fail "the branch's step 4 differs from the run's: $(cat "$WORK/branch.verify")"
[ "$failures" -eq "$before" ] && echo "ok: a resume from an older step is refused into its own directory, branches elsewhere"

verify() { "${MPIRUN[@]}" "$MTENGINE" verify "$@"; }

# Another model shape, saved by another strategy (so verify compares logical states).
W="$WORK/wide"
D_MODEL=64 train --steps 4 --strategy zero1 --checkpoint-dir "$W" --save-every 4 >/dev/null 2>"$WORK/wide.log" ||
  fail "the wider run: $(cat "$WORK/wide.log")"
before=$failures
verify "$C/step_00000004" "$W/step_00000004" --output "$WORK/shapes.json" >"$WORK/shapes.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "verify of different shapes: exit $rc, want 1: $(cat "$WORK/shapes.out")"
grep -q "optimizer    differs first at optimizer/" "$WORK/shapes.out" ||
  fail "verify of different shapes: the optimizer is not a mismatch: $(cat "$WORK/shapes.out")"
python3 -c "import json, sys; c = json.load(open(sys.argv[1]))['components']; assert not c['model']['match'] and not c['optimizer']['match'], c" \
  "$WORK/shapes.json" || fail "verify of different shapes: result"
[ "$failures" -eq "$before" ] && echo "ok: verify of different parameter shapes: model and optimizer mismatch"

# A step without READY: same layout and another layout, as A and as B.
U="$WORK/unready"
cp -r "$C" "$U"
rm "$U/step_00000004/READY"
for pair in "$C/step_00000004 $U/step_00000004" "$U/step_00000004 $C/step_00000004" \
  "$U/step_00000004 $W/step_00000004"; do
  read -r a b <<<"$pair"
  verify "$a" "$b" >"$WORK/unready.out" 2>&1
  rc=$?
  if [ "$rc" -ne 2 ] || ! grep -qF "'$U/step_00000004' is unusable: step 4 has no READY" "$WORK/unready.out"; then
    fail "verify $a $b (no READY): exit $rc, want 2 naming the step: $(cat "$WORK/unready.out")"
  else
    echo "ok: verify $a $b: a step without READY is refused"
  fi
done

train --steps 6 --seed 7 --checkpoint-dir "$C" --resume latest >"$WORK/seed.log" 2>&1
rc=$?
if [ "$rc" -ne 2 ] ||
  ! grep -qF "config_fingerprint: checkpoint has" "$WORK/seed.log" ||
  ! grep -qE "seed \(--seed\): checkpoint [0-9]+, this run 7" "$WORK/seed.log" ||
  grep -qF "decay_steps" "$WORK/seed.log" || grep -qF "d_model" "$WORK/seed.log"; then
  fail "resume with another seed and --steps: exit $rc, want 2 naming each setting that differs: $(cat "$WORK/seed.log")"
else
  echo "ok: a fingerprint refusal names each setting that differs (not the decay length a constant rate ignores)"
fi
# A cosine schedule reads its decay length: --steps changes it, and the refusal names it.
train --steps 4 --lr-scheduler cosine --checkpoint-dir "$WORK/cosine" --save-every 4 >/dev/null 2>&1 ||
  fail "the cosine run"
train --steps 6 --lr-scheduler cosine --checkpoint-dir "$WORK/cosine" --resume latest >"$WORK/cosine.log" 2>&1
rc=$?
if [ "$rc" -ne 2 ] ||
  ! grep -qF "lr_schedule.decay_steps (--lr-decay-steps, by default --warmup-steps + --steps - --lr-warmup-steps): checkpoint 4, this run 6" "$WORK/cosine.log"; then
  fail "a cosine run resumed with more --steps: exit $rc, want 2 naming the decay length: $(cat "$WORK/cosine.log")"
else
  echo "ok: a cosine run resumed with more --steps is refused for its decay length"
fi

[ "$failures" -eq 0 ] || exit 1
echo "all checkpoint edge checks passed"
