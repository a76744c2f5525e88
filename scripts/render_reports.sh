#!/usr/bin/env bash
# Re-renders every committed report from the database committed beside it, after a change to how
# reports are rendered: reports/NAME.sqlite -> reports/NAME.md and reports/NAME/*.svg, with the
# flags in reports/NAME.args. The numbers cannot change (the databases are read, never written);
# the committed_reports test fails until this has run.
#
#   scripts/render_reports.sh [build/bin/mtrun]
set -euo pipefail
cd "$(dirname "$0")/.."
MTRUN=${1:-build/bin/mtrun}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for db in reports/*.sqlite; do
  name=$(basename "$db" .sqlite)
  args=()
  [ -f "reports/$name.args" ] && mapfile -t args < "reports/$name.args"
  cp "$db" "$WORK/$name.sqlite"   # rendering is read-only, but the committed file is never touched
  "$MTRUN" --db "$WORK/$name.sqlite" report "${args[@]}" -o "$WORK/out/$name.md" >/dev/null
  cp "$WORK/out/$name.md" "reports/$name.md"
  if [ -d "$WORK/out/$name" ]; then
    rm -rf "reports/$name.plots.tmp" && cp -r "$WORK/out/$name" "reports/$name.plots.tmp"
    # Keep what the report folder holds besides its plots (traces of profiled studies).
    for kept in reports/"$name"/*; do
      [ -e "$kept" ] && [ ! -e "reports/$name.plots.tmp/$(basename "$kept")" ] && cp -r "$kept" "reports/$name.plots.tmp/"
    done
    rm -rf "reports/$name" && mv "reports/$name.plots.tmp" "reports/$name"
  fi
done
git status --short reports
