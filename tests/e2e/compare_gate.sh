#!/usr/bin/env bash
# compare as a CI gate, baselines and history, on a `command` workload that times a sleep: in a git
# repository of its own, a campaign, a repeat of it at a new commit (no change: the gate passes), a
# commit that makes the work 30 % slower (the gate fails naming the configuration; history names
# that commit), and a commit that changes a parameter (compare names it with both values). No engine
# is launched.
source "$(dirname "$0")/lib.sh"
export MTENGINE=/bin/true
DB="$WORK/results/mtrun.sqlite"
REPO="$WORK/repo"
mkdir -p "$REPO"
git -C "$REPO" init -q
git -C "$REPO" config user.email test@example.com
git -C "$REPO" config user.name test
# The work: sleep for the time in ./delay, report how long it took in milliseconds.
cat > "$REPO/work.sh" <<'SH'
#!/bin/sh
start=$(date +%s%N)
sleep "$(cat "$(dirname "$0")/delay")"
end=$(date +%s%N)
echo "elapsed_ms: $(( (end - start) / 1000000 ))"
SH
chmod +x "$REPO/work.sh"
experiment() {  # experiment CHUNK
  cat > "$REPO/exp.yaml" <<YAML
name: gate
repeat: 3
conditions: {keep_disturbed: true}   # a shared test machine: judge every attempt
studies:
  - name: s
    workload: command
    launch: direct
    command: [/bin/sh, "{experiment_dir}/work.sh", "{chunk}"]
    defaults: {chunk: $1}
    metrics: {elapsed_ms: {regex: 'elapsed_ms: ([0-9]+)', better: lower}}
YAML
}
commit_and_run() {  # commit_and_run MESSAGE: commits the repository and runs the experiment; CAMPAIGN is its id
  git -C "$REPO" add -A
  git -C "$REPO" commit -q --allow-empty -m "$1"
  capture "$MTRUN" --db "$DB" run "$REPO/exp.yaml"
  expect_eq "$RC" 0 "run at '$1': $OUT"
  CAMPAIGN=$(sed -n 's/^experiment gate: campaign \([0-9a-f]*\),.*/\1/p' <<<"$OUT")
  [ -n "$CAMPAIGN" ] || fail "no campaign id in: $OUT"
}

echo 0.2 > "$REPO/delay"
experiment 1
commit_and_run "first"
FIRST=$CAMPAIGN
commit_and_run "no change"
SECOND=$CAMPAIGN
[ "$FIRST" != "$SECOND" ] || fail "a new commit should make a new campaign"

# No change: the gate passes.
capture "$MTRUN" --db "$DB" compare "$FIRST" "$SECOND" --fail-on-regression 10
expect_eq "$RC" 0 "compare without a change: $OUT"
expect_contains "$OUT" "**Passed**" "gate verdict"
expect_contains "$OUT" "| s ×1 | elapsed_ms |" "compared configuration"

# Baselines: set, list, replace; an unknown one is named as such.
capture "$MTRUN" --db "$DB" baseline set main "${FIRST:0:6}"
expect_eq "$RC" 0 "baseline set: $OUT"
expect_contains "$OUT" "baseline main is campaign $FIRST of gate" "baseline set"
capture "$MTRUN" --db "$DB" baseline set main "$SECOND"
expect_eq "$RC" 0 "baseline repointed: $OUT"
expect_contains "$OUT" "baseline main is campaign $SECOND of gate" "baseline repointed"
expect_contains "$OUT" "it pointed at campaign $FIRST of gate (set " "where it pointed before"
capture "$MTRUN" --db "$DB" baseline set main "$FIRST"
expect_eq "$(grep -c "pointed at campaign $SECOND" <<<"$OUT")" 1 "repointed back"
capture "$MTRUN" --db "$DB" baseline set main "$FIRST"
expect_eq "$(grep -c "pointed at" <<<"$OUT")" 0 "set again to the same campaign: nothing repointed"
capture "$MTRUN" --db "$DB" baseline list
expect_eq "$RC" 0 "baseline list"
expect_contains "$OUT" "main" "baseline list"
expect_contains "$OUT" "$FIRST" "baseline list"
capture "$MTRUN" --db "$DB" compare --baseline nightly "$SECOND"
expect_eq "$RC" 2 "unknown baseline"
expect_contains "$OUT" "no baseline 'nightly' in the database (there are: main)" "unknown baseline"
# A campaign is not compared with itself: as a gate it would pass on nothing new.
capture "$MTRUN" --db "$DB" baseline set now "$SECOND"
# Another experiment run since in the same database is no new version of `gate`.
cat > "$WORK/other.yaml" <<'YAML'
name: other
studies: [{name: o, workload: command, launch: direct, command: [/bin/true]}]
YAML
capture "$MTRUN" --db "$DB" run "$WORK/other.yaml"
expect_eq "$RC" 0 "another experiment: $OUT"
capture "$MTRUN" --db "$DB" compare --baseline now --fail-on-regression 10
expect_eq "$RC" 2 "the latest campaign is the baseline: $OUT"
expect_contains "$OUT" "the latest campaign of \`gate\`, $SECOND, is baseline \`now\` itself: nothing to compare it with yet" "baseline itself"
capture "$MTRUN" --db "$DB" baseline delete now
capture "$MTRUN" --db "$DB" compare "$FIRST" "${FIRST:0:6}"
expect_eq "$RC" 2 "a campaign with itself"
expect_contains "$OUT" "A and B are the same campaign, $FIRST" "the same campaign"

# 30 % slower on purpose: the gate fails, naming the configuration and by how much.
echo 0.26 > "$REPO/delay"
commit_and_run "slower"
SLOW=$CAMPAIGN
SLOW_COMMIT=$(git -C "$REPO" rev-parse HEAD)
capture "$MTRUN" --db "$DB" compare --baseline main "$SLOW" --fail-on-regression 10
expect_eq "$RC" 1 "compare against the baseline after the slowdown: $OUT"
expect_contains "$OUT" "baseline \`main\`, campaign \`$FIRST\`" "A is the baseline"
expect_contains "$OUT" "**Failed**: 1 of 1 judged comparison is worse by more than 10 % beyond noise" "gate verdict"
grep -qE -- "^- s ×1 — elapsed_ms: (2[5-9]|3[0-9])\.[0-9] % worse" <<<"$OUT" || fail "the failed configuration and how much: $OUT"
# Written to a file, the verdict still reaches the terminal.
capture "$MTRUN" --db "$DB" compare "$SECOND" "$SLOW" --fail-on-regression 10 -o "$WORK/cmp.md"
expect_eq "$RC" 1 "compare to a file"
expect_contains "$OUT" "regression gate (10 %): FAILED (1 of 1 judged): s ×1 elapsed_ms" "terminal verdict"
# Within the threshold: a 30 % slowdown does not fail a 50 % gate.
capture "$MTRUN" --db "$DB" compare "$SECOND" "$SLOW" --fail-on-regression 50
expect_eq "$RC" 0 "a larger threshold"

# History: the three revisions in order, the slowdown at the third.
capture "$MTRUN" --db "$DB" history gate --svg "$WORK/history.svg"
expect_eq "$RC" 0 "history: $OUT"
expect_contains "$OUT" "3 campaigns at 3 revisions" "history header"
expect_contains "$OUT" "- s ×1 — elapsed_ms: changed at revision \`${SLOW_COMMIT:0:12}\`" "change point"
expect_eq "$(grep -c 'changed at revision' <<<"$OUT")" 1 "exactly one change point"
expect_contains "$OUT" "(worse)" "direction of the change"
head -c 4 "$WORK/history.svg" | grep -q "<svg" || fail "history --svg did not write an SVG"
# The experiment's file stands for its name; a mistyped name is answered with the names there are.
capture "$MTRUN" --db "$DB" history "$REPO/exp.yaml"
expect_eq "$RC" 0 "history of an experiment file: $OUT"
expect_contains "$OUT" "# History of \`gate\`" "the file's experiment"
capture "$MTRUN" --db "$DB" history gaet
expect_eq "$RC" 2 "history of a mistyped experiment"
expect_contains "$OUT" "no campaign of experiment 'gaet' in the database (did you mean 'gate'?); it holds campaigns of: gate" "suggestion"
truncate -s 2M "$WORK/big.yaml"  # a file named by mistake is not read whole
capture "$MTRUN" --db "$DB" history "$WORK/big.yaml"
expect_eq "$RC" 2 "history of a file too large to be an experiment"
expect_contains "$OUT" "$WORK/big.yaml: not an experiment file (2.0 MiB; experiment files are at most 1 MiB)" "size bound"
capture "$MTRUN" --db "$DB" campaigns --experiment "$REPO/exp.yaml"
expect_contains "$OUT" "$FIRST" "campaigns of an experiment file"
capture "$MTRUN" --db "$DB" history gate --metric tokens_per_sec
expect_eq "$RC" 2 "history of a metric nobody has"
expect_contains "$OUT" "no configuration of experiment 'gate' has metric 'tokens_per_sec' (it has: elapsed_ms)" "unknown metric"

# A changed parameter: named with both values, its configurations still compared.
experiment 2
commit_and_run "chunk 2"
capture "$MTRUN" --db "$DB" compare "$SLOW" "$CAMPAIGN"
expect_eq "$RC" 0 "compare after a parameter change: $OUT"
expect_contains "$OUT" "- \`chunk\` (study \`s\`): A 1, B 2" "changed parameter"
expect_contains "$OUT" "| s ×1 | elapsed_ms |" "matched despite the change"
# History keeps a changed default apart: a series of its own, named by its value.
capture "$MTRUN" --db "$DB" history gate
expect_contains "$OUT" "| s ×1 (chunk=2) | elapsed_ms |" "a series for the new default"
# Matched on it by request: one configuration in each campaign only, told apart by its value.
capture "$MTRUN" --db "$DB" compare "$SLOW" "$CAMPAIGN" --match chunk
expect_eq "$RC" 0 "compare --match"
expect_contains "$OUT" "- only in A: s ×1 (chunk=1)" "only in A"
expect_contains "$OUT" "- only in B: s ×1 (chunk=2)" "only in B"

# Campaigns recorded on different CPUs are refused (exit 4) unless asked for, then labelled.
set_cpu() {  # set_cpu CAMPAIGN MODEL: as if its trials had reported running on MODEL
  sql "UPDATE provenance SET software_stack = json_set(software_stack, '\$.cpu_model', '$2')
       WHERE attempt_id IN (SELECT a.id FROM attempts a JOIN trials t ON t.id = a.trial_id WHERE t.campaign_id = '$1')"
}
set_cpu "$SECOND" "CPU 8000"
set_cpu "$SLOW" "CPU 9000"
capture "$MTRUN" --db "$DB" compare "$SECOND" "$SLOW" --fail-on-regression 10
expect_eq "$RC" 4 "different machine: $OUT"
expect_contains "$OUT" "the campaigns ran on different machines or software stacks (cpu_model: A \`CPU 8000\`, B \`CPU 9000\`)" "refusal"
capture "$MTRUN" --db "$DB" compare "$SECOND" "$SLOW" --allow-different-stack
expect_eq "$RC" 0 "allowed"
expect_contains "$OUT" "**Different machine or software stack (\`--allow-different-stack\`)**: cpu_model:" "label"

capture "$MTRUN" --db "$DB" baseline delete main
expect_eq "$RC" 0 "baseline delete"
capture "$MTRUN" --db "$DB" baseline list
expect_contains "$OUT" "no baselines yet" "deleted"
echo "PASS"
