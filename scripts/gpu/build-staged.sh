#!/usr/bin/env bash
# Builds exactly the binaries a staging script is about to copy, in their own tree, before it
# copies them: a no-op where they are current, a CMake re-run where the tree's CMake files
# changed. Without it a carry can ship a binary older than the checkout: a tree whose other
# targets were rebuilt since looks current, and the reference of one commit then judges the
# kernel or plugin of another.
# usage: scripts/gpu/build-staged.sh BUILD FILE...   (each FILE a build output, relative to BUILD)
# Fails, naming it, where a FILE does not build or is no output of the tree (a leftover of a
# removed target). KDA_STAGE_JOBS: parallel jobs (default 2).
set -euo pipefail
[ "$#" -ge 2 ] || { echo "usage: $0 BUILD FILE..." >&2; exit 2; }
build=$1
shift
if [ ! -f "$build/build.ninja" ]; then
  echo "build-staged: $build is not a Ninja build tree (no build.ninja): its binaries cannot be brought up to date" >&2
  exit 1
fi
# The Ninja the tree was configured with, else the one on PATH.
ninja=$(sed -n 's/^CMAKE_MAKE_PROGRAM:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
[ -x "${ninja:-}" ] || ninja=ninja
# Each FILE must be made by a rule of the tree: a leftover would be copied as it is, however old.
if ! query=$("$ninja" -C "$build" -t query "$@" 2>&1); then
  echo "build-staged: not every file to stage is an output of $build:" >&2
  grep "^ninja: error" <<<"$query" >&2
  exit 1
fi
not_made=$(awk '/^ninja: / { next }
                /^[^ ]/ { name = substr($0, 1, length($0) - 1); order[++n] = name; made[name] = 0 }
                /^  input:/ { made[name] = 1 }
                END { for (i = 1; i <= n; i++) if (!made[order[i]]) print order[i] }' <<<"$query")
if [ -n "$not_made" ]; then
  echo "build-staged: no rule of $build makes: $not_made" >&2
  exit 1
fi
"$ninja" -C "$build" -j "${KDA_STAGE_JOBS:-2}" "$@" || {
  echo "build-staged: the files to stage do not build in $build (above)" >&2
  exit 1
}
