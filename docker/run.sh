#!/usr/bin/env bash
# Runs mtrun inside the MiniTrainBench image on this checkout, and tells mtrun which image it runs
# in, so every trial's provenance names the image reference, image ID and base image.
#
#   docker/run.sh --image minitrainbench:0123abcd4567 -- run experiments/a100_matrix.yaml
#   docker/run.sh --image … -- report -o reports/a100_matrix.md
#   docker/run.sh --image … --print-env -- run experiments/a100_matrix.yaml   # show, run nothing
#
# It refuses (exit 2) a checkout with uncommitted changes to tracked files, and an image whose
# org.opencontainers.image.revision label is not the checkout's HEAD: numbers measured so could not
# be traced to one source. --allow-dirty / --allow-mismatch run anyway and name the reason in
# MT_PROVENANCE_INCOMPLETE, so the trials are recorded with incomplete provenance.
#
# The checkout is mounted at the path it has here and the container starts in the current
# directory, so paths (experiment files, --db, -o) mean the same inside and out. The container runs
# as the calling user, with the host's name (trials record their hosts), all GPUs (MT_DOCKER_GPUS,
# 'none' for none; with GPUs, unlimited locked memory) and the host's IPC namespace (NCCL's shared-memory transport needs more than
# Docker's 64 MB /dev/shm).
#
# Exit codes: mtrun's own; 2 bad usage, a refused checkout or an unknown image; 1 docker failed.
# Environment: MT_IMAGE (default image), MT_DOCKER (the docker program), MT_DOCKER_GPUS.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: docker/run.sh [--image REF] [--allow-dirty] [--allow-mismatch] [--print-env]
                     [--docker-arg ARG]... [--] MTRUN_ARGS...
  --image REF        image to run (default: $MT_IMAGE)
  --allow-dirty      run although tracked files have uncommitted changes (provenance: incomplete)
  --allow-mismatch   run although the image was built from another commit (provenance: incomplete)
  --print-env        print the container's provenance environment and the docker command; run nothing
  --docker-arg ARG   one more argument for `docker run` (repeat it), e.g. --docker-arg=--network=host
USAGE
}

die() { echo "docker/run.sh: $1" >&2; exit "${2:-1}"; }

DOCKER=${MT_DOCKER:-docker}
image=${MT_IMAGE:-}
allow_dirty=0 allow_mismatch=0 print_env=0
docker_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --image) [ $# -ge 2 ] || die "--image needs a value" 2; image=$2; shift 2 ;;
    --image=*) image=${1#--image=}; shift ;;
    --docker-arg) [ $# -ge 2 ] || die "--docker-arg needs a value" 2; docker_args+=("$2"); shift 2 ;;
    --docker-arg=*) docker_args+=("${1#--docker-arg=}"); shift ;;
    --allow-dirty) allow_dirty=1; shift ;;
    --allow-mismatch) allow_mismatch=1; shift ;;
    --print-env) print_env=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    -*) usage >&2; die "unknown option '$1' (mtrun's own arguments go after --)" 2 ;;
    *) break ;;
  esac
done
[ -n "$image" ] || { usage >&2; die "no image: pass --image REF or set MT_IMAGE" 2; }
[ $# -gt 0 ] || { usage >&2; die "no mtrun arguments (e.g. -- run experiments/a100_matrix.yaml)" 2; }

# ---- the checkout --------------------------------------------------------------------------
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
git -C "$root" rev-parse --git-dir > /dev/null 2>&1 || die "$root is not a git checkout" 2
head=$(git -C "$root" rev-parse HEAD) || die "cannot read HEAD of $root" 2
here=$(pwd -P)
case "$here/" in
  "$root"/*) ;;
  *) die "run it from inside the checkout $root (the container sees only the checkout), not from $here" 2 ;;
esac
# A worktree's git data lives in the main checkout's .git: mounted too (read-only), or git inside
# the container could not read the commit that mtrun records.
git_common=$(git -C "$root" rev-parse --path-format=absolute --git-common-dir)
case "$git_common/" in
  "$root"/*) git_common="" ;;
esac
mounted=("$root")
[ -z "$git_common" ] || mounted+=("$git_common")
for path in "${mounted[@]}"; do
  case "$path" in
    *:*|*,*) die "the path $path holds ':' or ',', which docker's mount options cannot express" 2 ;;
  esac
done

incomplete=()
changed=$(git -C "$root" status --porcelain --untracked-files=no)
if [ -n "$changed" ]; then
  if [ "$allow_dirty" -eq 0 ]; then
    {
      echo "docker/run.sh: the checkout $root has uncommitted changes to tracked files:"
      printf '%s\n' "$changed" | head -n 10 | sed 's/^/  /'
      echo "commit or stash them, or pass --allow-dirty (the trials' provenance then says incomplete)"
    } >&2
    exit 2
  fi
  incomplete+=(dirty_tree)
fi

# ---- the image -----------------------------------------------------------------------------
command -v python3 > /dev/null || die "python3 is needed to read docker image inspect's JSON" 1
errors=$(mktemp "${TMPDIR:-/tmp}/mtb-run.XXXXXX")
trap 'rm -f "$errors"' EXIT
if ! inspect=$("$DOCKER" image inspect "$image" 2> "$errors"); then
  case "$(cat "$errors")" in
    *"No such image"*|*"No such object"*)
      die "image '$image' is not here: build it (docker/build.sh) or pull it" 2 ;;
    *) die "'$DOCKER image inspect $image' failed: $(cat "$errors")" 1 ;;
  esac
fi

# One field a line: ID, revision label, base name label, base digest label. Python reads the JSON
# (a docker template would hide a missing label behind "<no value>").
fields=$(printf '%s' "$inspect" | python3 -c '
import json, sys
try:
    data = json.load(sys.stdin)
    image = data[0] if isinstance(data, list) else data
    labels = (image.get("Config") or {}).get("Labels") or {}
    values = [image.get("Id", ""),
              labels.get("org.opencontainers.image.revision", ""),
              labels.get("org.opencontainers.image.base.name", ""),
              labels.get("org.opencontainers.image.base.digest", "")]
except (ValueError, LookupError, AttributeError) as e:
    sys.exit(f"unreadable output of docker image inspect: {e}")
for v in values:
    print(str(v).replace("\n", " "))
') || die "cannot read the metadata of image '$image'" 1
mapfile -t field <<< "$fields"   # $(…) dropped trailing empty lines: missing fields read as empty
image_id=${field[0]:-} image_revision=${field[1]:-} base_name=${field[2]:-} base_digest=${field[3]:-}
[ -n "$image_id" ] || die "docker image inspect gave no Id for '$image'" 1

if [ "$image_revision" != "$head" ]; then
  if [ -z "$image_revision" ]; then
    what="has no org.opencontainers.image.revision label (it was not built by docker/build.sh)"
    other="the image's commit"
  else
    what="was built from revision $image_revision"
    other=$image_revision
  fi
  if [ "$allow_mismatch" -eq 0 ]; then
    {
      echo "docker/run.sh: image '$image' $what, but the checkout $root is at revision $head"
      echo "build an image of this revision (docker/build.sh), check out $other, or pass --allow-mismatch (the trials' provenance then says incomplete)"
    } >&2
    exit 2
  fi
  incomplete+=(image_revision_mismatch)
fi
base_image=""
if [ -n "$base_name" ] && [ -n "$base_digest" ]; then
  base_image="$base_name@$base_digest"
else
  echo "docker/run.sh: warning: image '$image' has no base-image labels; provenance records no base image" >&2
fi

# ---- the container -------------------------------------------------------------------------
env_vars=(
  "MT_IMAGE_REF=$image"
  "MT_IMAGE_ID=$image_id"
  "MT_BASE_IMAGE=$base_image"
  "MT_VENV_LINK=$root/.venv"
  # The checkout belongs to the host user; git must accept it whoever the container runs as.
  "GIT_CONFIG_COUNT=1" "GIT_CONFIG_KEY_0=safe.directory" "GIT_CONFIG_VALUE_0=$root"
  "HOME=/tmp"
)
if [ ${#incomplete[@]} -gt 0 ]; then
  env_vars+=("MT_PROVENANCE_INCOMPLETE=$(IFS=,; echo "${incomplete[*]}")")
fi
if [ "$(id -u)" -eq 0 ]; then
  env_vars+=("OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
fi

cmd=("$DOCKER" run --rm --init --user "$(id -u):$(id -g)" --hostname "$(hostname)" --ipc=host)
gpus=${MT_DOCKER_GPUS:-all}
# NCCL pins host memory for GPU transfers, so GPU runs get unlimited locked memory. CPU runs keep
# the engine's own limits: some hosts refuse to raise a limit for a container at all.
[ "$gpus" = none ] || cmd+=(--gpus "$gpus" --ulimit memlock=-1)
if [ -t 0 ] && [ -t 1 ]; then cmd+=(-it); fi
cmd+=(-v "$root:$root" --mount "type=tmpfs,destination=$root/.venv" -w "$here")
[ -z "$git_common" ] || cmd+=(-v "$git_common:$git_common:ro")
for v in "${env_vars[@]}"; do cmd+=(-e "$v"); done
# NCCL's own settings (NCCL_DEBUG, NCCL_SOCKET_IFNAME, …) follow the user into the container.
while IFS= read -r name; do cmd+=(-e "$name"); done < <(compgen -e | grep '^NCCL_' || true)
cmd+=("${docker_args[@]}" "$image" mtrun "$@")

if [ "$print_env" -eq 1 ]; then
  printf '%s\n' "${env_vars[@]}"
  printf '%q ' "${cmd[@]}"
  printf '\n'
  exit 0
fi
# The mount point of the image's environment; made here so that it belongs to the user, not to root.
[ -e "$root/.venv" ] || mkdir "$root/.venv"
rm -f "$errors"
trap - EXIT
exec "${cmd[@]}"
