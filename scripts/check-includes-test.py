#!/usr/bin/env python3
"""scripts/check-includes.py on small trees made in a temporary folder: each rule fails on the
one file that breaks it, naming it, and holds on a tree that keeps it (ctest lint.includes_rules).
Usage: scripts/check-includes-test.py (Python's standard library only)."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-includes.py")
BELOW_OPERATORS = ("kernels", "reference", "contract", "engine", "plugins", "bench")


def write(root, path, text=""):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def check(root):
    """(exit status, output) of the script on root."""
    p = subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True, check=False)
    return p.returncode, p.stdout + p.stderr


class CheckIncludes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        # A tree that keeps every rule: an operator's folder includes the folders below it.
        write(self.root, "operators/my_op/description.cpp", '#include "engine/description/operator.hpp"\n#include "kernels/launch.hpp"\n')
        write(self.root, "operators/my_op/cuda_launch.cpp", '#include "kernels/launch.hpp"\n')
        write(self.root, "operators/operator_table.cpp", '#include "operators/my_op/description.hpp"\n')
        write(self.root, "operators/my_op/description.hpp")
        write(self.root, "engine/description/operator.hpp", "// any operator, through the table\n")
        write(self.root, "engine/description/operator.cpp", '#include "engine/description/operator.hpp"\n')
        write(self.root, "kernels/launch.hpp", '#include "contract/step_args.hpp"\n')
        write(self.root, "kernels/launch.cpp", '#include "kernels/launch.hpp"\n')
        write(self.root, "kernels/CMakeLists.txt", "add_library(k STATIC launch.cpp)\n")
        write(self.root, "contract/step_args.hpp")
        write(self.root, "reference/step.cpp", "// my_op's recurrence is the plain one\n")
        write(self.root, "tools/cmd.cpp", '#include "operators/my_op/description.hpp"\n')

    def tearDown(self):
        self.tmp.cleanup()

    def assert_holds(self):
        status, out = check(self.root)
        self.assertEqual(status, 0, out)

    def assert_fails(self, *words):
        status, out = check(self.root)
        self.assertEqual(status, 1, out)
        for w in words:
            self.assertIn(w, out)

    def test_a_tree_that_keeps_the_rules_holds(self):
        # tools/ may include operators/, and reference/ may name an operator in a comment.
        self.assert_holds()

    def test_each_folder_below_the_operators_fails_on_an_include_of_operators(self):
        for folder in BELOW_OPERATORS:
            with self.subTest(folder=folder):
                path = f"{folder}/uses_op.cpp"
                write(self.root, path, '#include "operators/my_op/description.hpp"\n')
                self.assert_fails(f"{path} includes operators/my_op/description.hpp", f"{folder}/ must not include operators/")
                os.remove(os.path.join(self.root, path))
                self.assert_holds()

    def test_an_operator_name_in_engine_or_kernels_fails(self):
        for path, text in (("engine/run.cpp", "const char* k = \"my_op\";\n"),
                           ("kernels/step.cuh", "// the my_op layout\n"),
                           ("kernels/CMakeLists.txt", "add_library(k STATIC my_op_launch.cpp)\n")):
            with self.subTest(path=path):
                before = None
                full = os.path.join(self.root, path)
                if os.path.exists(full):
                    with open(full, encoding="utf-8") as f:
                        before = f.read()
                write(self.root, path, text)
                self.assert_fails(f"{path}:1 names the operator my_op")
                if before is None:
                    os.remove(full)
                else:
                    write(self.root, path, before)
                self.assert_holds()

    def test_a_family_folder_counts_as_an_operator_name(self):
        write(self.root, "operators/my_family/shared.cpp")
        write(self.root, "engine/shared.hpp", "// from my_family\n")
        self.assert_fails("engine/shared.hpp:1 names the operator my_family")

    def test_an_include_cycle_fails_and_a_source_with_its_header_does_not(self):
        write(self.root, "cases/a.hpp", '#include "cases/b.hpp"\n')
        write(self.root, "cases/b.hpp")
        write(self.root, "cases/b.cpp", '#include "cases/a.hpp"\n')  # b.cpp and b.hpp: one module
        self.assert_fails("include cycle among cases/a, cases/b", "cases/b.cpp -> cases/a.hpp")
        os.remove(os.path.join(self.root, "cases/b.cpp"))
        write(self.root, "cases/a.cpp", '#include "cases/a.hpp"\n')
        self.assert_holds()


if __name__ == "__main__":
    unittest.main(verbosity=2)
