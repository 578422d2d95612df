#!/usr/bin/env bash
# Builds the Windows side of pinbench with mingw-w64 (the real CUDA core, which loads nvcuda.dll
# from System32 at run time; no CUDA toolkit; static runtime) and runs it under Wine, headless: pinbench.exe and the CPU test program with
# the Windows ports of the POSIX-only tests (tests/cpu/*_win32_test.cpp); then, with the
# test-double nvcuda.dll / nvml.dll (docs/test-double.md) copied into this run's prefix,
# ci/wine_double.sh, every DLL pinbench imports or loads and a pinreport.exe planted where a
# download folder would hold them, none loaded, ci/wine_planted.sh, the user path with
# non-ASCII letters under code pages 1252 and 932, ci/wine_unicode.sh, and the Windows pinbench
# wheel as pip installs it, ci/wine_wheel.sh.
# ci/README.md lists what runs here, what is skipped under Wine and why, and what still only
# compiles.
#
# Usage: ci/check_windows.sh [--build-only | --test-only] [-- GTEST_ARGS...]
#   --test-only         run the tests of the build already there (ci/test.sh builds first, then
#                       runs them beside other steps)
#   PINBENCH_JOBS=N     build jobs and test shards (default 1; ci/test.sh passes 2)
#   PINBENCH_MINGW_DEPS the dependencies' prefix (default: in the user's cache directory, below)
#   PINBENCH_WINEPREFIX a Wine prefix of one's own, used in place (default: a copy of the cached
#                       one in build/mingw, below)
#   PINBENCH_MINGW_BUILD another place for build/mingw
# Caches, outside the clone (ci/cache_dirs.sh; ci/README.md, "Caches"), each safe to delete:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/pinbench/mingw-deps/KEY: GoogleTest and yaml-cpp built with
#     mingw, the header-only packages; KEY is a hash of what they are built from (the stamp:
#     package versions, toolchain file, this script's recipe)
#   .../pinbench/wine-prefix/VERSION: a Wine prefix as `wineboot --init` of that Wine made it;
#     each run works in its own copy (build/mingw/wine-prefix), so runs never share a wineserver
#   .../pinbench/ccache: the compiler cache, for these builds too
# build/mingw stays in the clone; a second run rebuilds only what changed.
# Prints one line "check_windows: N passed, N failed, N skipped under Wine"; exits 1 when a test
# failed, 2 when a tool is missing, 3 when the build failed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. ci/cache_dirs.sh
pinbench_ccache_env "$root"

build_only=0
test_only=0
gtest_args=()
while (($#)); do
  case "$1" in
    --build-only) build_only=1 ;;
    --test-only) test_only=1 ;;
    --) shift; gtest_args=("$@"); break ;;
    *) echo "check_windows: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

jobs="${PINBENCH_JOBS:-1}"
toolchain="$root/cmake/mingw-w64-x86_64.cmake"
build="${PINBENCH_MINGW_BUILD:-$root/build/mingw}"

step_start=$SECONDS
say() { printf 'check_windows: [%3ds] %s\n' "$((SECONDS - step_start))" "$*"; }

for tool in x86_64-w64-mingw32-g++-posix cmake ninja; do
  command -v "$tool" >/dev/null || { echo "check_windows: $tool not found (run ci/setup-debian.sh)" >&2; exit 2; }
done
wine=""
if ((!build_only)); then
  for candidate in wine64 /usr/lib/wine/wine64 wine; do
    if command -v "$candidate" >/dev/null 2>&1; then wine="$(command -v "$candidate")"; break; fi
  done
  [[ -n $wine ]] || { echo "check_windows: wine64 not found (run ci/setup-debian.sh)" >&2; exit 2; }
fi

if ((test_only)); then
  [[ -f $build/harness/tests/pinbench_cpu_tests.exe ]] || { echo "check_windows: --test-only: no build in $build" >&2; exit 3; }
else
  # --- Dependencies, built once per stamp into the cache --------------------------------------
  # The stamp records what they are built from; its hash names the directory, so a changed Debian
  # package, toolchain or recipe builds into a new one (the old one stays until deleted).
  pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo none; }
  stamp_text="$(printf '%s\n' "googletest $(pkg_version googletest)" \
    "yaml-cpp $(apt-cache showsrc yaml-cpp 2>/dev/null | awk '/^Version:/ {print $2}' | sort -V | tail -1)" \
    "nlohmann-json3-dev $(pkg_version nlohmann-json3-dev)" "libcli11-dev $(pkg_version libcli11-dev)" \
    "mingw $(pkg_version g++-mingw-w64-x86-64-posix)" "toolchain $(sha256sum "$toolchain" | cut -c1-16)" \
    "script-deps 1")"
  # What the pinbench build finds its dependencies in, and their own build trees and sources.
  prefix="${PINBENCH_MINGW_DEPS:-$pinbench_cache/mingw-deps/$(printf '%s' "$stamp_text" | sha256sum | cut -c1-16)}"
  dep_build="$prefix-build"
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

  cmake_dep() {  # SOURCE_DIR NAME CMAKE_ARGS...: configure, build and install one dependency
    local src="$1" name="$2"
    shift 2
    cmake -S "$src" -B "$dep_build/$name" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_INSTALL_PREFIX="$prefix" "${launcher[@]}" "$@" >"$dep_build/$name.log" 2>&1 &&
      cmake --build "$dep_build/$name" -j "$jobs" >>"$dep_build/$name.log" 2>&1 &&
      cmake --install "$dep_build/$name" >>"$dep_build/$name.log" 2>&1 ||
      { echo "check_windows: building $name failed; the log:" >&2; tail -30 "$dep_build/$name.log" >&2; exit 3; }
  }

  # A header-only package as a CMake package of its own, pointing at a directory that holds only
  # its headers, so that nothing else from Linux's /usr/include reaches a Windows compile.
  header_only_package() {  # PACKAGE TARGET VERSION HEADER_DIR...
    local package="$1" target="$2" version="$3"
    shift 3
    local include="$prefix/header-only/$package"
    mkdir -p "$include" "$prefix/lib/cmake/$package"
    for dir in "$@"; do ln -sfn "/usr/include/$dir" "$include/$dir"; done
    cat >"$prefix/lib/cmake/$package/${package}Config.cmake" <<EOF
# Written by ci/check_windows.sh: the Debian package's headers ($*), version $version.
if(NOT TARGET $target)
  add_library($target INTERFACE IMPORTED)
  set_target_properties($target PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "$include")
endif()
set(${package}_FOUND TRUE)
EOF
    cat >"$prefix/lib/cmake/$package/${package}ConfigVersion.cmake" <<EOF
set(PACKAGE_VERSION "$version")
if(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
EOF
  }

  # One builder at a time (another clone's run may be building the same directory).
  mkdir -p "$(dirname "$prefix")"
  exec 9>"$prefix.lock"
  flock 9
  if [[ ! -f $prefix/.stamp || "$(cat "$prefix/.stamp")" != "$stamp_text" ]]; then
    say "building the dependencies with mingw-w64 into $prefix (once)"
    rm -rf "$prefix" "$dep_build"
    mkdir -p "$prefix" "$dep_build"
    [[ -d /usr/src/googletest ]] || { echo "check_windows: /usr/src/googletest missing (apt-get install googletest)" >&2; exit 2; }
    cmake_dep /usr/src/googletest googletest -DBUILD_GMOCK=OFF -Dgtest_force_shared_crt=OFF
    say "GoogleTest built"
    (cd "$dep_build" && apt-get source -qq yaml-cpp >yaml-cpp-source.log 2>&1) ||
      { echo "check_windows: apt-get source yaml-cpp failed (a deb-src entry and dpkg-dev: ci/setup-debian.sh)" >&2
        tail -5 "$dep_build/yaml-cpp-source.log" >&2; exit 2; }
    yaml_src="$(find "$dep_build" -maxdepth 1 -type d -name 'yaml-cpp-*' | head -1)"
    cmake_dep "$yaml_src" yaml-cpp -DYAML_CPP_BUILD_TESTS=OFF -DYAML_CPP_BUILD_TOOLS=OFF \
      -DYAML_CPP_BUILD_CONTRIB=OFF -DYAML_BUILD_SHARED_LIBS=OFF
    say "yaml-cpp built"
    header_only_package nlohmann_json nlohmann_json::nlohmann_json "$(pkg_version nlohmann-json3-dev | sed 's/-.*//')" nlohmann
    header_only_package CLI11 CLI11::CLI11 "$(pkg_version libcli11-dev | sed 's/[+-].*//')" CLI
    printf '%s' "$stamp_text" >"$prefix/.stamp"
    rm -rf "$dep_build"
  fi
  flock -u 9

  # --- pinbench for Windows: the real CUDA core, no nvcc (docs/driver-api.md) -----------------
  # -O1: these programs are run for their behaviour, not timed, and -O1 compiles about a third
  # faster than -O3. Configuring an existing tree again takes a second and applies any change here.
  mkdir -p "$(dirname "$build")"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DPINBENCH_MINGW_PREFIX="$prefix" \
    -DPINBENCH_BUILD_BENCHMARKS=OFF -DPINBENCH_BUILD_TESTS=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    >"$build.configure.log" 2>&1 ||
    { echo "check_windows: configuring failed:" >&2; tail -30 "$build.configure.log" >&2; exit 3; }
  say "building pinbench.exe and pinbench_cpu_tests.exe (-j$jobs)"
  ccache_before="$(pinbench_ccache_counters)"
  if ! cmake --build "$build" -j "$jobs" --target pinbench pinbench_cpu_tests pinbench_driver_double >"$build.log" 2>&1; then
    echo "check_windows: the mingw-w64 build failed:" >&2
    grep -E 'error|Error' "$build.log" | head -40 >&2
    exit 3
  fi
  say "built (ccache: $(pinbench_ccache_figures "$ccache_before"))"
  # The test-double nvcuda.dll / nvml.dll export every name the harness looks up.
  python3 ci/double_exports.py "$build/harness/tests/doubles/driver" || exit 3
fi
((build_only)) && exit 0

# --- Wine, headless --------------------------------------------------------------------------
# No display, no Direct3D (DXGI still lists an emulated adapter), no debugger on a crash (a
# crashing child must end with its exception code, as on Windows), no Mono/Gecko installers.
unset DISPLAY WAYLAND_DISPLAY
export WINEDEBUG="${WINEDEBUG:--all}"
export WINE_D3D_CONFIG="renderer=no3d"
export WINEDLLOVERRIDES="winedbg.exe=d;mscoree=d;mshtml=d"
make_prefix() {  # DIR: a new Wine prefix there
  say "creating the Wine prefix $1"
  mkdir -p "$1"
  WINEPREFIX="$1" "$wine" wineboot --init >"$1.log" 2>&1 || true
  WINEPREFIX="$1" wineserver -w || true
  [[ -f $1/system.reg ]] || { echo "check_windows: creating the Wine prefix failed:" >&2; tail -20 "$1.log" >&2; exit 2; }
}
if [[ -n ${PINBENCH_WINEPREFIX:-} ]]; then
  export WINEPREFIX="$PINBENCH_WINEPREFIX"  # one's own, used in place
  [[ -f $WINEPREFIX/system.reg ]] || make_prefix "$WINEPREFIX"
else
  # The cached prefix, made once per Wine version, is copied: each run has its own wineserver,
  # and its `wineserver -k` below cannot end another run's tests.
  wine_version="$("$wine" --version | tr -c 'A-Za-z0-9.\n-' _)"
  template="$pinbench_cache/wine-prefix/$wine_version"
  mkdir -p "$(dirname "$template")"
  exec 9>"$template.lock"
  flock 9
  if [[ ! -f $template/system.reg ]]; then
    rm -rf "$template" "$template.new"
    make_prefix "$template.new"
    mv "$template.new" "$template"
  fi
  export WINEPREFIX="$build/wine-prefix"
  rm -rf "$WINEPREFIX"
  cp -a --reflink=auto "$template" "$WINEPREFIX"
  flock -u 9
fi

# The tests in PINBENCH_JOBS shards (GoogleTest sharding), one Wine process each; every test
# names its own temporary files, so shards cannot meet.
shards="$jobs"
rm -rf "$build"/wine-tests-*.xml "$build"/wine-tests-*.log "$build/wine-double"
say "running pinbench_cpu_tests.exe under $("$wine" --version) ($shards shard(s))"
pids=()
for ((i = 0; i < shards; i++)); do
  # The report's path relative to the build directory: Wine would read a Linux path as C:\work\...
  # NvmlDevice.* skip without NVML: they run against the test double below.
  (cd "$build" && GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$wine" harness/tests/pinbench_cpu_tests.exe \
    --gtest_output="xml:wine-tests-$i.xml" --gtest_brief=1 --gtest_filter='-NvmlDevice.*' "${gtest_args[@]}") \
    >"$build/wine-tests-$i.log" 2>&1 &
  pids+=($!)
done
statuses=()
for pid in "${pids[@]}"; do
  status=0
  wait "$pid" || status=$?
  statuses+=("$status")
done
wineserver -k 2>/dev/null || true
for ((i = 0; i < shards; i++)); do
  grep -vE '^\[ +(RUN|OK) +\]|^Running main\(\)|^Note: This is test shard' "$build/wine-tests-$i.log" | tail -60 || true
done
say "tests done"

# The test double (after the tests above, which need a prefix without a CUDA driver): its DLLs
# go into this run's prefix only, never the cached template.
double_status=0
planted_status=0
unicode_status=0
wheel_status=0
if [[ -z ${PINBENCH_WINEPREFIX:-} && ${#gtest_args[@]} -eq 0 ]]; then
  ci/wine_double.sh "$wine" "$build" || double_status=$?
  wineserver -k 2>/dev/null || true
  say "test double done"
  # Marker DLLs and a marker pinreport.exe where a download folder would hold them: none loaded.
  ci/wine_planted.sh "$wine" "$build" || planted_status=$?
  wineserver -k 2>/dev/null || true
  say "planted DLLs and pinreport.exe done"
  # Changes the locale (LANG, LC_ALL) of its own commands only, and this run's prefix copy.
  ci/wine_unicode.sh "$wine" "$build" || unicode_status=$?
  wineserver -k 2>/dev/null || true
  say "non-ASCII user path done"
  # The Windows pinbench wheel, installed as pip lays it out, from an empty folder (ci/wheel.py).
  ci/wine_wheel.sh "$wine" "$build" || wheel_status=$?
  wineserver -k 2>/dev/null || true
  say "the Windows wheel done"
else
  say "not running ci/wine_double.sh, ci/wine_planted.sh, ci/wine_unicode.sh, ci/wine_wheel.sh: they need this run's own prefix copy and no GTEST_ARGS"
fi

# One line per skipped test with its reason, then the totals.
summary_status=0
python3 - "$build" "${statuses[@]}" <<'EOF' || summary_status=$?
import os
import sys
import xml.etree.ElementTree as ET

build, statuses = sys.argv[1], sys.argv[2:]
passed = failed = skipped = 0
cases = []
# The NvmlDevice tests, run against the test double by ci/wine_double.sh.
nvml_report = os.path.join(build, "wine-double", "nvml-device.xml")
if os.path.exists(nvml_report):
    cases.extend(ET.parse(nvml_report).getroot().iter("testcase"))
for i, status in enumerate(statuses):
    report = os.path.join(build, f"wine-tests-{i}.xml")
    if not os.path.exists(report):
        failed += 1
        print(f"check_windows: shard {i} ended (status {status}) without writing its report")
        continue
    if status != "0" and not any(c.find("failure") is not None for c in ET.parse(report).getroot().iter("testcase")):
        failed += 1
        print(f"check_windows: shard {i} exited with {status} after its tests")
    cases.extend(ET.parse(report).getroot().iter("testcase"))
for case in cases:
    name = f"{case.get('classname')}.{case.get('name')}"
    if case.find("failure") is not None:
        failed += 1
        print(f"check_windows: FAILED  {name}")
    elif case.get("result") == "skipped" or case.find("skipped") is not None:
        skipped += 1
        node = case.find("skipped")
        # GoogleTest's message: "FILE:LINE" and then the reason the test gave.
        lines = [l.strip() for l in ((node.get("message") if node is not None else "") or "").splitlines() if l.strip()]
        reason = " ".join(lines[1:]) or f"no reason given ({lines[0] if lines else 'no location'})"
        print(f"check_windows: skipped {name}: {reason}")
    else:
        passed += 1
print(f"check_windows: {passed} passed, {failed} failed, {skipped} skipped under Wine")
sys.exit(1 if failed else 0)
EOF
((summary_status == 0 && double_status == 0 && planted_status == 0 && unicode_status == 0 && wheel_status == 0))
