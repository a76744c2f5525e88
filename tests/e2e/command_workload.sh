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

# An axis that sets an environment variable: its values tell the configurations apart wherever
# they are shown (run, status, show, report, compare, history) and its question is answered, also
# from a database that, as one written before, keeps them only in each trial's spec.
DB="$WORK/env.sqlite"
env_experiment() {  # env_experiment REPEATS
  cat > "$WORK/env.yaml" <<YAML
name: envy
repeat: $1
conditions: {keep_disturbed: true}   # a shared test machine: judge every attempt
questions: [{metric: tokens_per_sec, compare: env.SPEED, baseline: "1"}]
studies:
  - name: e
    workload: command
    launch: direct
    command: [sh, -c, 'printf "tokens/s: %s\n" "\$SPEED"']
    matrix: {env.SPEED: ["1", "2"]}
    metrics: {tokens_per_sec: {regex: 'tokens/s: ([0-9.]+)'}}
YAML
}
env_experiment 2
capture "$MTRUN" --db "$DB" run "$WORK/env.yaml"
expect_eq "$RC" 0 "env axis run: $OUT"
ENV_A=$(sed -n 's/^experiment envy: campaign \([0-9a-f]*\),.*/\1/p' <<<"$OUT")
expect_contains "$OUT" "env.SPEED=2" "run summary names the env value"
expect_eq "$(sql "select group_concat(v, ',') from (select json_extract(t.parameters, '\$.\"env.SPEED\"') || ':' || m.value as v from trials t join attempts a on a.trial_id = t.id join metrics m on m.attempt_id = a.id where m.name = 'tokens_per_sec' order by t.ordinal)")" \
  "1:1.0,2:2.0,1:1.0,2:2.0" "env values recorded as parameters, and reached the program"
expect_eq "$(sql "select count(*) from trials where json_extract(spec, '\$.params.\"env.SPEED\"') is not null")" 0 "env values are no parameters of the spec"
check_env_labels() {  # check_env_labels WHAT
  capture "$MTRUN" --db "$DB" status
  expect_contains "$OUT" "env.SPEED=2" "status ($1)"
  grep -qF "env.SPEED=?" <<<"$OUT" && fail "status shows an unknown env value ($1): $OUT"
  capture "$MTRUN" --db "$DB" report
  expect_eq "$RC" 0 "report ($1): $OUT"
  expect_contains "$OUT" "env.SPEED = 2 vs 1: 2.00× tokens/s" "the env question answered ($1)"
  grep -qF "env.SPEED=?" <<<"$OUT" && fail "report shows an unknown env value ($1): $OUT"
  capture "$MTRUN" --db "$DB" show "$(sql "select identity from trials where ordinal = 1")"
  expect_contains "$OUT" "env.SPEED" "show lists the env value ($1)"
}
check_env_labels "as recorded"
sql "update trials set parameters = json_remove(parameters, '\$.\"env.SPEED\"')"
check_env_labels "only in the spec"
# A second campaign (one more repeat): compare and history keep the two values apart.
env_experiment 3
capture "$MTRUN" --db "$DB" run "$WORK/env.yaml"
expect_eq "$RC" 0 "second env campaign: $OUT"
ENV_B=$(sed -n 's/^experiment envy: campaign \([0-9a-f]*\),.*/\1/p' <<<"$OUT")
[ -n "$ENV_A" ] && [ -n "$ENV_B" ] && [ "$ENV_A" != "$ENV_B" ] || fail "two env campaigns expected: '$ENV_A' '$ENV_B'"
capture "$MTRUN" --db "$DB" compare "$ENV_A" "$ENV_B"
expect_eq "$RC" 0 "compare of env campaigns: $OUT"
expect_contains "$OUT" "env.SPEED=1" "compare names env value 1"
expect_contains "$OUT" "env.SPEED=2" "compare names env value 2"
capture "$MTRUN" --db "$DB" history envy
expect_eq "$RC" 0 "history of env campaigns: $OUT"
expect_contains "$OUT" "env.SPEED=2" "history names the env value"
echo "PASS (env axes)"

# "STATE: REASON" of the one attempt of experiment NAME's campaign.
outcome_of() {  # outcome_of NAME
  sql "select a.state || ': ' || a.error_reason from attempts a join trials t on t.id = a.trial_id
    join campaigns c on c.id = t.campaign_id where c.experiment = '$1'"
}

# A program launched directly that dies of a signal is named as the program, with the signal's name:
# there is no launcher to blame.
cat > "$WORK/segv.yaml" <<'YAML'
name: segv
studies:
  - name: s
    workload: command
    launch: direct
    command: [sh, -c, "kill -SEGV $$"]
YAML
capture "$MTRUN" --db "$DB" run "$WORK/segv.yaml"
expect_eq "$RC" 1 "a program that dies of a signal"
expect_eq "$(outcome_of segv)" \
  "crashed: the program (launch: direct) was killed by signal 11 (Segmentation fault)" "the program and its signal named"
echo "PASS (a direct program's signal)"

# A program that cannot be executed did not launch; it did not fail as it ran.
printf '#!/bin/sh\necho never\n' > "$WORK/not_executable.sh"
chmod 644 "$WORK/not_executable.sh"
cat > "$WORK/noexec.yaml" <<YAML
name: noexec
studies:
  - name: s
    workload: command
    launch: direct
    command: ["$WORK/not_executable.sh"]
YAML
capture "$MTRUN" --db "$DB" run "$WORK/noexec.yaml"
expect_eq "$RC" 1 "a program that cannot be executed"
expect_eq "$(outcome_of noexec)" \
  "launch_failed: cannot execute $WORK/not_executable.sh: Permission denied" "not launched, and why"
echo "PASS (a program that cannot be executed)"
