#!/usr/bin/env bash
# Syntax-checks, with mingw-w64, every source of pinbench_host as a Windows build compiles it:
# the *_win32.cpp platform files in place of *_posix.cpp. The list is read from
# harness/CMakeLists.txt so it cannot drift. src/cuda/* (pinbench_cuda) needs CUDA headers and
# is not checked. MSVC is the real Windows compiler; this catches most mistakes on Linux.
#
# Usage: ci/check_mingw.sh            (CXX_MINGW=... to pick another compiler)
# Prints one line per file; exits non-zero if any file fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# The -posix variant has std::thread / std::mutex with GCC 12; the -win32 one does not.
cxx="${CXX_MINGW:-}"
if [[ -z "$cxx" ]]; then
  for candidate in x86_64-w64-mingw32-g++-posix x86_64-w64-mingw32-g++; do
    if command -v "$candidate" >/dev/null 2>&1; then cxx="$candidate"; break; fi
  done
fi
if [[ -z "$cxx" ]]; then
  echo "check_mingw: no x86_64-w64-mingw32-g++ found (apt-get install g++-mingw-w64-x86-64)" >&2
  exit 2
fi

# Third-party headers through a directory of links, so that nothing else from /usr/include
# (Linux system headers) can leak into a Windows compile.
third_party="$(mktemp -d)"
trap 'rm -rf "$third_party"' EXIT
for dir in nlohmann yaml-cpp; do
  if [[ ! -d "/usr/include/$dir" ]]; then
    echo "check_mingw: /usr/include/$dir not found (install nlohmann-json3-dev / libyaml-cpp-dev)" >&2
    exit 2
  fi
  ln -s "/usr/include/$dir" "$third_party/$dir"
done

# Sources of add_library(pinbench_host ...), with ${PINBENCH_PLATFORM} = win32.
mapfile -t sources < <(
  awk '{sub(/#.*/, "")}
       /add_library\(pinbench_host/ {inside = 1; next}
       inside && /\)/ {inside = 0}
       inside {for (i = 1; i <= NF; i++) if ($i ~ /\.cpp$/) print $i}' harness/CMakeLists.txt |
    sed 's/\${PINBENCH_PLATFORM}/win32/g' | grep -v '^src/cuda/'
)
if [[ ${#sources[@]} -eq 0 ]]; then
  echo "check_mingw: no pinbench_host sources found in harness/CMakeLists.txt" >&2
  exit 2
fi

flags=(-std=c++20 -fsyntax-only -Wall -Wextra
       -DNOMINMAX -DWIN32_LEAN_AND_MEAN -DUNICODE -D_UNICODE
       -Iharness/include -Iharness/src -isystem "$third_party")

failed=0
for source in "${sources[@]}"; do
  file="harness/$source"
  if log="$("$cxx" "${flags[@]}" "$file" 2>&1)"; then
    echo "ok    $file"
    # Warnings do not fail the check, but are shown.
    if [[ -n "$log" ]]; then printf '%s\n' "$log" | sed 's/^/      /'; fi
  else
    echo "FAIL  $file"
    printf '%s\n' "$log" | sed 's/^/      /'
    failed=$((failed + 1))
  fi
done

echo "check_mingw: ${#sources[@]} files checked with $cxx, $failed failed"
[[ $failed -eq 0 ]]
