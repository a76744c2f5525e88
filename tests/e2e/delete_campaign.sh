#!/usr/bin/env bash
# `mtrun delete CAMPAIGN`: nothing goes without --yes (--dry-run says what would); with it every
# row of the campaign leaves the database and its run directory leaves the disk, while another
# campaign stays whole; a campaign a baseline points at, or one a live runner is running, is
# refused and left as it was; two databases in one folder keep their runs apart. No engine is
# launched.
source "$(dirname "$0")/lib.sh"
export MTENGINE=/bin/true
DB="$WORK/results/mtrun.sqlite"
RUNS="$WORK/results/runs/mtrun.sqlite"  # each database keeps its runs in a folder of its own
experiment() {  # experiment NAME COMMAND...: a study of two trials running COMMAND
  local name=$1; shift
  printf 'name: %s\nstudies:\n  - name: s\n    workload: command\n    launch: direct\n    command: [%s]\n    matrix: {n: [1, 2]}\n    metrics: {value: {regex: %s}}\n' \
    "$name" "$*" "'value: ([0-9]+)'" > "$WORK/$name.yaml"
}
experiment gone 'sh, -c, "echo value: {n}"'
experiment kept 'sh, -c, "echo value: {n}"'
for e in gone kept; do
  capture "$MTRUN" --db "$DB" run "$WORK/$e.yaml"
  expect_eq "$RC" 0 "run $e"
done
GONE=$(sql "select id from campaigns where experiment = 'gone'")
KEPT=$(sql "select id from campaigns where experiment = 'kept'")
[ -d "$RUNS/$GONE" ] && [ -d "$RUNS/$KEPT" ] || fail "no run directories: $(ls "$RUNS")"
rows_kept_before=$(sql "select count(*) from metrics m join attempts a on a.id = m.attempt_id join trials t on t.id = a.trial_id where t.campaign_id = '$KEPT'")

# An id left empty (an unset variable) or of one or two characters names no campaign to delete.
for short in "" "${GONE:0:1}" "${GONE:0:3}"; do
  capture "$MTRUN" --db "$DB" delete "$short" --yes
  expect_eq "$RC" 2 "delete '$short'"
  expect_eq "$(sql "select count(*) from campaigns")" 2 "delete '$short' deleted nothing"
done
expect_contains "$OUT" "give at least 4 characters of the campaign's id" "a short prefix is refused, saying why"
capture "$MTRUN" --db "$DB" report --campaign ""
expect_eq "$RC" 2 "an empty campaign id is no prefix of every campaign"
expect_contains "$OUT" "the campaign id is empty" "the empty id is named"
capture "$MTRUN" --db "$DB" status --campaign "_"
expect_eq "$RC" 2 "'_' is a character of an id, not a wildcard"

capture "$MTRUN" --db "$DB" delete "$GONE"
expect_eq "$RC" 2 "delete without --yes"
expect_contains "$OUT" "would delete campaign $GONE of gone" "without --yes it says what would go"
expect_contains "$OUT" "2 trials, 2 attempts" "the counts"
expect_contains "$OUT" "nothing deleted: add --yes" "and that nothing went"
capture "$MTRUN" --db "$DB" delete --dry-run "${GONE:0:6}"
expect_eq "$RC" 0 "delete --dry-run, by prefix"
expect_contains "$OUT" "would delete campaign $GONE" "the dry run names the campaign"
expect_contains "$OUT" "run directory $RUNS/$GONE" "the dry run names the run directory"
expect_eq "$(sql "select count(*) from campaigns")" 2 "nothing deleted without --yes"
[ -d "$RUNS/$GONE" ] || fail "a dry run removed the run directory"

capture "$MTRUN" --db "$DB" baseline set main "$GONE"
expect_eq "$RC" 0 "baseline set"
capture "$MTRUN" --db "$DB" delete "$GONE" --yes
expect_eq "$RC" 2 "deleting a baseline's campaign"
expect_contains "$OUT" "is what baseline main points at" "the refusal names the baseline"
expect_eq "$(sql "select count(*) from trials where campaign_id = '$GONE'")" 2 "a refused delete leaves the rows"
[ -d "$RUNS/$GONE" ] || fail "a refused delete removed the run directory"
capture "$MTRUN" --db "$DB" baseline delete main
expect_eq "$RC" 0 "baseline delete"

capture "$MTRUN" --db "$DB" delete "$GONE" --yes
expect_eq "$RC" 0 "delete --yes"
expect_contains "$OUT" "deleted campaign $GONE of gone" "delete says what it deleted"
expect_contains "$OUT" "removed its run directory $RUNS/$GONE" "and the directory it removed"
expect_eq "$(sql "select count(*) from campaigns")" 1 "one campaign left"
expect_eq "$(sql "select count(*) from attempts a join trials t on t.id = a.trial_id where t.campaign_id = '$GONE'")" 0 \
  "none of its attempts left"
expect_eq "$(sql "select count(*) from pragma_foreign_key_check")" 0 "no row points at what went"
[ ! -e "$RUNS/$GONE" ] || fail "the run directory is still there"
[ -d "$RUNS/$KEPT" ] || fail "the other campaign's run directory went too"
expect_eq "$(sql "select count(*) from metrics m join attempts a on a.id = m.attempt_id join trials t on t.id = a.trial_id where t.campaign_id = '$KEPT'")" \
  "$rows_kept_before" "the other campaign's metrics are whole"
capture "$MTRUN" --db "$DB" report --campaign "$KEPT"
expect_eq "$RC" 0 "the other campaign still reports"
capture "$MTRUN" --db "$DB" status --campaign "$GONE"
expect_eq "$RC" 2 "a deleted campaign is unknown"
capture "$MTRUN" --db "$DB" delete "$GONE" --yes
expect_eq "$RC" 2 "deleting it again"
expect_contains "$OUT" "$GONE" "the unknown campaign is named"
echo "PASS (delete)"

# --keep-files: the rows go, the directory stays.
capture "$MTRUN" --db "$DB" delete "$KEPT" --yes --keep-files
expect_eq "$RC" 0 "delete --keep-files"
expect_contains "$OUT" "kept its run directory $RUNS/$KEPT" "it says what it kept"
[ -d "$RUNS/$KEPT" ] || fail "--keep-files removed the run directory"
expect_eq "$(sql "select count(*) from campaigns")" 0 "no campaign left"
# Its directory, now without a campaign (as a delete stopped between the rows and the files leaves
# one), goes the same way: named in full, said first, removed with --yes.
capture "$MTRUN" --db "$DB" delete "$KEPT"
expect_eq "$RC" 2 "an orphan directory without --yes"
expect_contains "$OUT" "campaign $KEPT is not in the database, but its run directory $RUNS/$KEPT" "the orphan is named"
[ -d "$RUNS/$KEPT" ] || fail "the orphan directory went without --yes"
capture "$MTRUN" --db "$DB" delete "${KEPT:0:6}" --yes
expect_eq "$RC" 2 "an orphan directory is not found by prefix"
[ -d "$RUNS/$KEPT" ] || fail "a prefix removed an orphan directory"
capture "$MTRUN" --db "$DB" delete "$KEPT" --yes
expect_eq "$RC" 0 "an orphan directory with --yes"
expect_contains "$OUT" "removed its run directory $RUNS/$KEPT" "the removal is said"
[ ! -e "$RUNS/$KEPT" ] || fail "the orphan directory is still there"
echo "PASS (keep files, then the orphan directory)"

# Two databases in one folder running the same experiment: the same campaign id in each, but each
# keeps its attempts' files apart, and deleting from one leaves the other's.
OTHER="$WORK/results/other.sqlite"
experiment twice 'sh, -c, "echo value: {n}"'
capture "$MTRUN" --db "$DB" run "$WORK/twice.yaml"
expect_eq "$RC" 0 "run twice, first database"
capture "$MTRUN" --db "$OTHER" run "$WORK/twice.yaml"
expect_eq "$RC" 0 "run twice, second database"
TWICE=$(sql "select id from campaigns where experiment = 'twice'")
expect_eq "$(sqlite3 "$OTHER" "select id from campaigns")" "$TWICE" "the same campaign in both databases"
expect_eq "$(sql "select count(*) from attempts where run_dir like '$RUNS/$TWICE/%'")" 2 "the first database's runs"
expect_eq "$(sqlite3 "$OTHER" "select count(*) from attempts where run_dir like '$WORK/results/runs/other.sqlite/$TWICE/%'")" 2 \
  "the second database's runs, in a folder of their own"
capture "$MTRUN" --db "$OTHER" delete "$TWICE" --yes
expect_eq "$RC" 0 "delete from the second database"
[ -d "$RUNS/$TWICE" ] || fail "deleting from the second database removed the first's run directory"
capture "$MTRUN" --db "$DB" show "$(sql "select identity from trials where campaign_id = '$TWICE' limit 1")"
expect_contains "$OUT" "succeeded" "the first database's attempt is whole"
# A campaign run before each database had its folder wrote to runs/<campaign>/: its own attempts
# name it, so it is counted and removed with the campaign; an older folder no attempt of this
# database names is another database's, and stays.
LEGACY="$WORK/results/runs/$TWICE"
mv "$RUNS/$TWICE" "$LEGACY"
sql "update attempts set run_dir = replace(run_dir, '$RUNS/', '$WORK/results/runs/'), log_path = replace(log_path, '$RUNS/', '$WORK/results/runs/')"
capture "$MTRUN" --db "$DB" delete "$TWICE" --dry-run
expect_contains "$OUT" "and its run directory $LEGACY (" "an older campaign's directory is its own"
capture "$MTRUN" --db "$OTHER" delete "$TWICE" --dry-run
expect_eq "$RC" 2 "the second database holds no such campaign now"
capture "$MTRUN" --db "$DB" delete "$TWICE" --yes
expect_eq "$RC" 0 "delete an older campaign"
expect_contains "$OUT" "removed its run directory $LEGACY" "its older directory is removed"
[ ! -e "$LEGACY" ] || fail "the older run directory is still there"
echo "PASS (two databases in one folder)"

# --vacuum: the file gives back what the campaign held (SQLite keeps freed pages otherwise).
cat > "$WORK/steps.py" <<'PY'
import json, sys
json.dump({"per_step": {"step_time_ms": [[10.0 + i % 7 for i in range(20000)]]}}, open(sys.argv[1], "w"))
print("value: 1")
PY
experiment big "python3, $WORK/steps.py, \"{result_file}\""
capture "$MTRUN" --db "$DB" run "$WORK/big.yaml"
expect_eq "$RC" 0 "run big"
BIG=$(sql "select id from campaigns where experiment = 'big'")
[ "$(sql "select count(*) from step_metrics")" -ge 40000 ] || fail "the big campaign stored no per-step series"
sql "pragma wal_checkpoint(TRUNCATE)" > /dev/null
size_before=$(stat -c %s "$DB")
capture "$MTRUN" --db "$DB" delete "$BIG" --yes --vacuum
expect_eq "$RC" 0 "delete --vacuum"
size_after=$(stat -c %s "$DB")
[ "$size_after" -lt $((size_before / 2)) ] || fail "the file did not shrink: $size_before -> $size_after bytes"
expect_contains "$OUT" "vacuumed $DB: " "it says what the file came to"
expect_eq "$(sql "pragma freelist_count")" 0 "no free page left"
echo "PASS (vacuum)"

# A campaign a live runner is running is refused; once the runner is gone it can be deleted.
experiment slow 'sh, -c, "sleep 30; echo value: {n}"'
"$MTRUN" --db "$DB" run "$WORK/slow.yaml" > "$WORK/slow.log" 2>&1 &
RUNNER=$!
for _ in $(seq 100); do
  [ "$(sql "select count(*) from attempts where state = 'running'" 2>/dev/null)" = 1 ] && break
  sleep 0.1
done
SLOW=$(sql "select id from campaigns where experiment = 'slow'")
capture "$MTRUN" --db "$DB" delete "$SLOW" --dry-run
expect_contains "$OUT" "but mtrun (pid $RUNNER on" "the dry run says a runner is running it"
capture "$MTRUN" --db "$DB" delete "$SLOW" --yes
expect_eq "$RC" 1 "deleting a running campaign"
expect_contains "$OUT" "already being run by mtrun (pid $RUNNER" "the refusal names the runner"
expect_eq "$(sql "select count(*) from attempts where state = 'running'")" 1 "the running attempt is left alone"
kill -TERM "$RUNNER"
wait "$RUNNER" || true
capture "$MTRUN" --db "$DB" delete "$SLOW" --yes
expect_eq "$RC" 0 "deleting it once its runner is gone"
expect_eq "$(sql "select count(*) from campaigns")" 0 "the stopped campaign went"
[ ! -e "$RUNS/$SLOW" ] || fail "the stopped campaign's run directory is still there"
echo "PASS (running campaign)"
