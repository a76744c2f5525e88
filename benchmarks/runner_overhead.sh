#!/usr/bin/env bash
# Per-trial overhead of mtrun over a bare mpirun of the same command.
#   benchmarks/runner_overhead.sh [TRIALS] [ROUNDS]
# Each round: time `mtrun run` of an experiment with TRIALS trials of `mpirun -np 2 true` (via
# the command workload) and of a 1-trial one, so (T_N - T_1) / (N - 1) is what one more trial
# costs inside mtrun (launch under the job guard, SQLite writes, provenance, ingestion); then
# time N bare `mpirun -np 2 true` launches. Prints the per-round figures and the medians.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-20}
ROUNDS=${2:-3}
MTRUN=${MTRUN:-build/bin/mtrun}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

experiment() {  # experiment FILE REPEATS
  cat > "$1" <<YAML
name: overhead
repeat: $2
studies:
  - name: true
    workload: command
    command: ["true"]
    matrix: {ranks: [2]}
YAML
}
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

experiment "$WORK/n.yaml" "$N"
experiment "$WORK/one.yaml" 1
mtrun_cost=() bare_cost=()
for round in $(seq 1 "$ROUNDS"); do
  rm -f "$WORK"/*.sqlite*
  t0=$(now); "$MTRUN" --db "$WORK/n.sqlite" run "$WORK/n.yaml" >/dev/null; t1=$(now)
  "$MTRUN" --db "$WORK/one.sqlite" run "$WORK/one.yaml" >/dev/null; t2=$(now)
  per_trial=$(echo "(($t1 - $t0) - ($t2 - $t1)) / ($N - 1)" | bc -l)
  bare=()
  for _ in $(seq 1 "$N"); do
    b0=$(now); mpirun -np 2 --mca pml ob1 --mca btl self,vader true; b1=$(now)
    bare+=("$(echo "$b1 - $b0" | bc -l)")
  done
  bare_median=$(printf '%s\n' "${bare[@]}" | median)
  printf 'round %d: mtrun %.3f s/trial, bare mpirun %.3f s (median of %d), overhead %.3f s\n' \
    "$round" "$per_trial" "$bare_median" "$N" "$(echo "$per_trial - $bare_median" | bc -l)"
  mtrun_cost+=("$per_trial") bare_cost+=("$bare_median")
done
m=$(printf '%s\n' "${mtrun_cost[@]}" | median)
b=$(printf '%s\n' "${bare_cost[@]}" | median)
printf 'median over %d rounds: mtrun %.3f s/trial, bare %.3f s, overhead %.3f s per trial\n' "$ROUNDS" "$m" "$b" \
  "$(echo "$m - $b" | bc -l)"
