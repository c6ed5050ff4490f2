#!/usr/bin/env bash
# The operator-home test (not shipped, not in ctest: it builds a whole second tree): an operator
# copied from an existing one, its names changed, added with the two lines outside its folder an
# operator should need (its name in KDA_OPERATORS, its row in the operator table), must build and
# pass every CPU test: every suite, golden and mutants included. What the table generates is
# generated, as for any operator: its golden files (`kda-harness golden regen`) and the error
# catalog's "raised by" (`kda-harness errors --markdown > docs/errors.md`). Prints the copy's
# hand edits outside its folder, what was generated, then the tests that fail; exit 0 only when
# none does.
# usage: scripts/scratch-operator.sh [FROM [NEW [WORK]]]
#   FROM  the operator copied (fla_recurrent_gdn), NEW its copy's name (scratch_op),
#   WORK  a git worktree of HEAD made for the test (/tmp/kda-scratch-operator; removed after,
#         unless KEEP=1). Committed code only: HEAD, not the working tree.
set -euo pipefail
cd "$(dirname "$0")/.."
MAIN="$PWD"
FROM="${1:-fla_recurrent_gdn}"
NEW="${2:-scratch_op}"
WORK="${3:-/tmp/kda-scratch-operator}"
[ -d "operators/$FROM" ] || { echo "scratch-operator: no folder operators/$FROM" >&2; exit 2; }
camel() { sed -E 's/(^|_)([a-z0-9])/\U\2/g' <<<"$1"; }
git worktree remove --force "$WORK" 2>/dev/null || rm -rf "$WORK"
git worktree add --quiet --detach "$WORK" HEAD
[ "${KEEP:-0}" = 1 ] || trap 'git worktree remove --force "$WORK"' EXIT
cd "$WORK"

# The copy, every name of FROM in it changed to NEW's (snake_case, kebab-case, CamelCase).
cp -r "operators/$FROM" "operators/$NEW"
find "operators/$NEW" -type f -exec sed -i -e "s/$FROM/$NEW/g" -e "s/${FROM//_/-}/${NEW//_/-}/g" \
  -e "s/$(camel "$FROM")/$(camel "$NEW")/g" {} +
# The two lines outside the folder: the build's operator list and the table's row.
sed -i -E "0,/^set\(KDA_OPERATORS /s/^(set\(KDA_OPERATORS .*)\)$/\1 $NEW)/" operators/CMakeLists.txt
last_include=$(grep -n '^#include "operators/' operators/operator_table.cpp | tail -1 | cut -d: -f1)
sed -i "${last_include}a #include \"operators/$NEW/description.hpp\"" operators/operator_table.cpp
sed -i -E "s/(&[a-z0-9_]+_operator\(\))\};/\1, \&${NEW}_operator()};/" operators/operator_table.cpp
echo "== outside operators/$NEW:"
git diff --stat
if [ "$(git diff --name-only | wc -l)" -ne 2 ] || ! grep -q "^set(KDA_OPERATORS .* $NEW)$" operators/CMakeLists.txt ||
   ! grep -q "&${NEW}_operator()};" operators/operator_table.cpp; then
  echo "scratch-operator: the two edits did not apply" >&2
  exit 2
fi

echo "== build (cpu preset) and every CPU test"
if command -v ccache >/dev/null; then  # paths relative to the tree: a second tree reuses the first's objects
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=$WORK CCACHE_NOHASHDIR=1
fi
mkdir -p build-cpu  # the Python tests' venv: this checkout's where it has one, else a new one
venv=""
for candidate in "$MAIN/build/venv" "$MAIN/build-cpu/venv"; do
  if [ -z "$venv" ] && [ -x "$candidate/bin/python" ]; then venv=$candidate; fi
done
if [ -n "$venv" ]; then ln -s "$venv" build-cpu/venv; else bash scripts/setup-python.sh build-cpu >/dev/null; fi
if ! { cmake --preset cpu && ninja -C build-cpu; } >build-log.txt 2>&1; then
  tail -30 build-log.txt
  echo "scratch-operator: the copy does not build (above)"
  exit 1
fi
echo "== generated, not edited: the copy's golden files and docs/errors.md"
build-cpu/tools/kda-harness golden regen | grep "^golden regen:"
build-cpu/tools/kda-harness errors --markdown >docs/errors.md.tmp && mv docs/errors.md.tmp docs/errors.md
git status --short -- golden docs | awk '{print $1, $2 ~ /^golden\/cases\// ? "golden/cases/" : $2}' | sort | uniq -c
rc=0
ctest --test-dir build-cpu -LE "packaging|gpu" -j"$(nproc)" --timeout 600 >ctest-log.txt 2>&1 || rc=$?
grep -E "tests passed|tests failed" ctest-log.txt
if [ "$rc" -ne 0 ]; then
  sed -n '/The following tests FAILED/,$p' ctest-log.txt | grep -E '^\s+[0-9]+ - '
  # The first line of each failure's reason, counted: where the copy still reaches outside its folder.
  grep -hE "C\+\+ exception|AssertionError|implements|Falsifiable|Error:|error:" build-cpu/Testing/Temporary/LastTest.log \
    | sed -E 's/[0-9]+(\.[0-9]+)?//g' | sort | uniq -c | sort -rn | head -12
fi
exit "$rc"
