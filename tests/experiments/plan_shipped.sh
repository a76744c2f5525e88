#!/usr/bin/env bash
# Every shipped experiment file passes `mtrun plan` (mtrun's own validation, the one that runs
# before any job), and experiments/a100_1gpu_slice.yaml is exactly the 1-GPU part of
# experiments/a100_matrix.yaml: the same trial identities, so the two never drift apart.
set -euo pipefail
MTRUN="$MT_BUILD_DIR/bin/mtrun"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# plan only names the engine in the commands it prints and asks it to describe its workloads; a
# stand-in that answers with the runner's committed descriptions will do, so no engine is built.
ENGINE="$WORK/mtengine"
cat > "$ENGINE" <<SH
#!/bin/sh
[ "\$2" = "--describe" ] && exec cat "$MT_SOURCE_DIR/runner/tests/data/engine_\$1_description.json"
exit 0
SH
chmod +x "$ENGINE"
# The runner caches descriptions per engine binary; this stand-in stays the same when the fixtures change.
export XDG_CACHE_HOME="$WORK/cache"

checked=0
for file in "$MT_SOURCE_DIR"/experiments/*.yaml; do
  name=$(basename "$file" .yaml)
  if ! "$MTRUN" --db "$WORK/plan.sqlite" plan --engine "$ENGINE" "$file" > "$WORK/$name.plan" 2>&1; then
    echo "FAIL: mtrun plan experiments/$name.yaml:"
    cat "$WORK/$name.plan"
    exit 1
  fi
  checked=$((checked + 1))
done

# A plan line per trial: "<identity> <study> <axis values> rep <r> (timeout …)".
trials() { grep -E '^[0-9a-f]{12} ' "$WORK/$1.plan" | sed -E 's/ \(timeout [^)]*\)$//'; }
trials a100_matrix | grep ' ranks=1 ' | sort > "$WORK/matrix-1gpu"
trials a100_1gpu_slice | sort > "$WORK/slice"
if ! diff -u "$WORK/matrix-1gpu" "$WORK/slice"; then
  echo "FAIL: experiments/a100_1gpu_slice.yaml is not the 1-GPU part of experiments/a100_matrix.yaml (diff above)"
  exit 1
fi
[ -s "$WORK/slice" ] || { echo "FAIL: experiments/a100_1gpu_slice.yaml plans no trial"; exit 1; }
# The CPU campaigns behind the README's figures settle and wait as their committed reports did, so
# that `mtrun run FILE` alone measures the same way (benchmarks/cpu_reports.sh passes no flags).
before() { grep '^before each trial: ' "$WORK/$1.plan" | sed 's/ (conditions: .*//'; }
expect_before() {
  [ "$(before "$1")" = "before each trial: $2" ] || { echo "FAIL: $1 plans '$(before "$1")', not '$2'"; exit 1; }
}
expect_before ddp_vs_pytorch "settle 10 s with nothing running, then wait up to 30 s for a quiet machine"
expect_before step_profile_cpu "settle 10 s with nothing running, then wait up to 30 s for a quiet machine"
expect_before comm_goal_cpu "settle 5 s with nothing running, then wait up to 30 s for a quiet machine"
expect_before comm_cpu "wait up to 30 s for a quiet machine"
echo "PASS: $checked experiment file(s) plan; the 1-GPU slice is $(wc -l < "$WORK/slice") trials of a100_matrix"
