#!/usr/bin/env bash
# `parallel: 2` on this machine with a CPU set per trial in flight: two mpirun jobs at once, each
# under taskset on its own CPU, recorded one attempt each at overlapping times; Ctrl-C while both
# run terminates both (interrupted, exit 130) and leaves no process behind; so does SIGKILL of mtrun
# (each job's guard), and the next run marks both attempts interrupted.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
export MTENGINE=/bin/true
[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs 2 CPUs"; exit 77; }
cat > "$WORK/cpus.yaml" <<'YAML'
name: cpus
timeout_s: 120
parallel: 2
launcher: {type: mpirun, cpu_sets: ["0", "1"]}
studies:
  - name: s
    workload: command
    command: [sh, -c, "grep Cpus_allowed_list /proc/self/status; sleep {sleep}; echo 'value: 1'"]
    matrix: {sleep: [2, 3]}
    metrics: {value: {regex: 'value: ([0-9]+)'}}
YAML
cd "$WORK"
capture "$MTRUN" --db "$DB" plan cpus.yaml
expect_eq "$RC" 0 "plan"
expect_contains "$OUT" "parallel: up to 2 trials in flight; each command above then keeps to the CPU set of its slot" "plan"
# A set naming a CPU the machine does not give mtrun, or trials in flight with nothing to keep
# them apart, is refused before the database is touched: no campaign is left behind.
sed 's/cpu_sets: \["0", "1"\]/cpu_sets: ["0", "4000"]/' cpus.yaml > beyond.yaml
capture "$MTRUN" --db "$WORK/refused.sqlite" run beyond.yaml
expect_eq "$RC" 2 "a CPU set beyond the machine"
expect_contains "$OUT" "cpu set '4000' names CPU 4000, which this machine does not give mtrun" "the CPU named"
capture "$MTRUN" --db "$WORK/refused.sqlite" run cpus.yaml --parallel 3
expect_eq "$RC" 2 "more trials in flight than CPU sets"
[ ! -e "$WORK/refused.sqlite" ] || fail "a refused run created the database: $(sqlite3 "$WORK/refused.sqlite" "select id from campaigns")"

capture "$MTRUN" --db "$DB" run cpus.yaml
echo "$OUT"
expect_eq "$RC" 0 "two trials at once on disjoint CPUs"
expect_eq "$(sql "select count(*) from latest_attempts where state = 'succeeded'")" 2 "both succeeded"
expect_eq "$(sql "select count(*) from attempts a join attempts b on a.id < b.id
  where a.started_at < b.finished_at and b.started_at < a.finished_at")" 1 "the two trials overlapped in time"
expect_eq "$(sql "select count(*) from latest_attempts where command like 'taskset -c 0 mpirun %'") \
$(sql "select count(*) from latest_attempts where command like 'taskset -c 1 mpirun %'")" "1 1" "one trial per CPU set"
allowed=$(sql "select log_path from attempts" | xargs grep -h Cpus_allowed_list | awk '{print $2}' | sort | tr '\n' ' ')
expect_eq "$allowed" "0 1 " "each trial's processes kept to its CPU"
expect_eq "$(sql "select count(*) from attempts")" 2 "one attempt each"
expect_eq "$(sql "select count(*) from conditions where core_round_trip_ns_before is null and core_round_trip_ns_after is null")" 2 \
  "the cores are not timed beside another trial's job"

# Two trials that keep their CPUs busy at the same time: each is the other's neighbour only on
# paper, so neither counts the other's core as foreign load.
cat > burn.yaml <<'YAML'
name: burn
timeout_s: 120
parallel: 2
launcher: {type: mpirun, cpu_sets: ["0", "1"]}
studies:
  - name: s
    workload: command
    command: [python3, -c, "import time\nt = time.time()\nwhile time.time() - t < {seconds}: pass\nprint('value: 1')"]
    matrix: {seconds: [2, 2.5]}
    metrics: {value: {regex: 'value: ([0-9]+)'}}
YAML
capture "$MTRUN" --db "$WORK/burn.sqlite" run burn.yaml
expect_eq "$RC" 0 "two busy trials at once"
foreign=$(sqlite3 -batch -noheader "$WORK/burn.sqlite" "select group_concat(round(foreign_cpu_pct), ' ') from attempt_conditions")
for pct in $foreign; do
  if [ "${pct%.*}" -ge 50 ]; then
    "$MTRUN" doctor | grep -q "warn  load" && { echo "SKIP (busy machine): foreign CPU $foreign"; exit 77; }
    fail "a trial in flight beside another counted its core as foreign load: $foreign % of a core"
  fi
done

# Trials in flight together never wait for a quiet machine, --wait-quiet or not: where they ran on a
# disturbed one (here a host of another kernel that their result says was busy), run and status say
# that measuring them again on a quiet machine takes --wait-quiet, one trial at a time.
printf '%s' '{"hosts": ["far-1"], "rank_host_window": [{"wall_s": 2, "cpus": 4, "busy_cpu_s": 5, "own_cpu_s": 1, "steal_pct": 0, "boot_id": "another-kernel"}]}' > busy_host.json
sed -e 's/name: cpus/name: busy/' -e "s|sleep {sleep}|cat $WORK/busy_host.json > {result_file}; sleep {sleep}|" cpus.yaml > busy.yaml
capture "$MTRUN" --db "$WORK/busy.sqlite" run --wait-quiet 1 busy.yaml
expect_eq "$RC" 0 "trials in parallel on a disturbed host"
expect_contains "$OUT" "waiting for a quiet machine (wait_quiet_s, --wait-quiet) is not applied before each trial when 2 run at once" \
  "the run says its trials do not wait"
expect_contains "$OUT" "2 attempt(s) ran on a disturbed machine" "both were disturbed"
hint="measures them again, on a quiet machine with --wait-quiet SECONDS (without it they run at once, busy or not, as do trials run in parallel;"
expect_contains "$OUT" "$hint" "run says how to measure them on a quiet machine, though it was given --wait-quiet"
expect_contains "$("$MTRUN" --db "$WORK/busy.sqlite" status)" "$hint" "and so does status"

# Starts the campaign of $1.yaml (two long trials) in the background as $RUNNER; returns when both run.
start_both() {
  sed -e "s/name: cpus/name: $1/" -e 's/sleep: \[2, 3\]/sleep: [60, 61]/' cpus.yaml > "$1.yaml"
  "$MTRUN" --db "$DB" run "$1.yaml" > "$1.log" 2>&1 &
  RUNNER=$!
  for _ in $(seq 1 300); do
    [ "$(sql "select count(*) from attempts a join trials t on t.id = a.trial_id join campaigns c on c.id = t.campaign_id
      where c.experiment = '$1' and a.state = 'running'" 2>/dev/null)" == 2 ] && break
    sleep 0.1
  done
  sleep 1
}
no_trial_left() {
  for _ in $(seq 1 50); do pgrep -f "sleep 6[01]" >/dev/null || break; sleep 0.1; done
  expect_eq "$(pgrep -af "sleep 6[01]" || true)" "" "no trial process left $1"
}

# Ctrl-C with both running: both are terminated and recorded interrupted.
start_both cpus-stop
kill -INT $RUNNER
set +e; wait $RUNNER; RC=$?; set -e
cat cpus-stop.log
expect_eq "$RC" 130 "exit code after Ctrl-C"
expect_eq "$(sql "select group_concat(a.state) from attempts a join trials t on t.id = a.trial_id
  join campaigns c on c.id = t.campaign_id where c.experiment = 'cpus-stop'")" "interrupted,interrupted" "both interrupted"
no_trial_left "after Ctrl-C"

# SIGKILL: mtrun cannot react; each job's guard takes its job down. The next run of any campaign
# in the database marks both attempts interrupted.
start_both cpus-kill
kill -KILL $RUNNER
wait $RUNNER || true
no_trial_left "after SIGKILL of mtrun"
capture "$MTRUN" --db "$DB" run cpus.yaml
expect_eq "$RC" 0 "the finished campaign, again"
expect_contains "$OUT" "2 attempt(s) left running by a stopped mtrun are now marked interrupted" "recovery"
echo "PASS"
