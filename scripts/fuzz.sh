#!/usr/bin/env bash
# Fuzzes experiment parsing, validation and expansion with libFuzzer (clang, ASan+UBSan).
#   scripts/fuzz.sh            # 60 seconds (what the test suite runs)
#   scripts/fuzz.sh 3600       # a longer run; crashes are written to build-fuzz/crashes/
# Seeds: every experiment file in the repository. Exits non-zero on any crash, leak or UB report.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=${1:-60}
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ is needed (apt-get install clang)"; exit 2; }
CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMT_BUILD_ENGINE=OFF \
  -DMT_BUILD_TESTS=OFF -DMT_BUILD_FUZZERS=ON >/dev/null
cmake --build "$BUILD" --target experiment_fuzzer -j"$(nproc)"
mkdir -p "$BUILD/corpus" "$BUILD/crashes"
cp experiments/*.yaml runner/tests/data/*.yaml "$BUILD/corpus/"
exec "$BUILD/bin/experiment_fuzzer" "$BUILD/corpus" -max_total_time="$SECONDS_TO_RUN" -max_len=4096 \
  -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$BUILD/crashes/" -print_final_stats=1
