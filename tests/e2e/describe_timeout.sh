#!/usr/bin/env bash
# An engine that hangs when asked to describe itself is killed, with its children, after
# $MTRUN_DESCRIBE_TIMEOUT seconds; its workloads are then unavailable, saying why, and a study that
# needs no engine plans as usual.
source "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$WORK/cache"
gone() { [ ! -e "/proc/$1" ] || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" == Z ]; }

# An engine that never answers `--describe`; a child of its keeps the output open.
cat > "$WORK/hanging-engine" <<SH
#!/bin/sh
sleep 300 &
echo \$! > "$WORK/describe.pid"
wait
SH
chmod +x "$WORK/hanging-engine"
cat > "$WORK/train.yaml" <<'YAML'
name: train
studies:
  - name: s
    workload: train
YAML
cat > "$WORK/command.yaml" <<'YAML'
name: command
studies:
  - name: s
    workload: command
    launch: direct
    command: [echo, "value: 1"]
YAML
capture env MTRUN_DESCRIBE_TIMEOUT=1 timeout 120 "$MTRUN" plan "$WORK/train.yaml" --engine "$WORK/hanging-engine"
expect_eq "$RC" 2 "a train study with an engine that hangs"
expect_contains "$OUT" "mtengine at $WORK/hanging-engine did not describe it (\`$WORK/hanging-engine train --describe\` did not finish within 1 s and was killed); build the engine or point --engine or MTENGINE at one" "hanging engine message"
gone "$(cat "$WORK/describe.pid")" || fail "the hanging engine's child is still running"
capture env MTRUN_DESCRIBE_TIMEOUT=1 timeout 120 "$MTRUN" plan "$WORK/command.yaml" --engine "$WORK/hanging-engine"
expect_eq "$RC" 0 "a command study does not need the engine"
capture env MTRUN_DESCRIBE_TIMEOUT=soon "$MTRUN" plan "$WORK/train.yaml" --engine "$WORK/hanging-engine"
expect_eq "$RC" 2 "a timeout that is not a number"
expect_contains "$OUT" "MTRUN_DESCRIBE_TIMEOUT='soon' is not a number of seconds in (0, 86400]" "bad timeout message"
echo "PASS (describe timeout)"

