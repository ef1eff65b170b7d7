#!/usr/bin/env bash
# Builds the autograder zip to upload on Gradescope's "Configure Autograder" page, from this
# checkout's last commit (uncommitted changes are not in it, nor what classroom/left_out lists:
# the solutions and the tests): the project,
# and at its root what Gradescope looks for there, setup.sh and run_autograder (each hands over
# to classroom/gradescope/), and grade-options, the synclab-grade options given here.
#
#   classroom/gradescope/make_autograder_zip.sh [-o FILE] [--visibility WHEN]
#       [--stdout-visibility WHEN] [synclab-grade options...]
#   e.g. classroom/gradescope/make_autograder_zip.sh -o week3.zip --labs 01,02,03 --points 03=2
#
# --visibility: when students see each lab's test (default visible); --stdout-visibility: when
# they see the grader's whole log, Gradescope's "Autograder Output" (default hidden: what a
# student must read is in the tests and the results' top line). WHEN is one of visible, hidden,
# after_due_date, after_published.
set -euo pipefail
out=synclab-autograder.zip
visibility=visible stdout_visibility=hidden
while [ $# -gt 0 ]; do
  case $1 in
    -o | --visibility | --stdout-visibility)
      [ $# -ge 2 ] || { echo "make_autograder_zip.sh: $1 needs a value" >&2; exit 2; } ;;
    *) break ;;
  esac
  case $1 in
    -o) out=$2 ;;
    --visibility | --stdout-visibility)
      case $2 in visible | hidden | after_due_date | after_published) ;;
        *) echo "make_autograder_zip.sh: $1 '$2' is none of visible, hidden, after_due_date, after_published" >&2
           exit 2 ;;
      esac
      if [ "$1" = --visibility ]; then visibility=$2; else stdout_visibility=$2; fi ;;
  esac
  shift 2
done
case $out in /*) ;; *) out=$PWD/$out ;; esac
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
top=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null) || {
  echo "make_autograder_zip.sh: $here is not in a git checkout: clone synclab and run it there" >&2
  exit 2
}
left_out=()
while IFS= read -r path; do
  case $path in '' | '#'*) ;; *) left_out+=(":(exclude)$path") ;; esac
done <"$here/../left_out"
[ ${#left_out[@]} -gt 0 ] || { echo "make_autograder_zip.sh: $here/../left_out lists nothing to leave out: restore it" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '#!/usr/bin/env bash\nexec bash "$(dirname "$0")/classroom/gradescope/setup.sh"\n' >"$work/setup.sh"
printf '#!/usr/bin/env bash\nexec "${AUTOGRADER_ROOT:-/autograder}/source/classroom/gradescope/run_autograder" "$@"\n' \
  >"$work/run_autograder"
printf '%s\n' "--gradescope-visibility $visibility --gradescope-stdout-visibility $stdout_visibility $*" \
  >"$work/grade-options"
chmod +x "$work/setup.sh" "$work/run_autograder"
rm -f "$out"
git -C "$top" archive --format=zip -o "$out" --add-file="$work/setup.sh" \
  --add-file="$work/run_autograder" --add-file="$work/grade-options" HEAD -- . "${left_out[@]}"
echo "make_autograder_zip.sh: wrote $out (commit $(git -C "$top" rev-parse --short HEAD); grade-options: $(cat "$work/grade-options"))"
