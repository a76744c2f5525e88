#!/usr/bin/env bash
# After a flag, a bound, a choice or a strategy changes in the engine: regenerates what is derived
# from `mtengine WORKLOAD --describe`: the runner's test fixtures (runner/tests/data) and the
# engine parameters of the experiment schema (schemas/experiment.schema.json). The test
# engine_description_current fails until this has run.
#
#   scripts/regenerate_descriptions.sh [build/bin/mtengine]
set -euo pipefail
cd "$(dirname "$0")/.."
MTENGINE=${1:-build/bin/mtengine}
descriptions=()
for workload in train comm moe tp groups; do
  fixture="runner/tests/data/engine_${workload}_description.json"
  "$MTENGINE" "$workload" --describe >"$fixture.tmp"
  mv "$fixture.tmp" "$fixture"
  descriptions+=("$fixture")
done
/usr/bin/python3 scripts/experiment_schema.py "${descriptions[@]}" --write
git status --short runner/tests/data schemas/experiment.schema.json
