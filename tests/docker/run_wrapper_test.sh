#!/usr/bin/env bash
# docker/run.sh, docker/build.sh and the image's entry point, without a Docker daemon: a fake
# `docker` on PATH records its arguments (one per line) and answers `docker image inspect` with
# canned JSON. Checks what the container is told (the provenance environment, mounts, mtrun's own
# arguments untouched), the refusals (dirty tree, revision mismatch: exit 2, both revisions named),
# the overrides and what they mark, and that an image is built from the commit, not the tree.
set -euo pipefail
SRC=${MT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mt-docker-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
WORK=$(cd "$WORK" && pwd -P)

passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }
not() { ! "$@"; }
in_dir() { local dir=$1; shift; (cd "$dir" && "$@"); }
# Runs a command, keeping its stdout+stderr in $OUT and its exit status in $RC.
capture() { set +e; OUT=$("$@" 2>&1); RC=$?; set -e; }
expect_rc() { if [ "$RC" -eq "$1" ]; then ok; else bad "$2: exit $RC, expected $1. Output:
$OUT"; fi; }
expect_out() { if grep -qF -- "$1" <<<"$OUT"; then ok; else bad "$2: output lacks '$1'. Output:
$OUT"; fi; }
expect_no_out() { if grep -qF -- "$1" <<<"$OUT"; then bad "$2: output has '$1'. Output:
$OUT"; else ok; fi; }
# The argv of the last `docker run`, one argument a line.
run_argv() { cat "$WORK/run.argv" 2>/dev/null || true; }
# True when argument $1 is directly followed by argument $2 in the last `docker run`.
has_pair() { run_argv | awk -v a="$1" -v b="$2" 'prev == a && $0 == b { found = 1 } { prev = $0 } END { exit !found }'; }
env_of_run() { run_argv | awk 'prev == "-e" { print } { prev = $0 }'; }
runs() { if [ -f "$WORK/docker.log" ]; then grep -c '^run' "$WORK/docker.log" || true; else echo 0; fi; }

# ---- a fake docker ---------------------------------------------------------------------------
mkdir -p "$WORK/bin" "$WORK/images"
cat > "$WORK/bin/docker" <<'FAKE'
#!/usr/bin/env bash
# Fake docker: logs each call; `image inspect REF` prints $FAKE_IMAGES/<REF with /:@ as _>.json.
echo "$*" >> "$FAKE_LOG"
case "${1:-} ${2:-}" in
  "image inspect")
    file="$FAKE_IMAGES/$(printf '%s' "$3" | tr '/:@' '___').json"
    if [ "$3" = broken:daemon ]; then
      echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2
      exit 1
    fi
    [ -f "$file" ] || { echo "Error: No such image: $3" >&2; exit 1; }
    cat "$file" ;;
  "run "*)
    shift
    printf '%s\n' "$@" > "$FAKE_RUN_ARGV"
    exit "${FAKE_RUN_RC:-0}" ;;
  "build "*)
    printf '%s\n' "$@" > "$FAKE_BUILD_ARGV"
    context=${!#}
    cp "$context/.mt-source-revision" "$FAKE_BUILD_DIR/revision"
    cp "$context/experiments/x.yaml" "$FAKE_BUILD_DIR/x.yaml"
    [ -f "$context/docker/Dockerfile" ] && touch "$FAKE_BUILD_DIR/has-dockerfile" ;;
  *) echo "fake docker: unexpected call: $*" >&2; exit 99 ;;
esac
FAKE
chmod +x "$WORK/bin/docker"
export PATH="$WORK/bin:$PATH" FAKE_LOG="$WORK/docker.log" FAKE_IMAGES="$WORK/images" \
       FAKE_RUN_ARGV="$WORK/run.argv" FAKE_BUILD_ARGV="$WORK/build.argv" FAKE_BUILD_DIR="$WORK/built"
mkdir -p "$FAKE_BUILD_DIR"
unset MT_IMAGE MT_DOCKER MT_DOCKER_GPUS
for v in $(compgen -e | grep '^NCCL_' || true); do unset "$v"; done

# ---- a checkout of its own (the wrapper mounts the repository it belongs to) ---------------------
REPO="$WORK/checkout"
mkdir -p "$REPO/docker" "$REPO/experiments"
cp "$SRC/docker/run.sh" "$SRC/docker/build.sh" "$SRC/docker/entrypoint.sh" "$SRC/docker/Dockerfile" "$REPO/docker/"
echo "name: x" > "$REPO/experiments/x.yaml"
printf '/.venv/\n' > "$REPO/.gitignore"
git -C "$REPO" init -q
git -C "$REPO" add -A
git -C "$REPO" -c user.name=test -c user.email=test@example.invalid commit -q -m checkout
git -C "$REPO" remote add origin https://someone:s3cret@example.invalid/minitrainbench.git
HEAD_REV=$(git -C "$REPO" rev-parse HEAD)
OLD_REV=0123456789abcdef0123456789abcdef01234567
IMAGE_ID=sha256:4d2f0c8e5a1b7c9d3e6f8a0b2c4d6e8f1a3b5c7d9e0f2a4b6c8d0e1f3a5b7c9d
BASE_NAME=docker.io/nvidia/cuda:13.2.0-runtime-ubuntu24.04
BASE_DIGEST=sha256:7fada70c5ed1b85cb3c15b53f51300fdacff1c31466a20e4f2b29ad952fd63a2

# Canned `docker image inspect` output (the fields docker prints that matter here, and some that don't).
image_json() {  # REF REVISION [labels: yes|no]
  local labels
  if [ "${3:-yes}" = yes ]; then
    labels=$(cat <<JSON
{"org.opencontainers.image.revision": "$2",
 "org.opencontainers.image.source": "https://example.invalid/minitrainbench.git",
 "org.opencontainers.image.created": "2026-12-01T06:00:00Z",
 "org.opencontainers.image.base.name": "$BASE_NAME",
 "org.opencontainers.image.base.digest": "$BASE_DIGEST"}
JSON
)
  else
    labels=null
  fi
  cat > "$FAKE_IMAGES/$(printf '%s' "$1" | tr '/:@' '___').json" <<JSON
[
    {
        "Id": "$IMAGE_ID",
        "RepoTags": ["$1"],
        "RepoDigests": [],
        "Created": "2026-12-01T06:00:00.000000000Z",
        "Config": {
            "Env": ["PATH=/opt/mt/bin:/opt/mt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
            "Entrypoint": ["/opt/mt/bin/mt-entrypoint"],
            "Cmd": ["mtrun", "--help"],
            "Labels": $labels
        },
        "Architecture": "amd64",
        "Os": "linux"
    }
]
JSON
}
image_json mtb:test "$HEAD_REV"
image_json mtb:old "$OLD_REV"
image_json mtb:unlabelled "" no

cd "$REPO"
reset_calls() { rm -f "$WORK/run.argv" "$WORK/docker.log"; }

# ---- the happy path: what the container is told ------------------------------------------------
reset_calls
capture docker/run.sh --image mtb:test -- run experiments/x.yaml --db "results/a b.sqlite"
expect_rc 0 "clean checkout, matching image"
check "MT_IMAGE_REF passed" has_pair -e "MT_IMAGE_REF=mtb:test"
check "MT_IMAGE_ID passed" has_pair -e "MT_IMAGE_ID=$IMAGE_ID"
check "MT_BASE_IMAGE passed" has_pair -e "MT_BASE_IMAGE=$BASE_NAME@$BASE_DIGEST"
check "git may read the mounted checkout" has_pair -e "GIT_CONFIG_VALUE_0=$REPO"
check "the image's environment replaces the checkout's .venv" has_pair -e "MT_VENV_LINK=$REPO/.venv"
check "no incompleteness marked for a clean, matching run" \
  not grep -q "^MT_PROVENANCE_INCOMPLETE=" <<<"$(env_of_run)"
check "checkout mounted at its own path" has_pair -v "$REPO:$REPO"
check "tmpfs over .venv" has_pair --mount "type=tmpfs,destination=$REPO/.venv"
check "starts in the current directory" has_pair -w "$REPO"
check "all GPUs by default" has_pair --gpus all
check "unlimited locked memory for NCCL with GPUs" has_pair --ulimit memlock=-1
check "host IPC for NCCL" grep -qx -- --ipc=host "$WORK/run.argv"
check "runs as the calling user" has_pair --user "$(id -u):$(id -g)"
check "records the host's name" has_pair --hostname "$(hostname)"
expected_tail=$(printf '%s\n' mtb:test mtrun run experiments/x.yaml --db "results/a b.sqlite")
check "image, then mtrun with its arguments untouched" \
  test "$(run_argv | tail -n 6)" = "$expected_tail"
check "the mount point of the image's environment is made" test -d "$REPO/.venv"

# ---- --print-env shows and runs nothing ------------------------------------------------------
reset_calls
capture docker/run.sh --image mtb:test --print-env -- run experiments/x.yaml
expect_rc 0 "--print-env"
expect_out "MT_IMAGE_REF=mtb:test" "--print-env lists the image reference"
expect_out "MT_IMAGE_ID=$IMAGE_ID" "--print-env lists the image ID"
expect_out "MT_BASE_IMAGE=$BASE_NAME@$BASE_DIGEST" "--print-env lists the base image"
expect_out "run --rm --init" "--print-env shows the docker command"
check "--print-env starts no container" test "$(runs)" -eq 0

# ---- a dirty tree ----------------------------------------------------------------------------
echo "name: changed" > experiments/x.yaml
reset_calls
capture docker/run.sh --image mtb:test -- run experiments/x.yaml
expect_rc 2 "dirty tree refused"
expect_out "has uncommitted changes to tracked files" "dirty tree message"
expect_out "experiments/x.yaml" "dirty tree message names the file"
expect_out "--allow-dirty" "dirty tree message names the override"
check "a refused run starts no container" test "$(runs)" -eq 0

reset_calls
capture docker/run.sh --image mtb:test --allow-dirty -- run experiments/x.yaml
expect_rc 0 "--allow-dirty"
check "--allow-dirty marks provenance incomplete" has_pair -e "MT_PROVENANCE_INCOMPLETE=dirty_tree"
git checkout -q -- experiments/x.yaml

echo "new" > experiments/untracked.yaml
reset_calls
capture docker/run.sh --image mtb:test -- run experiments/x.yaml
expect_rc 0 "untracked files do not make the tree dirty"
rm experiments/untracked.yaml

# ---- a revision mismatch ---------------------------------------------------------------------
reset_calls
capture docker/run.sh --image mtb:old -- run experiments/x.yaml
expect_rc 2 "revision mismatch refused"
expect_out "built from revision $OLD_REV" "mismatch message names the image's revision"
expect_out "is at revision $HEAD_REV" "mismatch message names the checkout's revision"
expect_out "--allow-mismatch" "mismatch message names the override"
check "a refused run starts no container" test "$(runs)" -eq 0

reset_calls
capture docker/run.sh --image mtb:old --allow-mismatch -- run experiments/x.yaml
expect_rc 0 "--allow-mismatch"
check "--allow-mismatch marks provenance incomplete" has_pair -e "MT_PROVENANCE_INCOMPLETE=image_revision_mismatch"

echo "name: changed" > experiments/x.yaml
reset_calls
capture docker/run.sh --image mtb:old --allow-dirty --allow-mismatch -- run experiments/x.yaml
expect_rc 0 "both overrides"
check "both reasons are named" has_pair -e "MT_PROVENANCE_INCOMPLETE=dirty_tree,image_revision_mismatch"
git checkout -q -- experiments/x.yaml

reset_calls
capture docker/run.sh --image mtb:unlabelled -- run experiments/x.yaml
expect_rc 2 "an image without a revision label is a mismatch"
expect_out "has no org.opencontainers.image.revision label" "unlabelled image message"
expect_out "$HEAD_REV" "unlabelled image message names the checkout's revision"
capture docker/run.sh --image mtb:unlabelled --allow-mismatch -- run experiments/x.yaml
expect_rc 0 "unlabelled image with --allow-mismatch"
expect_out "has no base-image labels" "a missing base image is said"
check "an unknown base image is passed as empty" has_pair -e "MT_BASE_IMAGE="

# ---- a worktree: its git data lives in the main checkout, which is mounted too (read-only) --------
git -C "$REPO" worktree add -q "$WORK/worktree" 2> /dev/null
reset_calls
capture in_dir "$WORK/worktree" "$WORK/worktree/docker/run.sh" --image mtb:test -- status
expect_rc 0 "run from a worktree"
check "the worktree is mounted" has_pair -v "$WORK/worktree:$WORK/worktree"
check "the main checkout's git data is mounted read-only" has_pair -v "$REPO/.git:$REPO/.git:ro"
check "a plain checkout mounts no git data of its own" test "$(cd "$REPO" && docker/run.sh --image mtb:test --print-env -- status | grep -c ':ro')" -eq 0

# ---- images and docker that fail; usage ------------------------------------------------------
capture docker/run.sh --image mtb:missing -- status
expect_rc 2 "unknown image"
expect_out "image 'mtb:missing' is not here" "unknown image message"
capture docker/run.sh --image broken:daemon -- status
expect_rc 1 "docker itself failing"
expect_out "Cannot connect to the Docker daemon" "docker's own error is shown"
reset_calls
FAKE_RUN_RC=3 capture docker/run.sh --image mtb:test -- run experiments/x.yaml
expect_rc 3 "mtrun's exit status comes back"
capture docker/run.sh -- status
expect_rc 2 "no image"
expect_out "no image" "no image message"
MT_IMAGE=mtb:test capture docker/run.sh -- status
expect_rc 0 "MT_IMAGE names the image"
capture docker/run.sh --image mtb:test
expect_rc 2 "no mtrun arguments"
capture docker/run.sh --image mtb:test --bogus -- status
expect_rc 2 "unknown option"
expect_out "unknown option '--bogus'" "unknown option message"
capture in_dir / "$REPO/docker/run.sh" --image mtb:test -- status
expect_rc 2 "outside the checkout"
expect_out "run it from inside the checkout" "outside the checkout message"

# ---- substitutes and pass-through --------------------------------------------------------------
mkdir -p "$WORK/alt"
cp "$WORK/bin/docker" "$WORK/alt/podman-ish"
reset_calls
MT_DOCKER="$WORK/alt/podman-ish" capture env PATH="/usr/bin:/bin" docker/run.sh --image mtb:test -- status
expect_rc 0 "MT_DOCKER substitutes the docker program"
check "MT_DOCKER's program was the one called" test "$(runs)" -eq 1
reset_calls
MT_DOCKER_GPUS=none NCCL_DEBUG=INFO capture docker/run.sh --image mtb:test --docker-arg=--network=host -- status
expect_rc 0 "MT_DOCKER_GPUS=none"
check "no --gpus with MT_DOCKER_GPUS=none" not grep -qx -- --gpus "$WORK/run.argv"
check "no raised locked-memory limit without GPUs" not grep -qx -- memlock=-1 "$WORK/run.argv"
check "NCCL_* settings follow into the container" has_pair -e NCCL_DEBUG
check "--docker-arg reaches docker run" grep -qx -- --network=host "$WORK/run.argv"

# ---- docker/build.sh: the image holds the commit, labelled ----------------------------------------
echo "name: uncommitted" > experiments/x.yaml
capture docker/build.sh --tag mtb:built
expect_rc 0 "build.sh"
expect_out "uncommitted changes" "build.sh says uncommitted changes stay out"
check "the build context names the commit" test "$(cat "$WORK/built/revision")" = "$HEAD_REV"
check "the build context holds the committed file, not the working one" \
  test "$(cat "$WORK/built/x.yaml")" = "name: x"
check "the build context holds the Dockerfile" test -f "$WORK/built/has-dockerfile"
check "REVISION build argument" grep -qx "REVISION=$HEAD_REV" "$WORK/build.argv"
check "SOURCE build argument, credentials removed" \
  grep -qx "SOURCE=https://example.invalid/minitrainbench.git" "$WORK/build.argv"
check "CREATED build argument in UTC" grep -qE '^CREATED=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' "$WORK/build.argv"
check "the tag" grep -qx "mtb:built" "$WORK/build.argv"
git checkout -q -- experiments/x.yaml
capture docker/build.sh --base "$BASE_NAME@$BASE_DIGEST"
expect_rc 0 "build.sh --base pinned"
check "BASE_IMAGE build argument" grep -qx "BASE_IMAGE=$BASE_NAME" "$WORK/build.argv"
check "BASE_DIGEST build argument" grep -qx "BASE_DIGEST=$BASE_DIGEST" "$WORK/build.argv"
check "default tag names the revision" grep -qx "minitrainbench:${HEAD_REV:0:12}" "$WORK/build.argv"
capture docker/build.sh --base "$BASE_NAME"
expect_rc 2 "build.sh refuses a base without digest"
expect_out "is not pinned by digest" "unpinned base message"
capture docker/build.sh --revision no-such-commit
expect_rc 2 "build.sh refuses an unknown revision"

# ---- the entry point: the image's environment seen through the checkout's .venv --------------------
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
"$PY" -m venv --without-pip "$WORK/image-venv"
mkdir -p "$WORK/image-venv/lib/probe_pkg" "$WORK/link"
site=$("$WORK/image-venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
mkdir -p "$site/probe_pkg" && echo 'WHERE = "image"' > "$site/probe_pkg/__init__.py"
capture env MT_IMAGE_VENV="$WORK/image-venv" MT_VENV_LINK="$WORK/link" \
  "$REPO/docker/entrypoint.sh" "$WORK/link/bin/python" -c 'import sys, probe_pkg; print(sys.prefix, probe_pkg.WHERE)'
expect_rc 0 "entry point runs its arguments"
expect_out "$WORK/link image" "the linked .venv is a virtual environment with the image's packages"
capture env MT_VENV_LINK="$WORK/nowhere" "$REPO/docker/entrypoint.sh" true
expect_rc 2 "entry point refuses a missing link directory"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
