#!/usr/bin/env bash
# `mtengine groups` on 4 ranks (TP 2 x PP 1 x DP 2) in two mapping orders: every group has the
# members its order implies, each dimension is timed, and mis-ordered collectives that complete
# without error are caught by their checksum; a grid that does not fit the ranks exits 2.
set -uo pipefail
MTENGINE=${1:?usage: groups_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader)
fail() { echo "FAIL: $*" >&2; exit 1; }
for order in tp-pp-dp dp-pp-tp; do
  "${MPIRUN[@]}" -np 4 "$MTENGINE" groups --tp 2 --pp 1 --order "$order" --bytes 4096 --steps 3 --warmup 1 \
    --output "$WORK/$order.json" >"$WORK/out" 2>&1 || fail "groups $order: $(cat "$WORK/out")"
  python3 - "$WORK/$order.json" "$order" <<'PY' || fail "groups $order result"
import json, sys
r, order = json.load(open(sys.argv[1])), sys.argv[2]
assert r["members_ok"] and r["dp"] == 2, r
want_tp = [0, 1] if order == "tp-pp-dp" else [0, 2]
assert r["groups"]["tp"]["members_of_rank_0"] == want_tp, r["groups"]["tp"]
assert r["groups"]["tp"]["collectives_per_step"] == 4 and all(g["ms_per_step"] > 0 for g in r["groups"].values())
h = r["hazard"]
assert h["injected"] and h["completed_without_error"] and h["detected_by_checksum"], h
print(f"ok: {order}: tp group of rank 0 {want_tp}, hazard caught")
PY
done
"${MPIRUN[@]}" -np 3 "$MTENGINE" groups --tp 2 >"$WORK/out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -qF "does not divide the 3 ranks" "$WORK/out" || fail "bad grid: exit $rc: $(cat "$WORK/out")"
echo "ok: a grid that does not fit the ranks is refused"
"${MPIRUN[@]}" -np 2 "$MTENGINE" groups --bytes 100000000000 >"$WORK/out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -qF -- "--bytes 100000000000 must be at most 8589934592" "$WORK/out" || fail "huge bytes: exit $rc: $(cat "$WORK/out")"
"${MPIRUN[@]}" -np 1 "$MTENGINE" groups >"$WORK/out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -qF "groups needs at least 2 ranks" "$WORK/out" || fail "1 rank: exit $rc: $(cat "$WORK/out")"
echo "ok: groups beyond the bounds, or on one rank, are refused"
