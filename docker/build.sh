#!/usr/bin/env bash
# Builds the MiniTrainBench image from one commit of this checkout (HEAD unless --revision says
# otherwise). The build context is that commit exported with `git archive`, so uncommitted changes
# never reach an image that carries the commit's id; the OCI labels (revision, source, created,
# base image name and digest) are filled from git, the clock and docker/Dockerfile's pinned bases.
#
#   docker/build.sh                       # tag minitrainbench:<12-hex revision>
#   docker/build.sh --tag registry.example/mtb:v1 --base docker.io/nvidia/cuda:13.2.1-runtime-ubuntu24.04@sha256:…
#   docker/build.sh --cpu --base localhost/mt-debian12-base@sha256:…   # the CPU image (Dockerfile.cpu)
#   docker/build.sh --print               # show the docker build command, build nothing
#
# Exit codes: 0 built (or printed); 1 docker or git failed; 2 bad usage or input.
# MT_DOCKER names the docker program (default: docker).
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: docker/build.sh [--cpu] [--tag NAME] [--revision COMMIT] [--source URL]
                       [--base NAME@sha256:DIGEST] [--builder NAME@sha256:DIGEST] [--print]
                       [-- DOCKER_BUILD_ARGS...]
  --cpu             the CPU image (docker/Dockerfile.cpu, Debian 12); needs --base, which both
                    of its stages start from
  --tag NAME        image name (default: minitrainbench:<first 12 hex of the revision>, with
                    -cpu after it for the CPU image)
  --revision COMMIT commit to build (default: HEAD); any name git rev-parse understands
  --source URL      org.opencontainers.image.source (default: remote.origin.url, credentials removed)
  --base REF        runtime base image, pinned by digest (default: docker/Dockerfile's)
  --builder REF     build-stage image, pinned by digest (default: docker/Dockerfile's)
  --ca-bundle FILE  certificate authorities pip trusts in the build (default: $PIP_CERT, else
                    $SSL_CERT_FILE, else /etc/ssl/certs/ca-certificates.crt if present; 'none'
                    for the image's own); passed as a build secret, not kept in the image
  --print           print the docker build command, build nothing (the exported context is kept)
USAGE
}

die() { echo "docker/build.sh: $1" >&2; exit "${2:-1}"; }

DOCKER=${MT_DOCKER:-docker}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tag="" revision_name=HEAD source="" base="" builder="" print=0 cpu=0 ca_bundle=""
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --tag|--revision|--source|--base|--builder|--ca-bundle)
      [ $# -ge 2 ] || die "$1 needs a value" 2
      case "$1" in
        --tag) tag=$2 ;; --revision) revision_name=$2 ;; --source) source=$2 ;;
        --base) base=$2 ;; --builder) builder=$2 ;; --ca-bundle) ca_bundle=$2 ;;
      esac
      shift 2 ;;
    --print) print=1; shift ;;
    --cpu) cpu=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) usage >&2; die "unknown argument '$1'" 2 ;;
  esac
done

# NAME@sha256:<64 hex> -> "NAME DIGEST"; anything else is refused: a base named by tag alone can
# change under the same name, and the image's base-image label would then not say what it holds.
split_pinned() {
  local ref=$1 what=$2
  if [[ ! "$ref" =~ ^([^@[:space:]]+)@(sha256:[0-9a-f]{64})$ ]]; then
    die "$what '$ref' is not pinned by digest: give it as NAME@sha256:<64 hex digits>" 2
  fi
  printf '%s %s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
}

git -C "$root" rev-parse --git-dir > /dev/null 2>&1 || die "$root is not a git checkout" 2
revision=$(git -C "$root" rev-parse --verify --quiet "${revision_name}^{commit}") \
  || die "'$revision_name' is not a commit of $root" 2
dockerfile=docker/Dockerfile suffix=""
if [ "$cpu" -eq 1 ]; then
  dockerfile=docker/Dockerfile.cpu suffix=-cpu
  [ -n "$base" ] || die "--cpu needs --base NAME@sha256:DIGEST: a Debian 12 image (docker/debian_base.sh makes one)" 2
  [ -z "$builder" ] || die "--cpu builds on --base in both stages; --builder does not apply" 2
fi
[ -n "$tag" ] || tag="minitrainbench:${revision:0:12}$suffix"
if [ -z "$source" ]; then
  source=$(git -C "$root" config --get remote.origin.url || true)
fi
source=$(printf '%s' "$source" | sed -E 's#^([a-z+]+://)[^/@]*@#\1#')   # never put a token in a label
created=$(date -u +%Y-%m-%dT%H:%M:%SZ)

build_args=(--build-arg "REVISION=$revision" --build-arg "SOURCE=$source" --build-arg "CREATED=$created")
if [ -n "$base" ]; then
  read -r name digest < <(split_pinned "$base" "--base") || exit 2
  build_args+=(--build-arg "BASE_IMAGE=$name" --build-arg "BASE_DIGEST=$digest")
fi
if [ -n "$builder" ]; then
  read -r name digest < <(split_pinned "$builder" "--builder") || exit 2
  build_args+=(--build-arg "BUILDER_IMAGE=$name" --build-arg "BUILDER_DIGEST=$digest")
fi

if [ -z "$ca_bundle" ]; then
  for candidate in "${PIP_CERT:-}" "${SSL_CERT_FILE:-}" /etc/ssl/certs/ca-certificates.crt; do
    if [ -n "$candidate" ] && [ -f "$candidate" ]; then ca_bundle=$candidate; break; fi
  done
fi
if [ -n "$ca_bundle" ] && [ "$ca_bundle" != none ]; then
  [ -f "$ca_bundle" ] || die "--ca-bundle '$ca_bundle' is not a file" 2
  build_args+=(--secret "id=ca_bundle,src=$ca_bundle")
fi

if [ "$revision_name" = HEAD ] && [ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then
  echo "docker/build.sh: note: uncommitted changes in $root are not in the image (it holds commit $revision)" >&2
fi

context=$(mktemp -d "${TMPDIR:-/tmp}/mtb-image.XXXXXX")
trap 'rm -rf "$context"' EXIT
git -C "$root" archive --format=tar "$revision" | tar -x -C "$context" \
  || die "could not export $revision with git archive"
printf '%s\n' "$revision" > "$context/.mt-source-revision"
[ -f "$context/$dockerfile" ] || die "commit $revision has no $dockerfile" 2

cmd=("$DOCKER" build -f "$context/$dockerfile" -t "$tag" "${build_args[@]}")
# podman (buildah) builds OCI images by default, which have no SHELL: the Dockerfiles' pipefail
# would be dropped with a warning. Docker's format keeps it.
case "$(basename "$DOCKER")" in
  podman|buildah) cmd+=(--format docker) ;;
esac
cmd+=("${extra[@]}" "$context")
if [ "$print" -eq 1 ]; then
  trap - EXIT
  printf '%q ' "${cmd[@]}"
  printf '\n'
  echo "docker/build.sh: the build context is left in $context for inspection" >&2
  exit 0
fi
echo "docker/build.sh: building $tag from $revision"
"${cmd[@]}" || die "docker build failed for $tag (revision $revision)"
echo "docker/build.sh: built $tag (revision $revision); run it with docker/run.sh --image $tag"
