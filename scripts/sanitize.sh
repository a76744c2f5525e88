#!/usr/bin/env bash
# Runs tests under AddressSanitizer and UBSan: use after scope or free, overflows, leaks, undefined
# behaviour that the ordinary build passes by luck. Exits non-zero on any failing test or report.
#   scripts/sanitize.sh [DOCTEST ARGS...]            mtrun's unit tests (mtrun_tests), with LSan too, in
#                                                    the fuzzers' build (scripts/sanitizer_build.sh)
#   scripts/sanitize.sh --engine [DOCTEST ARGS...]   mtengine's unit tests, its communicator on 2 ranks
#                                                    and a short training of every strategy on 2 ranks,
#                                                    in a gcc build of their own (build-sanitize-engine;
#                                                    about 25 minutes on 2 cores the first time)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sanitizer_build.sh
if [ "${1:-}" != "--engine" ]; then
  configure_sanitizer_build sanitize.sh
  cmake --build "$SANITIZER_BUILD" --target mtrun_tests -j"$(nproc)"
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
  exec "$SANITIZER_BUILD/bin/mtrun_tests" "$@"
fi
shift
BUILD=${SANITIZE_ENGINE_BUILD_DIR:-build-sanitize-engine}
FLAGS="-fsanitize=address,undefined -fno-sanitize=vptr -fno-omit-frame-pointer"  # LibTorch has no vptr checks
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMT_BUILD_RUNNER=OFF -DMT_BUILD_BENCHMARKS=OFF \
  -DMT_PYTHON="$PWD/.venv/bin/python" -DCMAKE_CXX_FLAGS="$FLAGS" -DCMAKE_C_FLAGS="$FLAGS" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  >/dev/null
cmake --build "$BUILD" --target mtengine_tests communicator_test mtengine -j"$(nproc)"
# LibTorch, MKL and OpenMP keep allocations for the process's life: leaks are not checked here.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:protect_shadow_gap=0}
export MT_CACHE_DIR=${MT_CACHE_DIR:-$PWD/$BUILD/test-facts} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# ASan's own allocator serves malloc, so glibc's tunables (the freed-memory and huge-page policy)
# cannot take effect: those tests are left out.
"$BUILD/bin/mtengine_tests" -tce="*freed blocks*,*malloc thresholds*,*heap's*" "$@"
MPIRUN=(mpirun -np 2 --oversubscribe --mca pml ob1 --mca btl self,vader)
"${MPIRUN[@]}" "$BUILD/bin/communicator_test"
for strategy in $("$BUILD/bin/mtengine" describe | python3 -c \
  'import json, sys; print(" ".join(s["name"] for s in json.load(sys.stdin)["strategies"]))'); do
  "${MPIRUN[@]}" "$BUILD/bin/mtengine" train --strategy "$strategy" --d-model 64 --n-layers 2 --n-heads 4 \
    --seq-length 32 --batch-size 2 --vocab-size 256 --dropout 0.1 --steps 4 --warmup-steps 1 --threads 1 \
    --output "$BUILD/sanitized_train.json" >/dev/null
  echo "sanitize.sh: $strategy trained on 2 ranks without a report"
done
