#!/usr/bin/env bash
# Provenance is recorded per attempt as two separate facts: the experiment's own source (the git
# repository holding it, its commit, whether it had uncommitted changes and a hash of them) and the
# engine's build (its revision, clean or not). An experiment committed in a repository of its own,
# driving a clean engine build, is complete; one with uncommitted changes is not, and its report says
# so once, with the fix. An experiment in no repository lacks its source commit; one in the engine's
# own repository must be at the commit the engine was built from.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
cd "$WORK"
git init -q . && git config user.email t@example.com && git config user.name t
cat > p.yaml <<'YAML'
name: prov
repeat: 2
studies:
  - name: s
    workload: train
    defaults: {vocab_size: 256, d_model: 32, n_heads: 2, n_layers: 1, seq_length: 16, steps: 2, warmup_steps: 0}
YAML
git add p.yaml && git commit -qm experiment
COMMIT=$(git rev-parse HEAD)
latest() { sql "select $1 from provenance order by attempt_id desc limit 1"; }
# The lines of a report's warning block that name FACT: each fact is stated once.
fact_lines() { grep -c -- "^> - .*(\`$1\`)" <<<"$OUT" || true; }

capture "$MTRUN" --db "$DB" run p.yaml
expect_eq "$RC" 0 "clean run"
expect_eq "$(latest "source_commit, tree_dirty, source_repository, bare_metal")" "$COMMIT|0|$(pwd -P)|1" "the experiment's source"
# The engine under test was built from this project's tree, which may hold uncommitted changes: that
# is the only fact its trials may lack. The experiment's own facts are complete.
BUILD_DIRTY=$(sql "select distinct json_extract(result_json, '$.environment.build_tree_dirty') from attempts")
expect_eq "$(sql "select distinct build_tree_dirty from provenance")" "$BUILD_DIRTY" "the engine's build, as it reports it"
expect_eq "$(sql "select count(*) from provenance where length(build_revision) != 40")" 0 "the engine's revision"
if [ "$BUILD_DIRTY" = 1 ]; then MISSING='["clean_build"]' COMPLETE=0; else MISSING='[]' COMPLETE=1; fi
expect_eq "$(sql "select distinct missing_fields || complete from provenance")" "$MISSING$COMPLETE" "a committed experiment of its own repository"
expect_eq "$(sql "select count(*) from provenance where engine_binary_hash like 'fnv1a64:%' and json_extract(software_stack, '$.libtorch') != ''")" 2 "binary hash and stack"
expect_eq "$(sql "select source_revision from campaigns")" "$COMMIT" "campaign revision"
capture "$MTRUN" --db "$DB" report
expect_eq "$RC" 0 "report of the clean run"
if [ "$BUILD_DIRTY" = 1 ]; then
  expect_contains "$OUT" '> - 2 of 2 trials ran an engine built from a tree with uncommitted changes (`clean_build`): rebuild the engine from a clean checkout' "the dirty build, once"
  expect_eq "$(grep -c '^> - ' <<<"$OUT")" 1 "nothing else is missing"
else
  grep -qF "Incomplete provenance" <<<"$OUT" && fail "a clean build of the engine and a committed experiment are complete"
fi

capture "$MTRUN" plan p.yaml
expect_contains "$OUT" "(revision ${COMMIT:0:12}); " "plan of a committed experiment"
expect_contains "$OUT" "questions: none declared" "plan: no questions declared"
echo "# changed" >> p.yaml   # uncommitted change: a new campaign, and the tree is dirty
capture "$MTRUN" plan p.yaml
expect_contains "$OUT" "(revision ${COMMIT:0:12} with uncommitted changes); " "plan of a dirty tree says so"
capture "$MTRUN" --db "$DB" run p.yaml
expect_eq "$RC" 0 "dirty run"
expect_eq "$(sql "select count(*) from campaigns")" 2 "a dirty tree starts a new campaign"
DIFF=$(sql "select substr(source_revision, 42, 8) from campaigns where source_revision like '%+%'")
[ ${#DIFF} = 8 ] || fail "no diff hash in the dirty campaign's revision"
capture "$MTRUN" --db "$DB" status
expect_contains "$(head -n 1 <<<"$OUT")" "revision ${COMMIT:0:12}+$DIFF " "status: the dirty revision with its diff"
capture "$MTRUN" --db "$DB" campaigns
expect_contains "$OUT" " ${COMMIT:0:12}+$DIFF " "campaigns: the dirty revision apart from the clean one"
expect_eq "$(latest "tree_dirty, length(diff_hash) > 0, complete")" "1|1|0" "dirty-tree provenance"
expect_contains "$(latest missing_fields)" '"clean_tree"' "dirty tree named"
capture "$MTRUN" --db "$DB" status --provenance
expect_contains "$OUT" "clean_tree" "status --provenance shows what is missing"
expect_contains "$OUT" "$(pwd -P)" "status --provenance names the repository"
capture "$MTRUN" --db "$DB" report
expect_contains "$OUT" '> - 2 of 2 trials ran an experiment whose repository had uncommitted changes (`clean_tree`): commit the experiment'"'"'s repository before running (`git commit`).' "the fix, once"
expect_eq "$(fact_lines clean_tree)" 1 "one line for the dirty experiment, not one per trial"
# The revision column names the engine's build, whatever state the experiment's tree was in.
REVISION=$(sql "select build_revision from provenance limit 1")
if [ "$BUILD_DIRTY" = 1 ]; then CELL="\`$REVISION+dirty\`"; else CELL="\`$REVISION\`"; fi
expect_contains "$OUT" "| S1 | s | $CELL | bare metal |" "the build's revision"
git commit -qam "commit the change"

# A plain folder: no repository, so no source commit (git may not look above it).
mkdir plain && cp p.yaml plain/
capture env GIT_CEILING_DIRECTORIES="$WORK" "$MTRUN" --db "$DB" run plain/p.yaml
expect_eq "$RC" 0 "run in a plain folder"
expect_eq "$(latest "source_commit, source_repository")" "unknown|" "no repository"
expect_contains "$(latest missing_fields)" '"source_commit"' "source commit missing"
capture "$MTRUN" --db "$DB" report
expect_contains "$OUT" '(`source_commit`): keep the experiment file in a git repository and commit it' "the fix for a plain folder"
# There the revision ("unknown") cannot tell two engines apart, so the engine binary does: another
# build starts a campaign of its own, and run says which one it would otherwise have joined.
PLAIN=$(sql "select id from campaigns where source_revision = 'unknown'")
cp "${MTENGINE:-$MT_BUILD_DIR/bin/mtengine}" "$WORK/other_mtengine"
printf '\n' >> "$WORK/other_mtengine"   # the same program, another binary
capture env GIT_CEILING_DIRECTORIES="$WORK" "$MTRUN" --db "$DB" plan --engine "$WORK/other_mtengine" plain/p.yaml
expect_contains "$OUT" "(revision unknown, so the engine binary fnv1a64:" "plan: the engine binary tells campaigns apart"
capture env GIT_CEILING_DIRECTORIES="$WORK" "$MTRUN" --db "$DB" run --engine "$WORK/other_mtengine" plain/p.yaml
expect_eq "$RC" 0 "run in a plain folder with another engine binary"
expect_eq "$(sql "select count(*) from campaigns where source_revision = 'unknown'")" 2 "another engine binary, another campaign"
expect_contains "$OUT" "note: a new campaign: the experiment is in no git repository, so its revision (unknown) cannot tell two builds of the engine apart and the engine binary does: this one (fnv1a64:" \
  "run says why it is a new campaign"
expect_contains "$OUT" "is not the one campaign $PLAIN of the same plan ran (fnv1a64:" "and which campaign it would have joined"
capture env GIT_CEILING_DIRECTORIES="$WORK" "$MTRUN" --db "$DB" run --engine "$WORK/other_mtengine" plain/p.yaml
expect_contains "$OUT" "2 trial(s) already succeeded in this campaign" "the same binary again: the same campaign"
grep -qF "note: a new campaign" <<<"$OUT" && fail "the same binary again is no new campaign: $OUT"
# A known revision names the code: another binary keeps today's campaign.
campaign_planned() { grep -oE 'trials in campaign [0-9a-f]{12}' <<<"$1"; }
capture "$MTRUN" plan p.yaml
SAME=$(campaign_planned "$OUT")
capture "$MTRUN" plan --engine "$WORK/other_mtengine" p.yaml
expect_eq "$(campaign_planned "$OUT")" "$SAME" "a known revision: another engine binary, the same campaign"

# The engine's own repository: once the experiment's repository holds the commit the engine was
# built from, the experiment must be at that commit.
if OBJECTS=$(git -C "$MT_SOURCE_DIR" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)/objects &&
  git -C "$MT_SOURCE_DIR" cat-file -e "$REVISION^{commit}" 2>/dev/null; then
  echo "$OBJECTS" >> .git/objects/info/alternates
  echo "# in the engine's repository" >> p.yaml && git commit -qam again
  capture "$MTRUN" --db "$DB" run p.yaml
  expect_eq "$RC" 0 "run in the engine's repository"
  expect_contains "$(latest missing_fields)" '"build_revision_matches_source"' "a build from another commit of this repository"
else
  echo "skipped: the engine's revision $REVISION is not a commit of $MT_SOURCE_DIR"
fi
echo "PASS"
