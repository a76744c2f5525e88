#!/usr/bin/env bash
# A trial's process that made a session of its own (setsid) and outlives the trial's command dies
# with its trial: the job guard adopts orphans and kills every descendant left when the job ends.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
gone() { [ ! -e "/proc/$1" ] || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" == Z ]; }

# A trial's child that leaves the job's session and outlives the trial's command; it writes its PID
# from its new session, so the trial ends only once it has left the job's session.
export MTENGINE=/bin/true
cat > "$WORK/setsid.yaml" <<YAML
name: setsid
studies:
  - name: s
    workload: command
    launch: direct
    command: [sh, -c, "setsid sh -c 'echo \$\$ > $WORK/orphan.pid; exec sleep 300' & while [ ! -s $WORK/orphan.pid ]; do sleep 0.05; done"]
YAML
capture timeout 120 "$MTRUN" --db "$DB" run "$WORK/setsid.yaml"
expect_eq "$RC" 0 "the trial succeeds"
ORPHAN=$(cat "$WORK/orphan.pid")
[ -n "$ORPHAN" ] || fail "setup: no pid written"
if ! gone "$ORPHAN"; then
  kill "$ORPHAN" 2> /dev/null || true
  fail "the setsid child ($ORPHAN) outlived its trial"
fi
echo "PASS (setsid child reaped)"
