#!/usr/bin/env bash
# mtrun's unit tests (mtrun_tests) under AddressSanitizer, LeakSanitizer and UBSan, in the fuzzers'
# build (scripts/sanitizer_build.sh): use after scope or free, overflows, leaks, undefined behaviour
# that the ordinary build passes by luck. Exits non-zero on any failing test or sanitizer report.
#   scripts/sanitize.sh [DOCTEST ARGS...]      # e.g. -tc="*report*"
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sanitizer_build.sh
configure_sanitizer_build sanitize.sh
cmake --build "$SANITIZER_BUILD" --target mtrun_tests -j"$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
"$SANITIZER_BUILD/bin/mtrun_tests" "$@"
