#!/usr/bin/env bash
# The slurm launcher against real daemons: a single-node cluster of its own (munged, slurmctld,
# slurmd), a 2-rank study through `srun --mpi=pmix` and one through `sbatch --wait`,
# and a trial that times out leaving no job and no rank behind. Stops only the daemons it started.
source "$(dirname "$0")/lib.sh"
export PATH="$PATH:/usr/sbin:/sbin"
DB="$WORK/results/mtrun.sqlite"

for tool in munged munge unmunge slurmctld slurmd srun sbatch squeue sinfo scancel; do
  command -v "$tool" >/dev/null ||
    fail "$tool not found: the slurm tests need the Debian packages slurmctld slurmd slurm-client munge (scripts/test.sh installs them)"
done
[ "$(id -u)" -eq 0 ] || fail "the slurm test starts munged and the Slurm daemons, which needs root"

STARTED=()  # PIDs of the daemons this test started, newest last
stop_daemons() {
  local pid i
  # Every job in this private cluster is the test's own: a failed assertion must not leave ranks.
  if [ -n "${SLURM_CONF:-}" ] && [ -n "$(timeout 10 squeue -h 2>/dev/null)" ]; then
    timeout 10 scancel --me || true
    for _ in $(seq 1 100); do [ -z "$(timeout 10 squeue -h 2>/dev/null)" ] && break; sleep 0.1; done
  fi
  for ((i = ${#STARTED[@]} - 1; i >= 0; i--)); do  # slurmd, slurmctld, then munged
    pid=${STARTED[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
}
trap 'stop_daemons; rm -rf "$WORK"' EXIT

# munged: reuse one already serving the default socket, otherwise start our own as munge.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  install -d -o munge -g munge -m 0755 /run/munge
  if [ ! -s /etc/munge/munge.key ]; then
    install -d -o munge -g munge -m 0700 /etc/munge
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
    chown munge:munge /etc/munge/munge.key
    chmod 0400 /etc/munge/munge.key
  fi
  setpriv --reuid=munge --regid=munge --init-groups munged --foreground > "$WORK/munged.out" 2>&1 &
  STARTED+=($!)
  for _ in $(seq 1 100); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  munge -n | unmunge >/dev/null || fail "munged did not start: $(cat "$WORK/munged.out")"
fi

# Two free TCP ports for slurmctld and slurmd.
read -r CTLD_PORT SLURMD_PORT < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

S="$WORK/slurm"
mkdir -p "$S/state" "$S/spool"
export SLURM_CONF="$S/slurm.conf"
cat > "$SLURM_CONF" <<CONF
ClusterName=mte2e
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -f "$SLURM_CONF" -i -D > "$S/slurmctld.out" 2>&1 &
STARTED+=($!)
slurmd -f "$SLURM_CONF" -N localhost -D > "$S/slurmd.out" 2>&1 &
STARTED+=($!)
for _ in $(seq 1 300); do
  [ "$(sinfo -h -n localhost -o %t 2>/dev/null)" == "idle" ] && break
  sleep 0.1
done
[ "$(sinfo -h -n localhost -o %t 2>/dev/null)" == "idle" ] ||
  fail "the node did not become idle: $(sinfo 2>&1; tail -n 20 "$S"/*.log "$S"/*.out)"

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
  for _ in $(seq 1 50); do pgrep -f -- "--output $WORK/" >/dev/null || break; sleep 0.1; done
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

no_job_or_rank_left "after the timeout"

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
echo "PASS"
