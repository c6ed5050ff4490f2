"""Where the harness's installed files are. The wheel installs the CMake project under this
package's folder as `cmake --install` lays out a prefix:

    bin/kda-harness                       the command line (the console script runs it)
    lib/libkda_harness_capi.so            the C library this package loads
    include/kda_harness/plugin.h, kda_capi.h, the C++ headers; include/dlpack/dlpack.h
    lib/pkgconfig/kda_harness_plugin.pc, kda_harness_capi.pc
    lib/cmake/kda_harness/                the CMake package (find_package(kda_harness))
    share/kda_harness/golden/             the golden set `kda-harness check` verifies

`python -m kda_harness.paths NAME` prints one of them: prefix (for CMAKE_PREFIX_PATH), cmake
(kda_harness_DIR), pkg-config (PKG_CONFIG_PATH), include, lib, cli; with no NAME, each as
NAME=PATH. In a source tree the command line and the library are the CMake build's."""
import importlib.metadata
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CLI_NAME = "kda-harness"


def _installed_prefixes():
    """This package's folder, then the pip-installed copy's (for a source tree imported ahead of it)."""
    yield HERE
    try:
        yield Path(importlib.metadata.distribution("kda-harness").locate_file("kda_harness")).resolve()
    except importlib.metadata.PackageNotFoundError:
        pass


def _first(what, env, relative, build_relative):
    """$env, else `relative` under an installed prefix, else `build_relative` under a source
    tree's build/ above this file; FileNotFoundError listing where it looked."""
    tried = []
    if os.environ.get(env):
        return Path(os.environ[env])
    candidates = [prefix / relative for prefix in _installed_prefixes()]
    candidates += [parent / "build" / build_relative for parent in HERE.parents]
    for path in candidates:
        tried.append(str(path))
        if path.is_file():
            return path
    raise FileNotFoundError(f"{what} was not found (tried ${env}, " + ", ".join(tried) + "): install the package "
                            f"with `pip install ./python`, or build it with CMake and set {env}")


def cli():
    """The kda-harness program: $KDA_HARNESS_CLI, else the installed bin/kda-harness, else a
    source tree's build/tools/kda-harness."""
    return _first("the kda-harness program", "KDA_HARNESS_CLI", Path("bin") / CLI_NAME, Path("tools") / CLI_NAME)


def prefix():
    """The installed prefix (the folder holding bin/, lib/, include/); FileNotFoundError where
    this package is not installed with them."""
    for p in _installed_prefixes():
        if (p / "lib" / "cmake" / "kda_harness").is_dir():
            return p
    raise FileNotFoundError(f"no installed kda_harness prefix (no lib/cmake/kda_harness under {HERE}): the C headers, "
                            "pkg-config files and CMake package come with `pip install ./python` (or `cmake --install`)")


def include_dir():
    return prefix() / "include"


def lib_dir():
    return prefix() / "lib"


def pkg_config_dir():
    """The folder for PKG_CONFIG_PATH: `pkg-config --cflags --libs kda_harness_capi`."""
    return prefix() / "lib" / "pkgconfig"


def cmake_dir():
    """The folder for kda_harness_DIR (or give prefix() in CMAKE_PREFIX_PATH)."""
    return prefix() / "lib" / "cmake" / "kda_harness"


NAMES = {"prefix": prefix, "cmake": cmake_dir, "pkg-config": pkg_config_dir, "include": include_dir, "lib": lib_dir,
         "cli": cli}


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) > 1 or (args and args[0] not in NAMES):
        print(f"usage: python -m kda_harness.paths [{'|'.join(NAMES)}]", file=sys.stderr)
        return 2
    try:
        if args:
            print(NAMES[args[0]]())
        else:
            for name, where in NAMES.items():
                print(f"{name}={where()}")
    except FileNotFoundError as e:
        print(f"kda_harness.paths: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
