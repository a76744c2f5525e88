#!/usr/bin/env bash
# Renders every committed report from the database committed beside it: reports/NAME.sqlite ->
# NAME.md and NAME/ (plots, traces), with the flags in reports/NAME.args (one per line, paths
# relative to the repository). The databases are read, never written.
#
#   scripts/render_reports.sh [MTRUN]               re-render into reports/ after a rendering change
#   scripts/render_reports.sh --into DIR [MTRUN]    render into DIR only (what committed_reports compares)
set -euo pipefail
INTO=""
if [ "${1:-}" = "--into" ]; then
  INTO=$(realpath -m "${2:?--into needs a directory}")
  shift 2
fi
MTRUN=$(realpath -m "${1:-$(dirname "$0")/../build/bin/mtrun}")
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
OUT=${INTO:-$WORK/out}
for db in reports/*.sqlite; do
  name=$(basename "$db" .sqlite)
  args=()
  [ -f "reports/$name.args" ] && mapfile -t args < "reports/$name.args"
  cp "$db" "$WORK/$name.sqlite"   # rendering is read-only, but the committed file is never touched
  "$MTRUN" --db "$WORK/$name.sqlite" report "${args[@]}" -o "$OUT/$name.md" >/dev/null
done
[ -z "$INTO" ] || exit 0
for md in "$OUT"/*.md; do
  name=$(basename "$md" .md)
  cp "$md" "reports/$name.md"
  rm -rf "reports/$name"
  if [ -d "$OUT/$name" ]; then cp -r "$OUT/$name" "reports/$name"; fi
done
git status --short reports
