#!/usr/bin/env bash
# An experiment's questions, end to end: declared in the file, checked before anything runs, kept
# with the campaign by `run`, answered first by `report` (before the summary), and replaced by those
# of another file with `report --questions`. A `command` workload prints values known in advance.
# No engine is launched.
source "$(dirname "$0")/lib.sh"
export MTENGINE=/bin/true
DB="$WORK/results/mtrun.sqlite"
experiment() {  # experiment FILE BASELINE
  cat > "$1" <<YAML
name: answers
repeat: 3
conditions: {keep_disturbed: true}   # a shared test machine: judge every attempt
questions:
  - {metric: value, compare: speed, baseline: $2, within: [size]}
studies:
  - name: s
    workload: command
    launch: direct
    command: [/bin/sh, -c, "echo value: \$(( {speed} * {size} * 100 + {repeat_index} ))"]
    matrix: {speed: [1, 2], size: [1, 2]}
    metrics: {value: {regex: 'value: ([0-9]+)', better: higher}}
YAML
}
# A baseline that is not a value of the axis is refused before anything runs.
experiment "$WORK/bad.yaml" 3
capture "$MTRUN" --db "$DB" run "$WORK/bad.yaml"
[ "$RC" != 0 ] || fail "a question with an unknown baseline was run"
expect_contains "$OUT" "baseline '3' is not a value of 'speed'" "bad baseline"
[ ! -e "$DB" ] || [ "$(sql 'select count(*) from trials')" == 0 ] || fail "trials were recorded for a refused file"

experiment "$WORK/exp.yaml" 1
# The plan says what the campaign will answer.
capture "$MTRUN" plan "$WORK/exp.yaml"
expect_contains "$OUT" $'questions, answered at the end of the run and first in its report:\n  value: speed vs 1, within size — higher is better' "plan: the questions"
capture "$MTRUN" --db "$DB" run "$WORK/exp.yaml"
expect_eq "$RC" 0 "run"
# Each trial's line shows the value it measured; the table, the metric the question asks about, not
# a training run's tokens/s.
expect_contains "$OUT" "s speed=2 size=2 rep 1 ... succeeded in " "run: progress line"
expect_contains "$(grep 's speed=2 size=2 rep 1 ' <<<"$OUT")" "  value 401" "run: the trial's value"
expect_contains "$(grep -m1 '^study ' <<<"$OUT")" "value (mean ± std)" "run: the asked metric's column"
[[ "$(grep -m1 '^study ' <<<"$OUT")" != *tokens/s* ]] || fail "a command trial's table shows tokens/s"
expect_contains "$(grep '^s  *speed=2 size=2 ' <<<"$OUT")" "401.0 ± 1.0" "run: the metric per configuration"
# Status shows each trial's value in a column of its own.
capture "$MTRUN" --db "$DB" status
expect_contains "$(grep -m1 '^trial ' <<<"$OUT")" " value " "status: the asked metric's column"
expect_contains "$(grep ' speed=2 size=2 .* 2 ' <<<"$OUT")" " 402.0 " "status: a trial's value"
# Run again, with nothing left to run: it still ends with the table and the answers.
capture "$MTRUN" --db "$DB" run "$WORK/exp.yaml"
expect_contains "$OUT" "12 trials, 0 to run" "nothing left to run"
# The run ends with the answers in plain text, after its table and before where the results are.
expect_contains "$OUT" "answers to the experiment's questions (compared ÷ baseline: " "run: answers"
expect_contains "$OUT" "disturbed attempts kept in):" "run: kept as the experiment asks"
expect_contains "$OUT" "value: speed vs 1, within size — higher is better" "run: question title"
expect_contains "$OUT" "  - speed = 2 vs 1, size = 2: 2.00× value (95 % CI " "run: answer at size 2"
expect_contains "$OUT" "n = 3 + 3, p (Holm) < 0.001): better" "run: verdict"
answer_line=$(grep -n '^  - speed = 2 vs 1, size = 2' <<<"$OUT" | cut -d: -f1)
table_line=$(grep -n '^s  *speed=2 size=2 ' <<<"$OUT" | cut -d: -f1)
results_line=$(grep -n '^results: ' <<<"$OUT" | cut -d: -f1)
[ -n "$table_line" ] && [ "$table_line" -lt "$answer_line" ] && [ "$answer_line" -lt "$results_line" ] ||
  fail "the run's answers are not between its table and where the results are"
capture "$MTRUN" --db "$DB" report
expect_eq "$RC" 0 "report"
# The first section is the answers, one line per size, before the summary.
expect_eq "$(grep -m1 '^## ' <<<"$OUT")" "## Answers" "first section"
expect_contains "$OUT" "Questions declared in the experiment file when campaign" "where the questions come from"
expect_contains "$OUT" "**value: speed vs 1, within size** — higher is better" "question title"
expect_contains "$OUT" "- speed = 2 vs 1, size = 1: 1.99× value (95 % CI " "answer at size 1"
expect_contains "$OUT" "- speed = 2 vs 1, size = 2: 2.00× value (95 % CI " "answer at size 2"
expect_contains "$OUT" "n = 3 + 3, p (Holm) < 0.001): **better**" "verdict"
answers_at=$(grep -n '^- speed = 2 vs 1, size = 2' <<<"$OUT" | cut -d: -f1)
summary_at=$(grep -n '^## Summary' <<<"$OUT" | cut -d: -f1)
[ "$answers_at" -lt "$summary_at" ] || fail "the answers do not come before the summary"

# Another file's questions in place of the campaign's: speed 1 against 2.
experiment "$WORK/other.yaml" 2
capture "$MTRUN" --db "$DB" report --questions "$WORK/other.yaml"
expect_eq "$RC" 0 "report --questions"
expect_contains "$OUT" "(given with \`report --questions\`)" "source of the questions"
expect_contains "$OUT" "- speed = 1 vs 2, size = 1: 0.50× value" "answer from the other file"
expect_contains "$OUT" "**worse**" "verdict from the other file"
# A file whose questions do not fit is refused, naming the problem.
cat > "$WORK/typo.yaml" <<'YAML'
name: answers
studies:
  - name: s
    workload: command
    launch: direct
    command: [echo]
    matrix: {speed: [1, 2]}
questions:
  - {metric: value, compare: sped, baseline: 1, better: higher}
YAML
capture "$MTRUN" --db "$DB" report --questions "$WORK/typo.yaml"
[ "$RC" != 0 ] || fail "report accepted a question on an unknown axis"
expect_contains "$OUT" "did you mean 'speed'?" "typo named"
# A folder for a file is named, as bad input.
capture "$MTRUN" --db "$DB" report --questions "$WORK"
expect_eq "$RC" 2 "report --questions DIRECTORY"
expect_eq "$OUT" "mtrun: --questions $WORK: a directory; name a file" "the directory named"
echo "PASS"
