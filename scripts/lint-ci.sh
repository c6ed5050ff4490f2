#!/usr/bin/env bash
# Lints the CI files: yamllint on every YAML file of .github/ and .clusterfuzzlite/, and the
# workflows against GitHub's workflow schema (check-jsonschema's vendored copy, offline).
# Usage: scripts/lint-ci.sh yaml|workflows. Exit 77 (ctest: skipped) when the linter is not
# installed (scripts/setup.sh installs both).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  yaml)
    command -v yamllint >/dev/null || { echo "lint-ci: yamllint is not installed (scripts/setup.sh)"; exit 77; }
    yamllint --strict -c .yamllint.yml .yamllint.yml .github .clusterfuzzlite/project.yaml
    ;;
  workflows)
    command -v check-jsonschema >/dev/null ||
      { echo "lint-ci: check-jsonschema is not installed (scripts/setup.sh)"; exit 77; }
    check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml
    ;;
  *)
    echo "usage: scripts/lint-ci.sh yaml|workflows" >&2
    exit 2
    ;;
esac
