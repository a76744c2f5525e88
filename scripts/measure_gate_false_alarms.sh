#!/usr/bin/env bash
# How often does `mtrun compare --fail-on-regression` fail when nothing changed? Runs PAIRS + 1
# campaigns of one unchanged `command` workload (KIND=sleep: a timed sleep of DELAY seconds; KIND=cpu:
# a timed awk loop of LOOP iterations, which the machine's load slows; REPEATS repeats) at
# consecutive commits of a scratch git repository, gates each campaign against the one before at
# each threshold, and prints how many of the PAIRS comparisons failed (a false alarm), with the
# B/A ratio of each. Threshold 0 is the noise test alone. Attempts on a disturbed machine are kept
# (KEEP_DISTURBED=1, the default): on a busy machine the gate then judges noisier samples than it
# would in use, so the rate measured is an upper bound; KEEP_DISTURBED=0 judges as compare does.
#
#   scripts/measure_gate_false_alarms.sh [BUILD_DIR]
#   (env: KIND=sleep PAIRS=10 REPEATS=3 DELAY=0.2 LOOP=1000000 THRESHOLDS="0 5 10" KEEP_DISTURBED=1)
set -euo pipefail
BUILD_DIR=${1:-build}
MTRUN="$(cd "$BUILD_DIR" && pwd)/bin/mtrun"
PAIRS=${PAIRS:-10}
REPEATS=${REPEATS:-3}
DELAY=${DELAY:-0.2}
LOOP=${LOOP:-1000000}
KIND=${KIND:-sleep}
case "$KIND" in
  sleep) WHAT="a ${DELAY} s sleep"; ARG=$DELAY ;;
  cpu) WHAT="an awk loop of $LOOP iterations"; ARG=$LOOP ;;
  *) echo "KIND must be sleep or cpu, got '$KIND'" >&2; exit 2 ;;
esac
THRESHOLDS=${THRESHOLDS:-"0 5 10"}
KEEP=()
[ "${KEEP_DISTURBED:-1}" = 1 ] && KEEP=(--keep-disturbed)
[ -x "$MTRUN" ] || { echo "no mtrun at $MTRUN (build first)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mt-false-alarms.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export MTENGINE=/bin/true
DB="$WORK/results/mtrun.sqlite"
REPO="$WORK/repo"
mkdir -p "$REPO"
git -C "$REPO" init -q
git -C "$REPO" config user.email measure@example.com
git -C "$REPO" config user.name measure
cat > "$REPO/work.sh" <<'SH'
#!/bin/sh
start=$(date +%s%N)
if [ "$1" = sleep ]; then sleep "$2"; else awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++) s += i * i }'; fi
end=$(date +%s%N)
echo "elapsed_ms: $(( (end - start) / 1000000 ))"
SH
cat > "$REPO/exp.yaml" <<YAML
name: no_change
repeat: $REPEATS
studies:
  - name: sleep
    workload: command
    launch: direct
    command: [/bin/sh, "{experiment_dir}/work.sh", "$KIND", "$ARG"]
    metrics: {elapsed_ms: {regex: 'elapsed_ms: ([0-9]+)', better: lower}}
YAML
campaigns=()
for ((i = 0; i <= PAIRS; i++)); do
  git -C "$REPO" add -A
  git -C "$REPO" commit -q --allow-empty -m "run $i"
  out=$("$MTRUN" --db "$DB" run "$REPO/exp.yaml")
  campaigns+=("$(sed -n 's/^experiment no_change: campaign \([0-9a-f]*\),.*/\1/p' <<<"$out")")
done
disturbed=$("$MTRUN" --db "$DB" query --csv "select count(*) from conditions where verdict = 'disturbed'" | tail -1)
echo "$PAIRS comparisons of unchanged campaigns ($REPEATS repeats of $WHAT each; $disturbed attempts disturbed, ${KEEP[*]:-left out})"
for threshold in $THRESHOLDS; do
  alarms=0
  worst=""
  for ((i = 1; i <= PAIRS; i++)); do
    set +e
    out=$("$MTRUN" --db "$DB" compare "${campaigns[i - 1]}" "${campaigns[i]}" --fail-on-regression "$threshold" \
      "${KEEP[@]}" -o "$WORK/cmp.md")
    rc=$?
    set -e
    [ "$rc" -eq 1 ] && alarms=$((alarms + 1))
    [ "$rc" -le 1 ] || { echo "compare failed (exit $rc): $out" >&2; exit 1; }
    ratio=$(grep -o '| [0-9.]* | [0-9.<> ]* | [0-9.<> ]* | [a-z ]* |$' "$WORK/cmp.md" | head -1 | awk -F'|' '{print $2}' | tr -d ' ')
    worst="$worst $ratio"
  done
  echo "--fail-on-regression $threshold: $alarms of $PAIRS failed (B/A ratios:$worst)"
done
