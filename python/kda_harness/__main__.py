"""`kda-harness` as the Python package installs it (also `python -m kda_harness`): the version,
the operators, and `check` of a plugin library through this package's C library. The full
command line (validate, case, golden, mutants, ...) is the CMake build's tools/kda-harness."""
import argparse
import os
import sys

from . import _lib, check, load_plugin, operators
from ._version import version


def _parser():
    parser = argparse.ArgumentParser(
        prog="kda-harness", description="The KDA decode-kernel conformance harness (the Python package's command; "
        "the full command line is the CMake build's tools/kda-harness).")
    parser.add_argument("--version", action="store_true", help="print the version and the C library in use")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("operators", help="list the operators")
    run = commands.add_parser("check", help="run the suites on a plugin library (exit 0 only if every case passes)")
    run.add_argument("--backend", required=True, metavar="plugin:PATH", help="the plugin shared library to judge")
    run.add_argument("--op", help="the operator (default: the plugin's)")
    run.add_argument("--suites", help="comma-separated suites (default: all)")
    run.add_argument("-n", "--cases", type=int, default=20, help="cases per suite (default 20)")
    run.add_argument("--seed", type=int, default=1)
    return parser


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    if args.version:
        print(f"kda-harness {version()} (Python package; C library {_lib.lib()._name})")
        return 0
    if args.command == "operators":
        print("\n".join(operators()))
        return 0
    if args.command == "check":
        if not args.backend.startswith("plugin:"):
            parser.error("--backend takes plugin:PATH here (the CMake build's tools/kda-harness has the others)")
        try:
            plugin = load_plugin(args.backend[len("plugin:"):])
        except (OSError, ValueError) as e:
            print(f"kda-harness: cannot load {args.backend}: {e}", file=sys.stderr)
            return 2
        try:
            report = check(plugin, op=args.op, suites=args.suites, n=args.cases, seed=args.seed)
        except ValueError as e:  # an unknown operator or suite
            print(f"kda-harness: {e}", file=sys.stderr)
            return 2
        try:
            print(report, flush=True)
        except OSError as e:  # stdout is a full disk, a closed pipe, /dev/full
            print(f"kda-harness: cannot write the report: {e}", file=sys.stderr)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # what is left unflushed goes nowhere
            return 2
        return 0 if report.passed else 1
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
