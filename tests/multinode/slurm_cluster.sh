# A Slurm cluster of the two namespace hosts of hosts.sh: slurmctld and a slurmd on the first, a
# slurmd on the second, one CPU each, so a job of two ranks spans both nodes. Source after lib.sh,
# hosts.sh and slurm_lib.sh; call cluster_up (it sets the EXIT trap).
# shellcheck shell=bash

cluster_up() {
  hosts_up
  slurm_setup
  trap 'slurm_stop; hosts_down; rm -rf "$WORK"' EXIT
  A=${HOST_NAMES[0]}
  B=${HOST_NAMES[1]}
  slurm_start_munged  # its socket is a file: both hosts reach it
  # Each host has ports of its own: the usual ones cannot clash with anything outside.
  slurm_write_conf "$A" "${HOST_ADDRS[0]}" 6817 6818 \
    "NodeName=$A NodeAddr=${HOST_ADDRS[0]} CPUs=1 State=UNKNOWN
NodeName=$B NodeAddr=${HOST_ADDRS[1]} CPUs=1 State=UNKNOWN" "$A,$B"
  # on_host_exec: slurm_stop kills the daemons themselves, not subshells that started them.
  slurm_start_daemon slurmctld on_host_exec "$A" slurmctld -f "$SLURM_CONF" -i -D
  slurm_start_daemon "slurmd-$A" on_host_exec "$A" slurmd -f "$(slurm_node_conf "$A")" -N "$A" -D
  slurm_start_daemon "slurmd-$B" on_host_exec "$B" slurmd -f "$(slurm_node_conf "$B")" -N "$B" -D
  # The client commands talk to slurmctld: from host A.
  local tool
  for tool in sinfo squeue scancel; do
    eval "$tool() { on_host \"\$A\" $(type -P $tool) \"\$@\"; }"
  done
  slurm_wait_idle "$A" "$B"
  # srun exports the runner's environment: Open MPI in the ranks keeps to TCP over the link.
  export OMPI_MCA_btl="tcp,self" OMPI_MCA_btl_tcp_if_include="$HOST_SUBNET" OMPI_MCA_oob_tcp_if_include="$HOST_SUBNET"
}
