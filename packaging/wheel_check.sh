#!/usr/bin/env bash
# The wheel as a user gets it: built from the checkout and installed with its dependencies into
# a new virtual environment (no system site-packages), then used from outside the source tree:
# import kda_harness, its __version__ and build stamp, `kda-harness --version`, and `kda-harness
# check` of the CPU example plugin on a few cases (numpy and ml_dtypes from the install).
# Usage: wheel_check.sh PYTHON SOURCE WORK WHEEL_BUILD_DIR VERSION PLUGIN
set -euo pipefail
python="$1" source="$2" work="$3" wheel_build="$4" version="$5" plugin="$6"
rm -rf "$work" && mkdir -p "$work"
unset KDA_HARNESS_LIBRARY PYTHONPATH
"$python" -m venv "$work/venv"
venv="$work/venv/bin"
if command -v ccache >/dev/null; then export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
"$venv/python" -m pip install -q --config-settings=build-dir="$wheel_build" "$source/python"
cd "$work"
got="$("$venv/python" -c 'import kda_harness; print(kda_harness.__version__)')"
[ "$got" = "$version" ] || { echo "__version__ is '$got', the project's is '$version'"; exit 1; }
where="$("$venv/python" -c 'import kda_harness; print(kda_harness.__file__)')"
case "$where" in "$work/venv/"*) ;; *) echo "kda_harness imported from $where, not the new environment"; exit 1;; esac
stamp="$("$venv/python" -c 'from kda_harness import _build_info; print(_build_info.SOURCE_STAMP)')"
[ "$stamp" = "$(cmake -DSOURCE="$source" -P "$source/python/source_stamp.cmake")" ] || { echo "build stamp $stamp is not the checkout's"; exit 1; }
"$venv/kda-harness" --version | tee version.txt
grep -q "^kda-harness $version (Python package; C library $work/venv/" version.txt
"$venv/kda-harness" check --backend "plugin:$plugin" -n 3
echo "wheel: kda_harness $got installed in a new environment, kda-harness --version and check work"
