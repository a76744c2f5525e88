#!/usr/bin/env bash
# `mtengine train --profile DIR` on 2 ranks: a valid Chrome trace per rank (collectives drawn with
# their bucket, bytes and sequence number), profile.json with the cross-rank step figures, and the
# result's profile with each rank's breakdown and exposure within bounds.
set -uo pipefail
MTENGINE=${1:?usage: profile_test.sh PATH/TO/mtengine}
SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 2 "$MTENGINE" train \
  --vocab-size 256 --d-model 64 --n-heads 4 --n-layers 2 --seq-length 32 --batch-size 2 --threads 1 \
  --steps 4 --warmup-steps 1 --bucket-cap-mb 0.05 --first-bucket-cap-mb 0.02 \
  --profile "$WORK/profile" --output "$WORK/r.json" >/dev/null || fail "profiled run"
python3 "$SOURCE/tests/profile/check_trace.py" "$WORK"/profile/rank_0000{0,1}.trace.json || fail "trace format"
python3 - "$WORK/r.json" "$WORK/profile/profile.json" <<'PY' || fail "profile summary"
import json, sys
result, summary = (json.load(open(p)) for p in sys.argv[1:])
profile = result["profile"]
assert profile["ranks"] == summary["ranks"] and len(profile["ranks"]) == 2
for rank in profile["ranks"]:
    assert rank["steps"] == 4, rank["steps"]
    f = rank["overlap_fraction"]
    assert 0 <= f["min"] <= f["max"] <= 1, f
    assert rank["exposed_communication_ms"]["max"] <= rank["communication_ms"]["max"] + 1e-9
    assert rank["collectives_per_step"]["mean"] == result["collectives_per_step"]["all_reduce"], rank
across = profile["step_ms_across_ranks"]
assert across["min"] <= across["p50"] <= across["max"] and profile["straggler_ratio"] >= 1
print("ok: profile:", {k: round(v, 2) for k, v in across.items()}, "straggler", round(profile["straggler_ratio"], 3))
PY
