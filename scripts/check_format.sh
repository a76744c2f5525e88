#!/usr/bin/env bash
# Checks that every tracked C and C++ source follows .clang-format (clang-format 14, as Debian 12
# ships it): lists each file that does not, with the first lines that would change, and exits 1.
# `clang-format -i FILE` applies the style; `scripts/check_format.sh --fix` applies it everywhere.
set -euo pipefail
cd "${MT_SOURCE_DIR:-$(dirname "$0")/..}"
FORMAT=$(command -v clang-format-14 || command -v clang-format) ||
  { echo "check_format: clang-format not found (scripts/test.sh installs it)" >&2; exit 1; }
# The tracked sources; outside a git checkout (an unpacked archive), every source under the
# project's folders.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.h')
else
  mapfile -t files < <(find benchmarks engine runner tests \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) | sort)
fi
[ "${#files[@]}" -gt 0 ] || { echo "check_format: no C or C++ source found" >&2; exit 1; }
if [ "${1:-}" = "--fix" ]; then
  "$FORMAT" -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! diff_out=$("$FORMAT" "$f" | diff -u "$f" - ); then
    bad=$((bad + 1))
    echo "check_format: $f does not follow .clang-format:" >&2
    head -20 <<<"$diff_out" >&2
  fi
done
if [ "$bad" -gt 0 ]; then
  echo "check_format: $bad of ${#files[@]} files need clang-format -i" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files follow .clang-format"
