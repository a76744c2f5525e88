#!/usr/bin/env bash
# External programs as workloads: argv from a template (no shell, so values cannot inject
# commands), metrics by regex from the output or from the JSON file the program writes, under the
# MPI launcher or run directly; a declared metric that is missing fails the trial.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
cat > "$WORK/cmd.yaml" <<'YAML'
name: commands
studies:
  - name: regex
    workload: command
    launch: direct
    command: [printf, "label=%s tokens/s: %s\n", "{label}", "{speed}"]
    matrix:
      label: ["plain", "$(touch {run_dir}/pwned); rm -rf nothing"]
      speed: [100, 250]
    metrics:
      tokens_per_sec: {regex: 'tokens/s: ([0-9.]+)'}
  - name: json
    workload: command
    command: [python3, -c, "import json,sys; json.dump(dict(status='ok', tokens_per_sec=float(sys.argv[1]) * float(sys.argv[2]), memory=dict(peak_rss_bytes=5)), open(sys.argv[3], 'w'))", "{speed}", "{ranks}", "{result_file}"]
    defaults: {speed: 10}
    matrix:
      ranks: [2]
    metrics:
      tokens_per_sec: {json: tokens_per_sec}
  - name: missing
    workload: command
    launch: direct
    command: [echo, "no numbers here"]
    metrics:
      tokens_per_sec: {regex: 'tokens/s: ([0-9.]+)'}
YAML
capture "$MTRUN" --db "$DB" run "$WORK/cmd.yaml"
echo "$OUT"
expect_eq "$RC" 1 "one study is meant to fail"
expect_eq "$(sql "select count(*) from latest_attempts where state='succeeded'")" 5 "succeeded command trials"
expect_eq "$(sql "select group_concat(value, ',') from (select m.value from metrics m join attempts a on a.id=m.attempt_id join trials t on t.id=a.trial_id where t.study='regex' and m.name='tokens_per_sec' order by t.ordinal)")" "100.0,250.0,100.0,250.0" "regex metrics"
expect_eq "$(sql "select m.value from metrics m join attempts a on a.id=m.attempt_id join trials t on t.id=a.trial_id where t.study='json' and m.name='tokens_per_sec'")" "20.0" "JSON metric from a 2-rank job"
expect_eq "$(sql "select m.value from metrics m join attempts a on a.id=m.attempt_id join trials t on t.id=a.trial_id where t.study='json' and m.name='memory.peak_rss_bytes'")" "5.0" "every number of the JSON kept"
expect_contains "$(sql "select command from attempts a join trials t on t.id=a.trial_id where t.study='json'")" "mpirun -np 2" "json study ran under mpirun"
expect_contains "$(sql "select command from attempts a join trials t on t.id=a.trial_id where t.study='json'")" "-x OMP_NUM_THREADS=" "the recorded command carries its environment values"
# A command records its own program by content, never mtengine's hash.
expect_eq "$(sql "select coalesce(p.engine_binary_hash, '') || '|' || (json_extract(p.software_stack, '$.program') like '%python3%') || '|' || (json_extract(p.software_stack, '$.program_hash') like 'fnv1a64:%') from provenance p join attempts a on a.id = p.attempt_id join trials t on t.id = a.trial_id where t.study = 'json'")" "|1|1" "a command's provenance names its own program"
expect_eq "$(find "$WORK/results" -name pwned | wc -l)" 0 "no command injection through parameter values"
expect_contains "$(cat "$(sql "select log_path from attempts a join trials t on t.id=a.trial_id where t.study='regex' and json_extract(t.parameters,'$.label') like '%pwned%' limit 1")")" 'label=$(touch' "value passed literally"
expect_eq "$(sql "select state || ': ' || error_reason from attempts a join trials t on t.id=a.trial_id where t.study='missing'")" "failed: metric 'tokens_per_sec': no number matched regex 'tokens/s: ([0-9.]+)' in the output" "missing metric fails the trial"
echo "PASS (command workload)"

# On a terminal the campaign shows one live progress line (done/total, failures, elapsed, ETA);
# `script` gives mtrun a pseudo-terminal as its standard output.
cat > "$WORK/tty.yaml" <<'YAML'
name: tty
repeat: 3
studies:
  - name: quick
    workload: command
    launch: direct
    command: [printf, "tokens/s: 1\n"]
    metrics: {tokens_per_sec: {regex: 'tokens/s: ([0-9]+)'}}
YAML
OUT=$(script -qec "$MTRUN --db $WORK/tty.sqlite run $WORK/tty.yaml" /dev/null)
expect_contains "$OUT" "[1/3] 0 failed" "live progress line"
expect_contains "$OUT" "ETA" "progress line has an ETA"
expect_contains "$OUT" "[3/3] done, 0 failed" "final progress line"
echo "PASS (terminal progress)"
