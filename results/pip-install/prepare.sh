#!/usr/bin/env bash
# Here, before the GPU call: the Linux pinbench wheel (ci/wheel.py, from the release preset) and,
# beside it, every wheel its dependencies need for one Python version, for a machine that reaches
# no index (`pip install --no-index --find-links`). Plus pip's own wheel, for a Python without
# ensurepip (Ubuntu's python3 without python3-venv). Refuses a folder over the 64 MiB the device
# call can carry.
#
#   results/pip-install/prepare.sh [PYTHON_VERSION] [DIR]   (default 3.12: Ubuntu 24.04's python3;
#                                                            build/pip-install)
# Needs auditwheel (PINBENCH_WHEEL_TOOLS, default .venv/bin; ci/requirements.txt) and PyPI.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
. ci/cache_dirs.sh
pinbench_ccache_env "$root"
version="${1:-3.12}"
dir="${2:-$root/build/pip-install}"
tools="${PINBENCH_WHEEL_TOOLS:-$root/.venv/bin}"
rm -rf "$dir"
mkdir -p "$dir/wheels"
cmake --preset release >/dev/null
cmake --build --preset release -j"${PINBENCH_JOBS:-2}" --target pinbench pinbench_trace_inject >/dev/null
PATH="$tools:$PATH" .venv/bin/python ci/wheel.py linux --build build/release --out "$dir" \
  --auditwheel "$tools/auditwheel" | grep -v '^wheel:   '
wheel="$(ls "$dir"/pinbench-*.whl)"
# Every platform tag a manylinux_2_34 machine takes: pip does not widen --platform by itself.
platforms=()
for tag in manylinux_2_34 manylinux_2_28 manylinux_2_27 manylinux_2_17 manylinux2014; do
  platforms+=(--platform "${tag}_x86_64")
done
.venv/bin/python -m pip download --quiet --only-binary=:all: --python-version "$version" "${platforms[@]}" \
  -d "$dir/wheels" "$wheel" pip
rm "$dir/wheels/$(basename "$wheel")"
ls -l "$dir" "$dir/wheels"
size=$(du -sb "$dir" | cut -f1)
echo "prepare: $dir: $((size / 1024 / 1024)) MiB for Python $version"
((size <= 64 * 1024 * 1024)) || { echo "prepare: over the 64 MiB a device call carries" >&2; exit 1; }
