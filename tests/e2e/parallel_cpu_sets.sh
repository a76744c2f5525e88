#!/usr/bin/env bash
# `parallel: 2` on this machine with a CPU set per trial in flight: two mpirun jobs at once, each
# under taskset on its own CPU, recorded one attempt each at overlapping times; Ctrl-C while both
# run terminates both (interrupted, exit 130) and leaves no process behind.
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

# Ctrl-C with both running: both are terminated and recorded interrupted.
sed -e 's/name: cpus/name: cpus-stop/' -e 's/sleep: \[2, 3\]/sleep: [60, 61]/' cpus.yaml > stop.yaml
"$MTRUN" --db "$DB" run stop.yaml > stop.log 2>&1 &
RUNNER=$!
for _ in $(seq 1 300); do
  [ "$(sql "select count(*) from attempts a join trials t on t.id = a.trial_id join campaigns c on c.id = t.campaign_id
    where c.experiment = 'cpus-stop' and a.state = 'running'" 2>/dev/null)" == 2 ] && break
  sleep 0.1
done
sleep 1
kill -INT $RUNNER
set +e; wait $RUNNER; RC=$?; set -e
cat stop.log
expect_eq "$RC" 130 "exit code after Ctrl-C"
expect_eq "$(sql "select group_concat(a.state) from attempts a join trials t on t.id = a.trial_id
  join campaigns c on c.id = t.campaign_id where c.experiment = 'cpus-stop'")" "interrupted,interrupted" "both interrupted"
for _ in $(seq 1 50); do pgrep -f "sleep 6[01]" >/dev/null || break; sleep 0.1; done
expect_eq "$(pgrep -af "sleep 6[01]" || true)" "" "no trial process left"
echo "PASS"
