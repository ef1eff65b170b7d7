#!/usr/bin/env bash
# Writes the GitHub Classroom autograding workflow from the labs' own declarations, as the grader
# lists them (synclab-grade --list-labs): one command-grader step per lab, each grading that lab
# alone and worth the lab's points, so 3 of 10 labs right scores 3 of 10. No step is kept by hand.
#
#   classroom/make_workflow.sh [--grader FILE] [--image IMAGE | --build] [-o FILE]
#                              [synclab-grade options...]
#   e.g. classroom/make_workflow.sh --image ghcr.io/my-course/synclab-grader --labs 07,09 --points 09=3
#
# --image IMAGE (the default, IMAGE ghcr.io/YOUR-GITHUB-NAME/synclab-grader): the job runs in the
#   grader image built from classroom/prairielearn/Dockerfile, which holds the built grader
#   (/synclab/build): nothing is installed or built on a push. The workflow
#   .github/workflows/grader-image.yml of the instructor's copy of synclab builds and pushes it.
# --build: the job installs the packages and builds the grader from SYNCLAB_REPO on every push
#   (about 8 minutes), for a course with no image registry.
# --grader: the synclab-grade that lists the labs (default: this checkout's build/).
# --labs and --points choose the steps and their max-score; every other option is added to each
# step's command. -o: the file to write (default: standard output). This script's options come
# before the grader's: one after them, an option each step sets itself (--csv, --junit, --kernels,
# ...) or one the grader does not know is refused (exit 2), never written into every step.
# classroom/workflow.yml and classroom/workflow-build.yml are this script's output with no options.
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
grader=$here/../build/bin/synclab-grade
image=ghcr.io/YOUR-GITHUB-NAME/synclab-grader
mode=image out=
while [ $# -gt 0 ]; do
  case $1 in
    --grader | --image | -o)
      [ $# -ge 2 ] || { echo "make_workflow.sh: $1 needs a value" >&2; exit 2; }
      case $1 in --grader) grader=$2 ;; --image) image=$2 mode=image ;; -o) out=$2 ;; esac
      shift 2 ;;
    --build) mode=build; shift ;;
    *) break ;;
  esac
done
case $image in *[!A-Za-z0-9./:@_-]* | '')
  echo "make_workflow.sh: --image '$image' is not an image name (e.g. ghcr.io/my-course/synclab-grader)" >&2
  exit 2 ;;
esac
[ -x "$grader" ] || { echo "make_workflow.sh: no grader at $grader: build synclab first, or give --grader FILE" >&2; exit 2; }

# The grader's own options, from its --help: a word that is none of them would fail every step.
known=" $("$grader" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | tr '\n' ' ') -j -h "

# --labs and --points shape the list; the rest goes to every step. This script's own options come
# first: one given among the grader's would be written into every step (and fail it), and so would
# an option each step sets itself.
list=() rest=()
while [ $# -gt 0 ]; do
  case $1 in
    --labs | --points)
      [ $# -ge 2 ] || { echo "make_workflow.sh: $1 needs a value" >&2; exit 2; }
      list+=("$1" "$2"); shift 2 ;;
    --labs=* | --points=*) list+=("$1"); shift ;;
    -o | -o* | --grader | --grader=* | --image | --image=* | --build)
      echo "make_workflow.sh: $1 is this script's option, given among the grader's options after '${rest[0]:-${list[0]}}': it would go into every step's command; give it before them" >&2
      exit 2 ;;
    --kernels* | --class* | --csv* | --junit* | --resume | --restart | --students* | --shard* | \
    --merge | --gradescope | --gradescope=* | --prairielearn* | --list-labs | --help | -h)
      echo "make_workflow.sh: ${1%%=*} is set by each step itself or has no place in one (each step grades submission/ into results/): leave it out" >&2
      exit 2 ;;
    *) case $1 in *[!A-Za-z0-9.,=_/-]*)
         echo "make_workflow.sh: option '$1' has a character a workflow's command would mangle" >&2
         exit 2 ;;
       esac
       case $1 in -j*) ;; -*)
         case $known in *" ${1%%=*} "*) ;; *)
           echo "make_workflow.sh: $1 is no option of $grader (see its --help): every step would fail" >&2
           exit 2 ;;
         esac ;;
       esac
       rest+=("$1"); shift ;;
  esac
done
labs=$("$grader" --list-labs ${list[@]+"${list[@]}"}) || exit 2
[ -n "$labs" ] || { echo "make_workflow.sh: $grader lists no lab: build the labs first" >&2; exit 2; }

if [ "$mode" = image ]; then
  run=/synclab/build/bin/synclab-grade
else
  run=synclab/build/bin/synclab-grade
fi
extra=${rest[*]+" ${rest[*]}"}

# The workflow up to the lab steps: its trigger, its job's container, the student's checkout
# and, with --build, the grader's build.
emit_head() {
  cat <<EOF
# GitHub Classroom: grades a student's repository with synclab-grade on every push. Written by
# classroom/make_workflow.sh from the labs' declarations: make it again rather than edit it.
# Copy it to .github/workflows/classroom.yml in the assignment's template repository (a copy of
# synclab less what classroom/left_out lists, the solutions, the tests and .github, whose kernels/ the
# students fill in). Each lab is one step with its own max-score: the lab's points when
# synclab-grade passes it (exit 0), none otherwise; the reporter adds them up. Each step's
# gradebook and JUnit report are kept as the run's artifact.
EOF
  if [ "$mode" = image ]; then
    cat <<EOF
# The job runs in the grader image, built from the instructor's copy of synclab with
# classroom/prairielearn/Dockerfile and pushed (by that copy's .github/workflows/grader-image.yml)
# as
#   $image
# so nothing is installed or built on a push.
EOF
  else
    cat <<EOF
# The grader is built on every push from SYNCLAB_REPO at SYNCLAB_REF (the instructor's own copy,
# never the student's repository): set them. A prebuilt image saves that (make_workflow.sh --image).
EOF
  fi
  cat <<'EOF'
name: Autograding Tests
'on':
  push: {}
  workflow_dispatch: {}
  repository_dispatch: {}
permissions:
  checks: write
  actions: read
  contents: read
EOF
  if [ "$mode" = build ]; then
    cat <<'EOF'
env:
  SYNCLAB_REPO: your-organisation/synclab
  SYNCLAB_REF: main
EOF
  fi
  cat <<'EOF'
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
EOF
  if [ "$mode" = image ]; then
    printf '    container:\n      image: %s\n' "$image"
  else
    printf '    container: debian:12\n'
  fi
  cat <<'EOF'
    if: github.actor != 'github-classroom[bot]'
    steps:
      - name: The student's kernels
        uses: actions/checkout@v4
        with:
          path: submission
EOF
  if [ "$mode" = build ]; then
    cat <<'EOF'
      - name: The grader, from the instructor's copy
        uses: actions/checkout@v4
        with:
          repository: ${{ env.SYNCLAB_REPO }}
          ref: ${{ env.SYNCLAB_REF }}
          path: synclab
      - name: Build the grader
        run: |
          bash synclab/scripts/setup.sh --packages-only
          cmake -S synclab -B synclab/build -DBUILD_TESTING=OFF
          cmake --build synclab/build -j"$(nproc)"
EOF
  fi
}

# One command-grader step a lab, the reports kept, and the reporter adding the steps up.
emit_steps() {
  local id file points runners="" envs=""
  while read -r id _ file points _; do
    [ -n "$id" ] || continue
    cat <<EOF
      - name: lab $id ($file)
        id: lab$id
        uses: classroom-resources/autograding-command-grader@v1
        with:
          test-name: lab $id ($file)
          setup-command: ''
          command: $run --kernels submission --labs $id --csv results/lab$id.csv --junit results/lab$id$extra
          timeout: 10
          max-score: $points
EOF
    runners+=${runners:+,}lab$id
    envs+="          LAB${id}_RESULTS: \"\${{ steps.lab$id.outputs.result }}\""$'\n'
  done <<<"$labs"
  cat <<EOF
      - name: The grader's gradebooks and JUnit reports
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: synclab-results
          path: results/
      - name: Autograding Reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
${envs%$'\n'}
        with:
          runners: $runners
EOF
}

if [ -n "$out" ]; then { emit_head; emit_steps; } >"$out"; else emit_head; emit_steps; fi
