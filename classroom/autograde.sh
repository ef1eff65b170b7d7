#!/usr/bin/env bash
# Grades one submission for a grading platform and always leaves its results file, also when
# the grader crashes, fails or runs out of time: then the file says why, for the student to see.
# Used by classroom/gradescope/run_autograder and classroom/prairielearn/grade.
#
#   autograde.sh FORMAT SUBMISSION RESULTS DEFAULT_BUILD [synclab-grade options...]
#
# FORMAT gradescope or prairielearn; SUBMISSION the folder the student's files were put in (any
# sub-folders: every .cl/.h/.clh file in it is taken, the shallowest first where two share a
# name); RESULTS the results.json to write; DEFAULT_BUILD the build folder used unless
# SYNCLAB_BUILD names another. Environment:
#   SYNCLAB_BUILD               a build folder (cmake -B) holding bin/synclab-grade
#   SYNCLAB_GRADE_OPTIONS       more synclab-grade options, after the arguments (e.g. --quick)
#   SYNCLAB_AUTOGRADER_TIMEOUT  seconds for the whole grading (default 540: under PrairieLearn's
#                               600 s limit, with time left to write the results). The grader
#                               stops itself then (--budget): every lab finished keeps its
#                               points, and the labs still running are named.
#   SYNCLAB_DRAW_KEY_FILE       a file whose first line is the course's draw key (the key that,
#   SYNCLAB_DRAW_KEY            with each kernel's text, draws its checks and counts), or the
#                               key itself; neither: a fresh random key for this grading
# What the student should know of the upload (two files of one name, no .cl file) goes to the
# grader as --note, so it is at the top of the results.
set -uo pipefail

format=$1 submission=$2 results=$3 default_build=$4
shift 4
build=${SYNCLAB_BUILD:-$default_build}
grader=$build/bin/synclab-grade
budget=${SYNCLAB_AUTOGRADER_TIMEOUT:-540}

# Gradescope's visibility, where the options choose it (the zip's grade-options): a results
# file this script writes itself shows the same.
visibility=visible stdout_visibility=hidden
# shellcheck disable=SC2086  # SYNCLAB_GRADE_OPTIONS is a list of words
set -- "$@" ${SYNCLAB_GRADE_OPTIONS:-}
previous=
for word in "$@"; do
  case $previous:$word in
    --gradescope-visibility:*) visibility=$word ;;
    --gradescope-stdout-visibility:*) stdout_visibility=$word ;;
  esac
  case $word in
    --gradescope-visibility=*) visibility=${word#*=} ;;
    --gradescope-stdout-visibility=*) stdout_visibility=${word#*=} ;;
  esac
  previous=$word
done

# A JSON string of stdin: bytes that are not UTF-8 and control characters other than tab and
# newline dropped, so the file is always valid JSON.
json_string() {
  local text
  text=$( (iconv -c -f UTF-8 -t UTF-8 2>/dev/null || true) | tr -d '\000-\010\013-\037\177' |
          sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g' |
          awk 'BEGIN { ORS = "" } NR > 1 { print "\\n" } { print }')
  printf '"%s"' "$text"
}

# The results file when the grader left none: no points, the reason, and the end of its log.
write_failure() {
  local reason log_tail n
  reason=$1
  for n in "${notes[@]}"; do reason+="; $n"; done
  reason=$(printf '%s' "$reason" | json_string)
  log_tail=$( (tail -n 40 "$work/log" 2>/dev/null || true) | json_string)
  if [ "$format" = gradescope ]; then
    cat >"$results" <<EOF
{
  "score": 0,
  "output": $reason,
  "output_format": "text",
  "test_output_format": "text",
  "visibility": "$visibility",
  "stdout_visibility": "$stdout_visibility",
  "tests": [
    {"name": "synclab-grade", "score": 0, "max_score": 0, "status": "failed", "visibility": "$visibility",
     "output": $log_tail}
  ]
}
EOF
  else
    cat >"$results" <<EOF
{
  "gradable": false,
  "score": 0,
  "message": $reason,
  "format_errors": [$reason],
  "output": $log_tail,
  "tests": []
}
EOF
  fi
  echo "autograde: no results from synclab-grade: $1" >&2
}

notes=()
case $format in
  gradescope | prairielearn) ;;
  *) echo "autograde: format '$format' is neither gradescope nor prairielearn" >&2; exit 2 ;;
esac
# A word Gradescope does not take: the grader refuses it with one line; this file stays valid.
case $visibility in visible | hidden | after_due_date | after_published) ;; *) visibility=visible ;; esac
case $stdout_visibility in visible | hidden | after_due_date | after_published) ;; *) stdout_visibility=hidden ;; esac
mkdir -p "$(dirname "$results")" || exit 2
rm -f "$results"
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
staged=$work/kernels
mkdir -p "$staged"

# The student's kernel files, flat, from wherever they were uploaded; macOS's zip litter
# (__MACOSX/, ._name) and links left out.
declare -A taken=()
if [ -d "$submission" ]; then
  while IFS= read -r -d '' entry; do
    file=${entry#* }
    name=$(basename "$file")
    if [ -e "$staged/$name" ]; then
      notes+=("two files named $name: graded ${taken[$name]#"$submission"/}, not ${file#"$submission"/}")
    else
      cp -- "$file" "$staged/$name" && taken[$name]=$file
    fi
  done < <(find "$submission" -name __MACOSX -prune -o -type f \
             \( -name '*.cl' -o -name '*.h' -o -name '*.clh' \) ! -name '._*' -printf '%d %p\0' |
           sort -z -n)
else
  notes+=("no submission folder $submission")
fi
[ -n "$(ls -A "$staged")" ] || notes+=("no .cl file in the submission")
for n in "${notes[@]}"; do echo "autograde: $n"; done

if [ ! -x "$grader" ]; then
  write_failure "the autograder is not built: $grader is missing (run setup.sh or set SYNCLAB_BUILD)"
  exit 0
fi
case $budget in
  '' | *[!0-9]* | 0)
    write_failure "SYNCLAB_AUTOGRADER_TIMEOUT='$budget' is not a whole number of seconds: the instructor must set it (e.g. 540)"
    exit 0 ;;
esac
note_args=() joined=
for n in "${notes[@]}"; do joined+=${joined:+; }$n; done
[ -z "$joined" ] || note_args=(--note "$joined")
# The course's draw key, never on a command line (a file of ours, mode 0600); none: the grader
# draws with a fresh random key (its gradebook here is a scratch one).
key_args=()
if [ -n "${SYNCLAB_DRAW_KEY_FILE:-}" ]; then
  key_args=(--draw-key-file "$SYNCLAB_DRAW_KEY_FILE")
elif [ -n "${SYNCLAB_DRAW_KEY:-}" ]; then
  (umask 077 && printf '%s\n' "$SYNCLAB_DRAW_KEY" >"$work/draw-key")
  key_args=(--draw-key-file "$work/draw-key")
else
  rm -f "$work/synclab.draw-key"
fi
# The grader stops itself at its budget; timeout only ends one that did not.
grace=$(( budget >= 150 ? 15 : budget / 10 + 1 ))
timeout -k 10 $((budget + grace)) "$grader" --kernels "$staged" --csv "$work/gradebook.csv" \
  --junit "$work/junit" "--$format" "$results" --timeout 30 --budget "$budget" \
  ${note_args[@]+"${note_args[@]}"} ${key_args[@]+"${key_args[@]}"} "$@" >"$work/log" 2>&1
rc=$?
cat "$work/log"
case $rc in
  0 | 1) [ -s "$results" ] && exit 0
         write_failure "synclab-grade exited $rc but wrote no results" ;;
  124 | 137) write_failure "grading took longer than $budget s and the grader did not stop itself: not your kernels' fault; the instructor will re-grade" ;;
  126 | 127) write_failure "the autograder could not start $grader (exit $rc): the instructor must rebuild it" ;;
  2) write_failure "synclab-grade refused to grade: $(grep -m1 'synclab-grade' "$work/log" || tail -n 1 "$work/log")" ;;
  *) if [ "$rc" -gt 128 ]; then
       write_failure "the grader crashed (signal SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))): not your kernels' fault; the instructor will re-grade"
     else
       write_failure "the grader failed (exit $rc): the instructor will re-grade"
     fi ;;
esac
exit 0
