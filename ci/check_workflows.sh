#!/usr/bin/env bash
# Lints the GitHub workflows: actionlint (from PyPI: ci/requirements.txt says which package) and check-jsonschema against the
# GitHub workflow schema it ships (vendor.github-workflows). Installs nothing: the caller puts
# both on the PATH (or in .venv/bin). Exit 0 when both pass, 1 on findings, 2 when a tool is missing.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
PATH=$PWD/.venv/bin:$PATH
workflows=(.github/workflows/*.yml)
missing=0
for tool in actionlint check-jsonschema; do
  if ! command -v "$tool" >/dev/null; then
    echo "check_workflows: $tool is not installed (pip install -r ci/requirements.txt)" >&2
    missing=1
  fi
done
((missing == 0)) || exit 2
status=0
# actionlint also runs shellcheck on run: blocks when shellcheck is on the PATH.
actionlint "${workflows[@]}" || status=1
check-jsonschema --builtin-schema vendor.github-workflows "${workflows[@]}" || status=1
((status == 0)) && echo "check_workflows: ${#workflows[@]} workflow(s) pass actionlint and the workflow schema"
exit $status
