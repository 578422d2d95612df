#!/usr/bin/env bash
# Installs what building and testing pinbench needs on a fresh Debian/Ubuntu machine:
# Debian packages (only those missing; also Wine and what the Windows check builds from source),
# the CUDA 12.9 runtime, NVML and CUPTI headers from PyPI wheels into .deps/cuda12 (for the CUDA 12
# header check and for nvml.h where the toolkit lacks it), and the Python environment of
# reports/ in .venv.
# nvcc itself is not installed here: it comes with the CUDA toolkit.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ libgtest-dev libgmock-dev libbenchmark-dev libyaml-cpp-dev nlohmann-json3-dev
          libcli11-dev libxxhash-dev g++-mingw-w64-x86-64 python3-venv unzip chromium
          clang-tidy-14   # ci/check_tidy.sh: the release of the pinned clang-format (ci/requirements.txt)
          ccache)         # the compiler cache CMake uses where it is installed (ci/README.md, "Caches")
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The Windows check (ci/check_windows.sh): Wine runs the mingw-w64 build; GoogleTest's sources
# and yaml-cpp's Debian source package are built with mingw into .deps/mingw. Wine without its
# recommends (no fonts, no audio, no X): the programs are console programs, run headless.
windows_packages=(wine64 wine googletest dpkg-dev)
missing=()
for p in "${windows_packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# `apt-get source` needs a deb-src entry, absent on a stock image: one for the same archive
# (and snapshot) as the first deb822 entry of the main sources.
if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  main_sources=/etc/apt/sources.list.d/debian.sources
  if [[ -f $main_sources ]]; then
    echo "setup: adding a deb-src entry (/etc/apt/sources.list.d/pinbench-deb-src.sources)"
    awk 'BEGIN { RS = ""; ORS = "\n" } NR == 1 { print }' "$main_sources" | sed '1s/^Types: deb$/Types: deb-src/' \
      >/etc/apt/sources.list.d/pinbench-deb-src.sources
    apt-get update -qq
  fi
fi

deps=.deps/cuda12
if [[ ! -f $deps/nvidia/nvml_dev/include/nvml.h || ! -f $deps/nvidia/cuda_runtime/include/cuda_runtime_api.h ||
      ! -f $deps/nvidia/cuda_cupti/include/cupti.h ]]; then
  echo "setup: fetching CUDA 12.9 runtime, NVML and CUPTI headers (PyPI wheels)"
  tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp" \
    "nvidia-cuda-runtime-cu12==12.9.79" "nvidia-nvml-dev-cu12==12.9.79" "nvidia-cuda-cupti-cu12==12.9.79"
  mkdir -p "$deps"
  for w in "$tmp"/*.whl; do unzip -qo "$w" -d "$deps"; done
  rm -rf "$tmp"
fi

# xxhash.h (the store's content hash, used header-only) beside the sources too: CMake looks in
# .deps/xxhash/include first, so a machine without libxxhash-dev (the GPU machine) or a cross
# build can be given this one file.
if [[ ! -f .deps/xxhash/include/xxhash.h ]]; then
  mkdir -p .deps/xxhash/include
  cp /usr/include/xxhash.h .deps/xxhash/include/
fi

# The Python side (reports/, CI checks) in .venv, from PyPI.
if [[ ! -x .venv/bin/python ]]; then
  echo "setup: creating .venv"
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -r reports/requirements.txt -r ci/requirements.txt -e reports
