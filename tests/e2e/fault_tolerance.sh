#!/usr/bin/env bash
# experiments/fault_tolerance.yaml for one strategy, through the real mtrun and mtengine: every
# scenario's chain passes, with the crash, its rank and the checkpoints recorded stage by stage
# (and, for automatic restarts, launch by launch); a
# chain whose stage does not do what it expects fails naming that stage, and `rerun --failed` runs
# it again from its first stage in a fresh work directory. status and report show the stages.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
sed 's/strategy: \[ddp, fsdp, zero1, zero2\]/strategy: [zero1]/' "$MT_SOURCE_DIR/experiments/fault_tolerance.yaml" \
  > "$WORK/fault_tolerance.yaml"
grep -q 'strategy: \[zero1\]' "$WORK/fault_tolerance.yaml" || fail "the strategies line of experiments/fault_tolerance.yaml moved"
# A chain that expects what will not happen: training that succeeds, expected to crash.
cat >> "$WORK/fault_tolerance.yaml" <<'YAML'

  - name: wrong_expectation
    workload: train
    defaults: {ranks: 2, vocab_size: 128, d_model: 32, n_heads: 4, n_layers: 2, seq_length: 16, batch_size: 2,
               threads: 1, warmup_steps: 0, steps: 2, strategy: zero1}
    stages:
      - name: saved
        params: {checkpoint_dir: "{work_dir}/ckpt", save_every: 2}
        expect: {outcome: succeeded, ready_steps: [2]}
      - name: not_killed
        params: {checkpoint_dir: "{work_dir}/other"}
        expect: {outcome: crashed, rank: 1}
YAML

capture "$MTRUN" --db "$DB" run "$WORK/fault_tolerance.yaml"
echo "$OUT"
expect_eq "$RC" 1 "run exit code (one chain fails by design)"
expect_eq "$(sql "select study || ' ' || state from trials t join latest_attempts a on a.trial_id = t.id order by t.ordinal" | tr '\n' ',')" \
  "exact_resume succeeded,rank_sigkill succeeded,nan_stop succeeded,death_in_save succeeded,config_mismatch succeeded,auto_restart succeeded,wrong_expectation failed," \
  "verdicts"
expect_eq "$(sql "select count(*) from attempts")" 7 "one attempt per chain"
expect_eq "$(sql "select count(*) from stages")" 18 "a stage row per stage run (16 + the failing chain's 2)"
expect_eq "$(sql "select count(*) from stages where met = 1")" 17 "every stage but one met its expectation"

# (a) the resumed run ends where the continuous one does, exactly.
expect_eq "$(sql "select stage || ':' || observed from chain_stages where study = 'exact_resume' order by position" | tr '\n' '|')" \
  "continuous:succeeded; READY steps 6 12|killed:crashed on rank 1 (signal 9); READY steps 6|resumed:succeeded; resumed from step 6; READY steps 6 12|verify:succeeded; exact match|" \
  "exact resume"
# (b) the crash and its rank are recorded; the latest READY checkpoint is the one before it.
expect_eq "$(sql "select state, error_rank, observed from chain_stages where study = 'rank_sigkill' and stage = 'killed'")" \
  "crashed|0|crashed on rank 0 (signal 9); READY steps 4 8; step 12 not READY; latest 8" "SIGKILL of rank 0"
# (c) every rank stops at the NaN's step; nothing is saved after it.
expect_eq "$(sql "select error_step, observed from chain_stages where study = 'nan_stop'")" \
  '4|failed on rank 1, exit 1 at step 4; output has "non-finite loss"; READY steps 2 4; latest 4' "NaN stop"
# (d) the step being saved is never published; the resume uses the one before.
expect_eq "$(sql "select observed from chain_stages where study = 'death_in_save' order by position" | tr '\n' '|')" \
  "crashed on rank 1 (signal 9); READY steps 3; step 6 not READY|succeeded; resumed from step 3; READY steps 3 6 9 12|" \
  "death during save"
# (e) a resume whose math differs is refused with exit 2, naming the field; another world size is
# resharded.
expect_eq "$(sql "select group_concat(exit_code, ' ') from chain_stages where study = 'config_mismatch' and position > 1")" \
  "2 2 0" "mismatched resumes refused, another world size resharded"

# (f) killed twice, relaunched twice by mtrun, and the end state equals the run that never died.
expect_eq "$(sql "select stage || ':' || observed from chain_stages where study = 'auto_restart' order by position" | tr '\n' '|')" \
  "continuous:succeeded; no restart; READY steps 4 8 12|killed_twice:succeeded; restarted 2 times; resumed from step 8; READY steps 4 8 12|verify:succeeded; exact match|" \
  "automatic restart"
expect_eq "$(sql "select launch || ' ' || state || ' ' || error_rank || ' ' || reached_step || ' ' || lost_steps from restarts
                  where study = 'auto_restart' and stage = 'killed_twice' and launch < 3 order by launch" | tr '\n' ',')" \
  "1 crashed 1 6 2,2 crashed 0 10 2," "each kill, how far it got and what the relaunch redid"

expect_eq "$(sql "select error_reason from trials t join latest_attempts a on a.trial_id = t.id where t.study = 'wrong_expectation'")" \
  "stage 2 'not_killed': expected crashed on rank 1, observed succeeded" "the failing chain names its stage"

capture "$MTRUN" --db "$DB" status
expect_eq "$RC" 0 "status"
expect_contains "$OUT" "stages of each chain's latest attempt" "status shows stages"
expect_contains "$OUT" "2 not_killed        NO   crashed on rank 1" "status shows the unmet stage"

# rerun --failed: the failing chain again, from its first stage, in a new work directory.
capture "$MTRUN" --db "$DB" rerun --failed
expect_eq "$RC" 1 "rerun exit code (still fails)"
expect_contains "$OUT" "1 trial(s) to run again" "rerun selects the failed chain only"
expect_eq "$(sql "select a.attempt || ':' || group_concat(s.position, ' ') from attempts a join stages s on s.attempt_id = a.id
                  join trials t on t.id = a.trial_id where t.study = 'wrong_expectation' group by a.id order by a.attempt" | tr '\n' ',')" \
  "1:1 2,2:1 2," "the re-run starts from the first stage"
run_dirs=$(sql "select a.run_dir from attempts a join trials t on t.id = a.trial_id where t.study = 'wrong_expectation'")
[ "$(sort -u <<<"$run_dirs" | wc -l)" -eq 2 ] || fail "the re-run has its own directory: $run_dirs"
for d in $run_dirs; do [ -d "$d/work/ckpt/step_00000002" ] || fail "no checkpoint in $d/work"; done

# --keep-disturbed: what is checked is the section, which a busy test machine must not hide.
capture "$MTRUN" --db "$DB" report --keep-disturbed -o "$WORK/report.md"
expect_eq "$RC" 0 "report"
report=$(cat "$WORK/report.md")
expect_contains "$report" "## Fault tolerance" "report section"
expect_contains "$report" "| death_in_save | ✓ |" "a passing scenario"
expect_contains "$report" "| wrong_expectation | ✗ 0/1 |" "the failing scenario"
expect_contains "$report" "### Checkpoint save and load" "checkpoint times"
expect_contains "$report" "| auto_restart | ✓ |" "the restart scenario passes"
expect_contains "$report" "### Restarts" "restarts"
echo "PASS"
