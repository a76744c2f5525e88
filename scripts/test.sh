#!/usr/bin/env bash
# The whole test suite: set up, build, and run every ctest test except those needing a GPU and the
# container image's (label container: it builds the image, about 25 minutes; `ctest -L container`).
set -euo pipefail
cd "$(dirname "$0")/.."
# Slurm: the slurm tests start a cluster of their own. iproute2: the multinode tests make hosts of
# network namespaces. clang + its runtime: the fuzz test.
# python3-jsonschema/yaml: the experiment schema test.
# clang-format: the style check.
scripts/setup.sh slurmctld slurmd slurm-client munge iproute2 clang libclang-rt-14-dev python3-jsonschema python3-yaml \
  clang-format
# Open MPI refuses to run as root without these; the tests start MPI jobs.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -LE "gpu|container" "$@"
