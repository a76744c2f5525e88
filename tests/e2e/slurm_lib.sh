# Slurm clusters of the tests' own: munged (reused if one already answers), slurmctld and one
# shellcheck shell=bash
# slurmd per node, configured in $WORK/slurm and stopped at the end (only the daemons started here).
# Source after lib.sh; then slurm_setup, slurm_start CONF_NODES, slurm_wait_idle NODE...

STARTED=()  # PIDs of the daemons started here, newest last

# Fails unless the tools are installed and we are root (munged and slurmd need it).
slurm_setup() {
  export PATH="$PATH:/usr/sbin:/sbin"
  local tool
  for tool in munged munge unmunge slurmctld slurmd srun sbatch squeue sinfo scancel; do
    command -v "$tool" >/dev/null ||
      fail "$tool not found: the slurm tests need the Debian packages slurmctld slurmd slurm-client munge (scripts/test.sh installs them)"
  done
  [ "$(id -u)" -eq 0 ] || fail "the slurm tests start munged and the Slurm daemons, which needs root"
  S="$WORK/slurm"
  mkdir -p "$S/state" "$S/spool"
  export SLURM_CONF="$S/slurm.conf"
}

# Every job in the private cluster is the test's own: cancel them, then stop the daemons
# (slurmd, slurmctld, then munged).
slurm_stop() {
  local pid i
  if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ] && [ -n "$(timeout 10 squeue -h 2>/dev/null)" ]; then
    timeout 10 scancel --me || true
    for _ in $(seq 1 100); do [ -z "$(timeout 10 squeue -h 2>/dev/null)" ] && break; sleep 0.1; done
  fi
  for ((i = ${#STARTED[@]} - 1; i >= 0; i--)); do
    pid=${STARTED[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
}

# munged: reuse one already serving the default socket, otherwise start our own as munge.
slurm_start_munged() {
  munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return 0
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
}

# slurm_write_conf CTLD_HOST CTLD_ADDR CTLD_PORT SLURMD_PORT NODE_LINES PARTITION_NODES
# Writes $SLURM_CONF: cores not tracked by cgroups, no accounting, a node's spool, PID and log
# files named after it (%n) so several slurmd can share the directory.
slurm_write_conf() {
  cat > "$SLURM_CONF" <<CONF
ClusterName=mte2e
SlurmctldHost=$1($2)
SlurmctldPort=$3
SlurmdPort=$4
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool/%n
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd-%n.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd-%n.log
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
$5
PartitionName=debug Nodes=$6 Default=YES MaxTime=INFINITE State=UP
CONF
  grep -o 'NodeName=[^ ]*' <<<"$5" | cut -d= -f2 | while read -r node; do mkdir -p "$S/spool/$node"; done
}

# slurm_node_conf NODE: a configuration directory of NODE's own for its slurmd (-f), the same
# slurm.conf beside an mpi.conf that gives the node's PMIx clients a directory of their own (nodes
# that share /tmp would otherwise collide on /tmp/spmix_appdir_UID_JOB.STEP). Prints the path.
slurm_node_conf() {
  mkdir -p "$S/$1/pmix"
  cp "$SLURM_CONF" "$S/$1/slurm.conf"
  echo "PMIxCliTmpDirBase=$S/$1/pmix" > "$S/$1/mpi.conf"
  echo "$S/$1/slurm.conf"
}

# slurm_start_daemon NAME COMMAND...: starts a daemon as a background job, its output in
# $S/NAME.out. COMMAND must become the daemon (a program run in the foreground, or a function that
# execs one, like on_host_exec) so that the PID slurm_stop kills is the daemon's.
slurm_start_daemon() {
  local name=$1
  shift
  "$@" > "$S/$name.out" 2>&1 &
  STARTED+=($!)
}

# slurm_wait_idle NODE...: waits until every node is idle, or fails showing the daemons' logs.
slurm_wait_idle() {
  local node ok
  for _ in $(seq 1 300); do
    ok=1
    for node in "$@"; do [ "$(sinfo -h -n "$node" -o %t 2>/dev/null)" == "idle" ] || ok=0; done
    [ $ok -eq 1 ] && return 0
    sleep 0.1
  done
  fail "the nodes did not become idle: $(sinfo 2>&1; tail -n 20 "$S"/*.log "$S"/*.out)"
}

# Two free TCP ports (for slurmctld and slurmd) on 127.0.0.1, as "CTLD SLURMD".
slurm_free_ports() {
  python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])'
}
