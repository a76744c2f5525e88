#!/usr/bin/env bash
# Open MPI's remote shell for the namespace hosts of hosts.sh: `rsh_agent.sh HOST COMMAND...` runs
# the command on HOST (in its network and UTS namespaces) the way ssh would run it there.
set -euo pipefail
host=$1
shift
if [ -z "${MT_HOSTS_DIR:-}" ] || [ ! -f "$MT_HOSTS_DIR/$host" ]; then
  echo "rsh_agent.sh: no namespace host '$host' (MT_HOSTS_DIR=${MT_HOSTS_DIR:-unset})" >&2
  exit 255
fi
exec nsenter -t "$(cat "$MT_HOSTS_DIR/$host")" --net --uts -- /bin/sh -c "$*"
