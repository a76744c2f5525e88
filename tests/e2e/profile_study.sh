#!/usr/bin/env bash
# A profiled study end to end: `profile: true` runs real mpirun jobs of the real engine with
# --profile into each attempt's run directory, the database keeps the first repeat's traces, and
# the report shows where a step's time goes and the top operators LibTorch's profiler saw, links
# those traces (valid Chrome trace JSON; none on standard output, which has no folder for them) and
# sets the profiled runs against their unprofiled twins.
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
cat > "$WORK/tiny.yaml" <<'YAML'
name: tiny_profile
repeat: 2
timeout_s: 120
studies:
  - name: plain
    workload: train
    defaults: &tiny {strategy: ddp, vocab_size: 256, d_model: 32, n_heads: 2, n_layers: 2, seq_length: 16,
                     batch_size: 2, steps: 3, warmup_steps: 1, bucket_cap_mb: 0.01}
    matrix: &ranks {ranks: [2]}
  - name: profiled
    workload: train
    profile: true
    defaults: *tiny
    matrix: *ranks
YAML

capture "$MTRUN" --db "$DB" plan "$WORK/tiny.yaml"
expect_eq "$RC" 0 "plan exit code"
expect_contains "$OUT" "--profile RUN_DIR/profile --output RUN_DIR/result.json" "plan shows where the traces go"
expect_eq "$(grep -c -- '--profile' <<<"$OUT")" 2 "only the profiled study's two trials profile"

capture "$MTRUN" --db "$DB" run "$WORK/tiny.yaml"
echo "$OUT"
expect_eq "$RC" 0 "run exit code"
RUN_DIR=$(sql "select a.run_dir from attempts a join trials t on t.id = a.trial_id where t.study = 'profiled' and t.repeat_index = 0")
[ -f "$RUN_DIR/profile/rank_00001.trace.json" ] || fail "no trace of rank 1 in $RUN_DIR/profile"
[ -f "$RUN_DIR/profile/rank_00001.operators.json" ] || fail "no LibTorch operator trace of rank 1 in $RUN_DIR/profile"
expect_eq "$(sql "select group_concat(f.name, ' ') from attempt_files f join attempts a on a.id = f.attempt_id join trials t on t.id = a.trial_id where t.study = 'profiled' and t.repeat_index = 0")" \
  "profile/profile.json profile/rank_00000.trace.json profile/rank_00001.trace.json" "files kept for the first repeat"
expect_eq "$(sql "select count(*) from attempt_files")" 3 "nothing kept for other repeats or plain trials"
expect_eq "$(sql "select count(*) from attempts a join trials t on t.id = a.trial_id where t.study = 'plain' and a.command like '%--profile%'")" 0 "plain trials run unprofiled"

mkdir -p "$WORK/reports"
# --keep-disturbed: what is checked is the section, which a busy test machine must not hide.
capture "$MTRUN" --db "$DB" report --keep-disturbed -o "$WORK/reports/tiny.md"
expect_eq "$RC" 0 "report exit code"
expect_contains "$OUT" "and 2 trace files in" "report writes the traces"
REPORT=$(cat "$WORK/reports/tiny.md")
expect_contains "$REPORT" "## Where a step's time goes" "profile section"
expect_contains "$REPORT" "![Where a step's time goes](tiny/step_profile.svg)" "stacked bar"
[ -s "$WORK/reports/tiny/step_profile.svg" ] || fail "no stacked bar written"
# The numbers are there: a row of the profiled configuration with step, phases, communication and overlap.
grep -qE '^\| ddp \| 2 \| profiled \| [0-9.]+ ± [0-9.]+ ⚠n<3 \| [0-9.]+ ± .*\| [0-9.]+ ± [0-9.]+ ⚠n<3 \| 2 \|$' <<<"$REPORT" ||
  fail "no profile row with numbers in:
$(grep -F '| profiled |' <<<"$REPORT")"
expect_contains "$REPORT" "### Top operators (LibTorch's profiler)" "top operators"
grep -qE '^\| ddp \| 2 \| profiled \| [0-9.]+ of [0-9.]+ \| `[^`]+` \| [0-9]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ % \|$' <<<"$REPORT" ||
  fail "no top-operator row with numbers in:
$(sed -n '/### Top operators/,/## Profiler overhead/p' <<<"$REPORT")"
expect_contains "$REPORT" "## Profiler overhead" "overhead section"
expect_contains "$REPORT" "| profiled ÷ plain, ddp ×2 | tokens_per_sec |" "profiled set against its unprofiled twin"
# Every linked trace is in the report's folder and is valid Chrome trace JSON.
TRACES=$(grep -oE '\(tiny/traces/[0-9a-f]{12}/rank_[0-9]{5}\.trace\.json\)' <<<"$REPORT" | tr -d '()')
expect_eq "$(wc -l <<<"$TRACES")" 2 "two ranks linked"
for t in $TRACES; do [ -f "$WORK/reports/$t" ] || fail "linked trace $t missing"; done
python3 "$MT_SOURCE_DIR/tests/profile/check_trace.py" $(sed "s#^#$WORK/reports/#" <<<"$TRACES") || fail "trace check"
cmp "$WORK/reports/$(head -1 <<<"$TRACES")" "$RUN_DIR/profile/rank_00000.trace.json" || fail "the linked trace is not the run's"
# On standard output there is no folder for the traces: a page (plots inline) and a markdown report
# link none, say so in the page, and note it on standard error.
for format in --html --markdown; do
  PAGE=$("$MTRUN" --db "$DB" report --keep-disturbed ${format/--markdown/} -o - 2>"$WORK/report.err") ||
    fail "report $format -o -"
  grep -qF "traces/" <<<"$PAGE" && fail "report $format -o - links traces it does not write"
  expect_contains "$(cat "$WORK/report.err")" "links none of its 2 trace files: there is no folder to write them into" \
    "report $format -o - says so on standard error"
  [ "$format" == --html ] && expect_contains "$PAGE" "<code>-o FILE.html</code>: on standard output it has no folder" \
    "the page says where its traces go"
done
expect_contains "$PAGE" "trace files are written beside the report when it is saved with" "the markdown says where they go"
echo "PASS"
