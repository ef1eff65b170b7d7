#!/usr/bin/env bash
# Check (not a CI test: it needs another build): two builds of the grader grade the fixture class
# (tests/fixtures/submissions and patches, one a student) with the same seed, and their gradebooks'
# rows (student, lab, grade, kind), exit codes and JUnit failure types must agree. A refactoring of
# the grader keeps every behaviour when they do.
# Usage: scripts/compare_graders.sh OTHER_GRADER [JOBS=2]   (from any folder, after a build; the
# other grader is another build's build/bin/synclab-grade, beside its own labs)
set -euo pipefail
cd "$(dirname "$0")/.."
other=${1:-}
jobs=${2:-2}
[ -x "$other" ] || { echo "usage: scripts/compare_graders.sh OTHER_GRADER [JOBS]" >&2; exit 2; }
case "$jobs" in *[!0-9]*|'') echo "compare_graders: JOBS is a number" >&2; exit 2 ;; esac
this=build/bin/synclab-grade
[ -x "$this" ] || { echo "compare_graders: build first (bash scripts/setup.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/class"
cp -r tests/fixtures/submissions/* "$work/class/"
for p in tests/fixtures/patches/*.patch; do
  base=$(grep -m1 '^--- ' "$p" | cut -c5- | cut -d' ' -f1)
  d="$work/class/$(basename "$p" .patch)"
  mkdir -p "$d"
  cp "$base" "$work/base"
  patch -s "$work/base" < "$p" 2>/dev/null || cp "$base" "$work/base"  # a patch that changes nothing
  cp "$work/base" "$d/$(basename "$base")"
done
summary() {  # rows without reasons and times; each JUnit report's failure types
  tail -n +2 "$1/g.csv" | python3 -c '
import csv, sys
for r in csv.reader(sys.stdin):
    if r[1:2] != ["total"]: print(",".join(r[:4]))' | sort
  for f in "$1"/junit/*.xml; do
    printf '%s:' "$(basename "$f")"; grep -o '<failure type="[^"]*"' "$f" | sort | tr '\n' ' '; echo
  done
  echo "exit $(cat "$1/rc")"
}
for which in this other; do
  grader=$this
  [ "$which" = this ] || grader=$other
  mkdir -p "$work/$which"
  rc=0
  "$grader" --class "$work/class" --timeout 10 --seed 7 -j "$jobs" --csv "$work/$which/g.csv" \
    --junit "$work/$which/junit" >"$work/$which/log" 2>&1 || rc=$?
  echo "$rc" > "$work/$which/rc"
  summary "$work/$which" > "$work/$which.txt"
  echo "$which: $(tail -n +2 "$work/$which/g.csv" | wc -l) rows, exit $rc"
done
if diff "$work/other.txt" "$work/this.txt"; then
  echo "the same rows, exit codes and JUnit failure types"
else
  echo "compare_graders: the graders disagree (above: < the other, > this one)" >&2
  exit 1
fi
