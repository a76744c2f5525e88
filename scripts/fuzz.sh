#!/usr/bin/env bash
# Fuzzes mtrun with libFuzzer (clang, ASan+UBSan), the time split between two targets:
#   experiment_fuzzer  experiment files: parsing, validation, the trial-count limit, expansion,
#                      command templates, and the input as a bare expression (depth limit)
#   ingest_fuzzer      what a trial leaves behind: result JSON (size, depth, non-finite numbers),
#                      logs (rank-death line, metric regexes) and storing the outcome
#   scripts/fuzz.sh            # 60 seconds in all (what the test suite runs)
#   scripts/fuzz.sh 3600       # a longer run; crashes are written to build-fuzz/crashes/
# Seeds: every experiment file in the repository; for ingest runner/fuzz/ingest_seeds and the real
# results of every workload kind in runner/tests/data/results.
# Exits non-zero on any crash, leak or UB report.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=${1:-60}
source scripts/sanitizer_build.sh
BUILD=$SANITIZER_BUILD
configure_sanitizer_build fuzz.sh
cmake --build "$BUILD" --target experiment_fuzzer ingest_fuzzer -j"$(nproc)"
mkdir -p "$BUILD/corpus" "$BUILD/ingest_corpus" "$BUILD/crashes"
cp experiments/*.yaml runner/tests/data/*.yaml "$BUILD/corpus/"
cp runner/fuzz/ingest_seeds/* runner/tests/data/results/*.json "$BUILD/ingest_corpus/"
run() {  # run TARGET CORPUS MAX_LEN SECONDS
  "$BUILD/bin/$1" "$BUILD/$2" -max_total_time="$4" -max_len="$3" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$BUILD/crashes/$1-" -print_final_stats=1
}
run experiment_fuzzer corpus 4096 $(( (SECONDS_TO_RUN + 1) / 2 ))
run ingest_fuzzer ingest_corpus 65536 $(( SECONDS_TO_RUN / 2 ))
