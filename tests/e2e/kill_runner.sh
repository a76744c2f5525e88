#!/usr/bin/env bash
# Killing mtrun mid-campaign loses no completed trial and leaves no rank running; `rerun --failed`
# then completes the campaign, every trial succeeding exactly once in its latest attempt.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
cat > "$WORK/kill.yaml" <<'YAML'
name: kill
repeat: 3
timeout_s: 120
studies:
  - name: s
    workload: train
    defaults: {vocab_size: 512, d_model: 64, n_heads: 2, n_layers: 2, seq_length: 64, batch_size: 4, steps: 30, warmup_steps: 2}
    matrix:
      ranks: [1, 2]
YAML

ranks_alive() { pgrep -f -- "--output $WORK/" | wc -l; }

# 1. SIGKILL while the second trial runs: the runner cannot react, its job guard must.
"$MTRUN" --db "$DB" run "$WORK/kill.yaml" > "$WORK/run1.log" 2>&1 &
RUNNER=$!
wait_for_sql "select count(*) from attempts where state='succeeded'" 1
wait_for_sql "select count(*) from attempts where state='running'" 1
capture "$MTRUN" --db "$DB" status  # what is in flight, and where to follow it
expect_contains "$OUT" "running for " "status while a trial runs"
expect_contains "$OUT" "log: $WORK/" "status names the running trial's log"
kill -9 $RUNNER
wait $RUNNER || true
for _ in $(seq 1 100); do [ "$(ranks_alive)" -eq 0 ] && break; sleep 0.1; done
expect_eq "$(ranks_alive)" 0 "engine processes left after SIGKILL of mtrun"
expect_eq "$(sql 'PRAGMA integrity_check')" ok "integrity after SIGKILL"
expect_eq "$(sql "select count(*) from attempts where state='succeeded'")" 1 "completed trial kept"
expect_eq "$(sql "select count(*) from attempts where state='running'")" 1 "the killed trial is left running"

# 2. SIGINT (Ctrl-C) while a trial runs: the running one is terminated and recorded interrupted.
#    Before that, status shows the killed runner's attempt as interrupted (without writing it).
capture "$MTRUN" --db "$DB" status
expect_contains "$OUT" "interrupted: mtrun (pid $RUNNER on $(hostname)) is gone" "status while stale"
expect_eq "$(sql "select count(*) from attempts where state='running'")" 1 "status changes nothing"
"$MTRUN" --db "$DB" run "$WORK/kill.yaml" > "$WORK/run2.log" 2>&1 &
RUNNER=$!
wait_for_sql "select count(*) from attempts where state='interrupted'" 1   # the stale attempt, at start
wait_for_sql "select count(*) from attempts where state='running'" 1
kill -INT $RUNNER
set +e; wait $RUNNER; RC=$?; set -e
expect_eq "$RC" 130 "exit code after Ctrl-C"
expect_contains "$(cat "$WORK/run2.log")" "rerun --failed" "Ctrl-C tells how to continue"
expect_eq "$(ranks_alive)" 0 "engine processes left after Ctrl-C"
expect_eq "$(sql "select count(*) from attempts where state='running'")" 0 "nothing left running after Ctrl-C"
expect_eq "$(sql "select count(*) from attempts where state='interrupted'")" 2 "both stopped attempts interrupted"

# 2b. SIGHUP (the terminal closed) is Ctrl-C too: the running attempt is recorded interrupted, not
#     left running by a runner that died.
"$MTRUN" --db "$DB" run "$WORK/kill.yaml" > "$WORK/run3.log" 2>&1 &
RUNNER=$!
wait_for_sql "select count(*) from attempts where state='running'" 1
kill -HUP $RUNNER
set +e; wait $RUNNER; RC=$?; set -e
expect_eq "$RC" 130 "exit code after SIGHUP"
expect_eq "$(ranks_alive)" 0 "engine processes left after SIGHUP"
expect_eq "$(sql "select count(*) from attempts where state='running'")" 0 "nothing left running after SIGHUP"
expect_eq "$(sql "select count(*) from attempts where state='interrupted'")" 3 "the hung-up attempt interrupted"

# 3. rerun --failed completes the campaign.
capture "$MTRUN" --db "$DB" rerun --failed
echo "$OUT"
expect_eq "$RC" 0 "rerun exit code"
expect_eq "$(sql 'PRAGMA integrity_check')" ok "integrity at the end"
expect_eq "$(sql "select count(*) from trials")" 6 "trials"
expect_eq "$(sql "select count(*) from latest_attempts where state='succeeded'")" 6 "every trial's latest attempt succeeded"
expect_eq "$(sql "select count(*) from (select trial_id from attempts where state='succeeded' group by trial_id having count(*) = 1)")" 6 "each trial succeeded exactly once"
capture "$MTRUN" --db "$DB" rerun --failed
expect_contains "$OUT" "0 trial(s) to run again" "nothing left to rerun"
echo "PASS"
