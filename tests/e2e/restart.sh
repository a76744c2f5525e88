#!/usr/bin/env bash
# restart: {max, resume} on plain training trials, through the real mtrun and mtengine: a job
# killed mid-run is relaunched from its latest READY checkpoint within the same attempt and
# finishes (its metrics come from the last launch); an injected fault its steps had not reached
# stays for the relaunch; a job that keeps dying stops after `max` relaunches; bad input (exit 2)
# is never relaunched; every launch is recorded with the steps it reached, where the next resumed,
# the steps recomputed and the time to recover; the report shows them; the loader refuses
# policies it cannot honour.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
cat > "$WORK/restart.yaml" <<'YAML'
name: restart
timeout_s: 120
studies:
  - name: recovers
    workload: train
    defaults: &tiny {ranks: 2, vocab_size: 128, d_model: 32, n_heads: 4, n_layers: 2, seq_length: 16, batch_size: 2,
                     threads: 1, warmup_steps: 0, steps: 8, strategy: zero1, checkpoint_dir: ckpt, save_every: 2,
                     collective_timeout: 60}
    restart: {max: 3, resume: latest}
    engine_args: [--fault, "kill:rank=1,step=3", --fault, "kill:rank=0,step=7"]
  - name: out_of_restarts
    workload: train
    defaults: *tiny
    restart: {max: 1}
    engine_args: [--fault, "kill:rank=1,step=3", --fault, "kill:rank=0,step=5"]
  - name: bad_input
    workload: train
    defaults: *tiny
    restart: {max: 2}
    engine_args: [--fault, "kill:rank=7,step=1"]
YAML

capture "$MTRUN" --db "$DB" plan "$WORK/restart.yaml"
expect_eq "$RC" 0 "plan"
expect_contains "$OUT" "--progress-file RUN_DIR/progress" "the engine is asked for its progress"
expect_contains "$OUT" "recovers rep 0 (timeout 120 s; up to 3 restarts from the latest READY checkpoint)" "plan shows the policy"

capture "$MTRUN" --db "$DB" run "$WORK/restart.yaml"
echo "$OUT"
expect_eq "$RC" 1 "run exit code (two trials fail by design)"
expect_eq "$(sql "select study || ' ' || state from trials t join latest_attempts a on a.trial_id = t.id order by t.ordinal" | tr '\n' ',')" \
  "recovers succeeded,out_of_restarts crashed,bad_input failed," "verdicts"
expect_eq "$(sql "select count(*) from attempts")" 3 "restarts stay within one attempt"

# Killed at step 3 (resumes from 2), killed again at step 7 by the fault it had not reached (resumes
# from 6), then finishes.
expect_eq "$(sql "select launch || ' ' || state || ' ' || coalesce(error_rank, '-') || ' ' || coalesce(reached_step, '-') || ' ' ||
                         coalesce(resumed_from_step, 'start') || ' ' || coalesce(lost_steps, '-')
                  from restarts where study = 'recovers' order by launch" | tr '\n' ',')" \
  "1 crashed 1 3 start 1,2 crashed 0 7 2 1,3 succeeded - 8 6 -," "launches of the recovered job"
expect_eq "$(sql "select count(*) from restarts where study = 'recovers' and launch < 3 and recovery_s > 0")" 2 \
  "time to recover measured for both restarts"
expect_eq "$(sql "select count(*) from restarts where study = 'recovers' and launch = 3 and recovery_s is null")" 1 \
  "the last launch has nothing to recover from"
expect_eq "$(sql "select count(*) from metrics m join latest_attempts a on a.id = m.attempt_id join trials t on t.id = a.trial_id
                  where t.study = 'recovers' and m.name = 'tokens_per_sec' and m.value > 0")" 1 "metrics from the last launch"
expect_eq "$(sql "select json_extract(a.result_json, '\$.resumed_from_step') from attempts a join trials t on t.id = a.trial_id where t.study = 'recovers'")" \
  6 "the attempt's result is the last launch's"
RUN_DIR=$(sql "select a.run_dir from attempts a join trials t on t.id = a.trial_id where t.study = 'recovers'")
for f in launch-1.log.txt launch-2.log.txt launch-1.progress launch-2.progress log.txt result.json; do
  [ -f "$RUN_DIR/$f" ] || fail "no $f in $RUN_DIR"
done
grep -q "kills itself before step 3" "$RUN_DIR/launch-1.log.txt" || fail "launch 1's log is not the first launch's"
expect_eq "$(sql "select group_concat(count, ' ') from (select count(*) as count from launches group by attempt_id order by attempt_id)")" \
  "3 2 1" "launches per attempt"
expect_eq "$(sql "select duration_s >= (select sum(duration_s) from launches l where l.attempt_id = a.id) - 0.001
                  from attempts a join trials t on t.id = a.trial_id where t.study = 'recovers'")" 1 \
  "the attempt's duration counts every launch"

# Out of restarts: one relaunch, which dies of the second fault; the attempt ends as that launch did.
expect_eq "$(sql "select launch || ' ' || state || ' ' || coalesce(error_rank, '-') from restarts where study = 'out_of_restarts' order by launch" | tr '\n' ',')" \
  "1 crashed 1,2 crashed 0," "relaunched max times, no more"
# Bad input: refused once, never relaunched.
expect_eq "$(sql "select launch || ' ' || state || ' ' || exit_code from restarts where study = 'bad_input'")" \
  "1 failed 2" "bad input is not relaunched"

capture "$MTRUN" --db "$DB" status
expect_contains "$OUT" "jobs relaunched from their latest checkpoint (restart:), launch by launch:" "status shows relaunches"
grep -qE '^[0-9a-f]{12} +- +2 +crashed on rank 0 \(signal 9\) +7 +2 +1 +[0-9.]+$' <<<"$OUT" || fail "no second launch in status: $OUT"

capture "$MTRUN" --db "$DB" report --keep-disturbed -o "$WORK/report.md"
expect_eq "$RC" 0 "report"
report=$(cat "$WORK/report.md")
expect_contains "$report" "### Restarts" "restarts in the report"
expect_contains "$report" "2 jobs relaunched 3 times in all, 3 steps computed again" "restart totals"
grep -qE '^\| recovers \| zero1 \| - \| 1 \| crashed on rank 1 \(signal 9\) \| 3 \| start \| 1 \| [0-9.]+ \| [0-9.]+ \|$' <<<"$report" ||
  fail "no row of the first launch in:
$(sed -n '/### Restarts/,$p' <<<"$report")"

# Policies that cannot be honoured are refused before anything runs, each named.
cat > "$WORK/bad.yaml" <<'YAML'
name: bad_restart
studies:
  - name: no_checkpoints
    workload: train
    defaults: {ranks: 1, steps: 2}
    restart: {max: 2}
  - name: comm_restart
    workload: comm
    restart: {max: 1}
  - name: zero_max
    workload: train
    defaults: {checkpoint_dir: ckpt}
    restart: {max: 0, resume: step_00000002}
YAML
capture "$MTRUN" --db "$WORK/bad.sqlite" plan "$WORK/bad.yaml"
expect_eq "$RC" 2 "bad restart policies: exit 2"
expect_contains "$OUT" "restart needs checkpoint_dir" "no checkpoint directory"
expect_contains "$OUT" "workload 'comm' cannot be restarted" "a workload without checkpoints"
expect_contains "$OUT" "restart max must be 1 to 100" "max out of range"
expect_contains "$OUT" "restart resume must be 'latest'" "resume other than latest"
echo "PASS"
