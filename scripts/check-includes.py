#!/usr/bin/env python3
"""The include graph's rules (README.md, "Layout"):
  - nothing under kernels/, reference/, contract/, engine/, plugins/ or bench/ includes a file
    of operators/: those folders stand below the operators (an operator's folder includes
    them, never the reverse), and know operators only through the table
    (operators/operator_table.cpp) and the table of launchers (engine/backends/cuda_kernel.hpp);
  - no operator's name (a folder of operators/) appears in a source or build file of engine/
    or kernels/: they drive any operator alike;
  - engine/'s subfolders are layers: a file includes from its own subfolder or one listed
    before it in ENGINE_LAYERS (a description is read by reports, reports by backends, ...,
    the driver stands on all of them), so no two of them depend on each other;
  - no two files include each other, directly or through others, where a source and its header
    (x.cpp, x.hpp, x.cu, x.cuh) count as one: a cycle means neither can be read, built or
    tested without the other.
Reads the project's own #include "..." lines (repository root or include/ relative, or the
including file's folder); system headers and build outputs are not followed.
Usage: scripts/check-includes.py [ROOT]. Exit 0 when all hold, 1 with each violation listed."""
import os
import re
import sys

SUFFIXES = (".cpp", ".hpp", ".cu", ".cuh", ".h", ".c")
SKIP_DIRS = {".git", "build", "node_modules", "__pycache__"}
ENGINE_LAYERS = ("description", "reports", "backends", "oracles", "driver")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# The folders below operators/: none includes a file of it.
BELOW_OPERATORS = ("kernels", "reference", "contract", "engine", "plugins", "bench")
# The folders that name no operator, in their sources and build files.
NAME_NO_OPERATOR = ("engine", "kernels")
BUILD_FILES = ("CMakeLists.txt",)
BUILD_SUFFIXES = (".cmake", ".in")


def sources(root, build_files=False):
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(("build", ".")))
        for name in sorted(files):
            build = build_files and (name in BUILD_FILES or name.endswith(BUILD_SUFFIXES))
            if name.endswith(SUFFIXES) or build:
                yield os.path.normpath(os.path.join(rel_folder, name))


def top(path):
    return path.split(os.sep, 1)[0]


def operator_names(root):
    """Every folder of operators/ (an operator, or what a family of them shares)."""
    folder = os.path.join(root, "operators")
    if not os.path.isdir(folder):
        return []
    return sorted(d for d in os.listdir(folder) if os.path.isdir(os.path.join(folder, d)) and not d.startswith("."))


def named_operators(root, names):
    """(path, line number, name) for each operator name in engine/ and kernels/."""
    found = []
    for base in NAME_NO_OPERATOR:
        for path in sources(os.path.join(root, base), build_files=True):
            with open(os.path.join(root, base, path), encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    found.extend((os.path.join(base, path), number, name) for name in names if name in line)
    return found


def resolve(root, including, target):
    for base in ("", "include", os.path.dirname(including)):
        candidate = os.path.normpath(os.path.join(base, target))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def engine_layer(path):
    parts = path.split(os.sep)
    return parts[1] if len(parts) > 2 and parts[0] == "engine" else None


def engine_layer_problem(path, resolved):
    """A file of engine/A/ including engine/B/ where B comes after A in ENGINE_LAYERS."""
    a, b = engine_layer(path), engine_layer(resolved)
    if a is None or b is None or a == b:
        return None
    if a not in ENGINE_LAYERS or b not in ENGINE_LAYERS:
        return f"{path} includes {resolved}: every engine/ subfolder must be one of {', '.join(ENGINE_LAYERS)}"
    if ENGINE_LAYERS.index(b) > ENGINE_LAYERS.index(a):
        return f"{path} includes {resolved}: engine/{a}/ comes before engine/{b}/ ({' < '.join(ENGINE_LAYERS)})"
    return None


def module(path):
    stem, ext = os.path.splitext(path)
    return stem if ext in SUFFIXES else path


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    problems = []
    edges = {}
    via = {}
    for path in sources(root):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for target in INCLUDE.findall(text):
            resolved = resolve(root, path, target)
            if resolved is None:
                continue
            if top(path) in BELOW_OPERATORS and top(resolved) == "operators":
                problems.append(f"{path} includes {resolved}: {top(path)}/ must not include operators/")
            layer_problem = engine_layer_problem(path, resolved)
            if layer_problem:
                problems.append(layer_problem)
            a, b = module(path), module(resolved)
            if a != b:
                edges.setdefault(a, set()).add(b)
                via.setdefault((a, b), f"{path} -> {resolved}")
    for component in cycles(edges):
        members = set(component)
        links = sorted(via[(a, b)] for a in component for b in edges.get(a, ()) if b in members)
        problems.append("include cycle among " + ", ".join(component) + ":\n    " + "\n    ".join(links))
    names = operator_names(root)
    for path, number, name in named_operators(root, names):
        problems.append(f"{path}:{number} names the operator {name}: {top(path)}/ drives operators through the table")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"includes: {len(edges)} modules with includes, none of {'/, '.join(BELOW_OPERATORS)}/ includes operators/, "
          f"engine/ layered, no cycle; engine/ and kernels/ name no folder of operators/ ({len(names)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
