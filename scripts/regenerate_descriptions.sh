#!/usr/bin/env bash
# After a flag, a bound, a choice or a strategy changes in the engine: regenerates what is derived
# from `mtengine WORKLOAD --describe`: the runner's test fixtures (runner/tests/data), the
# engine parameters of the experiment schema (schemas/experiment.schema.json), and the strategy and
# collective names of the result schema (schemas/result.schema.json). The test
# engine_description_current fails until this has run.
#
#   scripts/regenerate_descriptions.sh [build/bin/mtengine]
set -euo pipefail
cd "$(dirname "$0")/.."
MTENGINE=${1:-build/bin/mtengine}
TMPDIR_DESCRIBE=$(mktemp -d)
trap 'rm -rf "$TMPDIR_DESCRIBE"' EXIT
descriptions=()
# Every subcommand with an option table, as the engine lists them.
for workload in $("$MTENGINE" describe | /usr/bin/python3 -c \
    'import json, sys; print(" ".join(s["name"] for s in json.load(sys.stdin)["subcommands"] if s["options"]))'); do
  fixture="runner/tests/data/engine_${workload}_description.json"
  "$MTENGINE" "$workload" --describe >"$fixture.tmp"
  mv "$fixture.tmp" "$fixture"
  descriptions+=("$fixture")
done
/usr/bin/python3 scripts/experiment_schema.py "${descriptions[@]}" --write
"$MTENGINE" describe >"$TMPDIR_DESCRIBE/describe.json"
/usr/bin/python3 scripts/result_schema_names.py "$TMPDIR_DESCRIBE/describe.json" --write
git status --short runner/tests/data schemas/experiment.schema.json schemas/result.schema.json
