#!/usr/bin/env bash
# The machine's conditions around every attempt, with real processes: a CPU hog on every core makes
# attempts `disturbed` (named with their reasons in the report, left out of its means), doctor and
# `run` warn about it, --require-quiet refuses to time on it (exit 3), --wait-quiet says it waited.
# A shuffled order is reproducible and recorded; adaptive repeats stop at min for a tight
# configuration and at max for a noisy one.
#
# The quiet half needs a quiet machine, which a shared build host is not always: it waits for one
# (--wait-quiet) and is skipped (exit 77) when none comes, rather than blaming mtrun for the
# neighbours. The busy half cannot be fooled that way: its hogs occupy every core, so the verdict
# does not depend on what else runs — the threshold is in % of one core, and the hogs alone exceed
# it many times over whatever the job itself uses (its own CPU time is subtracted).
source "$(dirname "$0")/lib.sh"
export MTENGINE=/bin/true  # command workloads only: no engine is launched
DB="$WORK/results/mtrun.sqlite"
CORES=$(nproc)
HOGS=()
start_hogs() { for _ in $(seq "$CORES"); do timeout "$1" sh -c 'while :; do :; done' & HOGS+=($!); done; sleep 0.5; }
stop_hogs() { for pid in "${HOGS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait "${HOGS[@]}" 2>/dev/null || true; HOGS=(); }
trap 'stop_hogs; rm -rf "$WORK"' EXIT

# Shuffled order: the same seed gives the same order, different from matrix order, and is recorded.
cat > "$WORK/order.yaml" <<'YAML'
name: order
order: shuffled
seed: 11
repeat: 2
studies:
  - name: s
    workload: command
    launch: direct
    command: [echo, "value: {cfg}"]
    matrix:
      cfg: [1, 2, 3, 4, 5, 6]
    metrics:
      value: {regex: 'value: ([0-9]+)'}
YAML
sed 's/^order: shuffled$/order: interleaved/; /^seed:/d' "$WORK/order.yaml" > "$WORK/interleaved.yaml"
order_of() { "$MTRUN" plan "$1" | grep -o 'cfg=[0-9] rep [0-9]' | tr '\n' ' '; }
FIRST=$(order_of "$WORK/order.yaml")
expect_eq "$(order_of "$WORK/order.yaml")" "$FIRST" "the same seed plans the same order"
[ "$FIRST" != "$(order_of "$WORK/interleaved.yaml")" ] || fail "a shuffled plan equals matrix order: $FIRST"
expect_eq "$(order_of "$WORK/interleaved.yaml")" "cfg=1 rep 0 cfg=2 rep 0 cfg=3 rep 0 cfg=4 rep 0 cfg=5 rep 0 cfg=6 rep 0 cfg=1 rep 1 cfg=2 rep 1 cfg=3 rep 1 cfg=4 rep 1 cfg=5 rep 1 cfg=6 rep 1 " "interleaved is matrix order, round by round"
expect_contains "$("$MTRUN" plan "$WORK/order.yaml")" "order: shuffled (seed 11), as listed" "plan names the order"
ROUND0=$(printf '%s\n' $FIRST | paste -d' ' - - - | head -6 | grep -c ' rep 0$')
expect_eq "$ROUND0" 6 "a round is shuffled within itself"
capture "$MTRUN" --db "$WORK/order.sqlite" run "$WORK/order.yaml"
expect_eq "$RC" 0 "shuffled run"
expect_contains "$OUT" "order shuffled (seed 11)" "run names the order"
DB="$WORK/order.sqlite"
expect_eq "$(sql "select run_order || ' ' || seed from campaigns")" "shuffled 11" "the order is recorded"
RAN=$(sql "select 'cfg=' || json_extract(t.parameters, '$.cfg') || ' rep ' || t.repeat_index from attempts a join trials t on t.id = a.trial_id order by a.id" | tr '\n' ' ')
expect_eq "$RAN" "$FIRST" "trials ran in the planned order"
expect_contains "$("$MTRUN" --db "$DB" report)" "Trials ran in shuffled order (seed 11)." "the report says which order ran"
echo "PASS (order)"

# --settle: a pause with nothing running before each trial, said in the progress line and seen in
# the stamps: every trial started at least that long after the one before it finished. The stamps
# are to the millisecond, and a difference of julianday values is not exact (1.500 s can read
# 1.49997): it is rounded to the millisecond before it is compared.
sed 's/cfg: \[1, 2, 3, 4, 5, 6\]/cfg: [1, 2]/; s/^repeat: 2$/repeat: 1/' "$WORK/order.yaml" > "$WORK/settle.yaml"
DB="$WORK/settle.sqlite"
capture "$MTRUN" --db "$DB" run --settle 1.5 "$WORK/settle.yaml"
expect_eq "$RC" 0 "run --settle 1.5"
expect_eq "$(grep -c '(settled 1.5 s)' <<<"$OUT")" 2 "each trial's progress line says it settled"
expect_eq "$(sql "select count(*) from attempts")" 2 "both trials ran"
expect_eq "$(sql "select count(*) from attempts a join attempts b on b.id = a.id + 1
  where round((julianday(b.started_at) - julianday(a.finished_at)) * 86400000) >= 1500")" 1 "the second started 1.5 s after the first finished"
expect_eq "$(sql "select count(*) from attempts where settle_s >= 1.5 and quiet_wait_s is null and quiet_found is null")" 2 \
  "each attempt records its settle, and no look it did not take"
expect_contains "$("$MTRUN" --db "$DB" report)" \
  "Before each of the 2 measured attempts mtrun waited 1.5 s with nothing running (\`run --settle\`)." \
  "the report says the measured attempts were settled"
capture "$MTRUN" --db "$DB" show "$(sql "select identity from trials order by ordinal limit 1")"
expect_contains "$OUT" "before attempt 1: settled 1.5 s" "show says what was done before the attempt"
# Trials one at a time: mtrun timed its host's cores before and after each job.
if [ "$CORES" -ge 2 ]; then
  expect_eq "$(sql "select count(*) from conditions where core_round_trip_ns_before > 0 and core_round_trip_ns_after > 0")" 2 \
    "each attempt records the core round trip before and after its job"
  expect_contains "$OUT" "core round trip after" "show gives the core round trips"
fi
# --wait-quiet: the look is timed and what it found kept (either, depending on the machine now).
DB="$WORK/settle_look.sqlite"
capture "$MTRUN" --db "$DB" run --wait-quiet 3 "$WORK/settle.yaml"
expect_eq "$RC" 0 "run --wait-quiet 3"
expect_eq "$(sql "select count(*) from attempts where settle_s is null and quiet_wait_s >= 1
  and quiet_found in ('quiet', 'busy')")" 2 "each attempt records its look and what it found"
expect_eq "$(sql "select count(*) from conditions where quiet_wait_s >= 1 and quiet_where = 'runner_host'")" 2 \
  "the conditions view shows the look, taken on mtrun's host"
expect_contains "$("$MTRUN" --db "$DB" report)" "looked for a quiet machine on mtrun's host (\`run --wait-quiet\`)" \
  "the report says the machine was looked at before the measured attempts"
DB="$WORK/settle.sqlite"
capture "$MTRUN" --db "$DB" run --settle -1 "$WORK/settle.yaml"
expect_eq "$RC" 2 "a negative --settle is refused"
expect_contains "$OUT" "--settle" "the refusal names the flag"
# The experiment itself may ask for it (conditions: settle_s), so that `mtrun run FILE` measures as
# its report did; plan says so, a flag overrides it, and rerun settles as the campaign's run did.
sed 's/^repeat: 1$/repeat: 1\nconditions: {settle_s: 1.5}/' "$WORK/settle.yaml" > "$WORK/settle_declared.yaml"
capture "$MTRUN" plan "$WORK/settle_declared.yaml"
expect_contains "$OUT" "before each trial: settle 1.5 s with nothing running" \
  "plan says what the experiment asks for before each trial"
expect_contains "$OUT" "; at least 3s of settling over these 2 trials" "and what it costs"
DB="$WORK/settle_declared.sqlite"
capture "$MTRUN" --db "$DB" run "$WORK/settle_declared.yaml"
expect_eq "$RC" 0 "run of an experiment that settles"
expect_eq "$(grep -c '(settled 1.5 s)' <<<"$OUT")" 2 "the experiment's settle applies with no flag"
expect_eq "$(sql "select count(*) from attempts where settle_s >= 1.5")" 2 "each attempt records the experiment's settle"
DB="$WORK/settle_overridden.sqlite"
capture "$MTRUN" --db "$DB" run --settle 0 "$WORK/settle_declared.yaml"
expect_eq "$RC" 0 "run --settle 0"
expect_eq "$(grep -c 'settled' <<<"$OUT")" 0 "--settle 0 overrides the experiment's settle"
expect_eq "$(sql "select count(*) from attempts where settle_s is null")" 2 "no attempt records a settle it did not do"
sed 's/command: \[echo, "value: {cfg}"\]/command: [sh, -c, "test {cfg} = 1 || exit 3; echo value: {cfg}"]/' \
  "$WORK/settle_declared.yaml" > "$WORK/settle_fails.yaml"
DB="$WORK/settle_rerun.sqlite"
capture "$MTRUN" --db "$DB" run "$WORK/settle_fails.yaml"
expect_eq "$RC" 1 "a campaign with a failing trial"
capture "$MTRUN" --db "$DB" rerun --failed
expect_eq "$(grep -c '(settled 1.5 s)' <<<"$OUT")" 1 "rerun settles as the campaign's experiment asked"
echo "PASS (settle)"

# A campaign of short trials whose own CPU use is real (a busy loop inside the job).
cat > "$WORK/timed.yaml" <<'YAML'
name: timed
repeat: 2
studies:
  - name: t
    workload: command
    launch: direct
    command: [python3, -c, "import time\nt = time.time()\nwhile time.time() - t < 0.8: pass\nprint('value: {cfg}')"]
    matrix:
      cfg: [10, 20]
    metrics:
      value: {regex: 'value: ([0-9]+)'}
YAML

# Busy: a hog on every core for the whole campaign.
DB="$WORK/busy.sqlite"
start_hogs 120
capture "$MTRUN" doctor
expect_contains "$OUT" "warn  load      other processes used" "doctor warns about a busy machine"
expect_contains "$OUT" "% of a core over 1.0 s" "doctor says how much and over how long"
capture "$MTRUN" --db "$DB" run --require-quiet "$WORK/timed.yaml"
expect_eq "$RC" 3 "--require-quiet refuses a busy machine"
expect_contains "$OUT" "mtrun: the machine is busy (other processes used" "refusal message"
expect_contains "$OUT" "; not starting (--require-quiet)" "refusal says why"
expect_eq "$(sql "select count(*) from attempts")" 0 "nothing timed after a refusal"
# Ctrl-C while it waits for a quiet machine stops it cleanly: what it printed is kept (the output is
# a pipe here), it says it stopped, and no attempt is left behind.
"$MTRUN" --db "$DB" run --require-quiet --wait-quiet 60 "$WORK/timed.yaml" > "$WORK/waiting.out" 2> "$WORK/waiting.err" &
WAITING=$!
sleep 3
kill -INT "$WAITING"
wait "$WAITING" && RC=0 || RC=$?
expect_eq "$RC" 130 "Ctrl-C while waiting for a quiet machine"
expect_contains "$(cat "$WORK/waiting.out")" "experiment timed: campaign" "what it printed before is kept"
expect_contains "$(cat "$WORK/waiting.err")" "mtrun: stopped before any trial started" "it says it stopped"
expect_eq "$(sql "select count(*) from attempts")" 0 "nothing timed after a stop"
capture "$MTRUN" --db "$DB" run --wait-quiet 1.5 "$WORK/timed.yaml"
expect_eq "$RC" 0 "a busy run still runs"
expect_contains "$OUT" "warning: the machine is busy: other processes used" "run warns at the start"
expect_contains "$OUT" "(still busy after 2 s: other processes used" "--wait-quiet says it waited in vain"
expect_contains "$OUT" "disturbed: other processes used" "the progress line names the disturbance"
# The run's summary, like reports, leaves them out of means and counts them apart.
expect_contains "$(grep '^t  *cfg=10 ' <<<"$OUT")" "0/2 (2 disturbed)" "the summary counts disturbed attempts apart"
expect_contains "$OUT" "4 attempt(s) ran on a disturbed machine (mtrun query \"select * from conditions where verdict = 'disturbed'\"); the summary, the answers and reports leave them out of means" "and says so"
! grep -qF -- "--wait-quiet SECONDS (without it" <<<"$OUT" || fail "trials that waited for a quiet machine are not told to wait: $OUT"
STATUS=$("$MTRUN" --db "$DB" status)
expect_contains "$STATUS" "ran on a disturbed machine: left out of means; \`mtrun rerun --disturbed\` measures them again" \
  "status says how to measure the disturbed ones again"
! grep -qF -- "--wait-quiet SECONDS" <<<"$STATUS" || fail "status tells attempts that waited for a quiet machine to wait: $STATUS"
stop_hogs
expect_eq "$(sql "select count(*) from conditions where verdict = 'disturbed'")" 4 "every attempt under the hogs is disturbed"
expect_eq "$(sql "select count(*) from conditions where reasons like '[\"other processes used %'")" 4 "the reason is recorded"
expect_eq "$(sql "select count(*) from attempt_conditions where job_cpu_s > 0.1 and samples like '[{\"%'")" 4 "the job's own CPU time and samples are recorded"
REPORT=$("$MTRUN" --db "$DB" report)
expect_contains "$REPORT" "4 attempts ran on a disturbed machine: \`t cfg=10 rep 0\` (other processes used" "the summary names the disturbed attempts"
expect_contains "$REPORT" "They are left out of the means (\`mtrun report --keep-disturbed\` keeps them, \`mtrun rerun --disturbed\` measures them again)." "and leaves them out"
expect_contains "$REPORT" "\`t cfg=20\`: every one of its 2 successful attempts ran on a disturbed machine; it is not averaged and appears in no table." "an all-disturbed configuration is shown as such"
grep -q "Workload command" <<<"$REPORT" && fail "a disturbed configuration was averaged: $REPORT"
KEPT=$("$MTRUN" --db "$DB" report --keep-disturbed)
expect_contains "$KEPT" "They are averaged in with the rest (kept on request)." "--keep-disturbed keeps them"
expect_contains "$KEPT" "Workload command" "kept attempts are averaged"
echo "PASS (busy machine)"

# The other hosts' load as the job's ranks saw it (`rank_host_window`): a job that says it ran on a
# host of another kernel, where other processes used 2 CPUs' worth beside its own 1 s, is disturbed
# by that host; one whose host was quiet, or that ran on mtrun's own host, is not judged by it.
cat > "$WORK/elsewhere.yaml" <<YAML
name: elsewhere
studies:
  - name: s
    workload: command
    launch: direct
    command: [sh, -c, "printf '%s' \"\$0\" > {result_file}", "{json}"]
    matrix:
      json:
        - '{"hosts": ["far-1"], "rank_host_window": [{"wall_s": 2, "cpus": 4, "busy_cpu_s": 5, "own_cpu_s": 1, "steal_pct": 9, "boot_id": "another-kernel"}]}'
        - '{"hosts": ["far-2"], "rank_host_window": [{"wall_s": 2, "cpus": 4, "busy_cpu_s": 1.1, "own_cpu_s": 1, "steal_pct": 0, "boot_id": "another-kernel"}]}'
        - '{"hosts": ["$(hostname)"], "rank_host_window": [{"wall_s": 2, "cpus": 4, "busy_cpu_s": 5, "own_cpu_s": 1, "steal_pct": 9, "boot_id": ""}]}'
YAML
DB="$WORK/elsewhere.sqlite"
capture "$MTRUN" --db "$DB" run "$WORK/elsewhere.yaml"
echo "$OUT"
expect_eq "$RC" 0 "the run of jobs on other hosts"
reasons_of() {
  sql "select coalesce(ac.reasons, '') from attempt_conditions ac join attempts a on a.id = ac.attempt_id
    join trials t on t.id = a.trial_id where t.parameters like '%$1%'"
}
expect_contains "$(reasons_of far-1)" "host far-1: other processes used 200 % of a core" "the busy host's CPU"
expect_contains "$(reasons_of far-1)" "host far-1: the hypervisor took 9 % of the CPUs' time (steal)" "the busy host's steal"
expect_eq "$(reasons_of far-2 | grep -c "host far" || true)" 0 "the quiet host"
expect_eq "$(reasons_of "$(hostname)" | grep -c "host " || true)" 0 "mtrun's own host, judged by mtrun's own reading"
capture "$MTRUN" --db "$DB" show "$(sql "select identity from trials where parameters like '%far-1%'")"
expect_contains "$OUT" "the job's hosts, as its ranks read them over the job:" "mtrun show of the job on another host"
expect_eq "$(grep -E "^far-1 +4 +2\.0 +200\.0 +9\.0" <<<"$OUT" | wc -l)" 1 "its host's row: CPUs, window, other processes, steal"
echo "PASS (other hosts)"

# rerun --disturbed measures again the trials whose reported attempt was disturbed, and only those;
# --failed leaves them alone. The job says its host (another one) was busy until a file exists, so
# the verdicts do not depend on this machine; cfg=3 always fails.
FLAG="$WORK/host_quiet_now"
printf '%s' '{"hosts": ["far-1"], "rank_host_window": [{"wall_s": 2, "cpus": 4, "busy_cpu_s": 5, "own_cpu_s": 1, "steal_pct": 0, "boot_id": "another-kernel"}]}' > "$WORK/busy_host.json"
printf '%s' '{"hosts": ["far-1"], "rank_host_window": [{"wall_s": 2, "cpus": 4, "busy_cpu_s": 1.1, "own_cpu_s": 1, "steal_pct": 0, "boot_id": "another-kernel"}]}' > "$WORK/quiet_host.json"
cat > "$WORK/redo.yaml" <<YAML
name: redo
repeat: 2
studies:
  - name: s
    workload: command
    launch: direct
    command: [sh, -c, "if [ -e $FLAG ]; then cat $WORK/quiet_host.json; else cat $WORK/busy_host.json; fi > {result_file}; test {cfg} != 3"]
    matrix:
      cfg: [1, 2, 3]
YAML
DB="$WORK/redo.sqlite"
capture "$MTRUN" --db "$DB" run "$WORK/redo.yaml"
expect_eq "$RC" 1 "a campaign with disturbed and failing trials"
expect_contains "$OUT" "the summary, the answers and reports leave them out of means, and \`mtrun rerun --disturbed\` measures them again" \
  "run says how to measure the disturbed trials again"
expect_contains "$OUT" "measures them again, on a quiet machine with --wait-quiet SECONDS (without it they run at once, busy or not, as do trials run in parallel;" \
  "and that waiting for a quiet machine is what makes that measurement differ"
STATUS=$("$MTRUN" --db "$DB" status)
expect_contains "$STATUS" "6 trials: 4 succeeded, 2 not succeeded, 0 not finished" "status counts the trials"
expect_contains "$STATUS" "4 of the succeeded ran on a disturbed machine: left out of means; \`mtrun rerun --disturbed\` measures them again, on a quiet machine with --wait-quiet SECONDS (without it" \
  "and says how to measure the disturbed ones again: they did not wait for a quiet machine"
capture "$MTRUN" --db "$DB" rerun
expect_eq "$RC" 2 "rerun without a selection"
expect_contains "$OUT" "mtrun: rerun needs --failed, --disturbed or both: which trials to run again" "says what it needs"
capture "$MTRUN" --db "$DB" rerun --failed
expect_contains "$OUT" "2 trial(s) to run again (2 did not succeed, 0 never started)" "--failed leaves disturbed trials alone"
touch "$FLAG"
capture "$MTRUN" --db "$DB" rerun --disturbed
expect_eq "$RC" 0 "rerun --disturbed"
expect_contains "$OUT" "4 trial(s) to run again (4 ran on a disturbed machine)" "--disturbed selects the disturbed trials"
expect_eq "$(sql "select json_extract(t.parameters, '$.cfg') || ' rep ' || t.repeat_index || ': attempt ' || a.attempt || ' ' ||
  ac.verdict from attempts a join trials t on t.id = a.trial_id join attempt_conditions ac on ac.attempt_id = a.id
  where a.state = 'succeeded' and a.attempt > 1 order by t.ordinal" | tr '\n' ,)" \
  "1 rep 0: attempt 2 quiet,2 rep 0: attempt 2 quiet,1 rep 1: attempt 2 quiet,2 rep 1: attempt 2 quiet," \
  "each disturbed trial ran once more, as a new attempt, quietly now"
expect_eq "$("$MTRUN" --db "$DB" report | grep -c 'ran on a disturbed machine' || true)" 0 \
  "the report's numbers come from the new attempts"
capture "$MTRUN" --db "$DB" rerun --failed --disturbed
expect_contains "$OUT" "2 trial(s) to run again (2 did not succeed, 0 never started; 0 ran on a disturbed machine)" \
  "both selections, each counted"
echo "PASS (rerun --disturbed)"

# Adaptive repeats, judged whatever the machine does (disturbance thresholds out of reach here).
cat > "$WORK/adaptive.yaml" <<'YAML'
name: adaptive
repeat: {min: 3, max: 6, target_ci_pct: 2}
conditions: {max_foreign_cpu_pct: 100000, max_steal_pct: 100, max_cpu_pressure_pct: 100000,
             max_core_round_trip_rise_pct: 100000}
studies:
  - name: tight
    workload: command
    launch: direct
    command: [echo, "value: 100"]
    metrics:
      value: {regex: 'value: ([0-9]+)'}
  - name: noisy
    workload: command
    launch: direct
    command: [bash, -c, 'echo "value: $((RANDOM % 100 + 50))"']
    metrics:
      value: {regex: 'value: ([0-9]+)'}
YAML
DB="$WORK/adaptive.sqlite"
capture "$MTRUN" plan "$WORK/adaptive.yaml"
expect_contains "$OUT" "noisy (1 configuration): after 3 rounds, another round of a configuration while its value 95 % CI is wider than ±2 % of its mean, up to 6 rounds: at most 3 more trials" \
  "the plan says what adaptive repeats may add"
capture "$MTRUN" --db "$DB" run "$WORK/adaptive.yaml"
expect_eq "$RC" 0 "adaptive run"
expect_contains "$OUT" "adaptive repeats: round 4 of noisy" "the progress says a round was added and why"
expect_contains "$OUT" "not counted): reached the target: tight (3 rounds, ±0.0 %); stopped at max: noisy (6 rounds" \
  "the run ends saying who reached the target and who stopped at max"
expect_eq "$(sql "select study || '=' || count(*) from trials group by study order by study")" "noisy=6
tight=3" "tight stops at min, noisy reaches max"
capture "$MTRUN" --db "$DB" status
expect_contains "$OUT" "not counted): reached the target: tight (3 rounds, ±0.0 %); stopped at max: noisy (6 rounds" \
  "status says where each adaptive configuration stands"
capture "$MTRUN" --db "$DB" run "$WORK/adaptive.yaml"
expect_eq "$(sql "select count(*) from trials")" 9 "re-running a finished campaign adds no rounds"
expect_contains "$OUT" "0 to run" "nothing to run again"
REPORT=$("$MTRUN" --db "$DB" report)
expect_contains "$REPORT" "counted): reached the target: \`tight\` (3 rounds, ±0.0 %); stopped at max: \`noisy\` (6 rounds" \
  "the report names who reached the target and who stopped at max"
echo "PASS (adaptive repeats)"

# Quiet: the same campaign flags nothing — on a machine that is quiet, which this test waits for.
DB="$WORK/quiet.sqlite"
capture "$MTRUN" --db "$DB" run --require-quiet --wait-quiet 60 "$WORK/timed.yaml"
if [ "$RC" == 3 ]; then
  echo "SKIP (quiet machine): the machine stayed busy for 60 s: $OUT"
  exit 77
fi
expect_eq "$RC" 0 "quiet run"
# A VM's host may hold its cores far apart for seconds at a time whatever runs in the VM: an
# attempt beside that state is disturbed by the host, not by mtrun's CPU rules, which this half tests.
CORES_APART=$(sql "select count(*) from conditions where verdict = 'disturbed'
  and reasons like '[\"core-to-core round trip %' and reasons not like '%\",\"%'")
[ "$CORES_APART" == 0 ] || echo "note: $CORES_APART attempt(s) beside far-apart cores: $(sql "select reasons from conditions")"
DISTURBED=$(( $(sql "select count(*) from conditions where verdict = 'disturbed'") - CORES_APART ))
if [ "$DISTURBED" != 0 ]; then
  # A neighbour may have started mid-campaign: if the machine is busy now, that is not mtrun's doing.
  "$MTRUN" doctor | grep -q "warn  load" && { echo "SKIP (quiet machine): it became busy: $(sql "select reasons from conditions")"; exit 77; }
  fail "attempts on a quiet machine were judged disturbed: $(sql "select reasons from conditions")"
fi
expect_eq "$(sql "select count(*) from conditions where verdict = 'quiet'")" $((4 - CORES_APART)) "every attempt judged quiet"
REPORT=$("$MTRUN" --db "$DB" report)
[ "$CORES_APART" == 0 ] && grep -q "disturbed machine" <<<"$REPORT" && fail "a quiet campaign's report names disturbances"
# Its attempts read the cores: look and doctor judge a reading now against that campaign's usual
# (the cores are timed only after a look that reads quiet, which a neighbour may deny at the moment).
if [ "$CORES" -ge 2 ]; then
  CAMPAIGN=$(sql "select id from campaigns")
  expect_cores_line() {  # OUTPUT TEXT WHAT: the cores' line contains TEXT, where the cores were timed
    local line
    line=$(grep -E "^cores: |  core trip " <<<"$1" || true)
    if [ -z "$line" ]; then echo "note: not checked ($3): the load was not quiet at the look: $1"; return; fi
    expect_contains "$line" "$2" "$3"
  }
  expect_cores_line "$("$MTRUN" --db "$DB" look)" " of campaign $CAMPAIGN" "look judges the cores by the campaign that read them"
  expect_cores_line "$("$MTRUN" --db "$DB" doctor)" " of campaign $CAMPAIGN" "and so does doctor"
  expect_cores_line "$("$MTRUN" --db "$WORK/no_such.sqlite" look)" "nothing to judge it by" \
    "without such a campaign the reading stands alone"
fi
# --wait-quiet waits for a hog that ends, and says so.
start_hogs 3
capture "$MTRUN" --db "$DB" run --force --wait-quiet 30 "$WORK/timed.yaml"
stop_hogs
expect_contains "$OUT" "for a quiet machine)" "--wait-quiet says it waited"
echo "PASS (quiet machine)"
