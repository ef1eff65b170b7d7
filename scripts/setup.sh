#!/usr/bin/env bash
# Installs what synclab needs from Debian 12, configures, builds into build/, and runs lab 01 on the
# default device. Run as root or as a user with sudo. Safe to run again.
# --packages-only: install the packages and stop (classroom/prairielearn/Dockerfile's base image).
set -euo pipefail
cd "$(dirname "$0")/.."

# python3-jsonschema: the tests check the grading platforms' results against their schemas.
packages=(cmake g++ make ocl-icd-opencl-dev opencl-clhpp-headers opencl-c-headers pocl-opencl-icd
          doctest-dev libcxxopts-dev oclgrind liboclgrind-dev llvm-14-dev clang-14 clinfo bubblewrap gnuplot-nox
          libclblast-dev python3-jsonschema)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "synclab: installing ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then sudo=(); elif command -v sudo >/dev/null; then sudo=(sudo); else
    echo "synclab: need root or sudo to install: ${missing[*]}" >&2; exit 2
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" apt-get install -y -q "${missing[@]}"
fi

[ "${1:-}" = --packages-only ] && exit 0

cmake -S . -B build
cmake --build build -j"$(nproc)"

echo
echo "synclab: running build/bin/lab01_workgroup_reduce on the default device"
rc=0
./build/bin/lab01_workgroup_reduce || rc=$?
case $rc in
  0) echo "synclab: built; lab 01 verified." ;;
  1) echo "synclab: built. Lab 01's reduceWithSync is WRONG until you fill in the TODOs in"
     echo "         kernels/01_workgroup_reduce.cl (no rebuild needed); see handouts/01_workgroup_reduce.md." ;;
  *) echo "synclab: lab 01 could not run (exit $rc): see the message above." >&2; exit "$rc" ;;
esac
