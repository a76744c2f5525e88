# Sourced by fuzz.sh and sanitize.sh: mtrun built with clang, AddressSanitizer and UBSan (and the
# fuzzers' coverage instrumentation), one build directory for both, so each reuses the other's
# objects. configure_sanitizer_build NAME configures it; a sanitizer report stops the program with a
# non-zero exit (UBSan would otherwise print and carry on).
SANITIZER_BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
configure_sanitizer_build() {
  command -v clang++ >/dev/null || { echo "$1: clang++ is needed (apt-get install clang)"; exit 2; }
  CC=clang CXX=clang++ cmake -S . -B "$SANITIZER_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMT_BUILD_ENGINE=OFF -DMT_BUILD_TESTS=ON -DMT_BUILD_FUZZERS=ON >/dev/null
}
