#!/usr/bin/env bash
# Installs what MiniTrainBench needs from Debian 12's packages (as root, or via sudo) and builds
# mtrun and mtengine (Release) into build/. Safe to run again: it installs only what is missing
# and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build ccache git pkg-config python3 procps   # procps: pgrep in tests
  libtorch-dev libopenblas0-pthread          # LibTorch 1.13 (CPU) on OpenBLAS, ~5x faster than reference BLAS
  libblas-dev                                # link name of that BLAS (libblas.so.3), which attention calls directly
  libopenmpi-dev openmpi-bin                 # MPI: the launcher and the CPU communicator
  libyaml-cpp-dev nlohmann-json3-dev libsqlite3-dev sqlite3
  libboost-dev libboost-filesystem-dev libcli11-dev libfmt-dev doctest-dev
)
EXTRA_PACKAGES=("$@")   # e.g. the Slurm daemons for the test suite

missing=()
for p in "${PACKAGES[@]}" "${EXTRA_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
