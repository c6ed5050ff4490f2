"""Every list of operators a user reads names every operator of the table
(operators/operator_table.cpp, as the C library's kda_operators gives it): the --op help of each
kda-harness subcommand that takes one, the Python package's operators() and its `operators`
command, the pytest plugin's --kda-op help, and replayssm_bench's --op help (where the build
has the benchmark). A list kept by hand falls behind when an operator is added; this fails then.

Environment (ctest sets it, python/CMakeLists.txt): KDA_HARNESS_LIBRARY (the C library),
KDA_HARNESS_CLI (kda-harness), PYTHONPATH (this checkout's python/), KDA_BENCH (replayssm_bench;
empty where the build has no CUDA)."""
import ctypes
import os
import re
import subprocess
import sys
import unittest

ENV = dict(os.environ, COLUMNS="200", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", NO_COLOR="1")


def table():
    lib = ctypes.CDLL(os.environ["KDA_HARNESS_LIBRARY"])
    lib.kda_operators.restype = ctypes.c_char_p
    return lib.kda_operators().decode().split(",")


def run(*argv, preload=False):
    """argv's stdout (an AssertionError on a non-zero exit). The sanitizer job preloads the
    sanitizer runtime for Python (LD_PRELOAD); a program built with its own, the command line
    the harness's `python -m kda_harness` hands over to included, must not get it: only a
    Python that loads the C library (preload=True) keeps it."""
    env = ENV if preload else {k: v for k, v in ENV.items() if k != "LD_PRELOAD"}
    r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(argv)}: exit {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r.stdout


def option_block(help_text, option):
    """The help of `option`: its line and the continuation lines up to the next option, without
    CLI11's list of allowed values (TEXT:{a,b,c}), so that its description must name them."""
    lines = help_text.splitlines()
    start = next((i for i, l in enumerate(lines) if re.match(rf"\s*(-\w,)?{re.escape(option)}\b", l)), None)
    if start is None:
        return None
    block = [lines[start]]
    for line in lines[start + 1:]:
        if re.match(r"\s*-", line) or not line.strip() or not line.startswith(" "):
            break
        block.append(line)
    return re.sub(r":\{[^}]*\}", "", " ".join(block))


def subcommands(cli, path=()):
    """Every subcommand of kda-harness as a path (golden verify is ("golden", "verify")), leaves only."""
    text = run(cli, *path, "--help")
    if "Subcommands:" not in text:
        return [path]
    names = re.findall(r"^  (\w[\w-]*) ", text.split("Subcommands:", 1)[1], re.M)
    return [leaf for name in names for leaf in subcommands(cli, path + (name,))]


class OperatorLists(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ops = table()
        assert len(cls.ops) >= 2 and all(cls.ops), cls.ops

    def assert_names_all(self, where, text):
        self.assertIsNotNone(text, f"{where}: no such option")
        missing = [op for op in self.ops if not re.search(rf"(?<![\w]){re.escape(op)}(?![\w])", text)]
        self.assertEqual(missing, [], f"{where} leaves out {missing} of the table {self.ops}:\n{text}")

    def test_every_subcommands_op_help(self):
        cli = os.environ["KDA_HARNESS_CLI"]
        with_op = []
        for path in subcommands(cli):
            block = option_block(run(cli, *path, "--help"), "--op")
            if block is not None:
                with_op.append(" ".join(path))
                self.assert_names_all(f"kda-harness {' '.join(path)} --help, --op", block)
        # Not vacuous: the subcommands that judge or describe an operator take --op.
        for must in ("validate", "errors", "case", "check", "golden verify", "mutants", "emulate", "sensitivity"):
            self.assertIn(must, with_op)

    def test_the_python_package_lists_the_table(self):
        listed = run(sys.executable, "-c", "import kda_harness; print(','.join(kda_harness.operators()))",
                     preload=True).strip()
        self.assertEqual(listed.split(","), self.ops)
        # `python -m kda_harness` is the build's command line (its --op help is checked above).
        self.assert_names_all("python -m kda_harness check --help, --op",
                              option_block(run(sys.executable, "-m", "kda_harness", "check", "--help"), "--op"))

    def test_the_pytest_plugins_kda_op_help(self):
        text = run(sys.executable, "-m", "pytest", "-p", "kda_harness.pytest_plugin", "-p", "no:cacheprovider", "--help",
                   preload=True)
        self.assert_names_all("pytest --help, --kda-op", option_block(text, "--kda-op"))

    def test_the_benchs_op_help_and_each_op_plans(self):
        bench = os.environ.get("KDA_BENCH")
        if not bench:
            self.skipTest("this build has no replayssm_bench (no CUDA)")
        self.assert_names_all("replayssm_bench --help, --op", option_block(run(bench, "--help"), "--op"))
        for op in self.ops:  # each is one the bench can step (--plan: no GPU needed), or refuses by name
            r = subprocess.run([bench, "--plan", "--op", op, "--batch", "1", "--L", "1,8"], capture_output=True, text=True)
            if r.returncode == 0:
                self.assertIn("largest workspace", r.stdout)
            else:  # an operator our CUDA kernel does not serve (no row in the table of launchers)
                self.assertEqual(r.stderr.strip(), f"replayssm_bench: --op: our CUDA kernel does not serve {op}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
