#!/usr/bin/env bash
# The Python side, in a virtual environment of its own: BUILD_DIR/venv (BUILD_DIR: the first
# argument, default the preset's build folder), made with `python3 -m venv` without the system's
# site-packages, so nothing installed outside it is used. Into it: pytest, pytest-xdist, numpy, ml_dtypes
# from PyPI, and the package from this checkout (`pip install ./python`, which builds its C
# library with scikit-build-core, in BUILD_DIR/wheel-build). The package is (re)installed
# whenever the installed copy was not built from this checkout's current sources: its build
# stamp (kda_harness/_build_info.py, python/source_stamp.cmake) is compared with theirs.
# KDA_NEW_VENV=1 starts from a new environment (.ci/run sets it). CMake finds the environment
# by itself (CMakeLists.txt: BUILD_DIR/venv/bin/python runs the cli and python tests).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
dir="${1:-$(bash scripts/preset.sh --dir)}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
venv="$dir/venv"
PY="${PYTHON:-python3}"
if [ "${KDA_NEW_VENV:-0}" = 1 ]; then rm -rf "$venv"; fi
if [ ! -x "$venv/bin/python" ]; then
  if ! "$PY" -m venv "$venv"; then
    echo "setup-python: '$PY -m venv' failed (Debian: apt-get install python3-venv)" >&2
    exit 1
  fi
fi
vpy="$venv/bin/python"
if ! "$vpy" -c "import pytest, xdist, numpy, ml_dtypes" >/dev/null 2>&1; then
  "$vpy" -m pip install -q pytest pytest-xdist numpy ml_dtypes
fi
stamp() { # the stamp of the installed copy (empty if none): imported away from the source tree
  (cd / && "$vpy" -c "from kda_harness import _build_info; print(_build_info.SOURCE_STAMP)" 2>/dev/null) || true
}
want="$(cmake -DSOURCE="$root" -P python/source_stamp.cmake)"
have="$(stamp)"
if [ "$have" != "$want" ]; then
  if command -v ccache >/dev/null; then
    export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  fi
  reinstall=()
  if [ -n "$have" ]; then
    echo "setup-python: the installed kda_harness was built from other sources: reinstalling"
    reinstall=(--force-reinstall --no-deps)
  fi
  # pip shows a build's output only with -v: its progress lines ("*** " of scikit-build-core,
  # "[n/N]" of Ninja) are printed, the whole output kept in wheel-build.log.
  echo "setup-python: building kda_harness from this checkout (the C library, the command line, the headers," \
       "CMake and pkg-config files; minutes on 2 cores, less when $dir/wheel-build is current)"
  if ! "$vpy" -m pip install -v "${reinstall[@]}" --config-settings=build-dir="$dir/wheel-build" ./python 2>&1 |
      tee "$dir/wheel-build.log" | { grep --line-buffered -E '^\*\*\* |^ *\[[0-9]+/[0-9]+\] ' || true; }; then
    tail -n 40 "$dir/wheel-build.log" >&2
    echo "setup-python: pip install ./python failed (the whole output: $dir/wheel-build.log)" >&2
    exit 1
  fi
  if [ "$(stamp)" != "$want" ]; then
    echo "setup-python: the installed kda_harness does not carry this checkout's build stamp" >&2
    exit 1
  fi
fi
echo "setup-python: $venv: pytest, numpy, ml_dtypes and kda_harness $(cd / && "$vpy" -c 'import kda_harness; print(kda_harness.__version__)') (built from this checkout)"
