#!/usr/bin/env bash
# Every committed report is exactly what `mtrun report` renders from the database committed beside
# it (reports/NAME.sqlite -> reports/NAME.md + reports/NAME/*.svg): no hand-edited figures.
set -euo pipefail
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$MT_SOURCE_DIR/scripts/render_reports.sh" --into "$WORK/out" "$MT_BUILD_DIR/bin/mtrun"
checked=0
for db in "$MT_SOURCE_DIR"/reports/*.sqlite; do
  name=$(basename "$db" .sqlite)
  diff -u "$MT_SOURCE_DIR/reports/$name.md" "$WORK/out/$name.md" || { echo "FAIL: reports/$name.md differs"; exit 1; }
  if [ -d "$MT_SOURCE_DIR/reports/$name" ] || [ -d "$WORK/out/$name" ]; then  # no folder when nothing is plotted
    diff -ru "$MT_SOURCE_DIR/reports/$name" "$WORK/out/$name" || { echo "FAIL: reports/$name/ differs"; exit 1; }
  fi
  checked=$((checked + 1))
done
[ "$checked" -gt 0 ] || { echo "FAIL: no committed report found"; exit 1; }
echo "PASS: $checked report(s) regenerate byte for byte"
