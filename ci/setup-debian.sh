#!/usr/bin/env bash
# Installs what building and running pinbench needs on a fresh Debian/Ubuntu machine (ci/main.sh):
# Debian packages (only those missing), the CUDA 12.9 runtime, NVML and CUPTI headers from PyPI
# wheels into .deps/cuda12 (the headers pinbench builds from where no CUDA toolkit is installed,
# docs/driver-api.md, and the CUDA 12 header check), and the Python environment of reports/ in .venv.
#   --test  also the test toolchain (ci/test.sh): mingw-w64, Wine and what the Windows check builds
#           from source (with a deb-src entry), Chromium, clang-tidy, and ci/requirements.txt.
# nvcc is not installed here and pinbench does not need it; where a CUDA toolkit is on the PATH,
# the benchmarks, tools/neighbour and scenarios/workloads are built too.
set -euo pipefail
cd "$(dirname "$0")/.."
test_tools=0
case "${1:-}" in
  --test) test_tools=1 ;;
  "") ;;
  *) echo "usage: ci/setup-debian.sh [--test]" >&2; exit 2 ;;
esac

packages=(cmake ninja-build g++ libgtest-dev libgmock-dev libbenchmark-dev libyaml-cpp-dev nlohmann-json3-dev
          libcli11-dev libxxhash-dev zlib1g-dev python3-venv unzip
          ccache)  # the compiler cache CMake uses where it is installed (ci/README.md, "Caches")
((test_tools)) && packages+=(g++-mingw-w64-x86-64 chromium
                             clang-tidy-14)  # ci/check_tidy.sh: the release of the pinned clang-format (ci/requirements.txt)
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
# libz-mingw-w64-dev: the store's gzip; locales: the ja_JP definition ci/wine_unicode.sh compiles
# (Wine's code page 932).
windows_packages=(wine64 wine googletest dpkg-dev libz-mingw-w64-dev locales)
((test_tools)) || windows_packages=()
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
if ((test_tools)) && ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
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
# crt/host_defines.h and the rest of crt/, which cupti.h reaches through builtin_types.h: only in
# the nvcc wheel (40 MB, mostly nvcc), of which only include/crt is kept.
if [[ ! -f $deps/nvidia/cuda_nvcc/include/crt/host_defines.h ]]; then
  echo "setup: fetching the CUDA 12.9 crt headers (PyPI wheel nvidia-cuda-nvcc-cu12, headers only)"
  tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp" "nvidia-cuda-nvcc-cu12==12.9.86"
  unzip -qo "$tmp"/*.whl 'nvidia/cuda_nvcc/include/crt/*' -d "$deps"
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
requirements=(-r reports/requirements.txt)
((test_tools)) && requirements+=(-r ci/requirements.txt)
.venv/bin/python -m pip install -q "${requirements[@]}" -e reports
