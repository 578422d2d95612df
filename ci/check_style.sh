#!/usr/bin/env bash
# Style enforced, not described (../shared/STYLE.md, .clang-format, ruff.toml):
# clang-format (pinned wheel, ci/requirements.txt) on every tracked C++/CUDA source, and ruff
# (lint and format) on the Python. Fails with the files to fix; `ci/check_style.sh --fix`
# rewrites them. Uses the tools in .venv (ci/setup-debian.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$PWD/.venv/bin"
for tool in clang-format ruff; do
  [[ -x $bin/$tool ]] || { echo "check_style: $bin/$tool is missing (pip install -r ci/requirements.txt)" >&2; exit 2; }
done
mapfile -t sources < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h')
mapfile -t python < <(git ls-files '*.py')
ruff_config=(--config ruff.toml)
if [[ ${1:-} == --fix ]]; then
  "$bin/clang-format" -i "${sources[@]}"
  "$bin/ruff" check "${ruff_config[@]}" --fix "${python[@]}" || true  # what it cannot fix is reported below
  "$bin/ruff" format "${ruff_config[@]}" "${python[@]}"
  exit 0
fi
status=0
"$bin/clang-format" --dry-run -Werror "${sources[@]}" || { echo "check_style: clang-format differences above (ci/check_style.sh --fix)" >&2; status=1; }
"$bin/ruff" check "${ruff_config[@]}" "${python[@]}" || status=1
"$bin/ruff" format "${ruff_config[@]}" --check "${python[@]}" || { echo "check_style: ruff format differences (ci/check_style.sh --fix)" >&2; status=1; }
((status == 0)) && echo "check_style: $(("${#sources[@]}")) C++/CUDA and ${#python[@]} Python files clean ($("$bin/clang-format" --version | cut -d' ' -f3), $("$bin/ruff" --version))"
exit "$status"
