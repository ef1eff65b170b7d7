#!/usr/bin/env bash
# Builds classroom/prairielearn/Dockerfile's two images with podman from a clean copy of the
# project and grades a submission inside each; exits 0 only when both gradings come out as
# expected. Run as root on Debian 12 (apt-get install podman debootstrap); needs no registry.
#
#   scripts/check_images.sh [--worktree] [--base IMAGE] [--mirror URL] [--arch arm64] [--keep]
#   scripts/check_images.sh --base-only [--mirror URL] [--arch arm64]     (step 1 alone)
#
# 1. base: `debootstrap --variant=minbase bookworm` from the machine's apt mirror, imported as
#    localhost/debian:12-synclab (--base IMAGE takes a Debian 12 image already there instead).
# 2. the PrairieLearn image (target grader, localhost/synclab-grader:check) and the dev container
#    (target base, localhost/synclab-dev:check), both built FROM that base (--build-arg BASE).
# 3. grader: its entry point on a job folder with lab 01's solution and lab 02's starter, as
#    PrairieLearn runs it (no network): results.json valid under its schema, score 0.5, lab 01
#    passed, lab 02 failed; the image holds neither solutions/ nor tests/.
# 4. dev container: the README's first command (scripts/setup.sh: packages there, configure,
#    build) on the checkout, then `ctest -L unit` and `synclab-grade --kernels solutions --labs 01`.
# The checkout is a clone of the last commit (tracked, committed files only); --worktree takes the
# files git tracks as they stand instead (uncommitted edits in, untracked files out). Every step
# is bounded by timeout and prints its time; --keep keeps the temp folder (the logs).
# --arch arm64 (Apple Silicon's): the same on a base of that architecture, run by qemu-user-static
# (apt-get install qemu-user-static binfmt-support); steps 1-3 with every bound six times as long,
# and in the dev container only `uname -m` and `clinfo -l` (step 4's full build with tests would
# take hours under emulation; the grader image's build of step 2 is the same code without them).
# --base-only makes the base of step 1 and stops (scripts/publish_image.sh pushes it to a registry).
set -uo pipefail

here=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
worktree=0 base='' mirror='' keep=0 arch='' base_only=0
usage="usage: scripts/check_images.sh [--worktree] [--base IMAGE] [--mirror URL] [--arch arm64] [--keep] [--base-only]"
while [ $# -gt 0 ]; do
  case $1 in
    --worktree) worktree=1 ;;
    --base) base=${2:?$usage}; shift ;;
    --mirror) mirror=${2:?$usage}; shift ;;
    --arch) arch=${2:?$usage}; shift ;;
    --keep) keep=1 ;;
    --base-only) base_only=1 ;;
    -h | --help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check_images: unknown argument '$1': $usage" >&2; exit 2 ;;
  esac
  shift
done
[ "$base_only" -eq 0 ] || [ -z "$base" ] || { echo "check_images: --base-only makes the base: not with --base" >&2; exit 2; }

die() { echo "check_images: $1" >&2; exit "${2:-1}"; }
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap and rootful podman): sudo $0" 2
command -v podman >/dev/null || die "podman is missing: apt-get install podman debootstrap" 2
for tool in git tar timeout; do
  command -v "$tool" >/dev/null || die "$tool is missing: apt-get install git tar coreutils" 2
done
[ -n "$base" ] || command -v debootstrap >/dev/null ||
  die "debootstrap is missing: apt-get install podman debootstrap (or --base IMAGE)" 2
# Another architecture: its binaries run through qemu, registered with binfmt_misc (F: the
# interpreter is opened once, so it works inside a chroot and a container).
host_arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
arch=${arch:-$host_arch}
case $arch in amd64 | arm64) ;; *) die "--arch $arch: amd64 or arm64" 2 ;; esac
slow=1 tag=check base_tag=12-synclab platform=()
if [ "$arch" != "$host_arch" ]; then
  qemu=qemu-$( [ "$arch" = arm64 ] && echo aarch64 || echo x86_64)
  [ -e /proc/sys/fs/binfmt_misc/register ] ||
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null
  grep -qx enabled "/proc/sys/fs/binfmt_misc/$qemu" 2>/dev/null ||
    die "$arch binaries cannot run here ($qemu is not registered with binfmt_misc): apt-get install qemu-user-static binfmt-support" 2
  slow=6 tag=check-$arch base_tag=12-synclab-$arch platform=(--platform "linux/$arch")
fi

work=$(mktemp -d /var/tmp/check_images.XXXXXX) || die "mktemp failed" 2
[ "$keep" -eq 0 ] || echo "check_images: keeping $work"
# A container whose podman run was timed out may outlive it: each carries this label.
label=check_images=$$
cleanup() {
  timeout 60 podman ps -aq --filter "label=$label" | xargs -r timeout 60 podman rm -f >/dev/null
  [ "$keep" -eq 1 ] || rm -rf "$work"
}
trap cleanup EXIT

# step NAME LIMIT CMD...: runs CMD with its output in $work/NAME.log, bounded by LIMIT seconds;
# prints the time, and on failure the log's end. Under emulation LIMIT is $slow times as long.
step() {
  local name=$1 limit=$(($2 * slow)) start rc
  shift 2
  start=$SECONDS
  timeout -k 10 "$limit" "$@" >"$work/$name.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then
    printf 'check_images: %-14s ok in %4d s\n' "$name" $((SECONDS - start))
    return 0
  fi
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && rc="timed out after $limit s" || rc="exit $rc"
  printf 'check_images: %-14s FAILED (%s) in %d s; the end of %s:\n' "$name" "$rc" \
    $((SECONDS - start)) "$work/$name.log"
  tail -n 25 "$work/$name.log" | sed 's/^/  | /'
  return 1
}

# The checkout (none for the base alone).
src=$work/src
if [ "$base_only" -eq 1 ]; then :
elif [ "$worktree" -eq 1 ]; then
  mkdir -p "$src" || die "mkdir $src failed" 2
  (cd "$here" && git ls-files -z | tar --null -T - -c | tar -x -C "$src") ||
    die "could not copy the tracked files of $here" 2
else
  step clone 120 git clone --quiet --no-hardlinks "$here" "$src" || exit 1
fi

# The machine's Debian 12 mirror: the first apt source for bookworm (one-line or deb822 form).
apt_mirror() {
  { sed -e 's/\[[^]]*\]//' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      awk -v s="$1" '$1 == "deb" && $3 == s { print $2 }'
    awk -v s="$1" '/^URIs:/ { u = $2 }
                   /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) print u }' \
      /etc/apt/sources.list.d/*.sources 2>/dev/null; } | head -n 1
}

if [ -z "$base" ]; then
  base=localhost/debian:$base_tag
  mirror=${mirror:-$(apt_mirror bookworm)}
  mirror=${mirror:-http://deb.debian.org/debian}
  security=$(apt_mirror bookworm-security)
  security=${security:-http://deb.debian.org/debian-security}
  echo "check_images: base $base from $mirror"
  if [ "$arch" = "$host_arch" ]; then
    step debootstrap 900 debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" || exit 1
  else  # unpacked here, configured by its own binaries under qemu
    step debootstrap 900 debootstrap --arch="$arch" --foreign --variant=minbase bookworm \
      "$work/rootfs" "$mirror" || exit 1
    step second-stage 900 chroot "$work/rootfs" /debootstrap/debootstrap --second-stage || exit 1
  fi
  # As Debian's own image: updates and security beside the release, no package lists kept.
  printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s bookworm-security main\n' \
    "$mirror" "$mirror" "$security" >"$work/rootfs/etc/apt/sources.list"
  rm -rf "$work/rootfs/var/lib/apt/lists/"* "$work/rootfs/var/cache/apt/"*.bin \
    "$work/rootfs/var/cache/apt/archives/"*.deb
  # shellcheck disable=SC2016  # expanded by the inner bash
  step import 300 bash -c 'tar -C "$1" --numeric-owner -c . |
    podman import --arch "$3" --change "CMD [\"/bin/bash\"]" - "$2"' _ "$work/rootfs" "$base" "$arch" ||
    exit 1
  rm -rf "$work/rootfs"
fi
[ "$base_only" -eq 0 ] || { echo "check_images: base $base made in $SECONDS s"; exit 0; }

# How podman runs a container here. Some VMs refuse what its defaults ask: crun 1.8 does not run
# on a hybrid cgroup v1/v2 host (runc does), and without CAP_SYS_RESOURCE the open-files and
# process limits podman sets (above the host's) cannot be set; so the first way that starts wins.
# The limits asked then are the host's, processes no more than kernel.pid_max (podman's own).
nproc=$(ulimit -Hu) pid_max=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 32768)
case $nproc in unlimited | *[!0-9]*) nproc=$pid_max ;; esac
[ "$nproc" -le "$pid_max" ] || nproc=$pid_max
nofile=$(ulimit -Hn)
case $nofile in unlimited | *[!0-9]*) nofile=1048576 ;; esac
limits=(--ulimit "nofile=$nofile:$nofile" --ulimit "nproc=$nproc:$nproc")
engine=
for try in "" "limits" "runc" "runc limits"; do
  opts=()
  case $try in *runc*) command -v runc >/dev/null || continue; opts+=(--runtime runc) ;; esac
  case $try in *limits*) opts+=("${limits[@]}") ;; esac
  if timeout $((60 * slow)) podman run --rm --label "$label" ${opts[@]+"${opts[@]}"} "$base" true \
       >"$work/probe.log" 2>&1; then
    engine=ok; break
  fi
done
if [ -z "$engine" ]; then
  why=$(tail -n 1 "$work/probe.log")
  command -v runc >/dev/null ||
    die "podman cannot start $base: $why (if it names cgroups: apt-get install runc)" 2
  die "podman cannot start $base: $why" 2
fi
echo "check_images: podman runs containers with: ${opts[*]:-its defaults}"
# --init: a process 1 ignores the SIGTERM that timeout forwards; catatonit passes it on.
run=(podman run --rm --init --label "$label" ${opts[@]+"${opts[@]}"})

build=(podman build ${opts[@]+"${opts[@]}"} ${platform[@]+"${platform[@]}"} --build-arg "BASE=$base"
       -f "$src/classroom/prairielearn/Dockerfile")
grader=localhost/synclab-grader:$tag dev=localhost/synclab-dev:$tag
# A build stopped by a signal has ended with status 0 and no image (2026-11-29): each must be there.
step build-dev 1800 "${build[@]}" --target base -t "$dev" "$src" || exit 1
podman image exists "$dev" || die "build-dev exited 0 but made no $dev: run it again (--keep keeps its log)"
step build-grader 1800 "${build[@]}" --target grader -t "$grader" "$src" || exit 1
podman image exists "$grader" || die "build-grader exited 0 but made no $grader: run it again (--keep keeps its log)"

# PrairieLearn's way: the job folder at /grade, the student's files in student/, no network.
job=$work/job
mkdir -p "$job/student/lab" "$job/results"
cp "$src/solutions/01_workgroup_reduce.cl" "$job/student/lab/"
cp "$src/kernels/02_host_final_sum.cl" "$job/student/lab/"   # the starter: its TODOs fail
step grade-pl 600 "${run[@]}" --network none -v "$job:/grade" "$grader" --labs 01,02 || exit 1
# shellcheck disable=SC2016  # expanded in the container
step check-pl 120 "${run[@]}" --network none --entrypoint bash \
  -v "$job/results:/results:ro" -v "$src:/check:ro" "$grader" -c '
    set -e
    python3 /check/tests/check_results.py /check/classroom/prairielearn/results.schema.json \
      /results/results.json >/results-flat.txt
    cat /results-flat.txt
    want() { grep -qxF "$1" /results-flat.txt || { echo "results.json: want \"$1\""; exit 1; }; }
    want "gradable	true"; want "score	0.5"; want "tests.length	2"
    want "tests.0.points	1"; want "tests.0.max_points	1"
    want "tests.1.points	0"; want "tests.1.max_points	1"
    grep -q "^tests\.0\.message	pass \[01" /results-flat.txt || { echo "lab 01: no pass"; exit 1; }
    grep -q "^tests\.1\.message	FAIL " /results-flat.txt || { echo "lab 02: no FAIL"; exit 1; }
    for gone in solutions tests; do
      [ ! -e /synclab/$gone ] || { echo "/synclab/$gone is in the image"; exit 1; }
    done' || exit 1

# The dev container: the README's first command on the checkout, a test subset, one lab graded.
# Under emulation: the architecture it runs and the OpenCL device it offers.
if [ "$arch" != "$host_arch" ]; then
  step dev-clinfo 60 "${run[@]}" "$dev" bash -c 'uname -m && clinfo -l' || exit 1
  sed 's/^/  | /' "$work/dev-clinfo.log"
  echo "check_images: both images built for $arch, graded inside the grader's ($grader, $dev; base $base) in $SECONDS s"
  exit 0
fi
step dev-setup 2400 "${run[@]}" -v "$src:/workspace" -w /workspace "$dev" \
  bash scripts/setup.sh || exit 1
# shellcheck disable=SC2016  # expanded in the container
step dev-test 600 "${run[@]}" -v "$src:/workspace" -w /workspace "$dev" bash -c '
    ctest --test-dir build -L unit -j"$(nproc)" --output-on-failure &&
    ./build/bin/synclab-grade --kernels solutions --labs 01' || exit 1

echo "check_images: both gradings as expected ($grader, $dev; base $base) in $SECONDS s"
