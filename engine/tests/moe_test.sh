#!/usr/bin/env bash
# `mtengine moe` on 4 ranks: balanced, hot 0.75 and top-2 routing pass the oracle (every token id
# home, computed by the expert it was routed to, output equal to the single-process computation); hot routing shows its imbalance; top-k
# with a tight capacity drops and counts tokens.
set -uo pipefail
MTENGINE=${1:?usage: moe_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 4)
fail() { echo "FAIL: $*" >&2; exit 1; }
run() {  # NAME ARGS...
  local name=$1
  shift
  "${MPIRUN[@]}" "$MTENGINE" moe --tokens 256 --d-model 32 --warmup 1 --iters 2 --threads 1 \
    --output "$WORK/$name.json" "$@" >"$WORK/$name.log" 2>&1 || fail "moe $*: $(cat "$WORK/$name.log")"
}
run balanced --routing balanced
run hot --routing hot --hot-fraction 0.75
run topk --routing topk --top-k 2 --capacity-factor 0.5
python3 - "$WORK" <<'PY' || fail "moe results"
import json, sys
load = lambda n: json.load(open(f"{sys.argv[1]}/{n}.json"))
b, h, t = load("balanced"), load("hot"), load("topk")
for r in (b, h, t):
    assert r["status"] == "ok" and r["ids_wrong"] == 0 and r["tokens_misrouted"] == 0, r
    assert r["max_abs_error"] <= r["atol"], r
assert b["imbalance"] == 1.0 and b["tokens_received"] == [256] * 4, b["tokens_received"]
# hot: expert 0 receives 0.75 of every rank's tokens: 4 * 192 = 768 against a mean of 256
assert h["tokens_received"][0] == 768 and abs(h["imbalance"] - 3.0) < 1e-9, h["tokens_received"]
assert t["dropped_tokens"] > 0 and t["top_k"] == 2, t
print("ok: balanced imbalance 1.0; hot", h["imbalance"], "; top-2 dropped", t["dropped_tokens"])
PY
# More tokens than the 32-bit stamps can name is bad input, refused before any exchange.
"${MPIRUN[@]}" "$MTENGINE" moe --tokens 600000000 --output "$WORK/big.json" >"$WORK/big.log" 2>&1
code=$?
[ "$code" -eq 2 ] || fail "too many tokens: exit $code, want 2: $(cat "$WORK/big.log")"
grep -q "too many for 4 ranks" "$WORK/big.log" || fail "too many tokens: no reason given: $(cat "$WORK/big.log")"

refused() {  # MESSAGE ARGS...: exit 2 naming MESSAGE, before any exchange
  local message=$1
  shift
  "${MPIRUN[@]}" "$MTENGINE" moe "$@" >"$WORK/refused.log" 2>&1
  local code=$?
  [ "$code" -eq 2 ] && grep -qF -- "$message" "$WORK/refused.log" || fail "moe $*: exit $code: $(cat "$WORK/refused.log")"
  echo "ok: refused: $message"
}
refused "--d-model 100000000 must be at most 65536" --d-model 100000000
refused "--top-k 5 is more experts than the 4 ranks hold (one each)" --routing topk --top-k 5
refused "moe with this --d-model and --tokens needs about" --d-model 65536 --tokens 16777216
