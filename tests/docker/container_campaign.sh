#!/usr/bin/env bash
# The CPU image end to end: build it from this checkout's HEAD (docker/build.sh --cpu on a Debian 12
# base made with debootstrap, unless an image of HEAD is there already), run a campaign in it
# through docker/run.sh from a clean clone of HEAD, and check that every trial records the image
# reference, the image ID and the base image by digest, with complete provenance; then the same
# campaign on bare metal, which records that it ran on bare metal and the engine's hash instead.
#
# ctest container_campaign (label container). Not part of scripts/test.sh: building the image
# takes about 25 minutes on 2 cores (the wheel, then the project); running the campaigns about a
# minute. Run it alone with one command:
#   ctest --test-dir build -L container --output-on-failure
# Needs root, podman (or docker with its daemon; MT_DOCKER names it), runc, debootstrap:
#   apt-get install podman runc debootstrap
# MT_CONTAINER_BASE=NAME@sha256:… uses that base instead of making one. Skips (77) where no
# container can be started here, saying why.
# shellcheck disable=SC1091  # lib.sh is found through MT_SOURCE_DIR, at run time
source "$MT_SOURCE_DIR/tests/e2e/lib.sh"
skip() { echo "SKIP: $*"; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "debootstrap and the container engine need root"
if [ -z "${MT_DOCKER:-}" ]; then
  if command -v podman > /dev/null; then MT_DOCKER=podman; else MT_DOCKER=docker; fi
fi
export MT_DOCKER
command -v "$MT_DOCKER" > /dev/null || skip "no container engine: apt-get install podman runc debootstrap (or set MT_DOCKER)"
command -v sqlite3 > /dev/null || skip "sqlite3 not found"
export MT_DOCKER_GPUS=none
REV=$(git -C "$MT_SOURCE_DIR" rev-parse HEAD)
TAG=minitrainbench:${REV:0:12}-cpu
started=$SECONDS

# Where podman's defaults cannot start a container (crun on a hybrid cgroup layout, open-file and
# process limits above what the host lets it set), the same settings docker/README.md gives.
podman_fallback() {
  local runtime=runc
  command -v runc > /dev/null || skip "podman cannot start a container here and runc is not installed: $1"
  cat > "$WORK/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
[engine]
runtime = "$runtime"
CONF
  export CONTAINERS_CONF="$WORK/containers.conf"
  echo "note: podman's defaults failed here ($1); using runc and lower rlimits"
}
# Starts `true` in IMAGE; on podman falls back once to the settings above.
probe_engine() {
  capture "$MT_DOCKER" run --rm --network host "$1" true
  if [ "$RC" -ne 0 ] && [ "$(basename "$MT_DOCKER")" = podman ] && [ -z "${CONTAINERS_CONF:-}" ]; then
    podman_fallback "$(tail -n 1 <<<"$OUT")"
    capture "$MT_DOCKER" run --rm --network host "$1" true
  fi
  [ "$RC" -eq 0 ] || skip "$MT_DOCKER cannot start a container here: $OUT"
}

image_label() {  # image_label LABEL: the image's label, empty when missing
  "$MT_DOCKER" image inspect --format "{{index .Config.Labels \"$1\"}}" "$TAG" 2> /dev/null | sed 's/^<no value>$//'
}

# ---- the image -----------------------------------------------------------------------------
if [ "$(image_label org.opencontainers.image.revision)" = "$REV" ]; then
  echo "using $TAG, already built from $REV"
  probe_engine "$TAG"
else
  BASE=${MT_CONTAINER_BASE:-}
  if [ -z "$BASE" ]; then
    command -v debootstrap > /dev/null || skip "debootstrap not found (apt-get install debootstrap), and no MT_CONTAINER_BASE"
    capture "$MT_SOURCE_DIR/docker/debian_base.sh"
    expect_eq "$RC" 0 "docker/debian_base.sh: $OUT"
    BASE=$(tail -n 1 <<<"$OUT")
  fi
  probe_engine "$BASE"
  echo "building $TAG on $BASE"
  capture "$MT_SOURCE_DIR/docker/build.sh" --cpu --base "$BASE" -- --network host
  expect_eq "$RC" 0 "docker/build.sh --cpu: $(tail -n 30 <<<"$OUT")"
  echo "built in $((SECONDS - started)) s"
fi
expect_eq "$(image_label org.opencontainers.image.revision)" "$REV" "the image's revision label"
IMAGE_ID=$("$MT_DOCKER" image inspect --format '{{.Id}}' "$TAG")
BASE_REF="$(image_label org.opencontainers.image.base.name)@$(image_label org.opencontainers.image.base.digest)"
[[ "$BASE_REF" == *@sha256:* ]] || fail "the image names no base by digest: '$BASE_REF'"

# ---- the campaign in the image, from a clean clone of HEAD ---------------------------------
git clone --quiet --no-checkout "$MT_SOURCE_DIR" "$WORK/checkout"
git -C "$WORK/checkout" checkout --quiet --detach "$REV"
cd "$WORK/checkout" || exit 1
ran=$SECONDS
capture docker/run.sh --image "$TAG" --docker-arg=--network=host -- \
  --db results/container.sqlite run tests/docker/container_smoke.yaml
expect_eq "$RC" 0 "the campaign in $TAG: $OUT"
echo "the campaign in the image took $((SECONDS - ran)) s"
DB=results/container.sqlite
expect_eq "$(sql "SELECT count(*) FROM attempts WHERE state = 'succeeded'")" 2 "succeeded attempts in the image"
expect_eq "$(sql "SELECT count(*) FROM attempts a JOIN provenance p ON p.attempt_id = a.id")" 2 "attempts with provenance"
expect_eq "$(sql "SELECT DISTINCT image_ref FROM provenance")" "$TAG" "image reference"
expect_eq "$(sql "SELECT DISTINCT image_id FROM provenance")" "$IMAGE_ID" "image ID"
expect_eq "$(sql "SELECT DISTINCT base_image FROM provenance")" "$BASE_REF" "base image"
expect_eq "$(sql "SELECT DISTINCT bare_metal FROM provenance")" 0 "bare_metal in the image"
expect_eq "$(sql "SELECT DISTINCT build_revision FROM provenance")" "$REV" "the engine's build revision"
expect_eq "$(sql "SELECT DISTINCT source_commit FROM provenance")" "$REV" "the checkout's commit"
expect_eq "$(sql "SELECT DISTINCT complete || ' ' || missing_fields FROM provenance")" "1 []" "complete provenance"
expect_contains "$(sql "SELECT DISTINCT hosts FROM provenance")" "$(hostname)" "the host's name"
capture docker/run.sh --image "$TAG" -- --db results/container.sqlite report
expect_eq "$RC" 0 "report in the image: $OUT"
expect_contains "$OUT" "$IMAGE_ID" "the report's provenance names the image"

# ---- the same campaign on bare metal --------------------------------------------------------
if [ -x "$MTRUN" ] && [ -x "$MT_BUILD_DIR/bin/mtengine" ]; then
  DB=results/bare.sqlite
  capture "$MTRUN" --db "$DB" run tests/docker/container_smoke.yaml
  expect_eq "$RC" 0 "the campaign on bare metal: $OUT"
  expect_eq "$(sql "SELECT DISTINCT bare_metal FROM provenance")" 1 "bare_metal on bare metal"
  expect_eq "$(sql "SELECT count(*) FROM provenance WHERE coalesce(image_id, '') = '' AND engine_binary_hash <> ''")" 2 \
    "bare metal: no image, the engine's hash"
else
  echo "note: no mtrun and mtengine in $MT_BUILD_DIR/bin; the bare-metal half is left out"
fi
echo "container_campaign: passed in $((SECONDS - started)) s"
