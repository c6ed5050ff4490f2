#!/usr/bin/env bash
# A case line's path from the command line to the verdict, counted: builds kda-harness (CPU
# only, -O0 -g) with -finstrument-functions (std, Eigen, fmt and the other /usr headers left
# out) and scripts/case_path_tracer.c, runs `kda-harness case LINE [ARGS...]` from the first
# entry of the case subcommand's callback on, and counts with scripts/case_path_count.py: the
# stops (distinct project functions), the folder changes and the climbs back, of the whole
# path and of its spine (the path without the functions that call no other: the walk a reader
# follows).
# Usage: scripts/case-path.sh [--ref REF] [--list] [--spine] "LINE" [case arguments...]
#   --ref REF   measure the commit REF (git archive of it) instead of the working tree
#   --list      print the path, one function a line (with --spine: the spine)
# Builds go to ${CASE_PATH_DIR:-~/.cache/kda-case-path}/<ref or worktree>/ (kept: a rerun
# builds only what changed; with ccache, a second tree reuses the first one's objects).
# Jobs: ${CASE_PATH_JOBS:-2}.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
ref="" count_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --ref) ref=$2; shift 2 ;;
    --list) count_args+=(--list); shift ;;
    --spine) count_args+=(--spine); shift ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: scripts/case-path.sh [--ref REF] [--list] [--spine] \"LINE\" [case arguments...]" >&2; exit 2; }
root=${CASE_PATH_DIR:-$HOME/.cache/kda-case-path}
if [ -n "$ref" ]; then
  sha=$(git -C "$repo" rev-parse --verify "$ref^{commit}")
  work=$root/$sha
  src=$work/src
  if [ ! -d "$src" ]; then
    mkdir -p "$src.tmp"
    git -C "$repo" archive "$sha" | tar -x -C "$src.tmp"
    mv "$src.tmp" "$src"
  fi
else
  work=$root/worktree-$(printf '%s' "$repo" | md5sum | cut -c1-12)
  src=$repo
fi
mkdir -p "$work"
tracer=$work/libcase_path_tracer.so
cc -shared -fPIC -O2 -o "$tracer" "$repo/scripts/case_path_tracer.c" -ldl -lpthread
link="-Wl,--no-as-needed $tracer -Wl,--as-needed -Wl,-rpath,$work"
flags="-O0 -g -finstrument-functions -finstrument-functions-exclude-file-list=/usr/"
if command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=$src CCACHE_NOHASHDIR=1
fi
cmake -S "$src" -B "$work/build" -G Ninja -DKDA_ENABLE_CUDA=OFF -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$link" -DCMAKE_SHARED_LINKER_FLAGS="$link" >"$work/configure.log"
ninja -C "$work/build" -j "${CASE_PATH_JOBS:-2}" kda-harness >"$work/build.log"
program=$work/build/tools/kda-harness
# The path starts at the case subcommand's callback (tools/cmd_case.cpp's register_case lambda).
start=$(nm -C --defined-only "$program" | awk 'index($0, "register_case(CLI::App&)::{lambda()#1}::operator()") && !found { print $1; found = 1 }')
[ -n "$start" ] || { echo "case-path: no callback of register_case in $program" >&2; exit 1; }
trace=$work/trace.txt
CASE_PATH_START=$start CASE_PATH_OUT=$trace "$program" case "$@" >"$work/case.out" || true
tail -n1 "$work/case.out"
python3 "$repo/scripts/case_path_count.py" "$trace" "$program" "$src" "${count_args[@]}"
