#!/usr/bin/env bash
# Provenance is recorded per attempt: a clean git tree gives the source commit, a dirty one a diff
# hash and a new campaign; a build revision that differs from the source commit, or an engine built
# from a dirty tree, is named missing.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
cd "$WORK"
git init -q . && git config user.email t@example.com && git config user.name t
cat > p.yaml <<'YAML'
name: prov
studies:
  - name: s
    workload: train
    defaults: {vocab_size: 256, d_model: 32, n_heads: 2, n_layers: 1, seq_length: 16, steps: 2, warmup_steps: 0}
YAML
git add p.yaml && git commit -qm experiment
COMMIT=$(git rev-parse HEAD)

capture "$MTRUN" --db "$DB" run p.yaml
expect_eq "$RC" 0 "clean run"
expect_eq "$(sql "select source_commit, tree_dirty, bare_metal from provenance")" "$COMMIT|0|1" "clean-tree provenance"
# The engine under test was built from this project's tree, which may hold uncommitted changes.
MISSING='["build_revision_matches_source"]'
[ "$(sql "select json_extract(result_json, '$.environment.build_tree_dirty') from attempts")" = 1 ] &&
  MISSING='["build_revision_matches_source","clean_build"]'
expect_eq "$(sql "select missing_fields from provenance")" "$MISSING" "engine built from another commit"
expect_eq "$(sql "select count(*) from provenance where engine_binary_hash like 'fnv1a64:%' and json_extract(software_stack, '$.libtorch') != ''")" 1 "binary hash and stack"
expect_eq "$(sql "select source_revision from campaigns")" "$COMMIT" "campaign revision"

echo "# changed" >> p.yaml   # uncommitted change: a new campaign, and the tree is dirty
capture "$MTRUN" --db "$DB" run p.yaml
expect_eq "$RC" 0 "dirty run"
expect_eq "$(sql "select count(*) from campaigns")" 2 "a dirty tree starts a new campaign"
expect_eq "$(sql "select tree_dirty, length(diff_hash) > 0, complete from provenance order by attempt_id desc limit 1")" "1|1|0" "dirty-tree provenance"
expect_contains "$(sql "select missing_fields from provenance order by attempt_id desc limit 1")" "clean_tree" "dirty tree named"
capture "$MTRUN" --db "$DB" status --provenance
expect_contains "$OUT" "clean_tree" "status --provenance shows what is missing"
echo "PASS"
