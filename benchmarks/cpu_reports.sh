#!/usr/bin/env bash
# Re-runs on this machine the CPU campaigns behind the README's performance section and writes
# their reports under this CPU's name: reports/NAME<suffix>.sqlite, .args and .md (with plots),
# then the README's figures. Commits nothing: `git status` shows what changed.
#
#   benchmarks/cpu_reports.sh [--suffix S] [--dry-run] [EXPERIMENT...]
#
# EXPERIMENT names a file in experiments/ (default: step_profile_cpu ddp_vs_pytorch comm_cpu
# comm_goal_cpu comm_latency_goal_cpu; any other re-runs that experiment's report for this CPU).
# The suffix keeps one CPU's reports from overwriting another's; by default it follows from
# /proc/cpuinfo: "" on Intel, _epyc on AMD Zen 3, _epyc_zen4 on Zen 4, _epyc_zen5 on Zen 5 (VMs
# name all three "AMD EPYC": family and model number tell them apart). A CPU none of these fits
# needs --suffix. --dry-run prints what would run. Each campaign runs into a fresh database; the
# committed ones and their reports are replaced only once every campaign has finished (a report
# written before would leave the tree uncommitted under the next campaign). Trials settle and wait
# for a quiet machine as their experiment asks (`conditions: settle_s, wait_quiet_s`): no flags.
# It starts only from a committed tree whose programs were built from HEAD: the reports carry that
# revision as their provenance.
# About 14 + 60 + 17 + 16 + 5 minutes on an idle 2-vCPU VM (step_profile_cpu's and ddp_vs_pytorch's
# trials each settle 10 s first, comm_goal_cpu's 5 s): run nothing else meanwhile.
set -euo pipefail
cd "$(dirname "$0")/.."
MTRUN=${MTRUN:-build/bin/mtrun}
MTENGINE=${MTENGINE:-$(dirname "$MTRUN")/mtengine}  # the engine mtrun launches: $MTENGINE, else beside it
CPUINFO=${CPUINFO:-/proc/cpuinfo}  # another file for tests

suffix_of_this_cpu() {
  local vendor family model
  vendor=$(awk -F'\t*: *' '/^vendor_id/ {print $2; exit}' "$CPUINFO")
  family=$(awk -F'\t*: *' '/^cpu family/ {print $2; exit}' "$CPUINFO")
  model=$(awk -F'\t*: *' '/^model[ \t]*:/ {print $2; exit}' "$CPUINFO")
  case "$vendor/$family" in
    GenuineIntel/*) echo "" ;;
    AuthenticAMD/25)  # Zen 3 (models 0x00-0x0f, 0x20-0x5f), Zen 4 (0x10-0x1f, 0x60-0xaf)
      if (( (model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0xaf) )); then echo _epyc_zen4
      else echo _epyc; fi ;;
    AuthenticAMD/26) echo _epyc_zen5 ;;
    *) echo "cpu_reports: no report name for $vendor family $family model $model: give --suffix" >&2
       return 1 ;;
  esac
}

# The flags its report is rendered with (the .args file): those of the experiment's committed
# report from another run (reports/EXPERIMENT.args), else its own questions, and the published
# references where the report compares against them.
report_args() {
  if [ -f "reports/$1.args" ]; then cat "reports/$1.args"; return; fi
  if grep -q '^questions:' "experiments/$1.yaml"; then printf '%s\n' --questions "experiments/$1.yaml"; fi
  case "$1" in ddp_vs_pytorch | comm_cpu | strategies_cpu | upstream_cpu) printf '%s\n' --references references/published.yaml ;; esac
}

# Reports are committed with their provenance: every trial must name the code that ran. Refuse
# before an hour of campaigns, not after, when the tracked tree has changes or a program was built
# from another commit than this one (rebuild after committing).
check_provenance() {
  local head engine_line runner_revision
  head=$(git rev-parse HEAD)
  engine_line=$("$MTENGINE" version 2>/dev/null | head -1)
  runner_revision=$("$MTRUN" --version 2>/dev/null | awk '$1 == "revision" {print $2}')
  if [ "$engine_line" != "mtengine $head" ] || [ "$runner_revision" != "$head" ]; then
    echo "cpu_reports: the programs were built from another revision than HEAD $head" \
      "(${engine_line:-mtengine: no revision}; mtrun: ${runner_revision:-no revision}): run cmake --build build first" >&2
    return 1
  fi
  if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    echo "cpu_reports: the tracked tree has uncommitted changes: commit them, rebuild, then run" >&2
    return 1
  fi
}

suffix="" suffix_given=false dry_run=false experiments=()
while [ $# -gt 0 ]; do
  case "$1" in
    --suffix) suffix=${2?--suffix needs a value}; suffix_given=true; shift 2 ;;
    --dry-run) dry_run=true; shift ;;
    -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "cpu_reports: unknown flag $1 (see --help)" >&2; exit 2 ;;
    *) experiments+=("$1"); shift ;;
  esac
done
[ ${#experiments[@]} -gt 0 ] || experiments=(step_profile_cpu ddp_vs_pytorch comm_cpu comm_goal_cpu comm_latency_goal_cpu)
$suffix_given || suffix=$(suffix_of_this_cpu)
for e in "${experiments[@]}"; do
  [ -f "experiments/$e.yaml" ] || { echo "cpu_reports: no experiment experiments/$e.yaml" >&2; exit 2; }
done
$dry_run || [ -x "$MTRUN" ] || { echo "cpu_reports: $MTRUN not built (scripts/setup.sh builds it)" >&2; exit 2; }
$dry_run || check_provenance || exit 2

if $dry_run; then
  for e in "${experiments[@]}"; do
    echo "cpu_reports: $e -> reports/$e$suffix (.sqlite .args .md)"
    report_args "$e" | sed 's/^/  report flag: /'
  done
  exit 0
fi

# Every campaign first, every report after: a report written into the tracked tree between two
# campaigns would leave the next one running from an uncommitted tree, its provenance incomplete.
work=$(mktemp -d)
trap 'echo "cpu_reports: stopped; the campaigns that finished are in $work" >&2' ERR
for e in "${experiments[@]}"; do
  echo "cpu_reports: $e (campaign into $work/$e$suffix.sqlite)"
  "$MTRUN" --db "$work/$e$suffix.sqlite" run "experiments/$e.yaml"
  # One self-contained file: the write-ahead log folded in before it is copied.
  python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("pragma wal_checkpoint(TRUNCATE)")' \
    "$work/$e$suffix.sqlite"
done
for e in "${experiments[@]}"; do
  name=$e$suffix
  echo "cpu_reports: $e -> reports/$name (.sqlite .args .md)"
  cp "$work/$name.sqlite" "reports/$name.sqlite"
  rm -f "reports/$name.sqlite-wal" "reports/$name.sqlite-shm"
  mapfile -t args < <(report_args "$e")  # read before it is written: it may be this very file
  printf '%s\n' "${args[@]}" > "reports/$name.args"
  rm -rf "reports/$name"
  "$MTRUN" --db "$work/$name.sqlite" report "${args[@]}" -o "reports/$name.md" >/dev/null
done
trap - ERR
rm -rf "$work"
python3 scripts/readme_figures.py
git status --short reports README.md
for e in "${experiments[@]}"; do
  git ls-files --error-unmatch "reports/$e$suffix.md" >/dev/null 2>&1 ||
    echo "cpu_reports: reports/$e$suffix.md is new: give it a row in the README's table of reports"
done
