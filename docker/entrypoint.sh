#!/usr/bin/env bash
# The image's entry point: runs its arguments (by default `mtrun --help`). docker/run.sh mounts the
# checkout at the path it has on the host, so experiment files that name the checkout's virtual
# environment (`{experiment_dir}/../.venv/bin/python`, the PyTorch peers) would reach the host's
# environment, which cannot run here. run.sh mounts an empty tmpfs there and names it in
# MT_VENV_LINK; this fills it with links to the image's environment, which Python then treats as
# a virtual environment of its own (it reads pyvenv.cfg beside bin/, links and all).
set -euo pipefail

IMAGE_VENV=${MT_IMAGE_VENV:-/opt/mt/venv}

if [ -n "${MT_VENV_LINK:-}" ]; then
  if [ ! -d "$MT_VENV_LINK" ]; then
    echo "mt-entrypoint: MT_VENV_LINK=$MT_VENV_LINK is not a directory" >&2
    exit 2
  fi
  for entry in "$IMAGE_VENV"/* "$IMAGE_VENV"/.[!.]*; do
    [ -e "$entry" ] || continue
    ln -sfn "$entry" "$MT_VENV_LINK/$(basename "$entry")"
  done
fi

if [ $# -eq 0 ]; then
  set -- mtrun --help
fi
exec "$@"
