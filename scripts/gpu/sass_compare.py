#!/usr/bin/env python3
"""The ReplaySSM kernels' device code before and after a kernel change, function by function.

usage: sass_compare.py CUOBJDUMP BEFORE_DIR AFTER_DIR
Each DIR holds the kernels' .cu.o files. The plain packed decode adds instantiations whose
mangled names carry the template argument `true` (Lb1E); every other function's SASS must be
byte-identical to one before (names aside: a `false` argument changes a mangled name, not the
code). Prints the verdict; exit 0 only when identical."""
import pathlib
import re
import subprocess
import sys


def functions(cuobjdump, obj):
    text = subprocess.run([cuobjdump, "-sass", str(obj)], check=True, capture_output=True, text=True).stdout
    out, name = {}, None
    for line in text.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            name = m.group(1)
            out[name] = []
        elif name and re.search(r"/\*[0-9a-f]{4}\*/", line):
            out[name].append(line.strip())
    return {n: "\n".join(body) for n, body in out.items()}


def main():
    cuobjdump, before, after = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    ok = True
    for old in sorted(before.glob("*.cu.o")):
        new = after / old.name
        f_old, f_new = functions(cuobjdump, old), functions(cuobjdump, new)
        kept = sorted(b for n, b in f_new.items() if "Lb1E" not in n)
        plain = sum("Lb1E" in n for n in f_new)
        same = sorted(f_old.values()) == kept
        ok &= same
        print(f"{old.name}: {len(f_old)} functions before, {len(kept)} after (+{plain} plain packed decode): "
              f"{'SASS byte-identical' if same else 'SASS DIFFERS'}")
    print("ReplaySSM device code unchanged" if ok else "ReplaySSM device code CHANGED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
