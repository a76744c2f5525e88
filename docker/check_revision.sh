#!/usr/bin/env bash
# Run by both Dockerfiles before they compile: the build argument REVISION (the commit
# docker/build.sh exported) must be a 40-hex commit id and agree with the context's own record of
# it, .mt-source-revision. A plain `docker build .` of a working tree has neither and must not stamp
# a revision it cannot vouch for. Usage: check_revision.sh REVISION (run in the build context).
set -euo pipefail
revision=${1:-}
if ! printf '%s' "$revision" | grep -Eqx '[0-9a-f]{40}'; then
  echo "docker: build argument REVISION must be a 40-hex commit id, got '$revision' (build with docker/build.sh)" >&2
  exit 2
fi
if [ ! -f .mt-source-revision ]; then
  echo "docker: no .mt-source-revision in the build context: build with docker/build.sh, which exports a commit" >&2
  exit 2
fi
if [ "$(cat .mt-source-revision)" != "$revision" ]; then
  echo "docker: .mt-source-revision says $(cat .mt-source-revision) but REVISION is $revision" >&2
  exit 2
fi
