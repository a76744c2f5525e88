#!/usr/bin/env bash
# `mtengine comm` on 3 ranks: every collective, placement and all-to-all split at three sizes, each
# with a row holding latency, bandwidths, zero wrong values and the algorithm asked of the library
# or run by the engine (small collectives run as the library's blocking call) and the freed-memory policy;
# the row count follows the plan; bad input is refused with exit 2.
set -uo pipefail
MTENGINE=${1:?usage: comm_test.sh PATH/TO/mtengine}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 3)
fail() { echo "FAIL: $*" >&2; exit 1; }

"${MPIRUN[@]}" "$MTENGINE" comm --sizes 3072,98304,8388608 --warmup 1 --iters 3 --output "$WORK/comm.json" \
  >"$WORK/out" 2>&1 || fail "comm run: $(cat "$WORK/out")"
"$MTENGINE" describe >"$WORK/describe.json" || fail "mtengine describe"
python3 - "$WORK/comm.json" "$WORK/describe.json" <<'PY' || fail "comm result"
import json, sys
r = json.load(open(sys.argv[1]))
collectives = json.load(open(sys.argv[2]))["collectives"]
assert r["benchmark"] == "comm" and r["status"] == "ok" and r["world_size"] == 3, r.get("error")
rows = r["rows"]
# Per collective its placements (in place, out of place) times its splits (equal, uneven), at 3 sizes.
planned = 3 * sum((c["in_place"] + c["out_of_place"]) * (2 if c["splits"] else 1) for c in collectives)
assert len(rows) == planned, (len(rows), planned)
assert {row["operation"] for row in rows} == {c["name"] for c in collectives}
for row in rows:
    assert row["wrong_values"] == 0, row
    assert row["latency_us"] > 0 and row["algbw_gbps"] > 0, row
# The engine's bus factors at 3 ranks, checked against nccl-tests' for the collectives it defines.
factor = {c["name"]: c["bus_factor"]["3"] for c in collectives}
nccl_tests = {"all_reduce": 4 / 3, "all_gather": 2 / 3, "reduce_scatter": 2 / 3, "broadcast": 1, "all_to_all": 2 / 3}
for name, expected in nccl_tests.items():
    assert abs(factor[name] - expected) < 1e-12, (name, factor[name], expected)
for row in rows:
    assert abs(row["busbw_gbps"] - row["algbw_gbps"] * factor[row["operation"]]) < 1e-9 * row["busbw_gbps"] + 1e-12, row
uneven = [x for x in rows if x["split"] == "uneven"]
assert len(uneven) == 3 and all(x["bytes"] > 3072 // 3 * 3 for x in uneven[:1]), uneven
# The all-reduce asks Open MPI for the ring (what a reader of a ratio against bare MPI must know);
# a large out-of-place all-gather runs as the engine's own point-to-point exchange; the others
# leave the choice to the library. Small ones run as the blocking call: at 3 KiB all of them, at
# 96 KiB all but the all-reduce, at 8 MiB only the all-to-all (blocking at every size).
for row in rows:
    nonblocking = {"all_reduce": "ring"}.get(row["operation"], "library default")
    if row["operation"] == "all_gather" and not row["in_place"]:
        nonblocking = "point-to-point exchange, own block copied while the peers read"
    small = row["bytes"] < 4096 or (row["bytes"] < 131072 and row["operation"] != "all_reduce")
    blocking = small or row["operation"] == "all_to_all"
    assert row["algorithm"] == ("library default, blocking" if blocking else nonblocking), row
asked = r["requested_algorithms"]
assert set(asked) == {"all_reduce"}, asked
assert asked["all_reduce"]["setting"] == "OMPI_MCA_coll_libnbc_iallreduce_algorithm=1", asked
assert asked["all_reduce"]["how"] and asked["all_reduce"]["instead"], asked
# Freed scratch buffers stay in the heap (Open MPI allocates one per in-place all-reduce and
# reduce-scatter call): the result says up to which size.
assert r["environment"]["freed_memory_kept_bytes"] == 1 << 30, r["environment"]
# Where the kernel gives huge pages on request, the heap's top is advised for them.
mode = open("/sys/kernel/mm/transparent_hugepage/enabled").read().split("[")[1].split("]")[0]
assert r["environment"]["transparent_huge_pages"] == mode, r["environment"]
advised = r["environment"]["heap_huge_pages_bytes"]
assert (advised >= (1 << 30) - (4 << 20)) if mode == "madvise" else advised == 0, r["environment"]
print(f"ok: {len(rows)} rows, every output checked, no wrong values, the all-reduce's ring recorded")
PY

# A user's own choice wins over the engine's and is what the rows record; 0 leaves it to the library.
for choice in 2:binomial 0:"library default"; do
  value=${choice%%:*} name=${choice#*:}
  "${MPIRUN[@]}" -x OMPI_MCA_coll_libnbc_iallreduce_algorithm="$value" "$MTENGINE" comm --ops all_reduce \
    --sizes 65536 --warmup 1 --iters 2 --output "$WORK/chosen.json" >"$WORK/out" 2>&1 || fail "comm with algorithm $value: $(cat "$WORK/out")"
  python3 - "$WORK/chosen.json" "$name" <<'PY' || fail "algorithm $value recorded"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "ok" and all(row["wrong_values"] == 0 for row in r["rows"]), r
assert [row["algorithm"] for row in r["rows"]] == [sys.argv[2]] * len(r["rows"]), r["rows"]
assert (sys.argv[2] == "library default") == ("all_reduce" not in r["requested_algorithms"]), r["requested_algorithms"]
PY
  echo "ok: OMPI_MCA_coll_libnbc_iallreduce_algorithm=$value recorded as $name"
done

# A user's own malloc thresholds are left alone, and recorded.
"${MPIRUN[@]}" -x MALLOC_MMAP_THRESHOLD_=65536 "$MTENGINE" comm --ops all_reduce --sizes 65536 --warmup 1 --iters 2 \
  --output "$WORK/malloc.json" >"$WORK/out" 2>&1 || fail "comm with MALLOC_MMAP_THRESHOLD_: $(cat "$WORK/out")"
python3 - "$WORK/malloc.json" <<'PY' || fail "the user's malloc threshold recorded"
import json, sys
env = json.load(open(sys.argv[1]))["environment"]
assert env["freed_memory_kept_bytes"] == 0 and env["env_vars"]["MALLOC_MMAP_THRESHOLD_"] == "65536", env
assert env["heap_huge_pages_bytes"] == 0, env  # the heap is trimmed as the user has it: nothing to reserve
PY
echo "ok: MALLOC_MMAP_THRESHOLD_ left to the user and recorded"

# Each size is measured once: sizes rounded down to whole elements (whole per-rank blocks where the
# message is split among the ranks) that land on a size already measured add no row, and stderr
# says sizes were rounded.
"${MPIRUN[@]}" "$MTENGINE" comm --min-bytes 4 --max-bytes 64 --step-factor 1.0001 --warmup 0 --iters 1 \
  --output "$WORK/sweep.json" >/dev/null 2>"$WORK/err" || fail "fine sweep: $(cat "$WORK/err")"
grep -qF "were rounded down" "$WORK/err" || fail "fine sweep: rounding not said: $(cat "$WORK/err")"
python3 - "$WORK/sweep.json" <<'PY' || fail "fine sweep: rows"
import collections, json, sys
rows = json.load(open(sys.argv[1]))["rows"]
keys = collections.Counter((r["operation"], r["bytes"], r["in_place"], r["split"]) for r in rows)
assert max(keys.values()) == 1, [k for k, n in keys.items() if n > 1][:5]
sizes = sorted({r["bytes"] for r in rows if r["operation"] == "all_reduce"})
assert sizes == list(range(4, 64, 4)), sizes
PY
"${MPIRUN[@]}" "$MTENGINE" comm --sizes 5,6 --ops all_reduce --placement in_place --warmup 0 --iters 1 \
  --output "$WORK/sizes.json" >/dev/null 2>"$WORK/err" || fail "--sizes 5,6: $(cat "$WORK/err")"
grep -qF "were rounded down" "$WORK/err" || fail "--sizes 5,6: rounding not said: $(cat "$WORK/err")"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert len(r["rows"]) == 1 and r["bytes"] == 4, r["rows"]' \
  "$WORK/sizes.json" || fail "--sizes 5,6: want one row of 4 bytes"
echo "ok: each size measured once; rounding said on stderr"

expect_refusal() {  # MESSAGE ARGS...
  local message=$1
  shift
  "${MPIRUN[@]}" "$MTENGINE" comm "$@" >"$WORK/out" 2>&1
  local rc=$?
  [ "$rc" -eq 2 ] && grep -qF -- "$message" "$WORK/out" || fail "comm $*: exit $rc: $(cat "$WORK/out")"
  echo "ok: refused: $message"
}
expect_refusal "--ops: unknown collective 'all_redcue'" --ops all_redcue
expect_refusal "--min-bytes 8192 must be at most --max-bytes 4096" --min-bytes 8192 --max-bytes 4096
expect_refusal "--sizes: 'x' is not a size of at least 4 bytes" --sizes 4096,x
expect_refusal "--sizes ',' names no size" --sizes ,
expect_refusal "--sizes '4096,,8192' has an empty item between commas" --sizes 4096,,8192
expect_refusal "--sizes: 4096 is given twice (each size is measured once)" --sizes 4096,8192,4096
expect_refusal "--sizes: 1099511627776 is larger than 8 GiB (8589934592)" --sizes 1099511627776
# 8 GiB all-gathers on 3 ranks of this host need far more memory than a test machine has: refused
# before a buffer exists, naming the need, instead of waking the OOM killer.
available_kib=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
if (( available_kib < 60 * 1024 * 1024 )); then
  expect_refusal "the largest message needs about" --sizes 8589934592 --ops all_gather
  grep -qF "GiB is available: lower --max-bytes or --sizes" "$WORK/out" || fail "no available memory named: $(cat "$WORK/out")"
else
  echo "skip: $((available_kib / 1024 / 1024)) GiB available: 8 GiB all-gathers on 3 ranks would fit here"
fi
