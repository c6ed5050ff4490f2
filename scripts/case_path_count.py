#!/usr/bin/env python3
"""Counts a case line's path from scripts/case_path_tracer.c's trace (see scripts/case-path.sh):
each traced function resolved with addr2line to its source file; the functions of the project's
own files (SOURCE_ROOT, not build outputs) in the order first entered, up to the first entry of
the verdict (a function whose name matches --end). Prints the stops (distinct functions), the
folder changes along the sequence (engine/<sub>/ and operators/<op>/ each a folder, else the
top folder) and the climbs back (entering a folder already left before); then the same of the
spine, the path without its leaves (functions that call no other project function on the path:
accessors, constructors of plain structs, the small helpers a reader does not open to follow
the walk); then with --list the sequence itself (--spine: the spine's)."""
import argparse
import collections
import os
import re
import subprocess
import sys


def elf_is_executable(path):  # ET_EXEC: addresses are absolute; ET_DYN (PIE, .so): relative to the base
    with open(path, "rb") as fh:
        header = fh.read(18)
    return int.from_bytes(header[16:18], "little") == 2


def resolve(trace, program):
    """(name, source, is_caller) for each first entry, in order."""
    entries, callers = [], set()
    for line in open(trace):
        kind, module, address, base = line.split()
        if not os.path.isfile(module):
            module = program  # the main program as dladdr names it (argv[0])
        address, base = int(address, 16), int(base, 16)
        key = (module, address if elf_is_executable(module) else address - base)
        if kind == "C":
            callers.add(key)
        else:
            entries.append(key)
    by_module = collections.defaultdict(list)
    for module, offset in entries:
        by_module[module].append(offset)
    names = {}
    for module, offsets in by_module.items():
        unique = sorted(set(offsets))
        out = subprocess.run(["addr2line", "-f", "-C", "-e", module] + [hex(o) for o in unique],
                             capture_output=True, text=True, check=True).stdout.splitlines()
        for i, offset in enumerate(unique):
            names[(module, offset)] = (out[2 * i], out[2 * i + 1].rsplit(":", 1)[0])
    return [names[e] + (e in callers,) for e in entries]


def folder_of(relative):
    parts = relative.split("/")
    if len(parts) > 2 and parts[0] in ("engine", "operators"):
        return parts[0] + "/" + parts[1] + "/"
    return parts[0] + "/" if len(parts) > 1 else "./"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("trace")
    ap.add_argument("program")
    ap.add_argument("source_root")
    ap.add_argument("--end", default=r"::verdict\(", help="regex of the verdict function's name")
    ap.add_argument("--list", action="store_true", help="print the sequence, one function a line")
    ap.add_argument("--spine", action="store_true", help="with --list: print the spine's")
    a = ap.parse_args()
    root = os.path.realpath(a.source_root) + "/"
    path = []
    for name, source, calls in resolve(a.trace, a.program):
        source = os.path.realpath(source) if source.startswith("/") else source
        if not source.startswith(root) or "/_deps/" in source:
            continue
        path.append((name, folder_of(source[len(root):]), source[len(root):], calls))
        if re.search(a.end, name):
            break
    else:
        sys.exit(f"case-path: the trace never reaches a function matching {a.end!r}")
    spine = [p for p in path if p[3] or p is path[-1] or p is path[0]]
    for label, seq in (("", path), ("spine: ", spine)):
        print(label + "stops {}  folder changes {}  climbs back {}".format(len(seq), *count(seq)))
    if a.list:
        for name, folder, source, _ in spine if a.spine else path:
            print(f"  {folder:<28} {source}: {name}")


def count(seq):
    changes = climbs = 0
    left = set()
    for (_, before, _, _), (_, after, _, _) in zip(seq, seq[1:]):
        if after != before:
            changes += 1
            left.add(before)
            climbs += after in left
    return changes, climbs


if __name__ == "__main__":
    main()
