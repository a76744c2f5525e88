#!/usr/bin/env bash
# Makes a Debian 12 base image on this machine, for when no registry can be reached: debootstrap
# (minbase) from a Debian mirror into a scratch directory, imported into the local image store,
# printed as NAME@sha256:DIGEST so that it is passed and recorded by digest like any pulled base.
#
#   docker/debian_base.sh                          # localhost/mt-debian12-base:<date>
#   docker/debian_base.sh --name localhost/base:1 --mirror http://deb.debian.org/debian
#
# Needs root, debootstrap and podman or docker (MT_DOCKER; default podman when it is installed).
# Exit codes: 0 made (the reference is the last line of output); 1 a tool failed; 2 bad usage.
set -euo pipefail

die() { echo "docker/debian_base.sh: $1" >&2; exit "${2:-1}"; }

name="localhost/mt-debian12-base:$(date -u +%Y%m%d)" mirror=http://deb.debian.org/debian
while [ $# -gt 0 ]; do
  case "$1" in
    --name|--mirror)
      [ $# -ge 2 ] || die "$1 needs a value" 2
      if [ "$1" == --name ]; then name=$2; else mirror=$2; fi
      shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) die "unknown argument '$1'" 2 ;;
  esac
done
if [ -n "${MT_DOCKER:-}" ]; then
  DOCKER=$MT_DOCKER
elif command -v podman >/dev/null; then
  DOCKER=podman
else
  DOCKER=docker
fi
[ "$(id -u)" -eq 0 ] || die "debootstrap needs root" 2
command -v debootstrap >/dev/null || die "debootstrap not found (apt-get install debootstrap)" 2
command -v "$DOCKER" >/dev/null || die "$DOCKER not found (apt-get install podman, or set MT_DOCKER)" 2

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mt-debian-base.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
debootstrap --variant=minbase bookworm "$scratch/root" "$mirror" > "$scratch/debootstrap.log" 2>&1 ||
  die "debootstrap failed: $(tail -n 5 "$scratch/debootstrap.log")"
tar -C "$scratch/root" -c . | "$DOCKER" import - "$name" > /dev/null 2> "$scratch/import.log" ||
  die "$DOCKER import failed: $(cat "$scratch/import.log")"
# The manifest digest the local store gives the image: what a Dockerfile's FROM NAME@DIGEST names.
digest=$("$DOCKER" image inspect --format '{{.Digest}}' "$name")
[[ "$digest" == sha256:* ]] || die "$DOCKER gave no digest for $name"
echo "${name%%:*}@$digest"
