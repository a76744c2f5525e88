#!/usr/bin/env bash
# A collective whose peer never joins aborts the job after the collective timeout, with a message
# naming the rank, the operation and its sequence number, and a non-zero exit; it never hangs.
set -uo pipefail
TEST=${1:?usage: collective_timeout_test.sh PATH/TO/communicator_test}
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
start=$(date +%s)
timeout 60 mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 2 \
  "$TEST" --hang >"$OUT" 2>&1
rc=$?
elapsed=$(( $(date +%s) - start ))
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
  echo "FAIL: expected an abort, got exit $rc after ${elapsed}s"; cat "$OUT"; exit 1
fi
grep -qF "collective timeout: waited 1 s for all_reduce #0 (4 f32) on rank 0" "$OUT" ||
  { echo "FAIL: the message does not name the operation:"; cat "$OUT"; exit 1; }
echo "ok: aborted with exit $rc after ${elapsed}s, naming all_reduce #0 on rank 0"
