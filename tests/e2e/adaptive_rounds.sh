#!/usr/bin/env bash
# Adaptive repeats over several runs of one file: a round that a killed runner left unfinished is run
# by the next `mtrun run`, which then goes on adding rounds; `run --force` measures every round again,
# those adaptive repeats added included, so no older attempt stays in a mean; a stopped `run --force`
# says what finishes it. `command` trials (no engine) print a value that grows with every attempt, so
# no interval ever reaches the target and each configuration runs to `max`; a file says how long a
# trial sleeps first, long enough to be caught running where a runner is stopped.
source "$(dirname "$0")/lib.sh"
export MTENGINE=/bin/true  # command workloads only: no engine is launched
DB="$WORK/results/mtrun.sqlite"
EXP="$WORK/adaptive.yaml"
echo 0 > "$WORK/count"
echo 0 > "$WORK/sleep"
cat > "$EXP" <<YAML
name: adaptive_rounds
repeat: {min: 2, max: 4, target_ci_pct: 0.01}
conditions: {max_foreign_cpu_pct: 100000, max_steal_pct: 100, max_cpu_pressure_pct: 100000,
             max_core_round_trip_rise_pct: 100000}
studies:
  - name: s
    workload: command
    launch: direct
    command: [sh, -c, 'sleep \$(cat $WORK/sleep); n=\$((\$(cat $WORK/count) + 1)); echo \$n > $WORK/count; echo "value: \$n"']
    matrix: {n: [1, 2]}
    metrics:
      value: {regex: 'value: ([0-9]+)'}
YAML

# Every trial's latest attempt succeeded, and the campaign has every round up to max.
expect_complete() {  # expect_complete WHAT
  expect_eq "$(sql "select count(*) from trials")" 8 "$1: two configurations, four rounds each"
  expect_eq "$(sql "select count(*) from latest_attempts where state = 'succeeded'")" 8 "$1: every trial succeeded"
}

# 1. SIGKILL while the first trial of the third round (the first that adaptive repeats add) runs:
#    that trial is left running, the other of its round has no attempt yet. The next `run` runs both
#    (they have not succeeded), then adds the fourth round, as a run that was never stopped would.
echo 0.5 > "$WORK/sleep"
"$MTRUN" --db "$DB" run "$EXP" > "$WORK/run1.log" 2>&1 &
RUNNER=$!
wait_for_sql "select count(*) from attempts a join trials t on t.id = a.trial_id where t.repeat_index = 2 and a.state = 'running'" 1
kill -9 $RUNNER
wait $RUNNER || true
expect_eq "$(sql "select count(*) from trials")" 6 "the third round is registered when the runner is killed"
echo 0 > "$WORK/sleep"
capture "$MTRUN" --db "$DB" run "$EXP"
expect_eq "$RC" 0 "run after the kill"
expect_contains "$OUT" "4 trials (and 2 added by adaptive repeats), 2 to run" "the unfinished round is to run"
expect_contains "$OUT" "adaptive repeats: round 4 of s n=1" "rounds are added again once the round is whole"
expect_contains "$OUT" "stopped at max: s n=1 (4 rounds" "the run ends with every round"
expect_complete "after the kill"
capture "$MTRUN" --db "$DB" run "$EXP"
expect_contains "$OUT" "0 to run" "a finished campaign has nothing to run"
expect_complete "run again"
echo "PASS (a killed adaptive round is run by the next run)"

# 2. --force measures every round again, those adaptive repeats added included: every trial gets a
#    new attempt, and the summary's n=4 is made of new attempts only (the counter is past 8).
capture "$MTRUN" --db "$DB" run "$EXP" --force
expect_eq "$RC" 0 "run --force"
expect_contains "$OUT" "8 to run" "--force runs the added rounds too"
expect_complete "after --force"
expect_eq "$(sql "select count(*) from attempts where state = 'succeeded'")" 16 "one new attempt per trial"
expect_eq "$(sql "select count(*) from latest_attempts a join metrics m on m.attempt_id = a.id where m.name = 'value' and m.value > 8")" 8 \
  "every reported value is a new one"
echo "PASS (--force measures every adaptive round again)"

# 3. Ctrl-C during `run --force`: the trials it did not reach succeeded before, so neither a plain
#    `run` nor `rerun --failed` would run them; the runner says that `run --force` again does.
echo 0.5 > "$WORK/sleep"
"$MTRUN" --db "$DB" run "$EXP" --force > "$WORK/force.log" 2>&1 &
RUNNER=$!
wait_for_sql "select count(*) from attempts where state = 'running'" 1
kill -INT $RUNNER
set +e; wait $RUNNER; RC=$?; set -e
expect_eq "$RC" 130 "exit code after Ctrl-C"
expect_contains "$(cat "$WORK/force.log")" "\`mtrun --db $DB run $EXP --force\` measures every trial again" \
  "a stopped --force run says what finishes it"
echo "PASS"
