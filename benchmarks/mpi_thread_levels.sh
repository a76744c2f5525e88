#!/usr/bin/env bash
# What the MPI thread level costs a small collective: the bare MPI loop on MPI_Init and at each
# level MPI_Init_thread offers (mpi_collectives_peer --thread-level), beside mtengine comm (which
# needs MPI_THREAD_MULTIPLE: its progress thread and the caller both call MPI), on 2 ranks, taking
# turns round by round. Prints per operation and size the median latency of each over the rounds
# (one launch a round), and how many launches ran more than 1.5x the fastest one of theirs (a
# 2-vCPU VM runs small calls about twice as slow while its host keeps the vCPUs far apart, which
# this script does not tell from the program: mtrun reads it around each attempt, see
# docs/measurement.md, "Cores far apart").
#   benchmarks/mpi_thread_levels.sh [ROUNDS] [SIZES]       # default 20 rounds, 1024,4096 bytes
set -euo pipefail
ROUNDS=${1:-20}
SIZES=${2:-1024,4096}
BIN=${BIN:-$(dirname "$0")/../build/bin}
PEER=$BIN/mpi_collectives_peer
ENGINE=$BIN/mtengine
for program in "$PEER" "$ENGINE"; do
  [ -x "$program" ] || { echo "mpi_thread_levels: $program is not built (scripts/setup.sh builds it)" >&2; exit 2; }
done
MPIRUN=(mpirun --allow-run-as-root -np 2 --mca pml ob1 --mca btl self,vader -x OMP_NUM_THREADS=1)
# Small calls take about a microsecond: each size is timed over at least 16 MiB of messages.
FLAGS=(--ops all --sizes "$SIZES" --warmup 20 --iters 8 --timed-bytes 16777216)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for round in $(seq 1 "$ROUNDS"); do
  "${MPIRUN[@]}" "$PEER" "${FLAGS[@]}" --output "$OUT/MPI_Init-$round.json" >/dev/null
  for level in single funneled serialized multiple; do
    "${MPIRUN[@]}" "$PEER" "${FLAGS[@]}" --thread-level "$level" --output "$OUT/$level-$round.json" >/dev/null
  done
  "${MPIRUN[@]}" "$ENGINE" comm "${FLAGS[@]}" --output "$OUT/mtengine-$round.json" >/dev/null
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
programs = ["MPI_Init", "single", "funneled", "serialized", "multiple", "mtengine"]
latency = {}  # (operation, variant, bytes) -> program -> latency µs of each launch
for program in programs:
    for r in range(1, rounds + 1):
        for row in json.load(open(f"{out}/{program}-{r}.json"))["rows"]:
            if row.get("unsupported"):
                continue
            variant = ("in_place" if row["in_place"] else "out_of_place") + (f" {row['split']}" if row["split"] else "")
            latency.setdefault((row["operation"], variant, row["bytes"]), {}).setdefault(program, []).append(
                row["latency_us"])
print(f"median latency µs over {rounds} launches each (launches more than 1.5x that program's fastest)")
print(f"{'operation':<15} {'variant':<20} {'bytes':>6} " + " ".join(f"{p:>14}" for p in programs))
for (operation, variant, size), by_program in latency.items():
    cells = []
    for p in programs:
        xs = by_program.get(p, [])
        slow = sum(1 for x in xs if x > 1.5 * min(xs)) if xs else 0
        cells.append(f"{statistics.median(xs):>8.3f} ({slow:>2})" if xs else f"{'-':>14}")
    print(f"{operation:<15} {variant:<20} {size:>6} " + " ".join(cells))
PY
