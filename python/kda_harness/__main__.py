"""`kda-harness` (the console script the package installs) and `python -m kda_harness`: the
harness's one command line, the C++ program the wheel installs (bin/kda-harness, the CMake
build's tools/kda-harness; paths.cli() says which is used), run in place of this process with
the arguments as given, so that every subcommand, option, exit code and signal is its own."""
import os
import sys

from . import paths


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        program = paths.cli()
    except FileNotFoundError as e:
        print(f"kda-harness: {e}", file=sys.stderr)
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(program, [str(program), *args])
    except OSError as e:  # not executable, a binary of another machine
        print(f"kda-harness: cannot run {program}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
