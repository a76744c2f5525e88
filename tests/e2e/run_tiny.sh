#!/usr/bin/env bash
# mtrun run end to end: real mpirun jobs of the real engine into a real SQLite file; a failing
# trial is recorded with its exit code and the campaign carries on; a second run redoes only it.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
cat > "$WORK/tiny.yaml" <<'YAML'
name: tiny
repeat: 1
timeout_s: 120
studies:
  - name: ok
    workload: train
    defaults:
      vocab_size: 256
      d_model: 32
      n_heads: 2
      n_layers: 1
      seq_length: 16
      batch_size: 2
      grad_accum_steps: 2
      steps: 3
      warmup_steps: 1
    matrix:
      ranks: [1, 2]
      gradient_sync_mode: [every, last]
  - name: broken
    workload: train
    defaults: {vocab_size: 256, d_model: 32, n_heads: 2, n_layers: 1, seq_length: 16, steps: 2, warmup_steps: 0}
    engine_args: [--no-such-flag]
YAML

capture "$MTRUN" --db "$DB" plan "$WORK/tiny.yaml"
expect_eq "$RC" 0 "plan exit code"
expect_contains "$OUT" "5 trials in campaign" "plan count"
expect_contains "$OUT" "mpirun -np 2" "plan shows the exact command"

# Run from another directory: the experiment path and engine are found wherever we stand.
cd "$WORK"
capture "$MTRUN" --db "$DB" run tiny.yaml
echo "$OUT"
expect_eq "$RC" 1 "run exit code with one failing trial"
expect_contains "$OUT" "tokens/s (mean ± std)" "summary table"
expect_contains "$OUT" "failed" "failure shown"
expect_eq "$(sql 'PRAGMA user_version')" "$(store_schema_version)" "schema version"
expect_eq "$(sql 'PRAGMA integrity_check')" ok "integrity"
expect_eq "$(sql "select count(*) from latest_attempts where state='succeeded'")" 4 "succeeded trials"
expect_eq "$(sql "select count(*) from training where tokens_per_sec > 0 and step_time_ms > 0 and loss > 0")" 4 "metrics"
expect_eq "$(sql "select a.state || ' ' || a.exit_code from attempts a join trials t on t.id=a.trial_id where t.study='broken'")" "failed 2" "failed trial and its exit code"
expect_contains "$(sql "select error_reason from attempts a join trials t on t.id=a.trial_id where t.study='broken'")" "--no-such-flag" "failure reason from the engine's message"
expect_eq "$(sql "select count(distinct rank) from step_metrics s join attempts a on a.id=s.attempt_id join trials t on t.id=a.trial_id where t.ranks=2 and s.name='step_time_ms'")" 2 "per-rank step times"
expect_eq "$(sql "select resolved from (select json_extract(result_json,'$.resolved_gradient_sync_mode') resolved, t.ranks r, json_extract(t.parameters,'$.gradient_sync_mode') m from attempts a join trials t on t.id=a.trial_id where t.study='ok') where r=2 and m='every'")" every "resolved sync mode recorded"
# No study names a strategy: each trial runs, and is stored with, the engine's default one, which the
# campaign keeps as the reference its report compares the others with.
expect_eq "$(sql "select group_concat(distinct strategy) from trials")" ddp "the engine's default strategy stored"
expect_eq "$(sql "select json_extract(measurement, '$.reference_strategy') from campaigns")" ddp "reference strategy kept"
expect_eq "$(sql "select count(*) from metrics where name='memory.gathered_parameter_bytes' and value=0")" 4 "ddp gathers no parameters"

# Same file, same revision: only the failed trial runs again, as attempt 2. Typed the way users
# type it: the file alone means `run FILE`, and --db may follow it.
capture "$MTRUN" tiny.yaml --db "$DB"
expect_eq "$RC" 1 "second run still fails the broken trial"
expect_contains "$OUT" "4 trial(s) already succeeded" "skip message"
expect_eq "$(sql 'select count(*) from attempts')" 6 "attempt count after second run"
expect_eq "$(sql "select max(attempt) from attempts a join trials t on t.id=a.trial_id where t.study='broken'")" 2 "attempt number"

capture "$MTRUN" --db "$DB" status
expect_eq "$RC" 0 "status exit code"
expect_contains "$OUT" "4 succeeded, 1 not succeeded" "status counts"
expect_contains "$OUT" "log: " "status shows the failure's log"

capture "$MTRUN" --db "$DB" query "select strategy, ranks, count(*) from training where state='succeeded' group by 1,2"
expect_eq "$RC" 0 "query exit code"
expect_contains "$OUT" "ddp" "query output"
capture "$MTRUN" --db "$DB" query --csv "select ranks from training where study='ok' order by ranks limit 1"
expect_eq "$OUT" $'ranks\n1' "csv output"
capture "$MTRUN" --db "$DB" query "delete from attempts"
expect_eq "$RC" 2 "write through query is refused"
expect_contains "$OUT" "read-only" "refusal message"
expect_eq "$(sql 'select count(*) from attempts')" 6 "nothing deleted"

capture "$MTRUN" --db "$DB" run "$WORK/missing.yaml"
expect_eq "$RC" 2 "missing experiment exit code"
expect_contains "$OUT" "missing.yaml: experiment file not found" "missing file message"
echo "PASS"
