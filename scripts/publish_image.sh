#!/usr/bin/env bash
# Publishes the grader image: builds it on a base pinned by digest, grades inside it
# (scripts/check_images.sh), and pushes that very image to a registry, labelled with its base.
# The workflow .github/workflows/grader-image.yml runs it on GitHub; CI runs it with
# --local-registry. Run as root (rootful podman); needs podman and skopeo.
#
#   scripts/publish_image.sh [--base IMAGE] NAME        e.g. ghcr.io/my-course/synclab-grader
#   scripts/publish_image.sh --local-registry           registry of its own on 127.0.0.1
#   --dry-run: check the arguments, say what would be pushed, and stop (builds nothing).
#
# 1. the base: IMAGE (default docker.io/library/debian:12) read from its registry; its digest
#    is that of the manifest it names there (a manifest list: one digest for every architecture),
#    and the build starts FROM repository@sha256:DIGEST, never the moving tag.
# 2. scripts/check_images.sh --base that: both images built from a clone of the last commit, a
#    submission graded inside each; nothing is pushed unless both gradings come out as expected.
# 3. the grader image pushed as NAME:COMMIT and NAME:latest; read back from the registry, its
#    label org.opencontainers.image.base.name must name the pinned base.
# --local-registry (no outside registry, as in CI): starts Debian's docker-registry on
#   127.0.0.1 for the run, makes the base with debootstrap (check_images.sh --base-only) and
#   pushes it there as debian:12, then does 1-3 against that registry; all gone at the end.
# A registry is logged in to beforehand (podman login); a plain-HTTP one only on 127.0.0.1.
set -uo pipefail

here=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
usage="usage: scripts/publish_image.sh [--dry-run] [--base IMAGE] NAME | --local-registry"
base=docker.io/library/debian:12 name='' local=0 base_given=0 dry=0
while [ $# -gt 0 ]; do
  case $1 in
    --base) [ $# -ge 2 ] || { echo "publish_image: --base needs an image: $usage" >&2; exit 2; }
            base=$2 base_given=1; shift ;;
    --local-registry) local=1 ;;
    --dry-run) dry=1 ;;
    -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "publish_image: unknown option '$1': $usage" >&2; exit 2 ;;
    *) [ -z "$name" ] || { echo "publish_image: one NAME, not '$name' and '$1': $usage" >&2; exit 2; }
       name=$1 ;;
  esac
  shift
done

die() { echo "publish_image: $1" >&2; exit "${2:-1}"; }
if [ "$local" -eq 1 ]; then
  [ -z "$name" ] && [ "$base_given" -eq 0 ] || die "--local-registry takes no NAME nor --base (it makes both): $usage" 2
else
  [ -n "$name" ] || die "name the image to push, e.g. ghcr.io/my-course/synclab-grader: $usage" 2
fi
# A registry's names are lower case: ghcr.io/My-Course would be refused after the whole build.
case $name in *[!a-z0-9./:_-]*)
  die "'$name' is not an image name (lower case, e.g. ghcr.io/my-course/synclab-grader)" 2 ;;
esac
case $base in *[!A-Za-z0-9./:@_-]* | '') die "--base '$base' is not an image name (e.g. docker.io/library/debian:12)" 2 ;; esac
case ${name##*/} in *:*) die "'$name' has a tag: give the name alone (it is pushed as NAME:COMMIT and NAME:latest)" 2 ;; esac
if [ "$dry" -eq 1 ]; then
  [ "$local" -eq 1 ] && where="a registry on 127.0.0.1, base made by debootstrap" || where="$name, base $base"
  echo "publish_image: would build on the base pinned by digest, grade inside, and push to $where"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || die "run as root (rootful podman, as check_images.sh): sudo $0" 2
for tool in podman skopeo git sha256sum; do
  command -v "$tool" >/dev/null || die "$tool is missing: apt-get install podman skopeo" 2
done
commit=$(git -C "$here" rev-parse --short=12 HEAD 2>/dev/null) || die "$here is not a git checkout: clone synclab" 2

work=$(mktemp -d /var/tmp/publish_image.XXXXXX) || die "mktemp failed" 2
registry_pid=
cleanup() {
  [ -z "$registry_pid" ] || { kill "$registry_pid" 2>/dev/null; wait "$registry_pid" 2>/dev/null; }
  rm -rf "$work"
}
trap cleanup EXIT
tls=()  # --tls-verify=false for the loopback registry alone

if [ "$local" -eq 1 ]; then
  command -v docker-registry >/dev/null || die "docker-registry is missing: apt-get install docker-registry" 2
  # A free port on loopback, then Debian's registry on it with no auth, its blobs in $work.
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
    die "no free port on 127.0.0.1" 2
  printf 'version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: %s/registry\nhttp:\n  addr: 127.0.0.1:%s\n' \
    "$work" "$port" >"$work/registry.yml"
  docker-registry serve "$work/registry.yml" >"$work/registry.log" 2>&1 &
  registry_pid=$!
  registry=127.0.0.1:$port tls=(--tls-verify=false)
  for _ in $(seq 1 100); do  # up in well under a second; 10 s at most
    grep -q 'listening on' "$work/registry.log" && break
    kill -0 "$registry_pid" 2>/dev/null || die "docker-registry stopped: $(tail -n 1 "$work/registry.log")"
    sleep 0.1
  done
  grep -q 'listening on' "$work/registry.log" || die "docker-registry did not start in 10 s: $(tail -n 1 "$work/registry.log")"
  echo "publish_image: registry on $registry for this run"
  bash "$here/scripts/check_images.sh" --base-only || exit 1
  base=$registry/debian:12 name=$registry/synclab-grader
  timeout 600 podman push "${tls[@]}" localhost/debian:12-synclab "docker://$base" >"$work/push-base.log" 2>&1 ||
    die "could not push the base to $registry: $(tail -n 1 "$work/push-base.log")"
fi

# 1. The base, pinned: the digest of the manifest its registry serves for the tag.
repo=${base%@*}
case ${repo##*/} in *:*) repo=${repo%:*} ;; esac
# (The manifest's bytes as served, to a file: $(...) would drop a trailing newline.)
timeout 300 skopeo inspect "${tls[@]}" --raw "docker://$base" >"$work/manifest" 2>"$work/inspect.log" ||
  die "cannot read $base from its registry: $(tail -n 1 "$work/inspect.log")"
digest=sha256:$(sha256sum <"$work/manifest" | cut -d' ' -f1)
pinned=$repo@$digest
echo "publish_image: base $base is $pinned"
timeout 900 podman pull "${tls[@]}" "$pinned" >"$work/pull.log" 2>&1 ||
  die "could not pull $pinned: $(tail -n 1 "$work/pull.log")"

# 2. Built on it from the last commit, and graded inside.
bash "$here/scripts/check_images.sh" --base "$pinned" || die "the images did not grade as expected: nothing pushed"

# 3. Pushed, then read back from the registry.
for tag in "$commit" latest; do
  podman tag localhost/synclab-grader:check "$name:$tag" || die "podman tag $name:$tag failed"
  timeout 1800 podman push "${tls[@]}" --digestfile "$work/digest" "$name:$tag" >"$work/push.log" 2>&1 ||
    die "could not push $name:$tag: $(tail -n 1 "$work/push.log")"
done
pushed=$(cat "$work/digest")
label=$(timeout 300 skopeo inspect "${tls[@]}" --format '{{index .Labels "org.opencontainers.image.base.name"}}' \
  "docker://$name@$pushed" 2>"$work/inspect.log") ||
  die "cannot read $name@$pushed back: $(tail -n 1 "$work/inspect.log")"
[ "$label" = "$pinned" ] || die "$name@$pushed says its base is '$label', not $pinned"
echo "publish_image: pushed $name:$commit and $name:latest ($pushed), built on $pinned"
