#!/usr/bin/env bash
# The slurm launcher against real daemons: a single-node cluster of its own (munged, slurmctld,
# slurmd), a 2-rank study through `srun --mpi=pmix` and one through `sbatch --wait`,
# and a trial that times out leaving no job and no rank behind, also when mtrun is killed and when
# it runs inside an allocation (salloc). Stops only the daemons it started.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
DB="$WORK/results/mtrun.sqlite"
slurm_setup
# A busy loop some checks start is stopped with the daemons, also when a check fails.
trap 'if [ -n "${BURNER:-}" ]; then kill "$BURNER" 2>/dev/null || true; fi; slurm_stop; rm -rf "$WORK"' EXIT
slurm_start_munged
read -r CTLD_PORT SLURMD_PORT < <(slurm_free_ports)
slurm_write_conf localhost 127.0.0.1 "$CTLD_PORT" "$SLURMD_PORT" \
  "NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN" localhost
slurm_start_daemon slurmctld slurmctld -f "$SLURM_CONF" -i -D
slurm_start_daemon slurmd slurmd -f "$SLURM_CONF" -N localhost -D
slurm_wait_idle localhost

TINY="vocab_size: 256, d_model: 32, n_heads: 2, n_layers: 1, seq_length: 16, batch_size: 2"
cat > "$WORK/slurm.yaml" <<YAML
name: slurm
timeout_s: 120
launcher: {type: slurm}
studies:
  - name: ok
    workload: train
    defaults: {$TINY, steps: 3, warmup_steps: 1}
    matrix: {ranks: [2]}
  - name: slow
    workload: train
    timeout_s: 4
    defaults: {$TINY, steps: 10000000, warmup_steps: 1}
    matrix: {ranks: [2]}
YAML

no_job_or_rank_left() {
  for _ in $(seq 1 100); do [ -z "$(squeue -h)" ] && break; sleep 0.1; done
  expect_eq "$(squeue -h)" "" "jobs left in squeue $1"
  # A cancelled job's tasks get SIGTERM, then SIGKILL after KillWait (2 s here), and slurmstepd may
  # be slow to deliver them on a loaded machine: waited for by the clock.
  local deadline=$((SECONDS + 30))
  while pgrep -f -- "--output $WORK/" >/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  expect_eq "$(pgrep -af -- "--output $WORK/" || true)" "" "mtengine processes left $1"
}

ENGINE=()
[ -n "${MTENGINE:-}" ] && ENGINE=(--engine "$MTENGINE")
cd "$WORK"
capture "$MTRUN" --db "$DB" run "${ENGINE[@]}" slurm.yaml
echo "$OUT"
expect_eq "$RC" 1 "run exit code with one trial timed out"
state_of() { sql "select a.state from attempts a join trials t on t.id=a.trial_id where t.study='$1'"; }
expect_eq "$(state_of ok)" succeeded "the 2-rank trial through srun"
expect_eq "$(sql "select count(distinct s.rank) from step_metrics s join attempts a on a.id=s.attempt_id join trials t on t.id=a.trial_id where t.study='ok' and s.name='step_time_ms'")" 2 "per-rank step series"
# The recorded command shows the environment values it ran with, then srun.
command=$(sql "select a.command from attempts a join trials t on t.id=a.trial_id where t.study='ok'")
expect_contains "$command" "OMP_NUM_THREADS=" "attempt command"
expect_contains "$command" " srun --mpi=pmix " "attempt command"
expect_eq "$(state_of slow)" timed_out "the slow trial"
# The ranks are slurmstepd's children, not mtrun's: the CPU times they report (rank_cpu_s) count as
# the job's, not as another process's load on the machine.
expect_eq "$(sql "select json_array_length(a.result_json, '$.rank_cpu_s') from attempts a join trials t on t.id=a.trial_id where t.study='ok'")" \
  2 "CPU times of both ranks in the result"
expect_eq "$(sql "select c.job_cpu_s > 0 and c.job_cpu_s >= (select sum(value) from json_each(a.result_json, '$.rank_cpu_s'))
  from attempt_conditions c join attempts a on a.id = c.attempt_id join trials t on t.id = a.trial_id where t.study='ok'")" \
  1 "the job's CPU takes in its ranks' own"

no_job_or_rank_left "after the timeout"

# A command's ranks report no CPU time of their own, and slurmstepd starts them, not mtrun: they
# carry the job's name in their environment (MTRUN_JOB), found by it, and their CPU time is the job's
# rather than other processes' load on the machine.
cat > burn.yaml <<YAML
name: burn
timeout_s: 60
launcher: {type: slurm}
studies:
  - name: burn
    workload: command
    command: [sh, -c, "i=0; while [ \$i -lt 1500000 ]; do i=\$((i+1)); done; echo burned: \$i"]
    matrix: {ranks: [2]}
    metrics:
      burned: {regex: 'burned: ([0-9]+)'}
YAML
DB="$WORK/burn/mtrun.sqlite"
capture "$MTRUN" --db "$DB" run "${ENGINE[@]}" burn.yaml
echo "$OUT"
expect_eq "$RC" 0 "a command's two ranks under srun"
expect_eq "$(sql "select job_cpu_s > 1.0 from conditions")" 1 \
  "the ranks' CPU time counted as the job's ($(sql "select job_cpu_s || ' s of ' || wall_s || ' s' from conditions"))"
expect_eq "$(sql "select foreign_cpu_pct < 50 from conditions")" 1 \
  "other processes' share ($(sql "select foreign_cpu_pct from conditions") % of a core)"
DB="$WORK/results/mtrun.sqlite"

# A trial queued behind another job: its timeout counts from its start, not from its launch; and
# one still queued after the launcher's queue_timeout_s is stopped as a trial that never started.
block_the_node() {
  BLOCKER=$(sbatch --parsable -n "$(nproc)" --job-name blocker --wrap "sleep 300")
  for _ in $(seq 1 100); do [ "$(squeue -h -j "$BLOCKER" -o %T)" == RUNNING ] && break; sleep 0.1; done
  expect_eq "$(squeue -h -j "$BLOCKER" -o %T)" RUNNING "the job that takes every CPU of the node"
}
sed -e '/- name: slow/,$d' -e 's/timeout_s: 120/timeout_s: 15/' slurm.yaml > queued.yaml
block_the_node
"$MTRUN" --db "$WORK/queued/mtrun.sqlite" run "${ENGINE[@]}" queued.yaml > queued.log 2>&1 &
RUNNER=$!
QUEUED_SINCE=$SECONDS
# Meanwhile `mtrun status` shows the trial as queued, with the scheduler's word on it.
for _ in $(seq 1 60); do
  STATUS=$("$MTRUN" --db "$WORK/queued/mtrun.sqlite" status 2>&1 || true)
  [[ $STATUS == *"waits in the scheduler's queue"* ]] && break
  sleep 0.25
done
echo "$STATUS"
expect_contains "$STATUS" "queued: its job waits in the scheduler's queue (PENDING" "mtrun status while the job is queued"
LEFT=$((18 - (SECONDS - QUEUED_SINCE)))  # 18 s: longer than the trial's timeout_s, all of it in the queue
if [ $LEFT -gt 0 ]; then sleep $LEFT; fi
scancel "$BLOCKER"
set +e; wait $RUNNER; RC=$?; set -e
cat queued.log
expect_eq "$RC" 0 "mtrun with a trial queued longer than its timeout"
DB="$WORK/queued/mtrun.sqlite"
expect_eq "$(state_of ok)" succeeded "the trial queued for 18 s with a 15 s timeout"
expect_contains "$(cat "$(sql "select log_path from attempts")")" "mtrun: the job waited " "the queued trial's log"

sed -e 's/{type: slurm}/{type: slurm, queue_timeout_s: 3}/' queued.yaml > queue_limit.yaml
block_the_node
DB="$WORK/queue_limit/mtrun.sqlite"
capture "$MTRUN" --db "$DB" run "${ENGINE[@]}" queue_limit.yaml
echo "$OUT"
expect_eq "$RC" 1 "mtrun with a trial still queued after queue_timeout_s"
expect_eq "$(state_of ok)" timed_out "the trial that never left the queue"
expect_contains "$(sql "select error_reason from attempts")" "trial was still queued after" "its reason"
expect_contains "$(sql "select error_reason from attempts")" "it never started" "its reason"
expect_eq "$(squeue -h -o %j)" blocker "jobs left while the blocker runs: itself alone"
scancel "$BLOCKER"
no_job_or_rank_left "after the queued trials"
DB="$WORK/results/mtrun.sqlite"

# The same studies as batch jobs: sbatch --wait returns with the job's exit status; a batch job
# outlives a killed sbatch, so here the scancel backstop is what ends the slow one. A database of
# their own: the campaign's identity does not depend on the launcher.
DB="$WORK/batch/mtrun.sqlite"
sed -e 's/{type: slurm}/{type: slurm, mode: sbatch}/' slurm.yaml > batch.yaml
capture "$MTRUN" --db "$DB" run "${ENGINE[@]}" batch.yaml
echo "$OUT"
expect_eq "$RC" 1 "sbatch run exit code with one trial timed out"
# State, then the launcher word of the recorded command (after the environment values it shows).
batch_attempt() { sql "select a.state || ' ' || substr(a.command, instr(a.command, 'sbatch'), 13) from attempts a join trials t on t.id=a.trial_id where t.study='$1'"; }
expect_eq "$(batch_attempt ok)" "succeeded sbatch --wait" "the 2-rank trial through sbatch"
expect_eq "$(batch_attempt slow)" "timed_out sbatch --wait" "the slow trial through sbatch"
no_job_or_rank_left "after the sbatch timeout"
# mtrun itself waited until squeue no longer listed the job, and says so in the trial's log.
slow_log=$(sql "select a.log_path from attempts a join trials t on t.id=a.trial_id where t.study='slow'")
expect_contains "$(cat "$slow_log")" "nothing of the job is left" "the slow batch trial's log"

# What mtrun reads from a trial's log is there in both modes: a batch job writes its ranks' output
# to a file of its own, which mtrun appends to the log (a command's regex metric, a failure's
# reason); the reason is the job's own line, not srun's "task 0: Exited with exit code 2". The
# step's own options (step_args: --label, which salloc and sbatch refuse) reach srun in both modes.
for mode in srun sbatch; do
  cat > "output_$mode.yaml" <<YAML
name: output_$mode
timeout_s: 60
launcher: {type: slurm, mode: $mode, step_args: [--label]}
studies:
  - name: cmd
    workload: command
    command: [sh, -c, "echo speed: 42"]
    metrics:
      speed: {regex: "speed: ([0-9]+)"}
  - name: badflag
    workload: train
    defaults: {$TINY, steps: 3, warmup_steps: 1}
    engine_args: [--no-such-flag]
YAML
  DB="$WORK/output_$mode/mtrun.sqlite"
  capture "$MTRUN" --db "$DB" run "${ENGINE[@]}" "output_$mode.yaml"
  echo "$OUT"
  expect_eq "$RC" 1 "$mode: exit code with the bad flag"
  expect_eq "$(sql "select m.value from metrics m join attempts a on a.id = m.attempt_id where m.name = 'speed'")" \
    42.0 "$mode: the command's metric, read from the log"
  expect_contains "$(cat "$(sql "select a.log_path from attempts a join trials t on t.id = a.trial_id where t.study = 'cmd'")")" \
    "0: speed: 42" "$mode: srun labelled the rank's line (step_args)"
  expect_contains "$(sql "select a.error_reason from attempts a join trials t on t.id = a.trial_id where t.study = 'badflag'")" \
    "--no-such-flag" "$mode: the bad flag's reason"
done
expect_contains "$(cat "$(sql "select log_path from attempts limit 1")")" "mtrun: the job's own output" "the batch job's log"

# SIGKILL of mtrun while a batch job runs: mtrun cannot react, and its job guard's killing sbatch
# leaves the batch job running, so the guard must cancel the job itself.
DB="$WORK/killed/mtrun.sqlite"
sed -e '/- name: ok/,/matrix/d' -e 's/timeout_s: 4/timeout_s: 120/' batch.yaml > killed.yaml
"$MTRUN" --db "$DB" run "${ENGINE[@]}" killed.yaml > killed.log 2>&1 &
RUNNER=$!
for _ in $(seq 1 300); do [ -n "$(squeue -h -t R -o %j)" ] && break; sleep 0.1; done
expect_contains "$(squeue -h -t R -o %j)" "mtrun-" "the batch job running before mtrun is killed"
sleep 1
GUARD=$(pgrep -P $RUNNER -f -- " __guard " || true)  # not the squeue mtrun may be waiting for
kill -9 $RUNNER
wait $RUNNER || true
# The guard takes the job down (up to 5 s), then cancels it until squeue lists nothing (up to 60 s):
# wait that long by the clock, since a loaded machine makes each squeue slow.
deadline=$((SECONDS + 75))
while [ -n "$(squeue -h)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
if [ -n "$(squeue -h)" ]; then  # a job is left: what of the run is still there?
  echo "the job guard was PID ${GUARD:-(not found)}; processes now:"
  ps -eo pid,ppid,stat,etime,args | grep -E 'mtrun|sbatch|slurm_script' | grep -v grep || true
fi
if [ -n "$GUARD" ] && [ -d "/proc/$GUARD" ]; then  # the guard should be gone by now: what is it doing?
  echo "the job guard (PID $GUARD) is still there:"
  grep -E '^(State|PPid|SigPnd|ShdPnd|SigBlk|SigIgn|SigCgt)' "/proc/$GUARD/status" || true
  cat "/proc/$GUARD/stack" 2>/dev/null || true
  ps -o pid,stat,etime,args --ppid "$GUARD" || true
fi
no_job_or_rank_left "after SIGKILL of mtrun during a batch job"
expect_contains "$(find "$WORK/killed" -name log.txt -exec cat {} +)" "scancel --me --name mtrun-" \
  "the guard's cleanup in the trial's log"

# Inside an allocation (mtrun under salloc): each trial runs as a step of it, not as a job of its
# own; the timed-out one leaves no step behind, and the cleanup leaves the caller's allocation alone.
export WORK
inside_allocation() {  # salloc's command: mtrun, then what the allocation holds once it is done
  echo "$SLURM_JOB_ID" > "$WORK/alloc.id"
  "$@" > "$WORK/alloc.out" 2>&1
  local rc=$?
  squeue -h -o "%i %j %T" > "$WORK/alloc.jobs"
  squeue -h --steps -o "%i %j" > "$WORK/alloc.steps"
  return $rc
}
export -f inside_allocation
DB="$WORK/alloc/mtrun.sqlite"
capture salloc -n 2 --job-name mt-e2e-alloc bash -c 'inside_allocation "$@"' _ \
  "$MTRUN" --db "$DB" run "${ENGINE[@]}" slurm.yaml
cat "$WORK/alloc.out"
expect_eq "$RC" 1 "exit code of mtrun under salloc with one trial timed out"
expect_eq "$(state_of ok)" succeeded "the 2-rank trial as a step of the allocation"
expect_eq "$(state_of slow)" timed_out "the slow trial as a step of the allocation"
alloc=$(cat "$WORK/alloc.id")
expect_eq "$(cat "$WORK/alloc.jobs")" "$alloc mt-e2e-alloc RUNNING" "jobs once mtrun was done: the allocation alone"
expect_eq "$(grep -c mtrun- "$WORK/alloc.steps" || true)" 0 "trial steps left in the allocation"
# The timed-out trial's step is looked for among the allocation's steps (squeue lists no job of its
# name) until it is gone: a step srun left completing would hold the next trial's cores.
slow_log=$(sql "select a.log_path from attempts a join trials t on t.id = a.trial_id where t.study = 'slow'")
expect_contains "$(cat "$slow_log")" "squeue --me --steps --jobs $(cat "$WORK/alloc.id")" "the cleanup's look at the steps"
expect_contains "$(cat "$slow_log")" "lists nothing named mtrun-" "the timed-out step gone before mtrun went on"
# No job was queued for the trials: the next job's ID follows the allocation's.
next=$(sbatch --parsable --wrap true)
expect_eq "$next" "$((alloc + 1))" "the job queued after the allocation"
no_job_or_rank_left "after the allocation"

# The look for a quiet machine goes where the ranks run. A busy loop on this machine stands for a
# busy node: outside an allocation each trial gets nodes not known before it starts, so no look is
# taken before the trials (--require-quiet cannot be met) and each trial's job looks at its own
# nodes first (salloc, then `mtrun look --allocation`, then the step); inside one, `mtrun look
# --json` runs on each of its nodes through srun, and what it finds is named by the Slurm node's name.
cat > look.yaml <<YAML
name: look
timeout_s: 60
launcher: {type: slurm}
conditions: {wait_quiet_s: 3}
studies:
  - name: cmd
    workload: command
    command: [sh, -c, "echo ran"]
YAML
capture srun -n 1 "$MTRUN" look --json
expect_eq "$RC" 0 "mtrun look --json in a Slurm step: $OUT"
expect_contains "$OUT" '"node":"localhost"' "the step's reading names its Slurm node"
sh -c 'while :; do :; done' &
BURNER=$!
DB="$WORK/look_outside/mtrun.sqlite"
capture "$MTRUN" --db "$DB" plan look.yaml
expect_contains "$OUT" "before each trial: wait up to 3 s for a quiet machine on the job's own nodes, inside its job before its ranks start" \
  "plan outside an allocation"
expect_contains "$OUT" "salloc -n 1 --job-name mtrun sh -c '$MTRUN look --allocation --wait 3 --record RUN_DIR/quiet-look.json" \
  "the trial's command looks first"
capture "$MTRUN" --db "$DB" run "${ENGINE[@]}" --require-quiet look.yaml
expect_eq "$RC" 2 "--require-quiet outside an allocation"
expect_contains "$OUT" "--require-quiet: no machine to look at before the trials: each trial runs in a Slurm allocation of its own" \
  "its message"
capture "$MTRUN" --db "$DB" run "${ENGINE[@]}" look.yaml
echo "$OUT"
expect_eq "$RC" 0 "run outside an allocation with this machine busy"
expect_contains "$OUT" "note: no look for a quiet machine before the trials: each trial runs in a Slurm allocation of its own" \
  "the run's note"
expect_contains "$OUT" "each trial's job looks at its own nodes first, waiting up to 3 s" "the note says where the look went"
expect_contains "$OUT" "its job's look: still busy after" "the trial's line says what its job's look found"
expect_eq "$(sql "select state || ' ' || quiet_found || ' ' || (quiet_wait_s >= 3) || ' ' || quiet_where from attempts")" \
  "succeeded busy 1 job_nodes" "the job's own look, recorded with the attempt"
look_log=$(sql "select log_path from attempts")
expect_contains "$(cat "$look_log")" "mtrun look on the allocation's 1 node (srun): still busy after" "the job's look in its log"
expect_contains "$(cat "$look_log")" "node localhost: other processes used" "…naming the node"
expect_contains "$(cat "$look_log")" "ran" "the trial ran after its look"
capture "$MTRUN" --db "$DB" show "$(sql "select identity from trials")"
expect_contains "$OUT" "looked for a quiet machine on the job's own nodes for" "show says where the look was taken"
# Through salloc a trial is what it is under srun. slurm.yaml's trials with a wait for a quiet
# machine, and a command that fails: the 2 ranks run, the failing command's exit code comes back,
# and the trial that runs past its timeout (counted from the end of its look) leaves no job or rank.
{
  sed -e 's/^name: slurm$/name: look-jobs/' -e 's/^launcher: {type: slurm}$/&\nconditions: {wait_quiet_s: 1}/' \
    "$WORK/slurm.yaml"
  printf '%s\n' "  - name: fails" "    workload: command" '    command: [sh, -c, "echo failing; exit 3"]'
} > look_jobs.yaml
DB="$WORK/look_jobs/mtrun.sqlite"
capture "$MTRUN" --db "$DB" run "${ENGINE[@]}" look_jobs.yaml
echo "$OUT"
expect_eq "$RC" 1 "run through salloc with a failing and a slow trial"
expect_eq "$(sql "select group_concat(line, ', ') from (select t.study || ' ' || a.state || ' ' ||
  coalesce(a.exit_code, '-') || ' ' || a.quiet_where as line from attempts a join trials t on t.id = a.trial_id
  where t.study in ('fails', 'ok') order by t.study)")" "fails failed 3 job_nodes, ok succeeded 0 job_nodes" \
  "each trial looked first, and ended as under srun"
expect_eq "$(sql "select a.error_reason from attempts a join trials t on t.id = a.trial_id where t.study = 'fails'")" \
  "failing" "the failing command's reason is its own line, not salloc's"
expect_eq "$(sql "select count(distinct s.rank) from step_metrics s join attempts a on a.id = s.attempt_id
  join trials t on t.id = a.trial_id where t.study = 'ok' and s.name = 'step_time_ms'")" 2 "both ranks ran in the allocation"
expect_eq "$(state_of slow)" timed_out "the slow trial through salloc"
slow_log=$(sql "select a.log_path from attempts a join trials t on t.id = a.trial_id where t.study = 'slow'")
expect_contains "$(cat "$slow_log")" "its timeout counted from its end" "the log says from when the timeout counted"
no_job_or_rank_left "after a trial through salloc timed out"
# SIGKILL of mtrun while a trial's job looks at its busy node (salloc holding the allocation): its
# job guard cancels the job, and neither the job nor its look is left behind.
sed 's/wait_quiet_s: 3/wait_quiet_s: 120/' look.yaml > look_long.yaml
"$MTRUN" --db "$WORK/look_killed/mtrun.sqlite" run "${ENGINE[@]}" look_long.yaml > look_killed.log 2>&1 &
RUNNER=$!
for _ in $(seq 1 300); do pgrep -f -- "look --allocation" > /dev/null && break; sleep 0.1; done
expect_contains "$(pgrep -af -- "look --allocation" || true)" "--wait 120" "the job's look running before mtrun is killed"
sleep 1
kill -9 $RUNNER
wait $RUNNER || true
deadline=$((SECONDS + 75))
while [ -n "$(squeue -h)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
no_job_or_rank_left "after SIGKILL of mtrun during a job's look"
deadline=$((SECONDS + 30))
while pgrep -f -- "look --allocation" > /dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
expect_eq "$(pgrep -af -- "look --allocation" || true)" "" "the job's look left running"
# A batch job of its own looks first in its batch script.
sed 's/type: slurm}/type: slurm, mode: sbatch}/' look.yaml > look_batch.yaml
DB="$WORK/look_batch/mtrun.sqlite"
capture "$MTRUN" --db "$DB" run "${ENGINE[@]}" look_batch.yaml
echo "$OUT"
expect_eq "$RC" 0 "sbatch run with this machine busy"
expect_eq "$(sql "select state || ' ' || quiet_found || ' ' || quiet_where from attempts")" "succeeded busy job_nodes" \
  "the batch job's own look, recorded with the attempt"

DB="$WORK/look_inside/mtrun.sqlite"
capture salloc -n 1 --job-name mt-e2e-look "$MTRUN" --db "$DB" plan look.yaml
expect_contains "$OUT" "before each trial: wait up to 3 s for a quiet machine on the allocation's 1 node (srun)" \
  "plan inside an allocation"
capture salloc -n 1 --job-name mt-e2e-look "$MTRUN" --db "$DB" run "${ENGINE[@]}" look.yaml
echo "$OUT"
expect_eq "$RC" 0 "run inside an allocation with its node busy"
expect_contains "$OUT" "warning: the allocation's nodes are busy: node localhost: other processes used" "the start's look"
expect_contains "$OUT" "still busy after" "the trial's wait"
expect_contains "$OUT" "node localhost: other processes used" "the trial's wait, on the node"
expect_eq "$(sql "select quiet_found || ' ' || (quiet_wait_s >= 3) || ' ' || quiet_where from attempts")" \
  "busy 1 allocation_nodes" "the look recorded, and where it was taken"
capture salloc -n 1 --job-name mt-e2e-look "$MTRUN" --db "$DB" doctor
expect_contains "$OUT" "warn  nodes     node localhost: other processes used" "doctor inside the allocation"
kill $BURNER
wait $BURNER 2>/dev/null || true
BURNER=
DB="$WORK/look_quiet/mtrun.sqlite"
capture salloc -n 1 --job-name mt-e2e-look "$MTRUN" --db "$DB" run "${ENGINE[@]}" look.yaml
echo "$OUT"
expect_eq "$RC" 0 "run inside an allocation, nothing else running"
expect_eq "$(grep -c "could not look" <<<"$OUT" || true)" 0 "the nodes' look worked"
expect_eq "$(sql "select quiet_found in ('quiet', 'busy') from attempts")" 1 "what the look found"
capture "$MTRUN" --db "$DB" doctor
expect_eq "$(grep -c "  nodes  " <<<"$OUT" || true)" 0 "doctor outside an allocation: no nodes to look at"
# A look srun cannot take says why in srun's own words (here: an allocation Slurm does not know).
DB="$WORK/look_unknown/mtrun.sqlite"
capture salloc -n 1 --job-name mt-e2e-look env SLURM_JOB_ID=999999 SLURM_JOBID=999999 \
  "$MTRUN" --db "$DB" run "${ENGINE[@]}" --require-quiet look.yaml
echo "$OUT"
expect_eq "$RC" 3 "--require-quiet where srun cannot look"
expect_contains "$OUT" "cannot tell whether the machine is quiet (on the allocation's 1 node (srun)" "its message"
grep -q "\`srun .*\` exited with [0-9]*: srun: error: .*999999" <<<"$OUT" ||
  fail "srun's own words on why it could not look: $OUT"
no_job_or_rank_left "after the looks"
echo "PASS"
