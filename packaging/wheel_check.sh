#!/usr/bin/env bash
# The new user's path: the wheel built from the checkout and installed with its dependencies
# into a new virtual environment (no system site-packages, no CMake build used), then used from
# outside the source tree with what `pip install` put there alone:
#   - import kda_harness, its __version__ and build stamp;
#   - `kda-harness` is the build's command line: the same subcommands as BUILD_CLI's, each
#     answering --help, `--version` saying __version__, and every subcommand run from a folder
#     outside the source tree (validate, errors, case, check, golden verify on the golden set the
#     wheel carries and golden regen --dry-run against it, emulate, sensitivity, completion;
#     mutants, whose planted-bug plugins only a CMake build makes, refused saying so);
#   - a C program and a C plugin built with `pkg-config --cflags --libs` from the wheel alone
#     (PKG_CONFIG_PATH from `python -m kda_harness.paths pkg-config`), the program run as built
#     (the rpath, no LD_LIBRARY_PATH), the plugin judged by the wheel's `kda-harness check`;
#   - a CMake project (packaging/consumer) finding the wheel's package and running;
#   - Python: docs/five-minutes.md's check() of a function, and its pytest test file;
#   - pytest on that C plugin with -k, -x, -n 2 (pytest-xdist) and --junitxml.
# The pip install's time is printed (the wheel build folder is reused between runs).
# Usage: wheel_check.sh PYTHON SOURCE WORK WHEEL_BUILD_DIR VERSION BUILD_CLI
set -euo pipefail
python="$1" source="$2" work="$3" wheel_build="$4" version="$5" build_cli="$6"
rm -rf "$work" && mkdir -p "$work"
unset KDA_HARNESS_LIBRARY KDA_HARNESS_CLI PYTHONPATH LD_LIBRARY_PATH PKG_CONFIG_PATH CMAKE_PREFIX_PATH
"$python" -m venv "$work/venv"
venv="$work/venv/bin"
if command -v ccache >/dev/null; then export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
step() { echo "wheel: $*"; }

step "pip install $source/python (the build's progress: $work/pip.log)"
start=$(date +%s)
if ! "$venv/python" -m pip install -v --config-settings=build-dir="$wheel_build" "$source/python" >"$work/pip.log" 2>&1; then
  tail -n 60 "$work/pip.log"
  exit 1
fi
step "pip install took $(($(date +%s) - start)) s"
"$venv/python" -m pip install -q pytest pytest-xdist
cd "$work"

got="$("$venv/python" -c 'import kda_harness; print(kda_harness.__version__)')"
[ "$got" = "$version" ] || { echo "__version__ is '$got', the project's is '$version'"; exit 1; }
where="$("$venv/python" -c 'import kda_harness; print(kda_harness.__file__)')"
case "$where" in "$work/venv/"*) ;; *) echo "kda_harness imported from $where, not the new environment"; exit 1;; esac
stamp="$("$venv/python" -c 'from kda_harness import _build_info; print(_build_info.SOURCE_STAMP)')"
[ "$stamp" = "$(cmake -DSOURCE="$source" -P "$source/python/source_stamp.cmake")" ] || { echo "build stamp $stamp is not the checkout's"; exit 1; }

step "one command line: the wheel's kda-harness has the build's subcommands"
subcommands() { "$1" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF {print $1}'; }
subcommands "$build_cli" >build-subcommands.txt
subcommands "$venv/kda-harness" >wheel-subcommands.txt
[ -s build-subcommands.txt ] || { echo "no subcommands read from $build_cli --help"; exit 1; }
diff build-subcommands.txt wheel-subcommands.txt || { echo "the wheel's kda-harness has other subcommands than the build's"; exit 1; }
while read -r sub; do "$venv/kda-harness" "$sub" --help >/dev/null; done <wheel-subcommands.txt
"$venv/python" -m kda_harness --help >python-m-help.txt
"$venv/kda-harness" --help | cmp - python-m-help.txt
"$venv/kda-harness" --version | tee version.txt
[ "$(awk '{print $2; exit}' version.txt)" = "$got" ] || { echo "kda-harness --version is not __version__ ($got)"; exit 1; }
"$venv/kda-harness" validate "$source/docs/examples/validate_call.json"
"$venv/kda-harness" errors R6 >/dev/null
"$venv/kda-harness" completion bash >/dev/null
"$venv/kda-harness" case "B=3 H=2 HV=4 K=16 V=16 L=4 slots=5 steps=9 flush=0.3 seed=5"
"$venv/kda-harness" golden verify --op kda_packed_decode | tail -n 2  # the wheel's golden set, found from bin/
"$venv/kda-harness" golden regen --dry-run | tail -n 1  # exit 1 if the generator would move a case of it
"$venv/kda-harness" check --no-progress --scale 0.01 | tail -n 2  # the default suites, on the CPU
"$venv/kda-harness" emulate --cases 2 -j 1 | tail -n 1
"$venv/kda-harness" sensitivity --cases 2 --tensor out --dtype f32 --suite kernel | tail -n 1
if "$venv/kda-harness" mutants >mutants.txt 2>&1; then cat mutants.txt; echo "mutants passed with no planted-bug plugin"; exit 1; fi
grep -q "KDA_BUILD_MUTANTS" mutants.txt || { cat mutants.txt; echo "mutants does not say where its plugins come from"; exit 1; }

step "C: a program and a plugin built with the wheel's pkg-config flags alone"
PKG_CONFIG_PATH="$("$venv/python" -m kda_harness.paths pkg-config)"
export PKG_CONFIG_PATH
read -r -a flags <<<"$(pkg-config --cflags --libs kda_harness_capi)"
cc -std=c11 -Wall -Wextra -Werror "$source/packaging/c_program/hello.c" -o hello "${flags[@]}"
./hello
cc -std=c11 -Wall -Wextra -Werror -shared -fPIC "$source/packaging/c_plugin/reference_plugin.c" -o libc_plugin.so "${flags[@]}"
"$venv/kda-harness" check --no-progress --backend "plugin:$work/libc_plugin.so" --suites kernel,kernel-truth,envelope \
  --cases kernel=10 --cases kernel-truth=5 --cases envelope=10 | grep -E '^total '  # its verdict: the exit code

step "CMake: packaging/consumer finds the wheel's package"
# The CUDA toolkit hidden: the wheel's package must not look for it (the flag unused, not warned of).
cmake -S "$source/packaging/consumer" -B consumer -G Ninja -DCMAKE_BUILD_TYPE=Release --no-warn-unused-cli \
  -DCMAKE_PREFIX_PATH="$("$venv/python" -m kda_harness.paths prefix)" -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON >consumer.log
cmake --build consumer >>consumer.log || { cat consumer.log; exit 1; }
./consumer/consumer

step "Python: docs/five-minutes.md's function, checked, and its pytest test file"
printf '%s\n' 'import kda_harness' '' '' 'def my_decode(**kw):' '    kda_harness.reference_step(**kw)' >my_kernels.py
"$venv/python" -c "import kda_harness, my_kernels; r = kda_harness.check(my_kernels.my_decode, n=2); print(r); r.raise_if_failed()"
printf '%s\n' 'import kda_harness' 'import my_kernels' '' '' 'def test_my_kernel_conforms():' \
  '    kda_harness.check(my_kernels.my_decode, n=2).raise_if_failed()' >test_my_kernel.py
"$venv/python" -m pytest -p no:cacheprovider -q test_my_kernel.py | tail -n 1

step "pytest: the C plugin's cases with -k, -x, -n 2 and --junitxml"
"$venv/python" -m pytest -p no:cacheprovider -q --kda-backend "plugin:$work/libc_plugin.so" --kda-n 4 -k kda_kernel -x -n 2 \
  --junitxml="$work/junit.xml" | tail -n 3
tests="$("$venv/python" -c "import xml.etree.ElementTree as t; r = t.parse('$work/junit.xml').getroot(); s = r if r.tag == 'testsuite' else r[0]; print(s.get('tests'), s.get('failures'), s.get('errors'))")"
# -k kda_kernel selects kernel and kernel-truth: 2 suites x 4 cases, none failed.
[ "$tests" = "8 0 0" ] || { echo "junit.xml: tests, failures, errors = $tests, not 8 0 0"; exit 1; }
echo "wheel: kda_harness $got from pip install alone: the command line, C (pkg-config), CMake and pytest work"
