#!/usr/bin/env bash
# Output that cannot be written is an error, never a truncated file and exit 0: every subcommand
# that prints, into a full device (/dev/full), says so and exits 74, and so does `report -o` and
# `compare -o` into a file that cannot be written. A query into a full device stops at once, even
# one whose rows never end. No engine is launched.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
run_echo_campaign writes
CAMPAIGN=$(sql "select id from campaigns")
sed -i 's/\[1, 2\]/[1, 3]/' "$WORK/exp.yaml"  # a second campaign, to compare with the first
capture "$MTRUN" run "$WORK/exp.yaml" --db "$DB"
expect_eq "$RC" 0 "second run: $OUT"
OTHER=$(sql "select id from campaigns where id <> '$CAMPAIGN'")
FULL="mtrun: cannot write to standard output: No space left on device"

full() {  # full WHAT ARGS...: mtrun ARGS > /dev/full fails with exit 74 and says why
  local what=$1
  shift
  set +e
  OUT=$("$MTRUN" "$@" 2>&1 > /dev/full)
  RC=$?
  set -e
  expect_eq "$RC" 74 "$what into /dev/full"
  expect_contains "$OUT" "$FULL" "$what message"
}
full "status" --db "$DB" status
full "status --provenance" --db "$DB" status --provenance
full "query (table)" --db "$DB" query "select * from attempts"
full "query --csv" --db "$DB" query --csv "select * from attempts"
full "query --json" --db "$DB" query --json "select * from attempts"
full "report" --db "$DB" report
full "compare" --db "$DB" compare "$CAMPAIGN" "$OTHER"
full "plan" plan "$WORK/exp.yaml"
full "doctor" --db "$DB" doctor
full "run" --db "$DB" run "$WORK/exp.yaml"
full "rerun" --db "$DB" rerun --failed
full "--help" --help
RUNAWAY="with recursive r(i) as (select 1 union all select i + 1 from r) select i, 'padding padding padding' from r"
full "an endless query --csv" --db "$DB" query --csv --timeout 60 "$RUNAWAY"
full "an endless query --json" --db "$DB" query --json --timeout 60 "$RUNAWAY"
echo "PASS (standard output)"

# Files that cannot be written: the report and a comparison, each named (plots and traces are
# written the same way).
mkdir "$WORK/out"
ln -s /dev/full "$WORK/out/report.md"
capture "$MTRUN" --db "$DB" report -o "$WORK/out/report.md"
expect_eq "$RC" 74 "report -o into a full device"
expect_eq "$OUT" "mtrun: cannot write $WORK/out/report.md: No space left on device" "report -o message"
ln -s /dev/full "$WORK/out/compare.md"
capture "$MTRUN" --db "$DB" compare "$CAMPAIGN" "$OTHER" -o "$WORK/out/compare.md"
expect_eq "$RC" 74 "compare -o into a full device"
expect_eq "$OUT" "mtrun: cannot write $WORK/out/compare.md: No space left on device" "compare -o message"
# A folder that cannot be made for them: named, the same exit.
touch "$WORK/out/plain"
capture "$MTRUN" --db "$DB" report -o "$WORK/out/plain/sub/report.md"
expect_eq "$RC" 74 "report -o under a file"
expect_eq "$OUT" "mtrun: cannot create $WORK/out/plain/sub: Not a directory" "report -o folder message"
capture "$MTRUN" --db "$DB" history writes -o "$WORK/out/plain/history.md"
expect_eq "$RC" 74 "history -o under a file"
expect_eq "$OUT" "mtrun: cannot create $WORK/out/plain: Not a directory" "history -o folder message"
echo "PASS (files)"
