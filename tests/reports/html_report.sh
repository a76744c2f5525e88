#!/usr/bin/env bash
# `mtrun report --html` renders every committed report as one self-contained page that headless
# Chromium opens without a console error, showing every heading the markdown has, every plot
# inline, its contents linking every section, every link within the page landing on one of its
# elements, nothing fetched from elsewhere; clicking a numeric column heading sorts its rows.
set -euo pipefail
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "SKIP: chromium is not installed (scripts/setup.sh installs it)"; exit 77; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MTRUN="$MT_BUILD_DIR/bin/mtrun"
cd "$MT_SOURCE_DIR"

dump_dom() {  # page -> DOM on stdout; console messages (errors included) in $WORK/console
  timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$WORK/profile" \
    --enable-logging=stderr --v=0 --dump-dom "file://$1" 2> "$WORK/chromium.log"
  grep 'CONSOLE' "$WORK/chromium.log" > "$WORK/console" || true
}

checked=0
for db in reports/*.sqlite; do
  name=$(basename "$db" .sqlite)
  args=()
  [ -f "reports/$name.args" ] && mapfile -t args < "reports/$name.args"
  cp "$db" "$WORK/$name.sqlite"
  "$MTRUN" --db "$WORK/$name.sqlite" report "${args[@]}" -o "$WORK/$name.html" > /dev/null
  [ ! -d "$WORK/$name" ] || [ -z "$(find "$WORK/$name" -name '*.svg')" ] || {
    echo "FAIL: $name.html wrote its plots beside it instead of holding them"; exit 1; }
  if grep -Eiq '<(link|iframe)|<(img|script)[^>]* src="https?:|url\(' "$WORK/$name.html"; then
    echo "FAIL: $name.html asks for something from elsewhere"; exit 1
  fi
  dump_dom "$WORK/$name.html" > "$WORK/$name.dom"
  [ ! -s "$WORK/console" ] || { echo "FAIL: $name.html logs to the console:"; cat "$WORK/console"; exit 1; }
  # Every heading of the markdown report is a heading of the page, with the same text.
  grep -E '^#{1,6} ' "reports/$name.md" | sed -E 's/^#+ +//' | sort > "$WORK/md_headings"
  grep -oE '<h[1-6] id="[^"]*">[^<]*' "$WORK/$name.dom" | sed -E 's/^<h[1-6] id="[^"]*">//' |
    sed 's/&gt;/>/g; s/&lt;/</g; s/&amp;/\&/g' | sort > "$WORK/dom_headings"
  [ -s "$WORK/md_headings" ] || { echo "FAIL: reports/$name.md has no headings"; exit 1; }
  diff -u "$WORK/md_headings" "$WORK/dom_headings" || { echo "FAIL: $name.html lacks headings of $name.md"; exit 1; }
  # The contents after the title link every section (second-level heading).
  sections=$(grep -c '^## ' "reports/$name.md" || true)
  listed=$( (grep -o '<nav class="contents">.*</nav>' "$WORK/$name.dom" || true) | grep -o '<li>' | wc -l)
  [ "$sections" -eq "$listed" ] || { echo "FAIL: $name.html lists $listed of its $sections sections"; exit 1; }
  # Every link within the page lands on an element of it.
  for anchor in $(grep -oE 'href="#[^"]*"' "$WORK/$name.dom" | sed -E 's/href="#([^"]*)"/\1/' | sort -u); do
    grep -q "id=\"$anchor\"" "$WORK/$name.dom" || { echo "FAIL: $name.html links #$anchor, which it lacks"; exit 1; }
  done
  plots=$(grep -c '^!\[' "reports/$name.md" || true)
  inline=$( (grep -o '<svg ' "$WORK/$name.dom" || true) | wc -l)
  [ "$plots" -eq "$inline" ] || { echo "FAIL: $name.md links $plots plots, the page draws $inline"; exit 1; }
  [ "$(grep -c '<img' "$WORK/$name.dom" || true)" -eq 0 ] || { echo "FAIL: $name.html has an <img>"; exit 1; }
  checked=$((checked + 1))
done
[ "$checked" -gt 0 ] || { echo "FAIL: no committed report found"; exit 1; }

# --html without -o: the same page on standard output, plots inline.
cp reports/quickstart.sqlite "$WORK/stdout.sqlite"
"$MTRUN" --db "$WORK/stdout.sqlite" report --html > "$WORK/stdout.html"
head -c 15 "$WORK/stdout.html" | grep -q '<!DOCTYPE html>' || { echo "FAIL: report --html does not print a page"; exit 1; }
grep -q '<svg ' "$WORK/stdout.html" || { echo "FAIL: report --html on standard output lacks its plots"; exit 1; }

# Sorting: click the first numeric column of the training table and read the order back.
page="$WORK/sort.html"
sed 's|</body>|<script>\
var th = document.querySelector("table.sortable th.num"), column = th.cellIndex; th.click();\
var values = Array.prototype.map.call(th.closest("table").tBodies[0].rows, function (r) {\
  return parseFloat(r.cells[column].textContent); }).filter(function (v) { return !isNaN(v); });\
var ascending = values.length > 1 \&\& values.every(function (v, i) { return i === 0 \|\| values[i - 1] <= v; });\
document.body.setAttribute("data-sorted", ascending \&\& th.getAttribute("aria-sort") === "ascending" ? "ascending" : "no");\
</script></body>|' "$WORK/ddp_vs_pytorch.html" > "$page"
dump_dom "$page" > "$WORK/sort.dom"
[ ! -s "$WORK/console" ] || { echo "FAIL: sorting logs to the console:"; cat "$WORK/console"; exit 1; }
grep -q 'data-sorted="ascending"' "$WORK/sort.dom" || { echo "FAIL: clicking a numeric column did not sort it"; exit 1; }
echo "PASS: $checked report(s) render in Chromium with every heading and plot; tables sort"
