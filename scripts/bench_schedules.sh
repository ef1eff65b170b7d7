#!/usr/bin/env bash
# Benchmark (not a test): whether a grade of labs 07, 09 and 10 is the same on any machine.
# Grades a class of every protocol fixture of those labs (tests/fixtures/patches and
# tests/fixtures/stress, one a student), lab 01's kernel that waits only when it runs alone, and
# their solutions RUNS times in each of two settings:
# the grader pinned to one core (taskset -c 0, as a 1-vCPU container), and on every core with
# two busy loops beside it. Prints, per (student, lab), the kinds each setting gave and whether
# every run agreed; then each run's time; then whether each failure's "repeat it" command of the
# first one-core run fails again on every core, beside the busy loops. The race checks run in
# hbcheck's seeded schedules (docs/grading.md, "Schedules on Oclgrind"), so the kinds should not
# move.
# Usage: scripts/bench_schedules.sh [RUNS=3]   (from any folder, after a build)
# BENCH_KEEP=DIR keeps each run's gradebook and log there as it finishes (SETTING-RUN.csv/.log).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
case "$runs" in *[!0-9]*|'') echo "usage: scripts/bench_schedules.sh [RUNS]" >&2; exit 2 ;; esac
grader=build/bin/synclab-grade
[ -x "$grader" ] || { echo "bench_schedules: build first (bash scripts/setup.sh)" >&2; exit 2; }
command -v taskset >/dev/null || { echo "bench_schedules: needs taskset (util-linux)" >&2; exit 2; }
work=$(mktemp -d)
busy=()
cleanup() { for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
for p in tests/fixtures/patches/*_0[79].patch tests/fixtures/patches/*_10.patch tests/fixtures/stress/*.patch \
    tests/fixtures/patches/barrier_one_group_only_01.patch; do
  base=$(grep -m1 '^--- ' "$p" | cut -c5-)
  d="$work/class/$(basename "$p" .patch)"
  mkdir -p "$d"
  cp "$base" "$d/"
  # A patch that changes no line (a correct twin) is the base itself; GNU patch refuses it.
  grep -q '^[-+][^-+]' "$p" || continue
  patch -s "$d/$(basename "$base")" < "$p"
done
mkdir -p "$work/class/solutions"
cp solutions/01_workgroup_reduce.cl solutions/07_atomics.cl solutions/09_interworkgroup_barrier.cl \
  solutions/10_laplace.cl "$work/class/solutions/"
echo "schedules: $runs grader runs a setting, $(ls "$work/class" | wc -l) students; $(nproc) cores;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg) before"
grade() {  # setting, run
  local start end
  start=$(date +%s.%N)
  if [ "$1" = one-core ]; then
    taskset -c 0 "$grader" --class "$work/class" --labs 01,07,09,10 --timeout 60 \
      --csv "$work/$1-$2.csv" >"$work/$1-$2.log" 2>&1 || true
  else
    "$grader" --class "$work/class" --labs 01,07,09,10 --timeout 60 \
      --csv "$work/$1-$2.csv" >"$work/$1-$2.log" 2>&1 || true
  fi
  end=$(date +%s.%N)
  [ -z "${BENCH_KEEP:-}" ] || { mkdir -p "$BENCH_KEEP"; cp "$work/$1-$2.csv" "$work/$1-$2.log" "$BENCH_KEEP/" 2>/dev/null || true; }
  awk -v s="$start" -v e="$end" -v n="$1 $2" 'BEGIN { printf "%-12s %6.1f s\n", n, e - s }'
}
for i in $(seq 1 "$runs"); do grade one-core "$i"; done
yes >/dev/null & busy+=($!)
yes >/dev/null & busy+=($!)
for i in $(seq 1 "$runs"); do grade busy "$i"; done
echo
echo "student,lab,one-core kinds,busy kinds,all runs agree"
for f in "$work"/*.csv; do
  s=$(basename "$f" .csv); s=${s%-*}
  awk -F, -v s="$s" 'NR > 1 && $4 != "missing" && $2 != "total" { print $1 "," $2 "," s "," $4 }' "$f"
done | sort | awk -F, '{ k = $1 "," $2; kinds[k, $3] = kinds[k, $3] (index(kinds[k, $3], $4) ? "" : " " $4); keys[k] = 1 }
  END { for (k in keys) { a = kinds[k, "one-core"]; b = kinds[k, "busy"];
          printf "%s,%s,%s,%s\n", k, a, b, (a == b && a !~ / .* /) ? "yes" : "NO" } }' | sort
echo
echo "repeat commands of one-core run 1, run on every core beside the busy loops: exit codes"
python3 - "$work/one-core-1.csv" <<'PY'
import csv, re, subprocess, sys
failed = again = 0
for row in csv.DictReader(open(sys.argv[1])):
    m = re.search(r"\(repeat it: (.*?)\)(;|$)", row.get("reason", ""))
    if row.get("grade") != "fail" or not m:
        continue
    rc = subprocess.run(m.group(1), shell=True, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode
    failed += 1
    again += rc == 1
    print(f"{row['student']},{row['lab']},{rc}")
print(f"{again} of {failed} repeat commands failed again (exit 1)")
PY
