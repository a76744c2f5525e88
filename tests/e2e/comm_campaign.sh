#!/usr/bin/env bash
# A tiny collective campaign through the real programs: mtrun runs mtengine comm, the bare MPI loop
# (benchmarks/mpi_collectives_peer.c, also in the engine's MPI thread level) and the Gloo peer
# (benchmarks/gloo_collectives_peer.py, on the setup's PyTorch) on 2 ranks at two sizes; every row
# lands in the database, the peers measure exactly the engine's rows, their results fit the engine's
# result schema and record their MPI thread level, and the report sets them side by side.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
PEER="$MT_BUILD_DIR/bin/mpi_collectives_peer"
PYTHON="${MT_VENV:-$MT_SOURCE_DIR/.venv}/bin/python"
[ -x "$PEER" ] || fail "$PEER is not built (MT_BUILD_BENCHMARKS)"
[ -x "$PYTHON" ] || fail "no PyTorch at $PYTHON (scripts/setup.sh creates the venv; MT_VENV points elsewhere)"
cat > "$WORK/comm.yaml" <<YAML
name: comm_tiny
timeout_s: 120
studies:
  - name: mtengine
    workload: comm
    defaults: &sweep {sizes: "4096,1048576", warmup: 1, iters: 3}
    matrix: &ranks {ranks: [2]}
  - name: bare_mpi
    workload: command
    command: ["$PEER", --sizes, "{sizes}", --warmup, "{warmup}", --iters, "{iters}", --output, "{result_file}"]
    defaults: *sweep
    matrix: *ranks
  - name: bare_mpi_multiple
    workload: command
    command: ["$PEER", --sizes, "{sizes}", --warmup, "{warmup}", --iters, "{iters}", --thread-multiple,
              --output, "{result_file}"]
    defaults: *sweep
    matrix: *ranks
  - name: gloo
    workload: command
    command: ["$PYTHON", "$MT_SOURCE_DIR/benchmarks/gloo_collectives_peer.py", --sizes, "{sizes}",
              --warmup, "{warmup}", --iters, "{iters}", --output, "{result_file}"]
    defaults: *sweep
    matrix: *ranks
YAML

# The engine's rows per size: each collective's placements (in place, out of place) times its
# all-to-all splits, as `mtengine describe` lists them (today 8: all_reduce and all_gather in and out
# of place, reduce_scatter, broadcast, all_to_all equal and uneven). The bare MPI loop measures
# exactly those; the Gloo peer has its own fixed set of the same 8.
ENGINE_ROWS=$(( 2 * $("$MT_BUILD_DIR/bin/mtengine" describe | python3 -c '
import json, sys
print(sum((c["in_place"] + c["out_of_place"]) * (2 if c["splits"] else 1) for c in json.load(sys.stdin)["collectives"]))') ))
GLOO_ROWS=16

capture "$MTRUN" --db "$DB" run "$WORK/comm.yaml"
echo "$OUT"
expect_eq "$RC" 0 "run exit code"
expect_contains "$OUT" "succeeded in" "progress"
expect_contains "$OUT" "$ENGINE_ROWS rows" "rows per trial in the progress lines"
expect_eq "$(sql "select study || ' ' || count(*) from comm_rows group by study order by study")" "bare_mpi $ENGINE_ROWS
bare_mpi_multiple $ENGINE_ROWS
gloo $GLOO_ROWS
mtengine $ENGINE_ROWS" "rows per study"
expect_eq "$(sql "select count(*) from result_rows")" $((3 * ENGINE_ROWS + GLOO_ROWS)) "every row stored"
expect_eq "$(sql "select count(*) from (select count(distinct study) n from comm_rows group by operation, bytes, in_place, split) where n = 4")" 16 "the peers measure the engine's rows"
expect_eq "$(sql "select group_concat(operation || ' ' || in_place || ' ' || bytes, ', ') from comm_rows where unsupported = 1")" \
  "all_reduce 0 4096, all_reduce 0 1048576" "what Gloo cannot measure is a row, marked"
expect_eq "$(sql "select count(*) from comm_rows where unsupported = 0 and busbw_gbps > 0 and latency_us > 0 and wrong_values = 0")" \
  $((3 * ENGINE_ROWS + GLOO_ROWS - 2)) "measured rows"
expect_eq "$(sql "select count(*) from comm_rows where operation = 'all_to_all' and split = 'uneven' and bytes = 4100")" 4 "uneven all_to_all: rank 0 sends e + (0 + p) mod 2 to p"
# The peers write the engine's result format, so the same schema holds them to it.
python3 - "$MT_SOURCE_DIR/schemas/result.schema.json" "$DB" <<'PY' || fail "peer results: schema, machine, MPI thread levels, freed memory, huge pages"
import json, sqlite3, sys, jsonschema
schema = json.load(open(sys.argv[1]))
seen = set()
levels = {}
kept = {}
hardware = {}
for (text,) in sqlite3.connect(sys.argv[2]).execute("select result_json from attempts where result_json is not null"):
    result = json.loads(text)
    if "rows" in result and result.get("implementation") != "gloo":
        levels.setdefault(result.get("implementation", "mtengine"), set()).add(result["mpi_thread_level"])
    if "rows" in result:
        env = result["environment"]
        hardware.setdefault(result.get("implementation", "mtengine"), set()).add(
            (env["cpu_model"], env.get("cpu_family"), env.get("cpu_model_number"), env.get("cpu_isa")))
    if "rows" in result and result.get("implementation") != "bare_mpi":
        kept.setdefault(result.get("implementation", "mtengine"), set()).add(
            result["environment"].get("freed_memory_kept_bytes"))
    try:
        jsonschema.validate(result, schema)
    except jsonschema.ValidationError as e:
        sys.exit(f"{result.get('implementation', 'mtengine')}: {e.message} at {list(e.path)}")
    seen.add(result.get("implementation", "mtengine"))
assert seen == {"mtengine", "bare_mpi", "gloo"}, seen
# The engine and the Gloo peer say what each rank's host did while they ran, on this machine's kernel
# (mtrun judges hosts it does not run on by it); the bare loop does not.
boot_id = open("/proc/sys/kernel/random/boot_id").read().strip()
for (text,) in sqlite3.connect(sys.argv[2]).execute("select result_json from attempts where result_json is not null"):
    result = json.loads(text)
    if result.get("implementation") == "bare_mpi":
        continue
    windows = result["rank_host_window"]
    assert len(windows) == len(result["hosts"]) == len(result["rank_cpu_s"]) == 2, result.get("implementation")
    assert all(w["boot_id"] == boot_id and w["wall_s"] > 0 and w["own_cpu_s"] > 0 for w in windows), windows
# The engine runs MPI_THREAD_MULTIPLE; the bare loop MPI_Init, or the engine's level when asked.
assert levels == {"mtengine": {"multiple"}, "bare_mpi": {"single", "multiple"}}, levels
# Every program describes the one machine alike, so the report names one machine.
assert len(set().union(*hardware.values())) == 1, hardware
# The engine and the Gloo peer put their heap on huge pages where the kernel gives them on request;
# the bare loop, on glibc's defaults, says it was not told to.
mode = open("/sys/kernel/mm/transparent_hugepage/enabled").read().split("[")[1].split("]")[0]
for (text,) in sqlite3.connect(sys.argv[2]).execute("select result_json from attempts where result_json is not null"):
    result = json.loads(text)
    if "rows" not in result:
        continue
    env, who = result["environment"], result.get("implementation", "mtengine")
    assert env["transparent_huge_pages"] == mode, (who, env)
    if who == "bare_mpi":
        assert env["malloc_huge_pages"] is False, env
    else:
        assert (env["heap_huge_pages_bytes"] > 0) == (mode == "madvise"), (who, env)
# The Gloo peer keeps freed memory for reuse as the engine does, so both record the same policy.
assert kept["gloo"] == kept["mtengine"] and len(kept["gloo"]) == 1 and kept["gloo"] != {None}, kept
print("ok: every study's result fits schemas/result.schema.json:", sorted(seen))
PY
echo "PASS (rows)"

# Not mixed: the engine's build and the peers, each named by its own hashes, are one build each,
# whatever commit the experiment's folder is at (here none).
# --keep-disturbed: what is checked is the section, which a busy test machine must not hide.
capture "$MTRUN" --db "$DB" report --keep-disturbed
expect_eq "$RC" 0 "report exit code"
expect_contains "$OUT" "## Communication" "comm section"
expect_eq "$(grep -c '^Ran on [0-9]* machines' <<<"$OUT")" 0 "one machine, however much each program recorded of it"
expect_contains "$OUT" "### Goals" "goals table"
expect_contains "$OUT" "÷ \`bare_mpi\` (Open MPI" "ratio against bare MPI with its version"
expect_contains "$OUT" "÷ \`gloo\` (PyTorch 2." "ratio against Gloo with its version"
expect_contains "$OUT" "Against \`bare_mpi_multiple\`, the same loop in the engine's thread level" "thread levels explained"
expect_contains "$OUT" "### all_to_all" "a table per operation"
expect_contains "$OUT" "| 2 | out_of_place uneven | 4100 B |" "uneven rows side by side"
expect_contains "$OUT" "\`gloo\` cannot measure all_reduce out_of_place (2 ranks)" "unsupported forms named"
echo "PASS (report)"

# The bare loop at any thread level: --thread-level asks MPI_Init_thread for it and the result names
# it; an unknown level is refused with the levels it takes, before anything is measured.
MPIRUN=(mpirun --allow-run-as-root --mca pml ob1 --mca btl self,vader -np 2)
for level in funneled serialized; do
  "${MPIRUN[@]}" "$PEER" --ops all_reduce --sizes 1024 --warmup 1 --iters 2 --thread-level "$level" \
    --output "$WORK/peer_$level.json" >/dev/null 2>&1 || fail "the peer at --thread-level $level"
  expect_eq "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["mpi_thread_level"])' "$WORK/peer_$level.json")" \
    "$level" "the result names thread level $level"
done
capture "${MPIRUN[@]}" "$PEER" --sizes 1024 --thread-level threaded --output "$WORK/peer_bad.json"
expect_eq "$RC" 2 "an unknown thread level: exit code"
expect_contains "$OUT" "--thread-level must be single, funneled, serialized or multiple" "an unknown thread level is named"
[ ! -e "$WORK/peer_bad.json" ] || fail "an unknown thread level wrote a result"
echo "PASS (thread levels)"

# The peers read --sizes as the engine does: an empty item or a size given twice is refused (exit 2,
# the item named, nothing written), not measured as what is left.
for sizes in "1024,,2048" "1024,2048,1024"; do
  capture "${MPIRUN[@]}" "$PEER" --sizes "$sizes" --output "$WORK/peer_sizes.json"
  expect_eq "$RC" 2 "the bare loop with --sizes $sizes: exit code"
  capture "$PYTHON" "$MT_SOURCE_DIR/benchmarks/gloo_collectives_peer.py" --sizes "$sizes" --output "$WORK/peer_sizes.json"
  expect_eq "$RC" 2 "the Gloo peer with --sizes $sizes: exit code"
  [ ! -e "$WORK/peer_sizes.json" ] || fail "--sizes $sizes wrote a result"
done
expect_contains "$OUT" "--sizes: 1024 is given twice (each size is measured once)" "the Gloo peer names the duplicate"
capture "${MPIRUN[@]}" "$PEER" --sizes "1024,,2048"
expect_contains "$OUT" "mpi_collectives_peer: --sizes '1024,,2048' has an empty item between commas" "the bare loop names the empty item"
capture "$PYTHON" "$MT_SOURCE_DIR/benchmarks/gloo_collectives_peer.py" --sizes "1024,,2048"
expect_contains "$OUT" "--sizes '1024,,2048' has an empty item between commas" "the Gloo peer names the empty item"
capture "${MPIRUN[@]}" "$PEER" --sizes 1024,1024
expect_contains "$OUT" "mpi_collectives_peer: --sizes: 1024 is given twice" "the bare loop names the duplicate"
capture "${MPIRUN[@]}" "$PEER" --sizes "$(printf '4096,%.0s' $(seq 300))4"
expect_eq "$RC" 2 "a --sizes list longer than the peer holds: exit code"
expect_contains "$OUT" "--sizes is too long (at most 1023 characters)" "a list the peer would cut short is refused"
echo "PASS (peer --sizes)"
