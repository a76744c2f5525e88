#!/usr/bin/env bash
# The main job: set up, then run the CPU quick-start experiment through mtrun. Prints the summary;
# the results database is results/mtrun.sqlite (open it with sqlite3 or `mtrun query`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/bin/mtrun run experiments/quickstart.yaml "$@"
