#!/usr/bin/env bash
# benchmarks/cpu_reports.sh names each CPU's reports as the committed ones are named, and renders
# them with the flags committed beside them: a campaign re-run on a CPU replaces that CPU's
# reports, never another's, and regenerates as committed_reports expects.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SCRIPT=$ROOT/benchmarks/cpu_reports.sh
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cpu() {  # vendor family model -> a /proc/cpuinfo-like file
  printf 'processor\t: 0\nvendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\nmodel name\t: X\n' "$1" "$2" "$3" > "$WORK/cpuinfo"
}
name_on() {  # the report name the script picks for ddp_vs_pytorch on that CPU
  cpu "$@"
  CPUINFO=$WORK/cpuinfo "$SCRIPT" --dry-run ddp_vs_pytorch | sed -n 's/.*-> reports\/\([^ ]*\) .*/\1/p'
}
[ "$(name_on GenuineIntel 6 143)" = ddp_vs_pytorch ] || fail "Intel: $(name_on GenuineIntel 6 143)"
[ "$(name_on AuthenticAMD 25 1)" = ddp_vs_pytorch_epyc ] || fail "Zen 3: $(name_on AuthenticAMD 25 1)"
[ "$(name_on AuthenticAMD 25 17)" = ddp_vs_pytorch_epyc_zen4 ] || fail "Zen 4: $(name_on AuthenticAMD 25 17)"
[ "$(name_on AuthenticAMD 26 2)" = ddp_vs_pytorch_epyc_zen5 ] || fail "Zen 5: $(name_on AuthenticAMD 26 2)"
cpu HygonGenuine 24 0
if CPUINFO=$WORK/cpuinfo "$SCRIPT" --dry-run > "$WORK/out" 2>&1; then fail "an unknown CPU got a name"; fi
grep -q "give --suffix" "$WORK/out" || fail "unknown CPU: $(cat "$WORK/out")"
[ "$("$SCRIPT" --suffix _mine --dry-run comm_cpu | head -1)" = "cpu_reports: comm_cpu -> reports/comm_cpu_mine (.sqlite .args .md)" ] ||
  fail "--suffix"
if "$SCRIPT" --dry-run no_such_experiment 2> "$WORK/err"; then fail "an unknown experiment ran"; fi
grep -q "no experiment experiments/no_such_experiment.yaml" "$WORK/err" || fail "unknown experiment: $(cat "$WORK/err")"

# Committed reports carry their provenance: programs built from another revision than HEAD are
# refused before any campaign runs, and nothing is written.
printf '#!/bin/sh\necho "mtrun 0.1.0"\necho "  revision   0000000000000000000000000000000000000000"\n' > "$WORK/mtrun"
printf '#!/bin/sh\necho "mtengine 0000000000000000000000000000000000000000"\n' > "$WORK/mtengine"
chmod +x "$WORK/mtrun" "$WORK/mtengine"
before=$(cd "$ROOT" && git status --porcelain reports)
if MTRUN=$WORK/mtrun "$SCRIPT" --suffix _mine comm_cpu > "$WORK/out" 2>&1; then fail "a stale build ran"; fi
grep -q "built from another revision than HEAD" "$WORK/out" || fail "stale build: $(cat "$WORK/out")"
grep -q "mtengine 0000000000000000000000000000000000000000" "$WORK/out" || fail "stale build names the engine's revision"
[ "$(cd "$ROOT" && git status --porcelain reports)" = "$before" ] || fail "a refused run wrote reports"

# Every committed report of these experiments is rendered with the flags the script would write.
checked=0
for e in step_profile_cpu ddp_vs_pytorch comm_cpu comm_goal_cpu comm_latency_goal_cpu gemm_backends; do
  for args in "$ROOT"/reports/"$e".args "$ROOT"/reports/"$e"_epyc*.args; do
    [ -f "$args" ] || continue
    suffix=$(basename "$args" .args); suffix=${suffix#"$e"}
    "$SCRIPT" --suffix "$suffix" --dry-run "$e" | sed -n 's/^  report flag: //p' > "$WORK/flags"
    diff -u "$args" "$WORK/flags" || fail "$args differs from what cpu_reports.sh writes"
    checked=$((checked + 1))
  done
done
[ $checked -ge 3 ] || fail "only $checked committed .args files checked"
# Every campaign runs from the committed tree: the reports (tracked files) are written after the
# last campaign, not between two. In a scratch repository holding the script, with stand-in
# programs "built from its HEAD" that note the tree's state as each campaign starts.
repo=$WORK/repo
mkdir -p "$repo/benchmarks" "$repo/experiments" "$repo/scripts" "$repo/reports" "$repo/bin"
cp "$SCRIPT" "$repo/benchmarks/"
echo "name: first" > "$repo/experiments/first.yaml"
echo "name: second" > "$repo/experiments/second.yaml"
echo 'print("figures")' > "$repo/scripts/readme_figures.py"
echo old > "$repo/reports/first_t.md"
printf '%s\n' --references refs.yaml > "$repo/reports/second.args"  # its committed report's flags
(cd "$repo" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init) ||
  fail "scratch repository"
head=$(cd "$repo" && git rev-parse HEAD)
{
  echo '#!/bin/sh'
  echo "[ \"\$1\" = --version ] && { echo 'mtrun 0.1.0'; echo '  revision   $head'; exit 0; }"
  echo 'db=$2; shift 2'
  echo 'case "$1" in'
  echo "  run) shift; echo \"run \$*: [\$(git status --porcelain --untracked-files=no | tr '\\n' ' ')]\" >> '$WORK/campaigns'; : > \"\$db\" ;;"
  echo '  report) while [ $# -gt 0 ]; do [ "$1" = -o ] && echo "report of $db" > "$2"; shift; done ;;'
  echo 'esac'
} > "$repo/bin/mtrun"
printf '#!/bin/sh\necho "mtengine %s"\n' "$head" > "$repo/bin/mtengine"
chmod +x "$repo/bin/mtrun" "$repo/bin/mtengine"
MTRUN=$repo/bin/mtrun "$repo/benchmarks/cpu_reports.sh" --suffix _t first second > "$WORK/out" 2>&1 ||
  fail "scratch campaigns: $(cat "$WORK/out")"
# No flags: each campaign settles and waits as its experiment asks (tests/experiments/plan_shipped.sh).
[ "$(cat "$WORK/campaigns")" = "run experiments/first.yaml: []
run experiments/second.yaml: []" ] || fail "a campaign ran from an uncommitted tree, or with flags: $(cat "$WORK/campaigns")"
grep -q "report of .*first_t.sqlite" "$repo/reports/first_t.md" || fail "first report not rendered"
grep -q "report of .*second_t.sqlite" "$repo/reports/second_t.md" || fail "second report not rendered"
[ -f "$repo/reports/second_t.sqlite" ] && [ -f "$repo/reports/second_t.args" ] || fail "database or flags not installed"
# An experiment whose report is committed keeps its flags on every CPU, on the CPU that wrote them too.
[ "$(cat "$repo/reports/second_t.args")" = "$(printf '%s\n' --references refs.yaml)" ] ||
  fail "the committed report's flags: $(cat "$repo/reports/second_t.args")"
(cd "$repo" && git checkout -q -- .)  # the tracked report the first run rewrote, back as committed
MTRUN=$repo/bin/mtrun "$repo/benchmarks/cpu_reports.sh" --suffix "" second > "$WORK/out" 2>&1 ||
  fail "scratch campaign, no suffix: $(cat "$WORK/out")"
[ "$(cat "$repo/reports/second.args")" = "$(printf '%s\n' --references refs.yaml)" ] ||
  fail "flags read from the file they are written to: $(cat "$repo/reports/second.args")"

echo "ok: report names per CPU, campaigns from the committed tree, and $checked committed .args files as the script writes them"
