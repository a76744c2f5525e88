# Two "hosts" on this machine for the multinode tests: each a network and UTS namespace of its own
# (own hostname, own address on a private veth link, loopback), held open by a sleeping process
# and entered with nsenter. The filesystem stays shared, as on a cluster with a shared home.
# Source it after tests/e2e/lib.sh; it skips the test (exit 77) where namespaces cannot be made.
# shellcheck shell=bash disable=SC2034  # the variables are for the tests that source this file

HOST_NAMES=(mtnode-a mtnode-b)
HOST_ADDRS=(10.77.0.1 10.77.0.2)
HOST_SUBNET=10.77.0.0/24
declare -A HOST_PID=()  # host name -> PID of the process that holds its namespaces

# Open MPI settings for jobs across these hosts: daemons started through rsh_agent.sh, ranks
# talking TCP over the private link only (no shared memory between hosts).
MULTINODE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MPI_HOST_OPTIONS=(--mca plm_rsh_agent "$MULTINODE_DIR/rsh_agent.sh" --mca plm_rsh_no_tree_spawn 1
  --mca btl "tcp,self" --mca btl_tcp_if_include "$HOST_SUBNET" --mca oob_tcp_if_include "$HOST_SUBNET")

skip() { echo "SKIP: $*"; exit 77; }

# Creates both hosts and the link between them; hosts_down (on EXIT) removes them. Skips the
# test where there is no engine to run on them.
hosts_up() {
  ENGINE=${MTENGINE:-$MT_BUILD_DIR/bin/mtengine}
  [ -x "$ENGINE" ] || skip "no mtengine at $ENGINE: build the engine or set MTENGINE"
  [ "$(id -u)" -eq 0 ] || skip "the multinode tests create network namespaces, which needs root"
  local tool
  for tool in ip nsenter unshare; do
    command -v "$tool" >/dev/null || skip "$tool not found: the multinode tests need iproute2 and util-linux"
  done
  local i name
  for i in 0 1; do
    name=${HOST_NAMES[i]}
    unshare --net --uts sh -c "hostname $name && ip link set lo up && exec sleep infinity" \
      > "$WORK/holder-$name.out" 2>&1 &
    HOST_PID[$name]=$!
  done
  for _ in $(seq 1 50); do
    [ "$(on_host "${HOST_NAMES[1]}" hostname 2>/dev/null)" == "${HOST_NAMES[1]}" ] &&
      [ "$(on_host "${HOST_NAMES[0]}" hostname 2>/dev/null)" == "${HOST_NAMES[0]}" ] && break
    sleep 0.1
  done
  for name in "${HOST_NAMES[@]}"; do
    [ "$(on_host "$name" hostname 2>/dev/null)" == "$name" ] ||
      skip "could not create a network namespace for $name: $(cat "$WORK/holder-$name.out")"
  done
  # One veth pair, an end in each host, both named mt0 inside.
  local a="mta$$" b="mtb$$"
  ip link add "$a" type veth peer name "$b" || skip "could not create a veth pair"
  ip link set "$a" netns "${HOST_PID[${HOST_NAMES[0]}]}"
  ip link set "$b" netns "${HOST_PID[${HOST_NAMES[1]}]}"
  on_host "${HOST_NAMES[0]}" ip link set "$a" name mt0
  on_host "${HOST_NAMES[1]}" ip link set "$b" name mt0
  for i in 0 1; do
    on_host "${HOST_NAMES[i]}" ip addr add "${HOST_ADDRS[i]}/24" dev mt0
    on_host "${HOST_NAMES[i]}" ip link set mt0 up
  done
  # Where rsh_agent.sh finds a host's namespaces, by name or by address.
  export MT_HOSTS_DIR="$WORK/hosts"
  mkdir -p "$MT_HOSTS_DIR"
  for i in 0 1; do
    echo "${HOST_PID[${HOST_NAMES[i]}]}" > "$MT_HOSTS_DIR/${HOST_NAMES[i]}"
    echo "${HOST_PID[${HOST_NAMES[i]}]}" > "$MT_HOSTS_DIR/${HOST_ADDRS[i]}"
  done
}

# on_host NAME CMD...: runs CMD on that host (in its network and UTS namespaces).
on_host() {
  local name=$1
  shift
  nsenter -t "${HOST_PID[$name]}" --net --uts -- "$@"
}

# on_host_exec NAME CMD...: the same in place of the calling shell, for a background job
# (`on_host_exec A daemon &`): the job's PID ($!) is then CMD's own, so killing it stops CMD. With
# on_host the job is a subshell whose death leaves CMD running.
on_host_exec() {
  local name=$1
  shift
  exec nsenter -t "${HOST_PID[$name]}" --net --uts -- "$@"
}

# Ends the holders; their namespaces, and the veth pair with them, go away.
hosts_down() {
  local pid
  for pid in "${HOST_PID[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  for pid in "${HOST_PID[@]}"; do wait "$pid" 2>/dev/null || true; done
}
