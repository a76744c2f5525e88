#!/usr/bin/env bash
# Installs what MiniTrainBench needs (as root, or via sudo): Debian 12's packages, and the PyTorch
# wheel (pinned in scripts/python-requirements.txt) into a virtual environment, .venv/ unless
# MT_VENV says otherwise. Then builds mtrun and mtengine (Release) into build/. Safe to run again:
# it installs only what is missing and rebuilds only what changed. pip's download cache
# (~/.cache/pip) lives outside the checkout, so a fresh clone reinstalls without downloading.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build ccache git pkg-config python3 procps   # procps: pgrep in tests
  python3-venv                               # the virtual environment that holds the PyTorch wheel
  libopenmpi-dev openmpi-bin                 # MPI: the launcher and the CPU communicator
  libyaml-cpp-dev nlohmann-json3-dev libsqlite3-dev sqlite3
  libboost-dev libboost-filesystem-dev libcli11-dev libfmt-dev doctest-dev
  libssl-dev                                 # SHA-256 of checkpoint files (OpenSSL libcrypto)
)
# For the tests only: HTML reports opened in a browser, plots turned into PNGs to look at. Kept apart
# from PACKAGES, which a machine must have to build and run (scripts/gpu_check.sh reads that list).
TEST_PACKAGES=(chromium librsvg2-bin)
EXTRA_PACKAGES=("$@")   # e.g. the Slurm daemons for the test suite

missing=()
for p in "${PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${EXTRA_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The engine's LibTorch is the C++ library inside the PyTorch wheel. Debian's python3 makes the venv
# (the python3 first on PATH may be another interpreter); pip runs only when the pin changed.
VENV=${MT_VENV:-$PWD/.venv}
REQUIREMENTS=scripts/python-requirements.txt
if ! cmp -s "$REQUIREMENTS" "$VENV/.mt-requirements" 2>/dev/null; then
  [ -x "$VENV/bin/python" ] || /usr/bin/python3 -m venv "$VENV"
  echo "setup: installing $(sed 's/#.*//' "$REQUIREMENTS" | tr -s ' \n' ' ')into $VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
  cp "$REQUIREMENTS" "$VENV/.mt-requirements"
fi

BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} \
  -DMT_PYTHON="$VENV/bin/python" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
