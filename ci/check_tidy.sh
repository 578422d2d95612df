#!/usr/bin/env bash
# clang-tidy with the checks .clang-tidy configures, on the host sources of the harness and the
# benchmarks (their .cpp files in build/ci-nogpu/compile_commands.json; not .cu, not the tests).
# Given the mingw-w64 build (build/mingw, ci/check_windows.sh), it checks the Windows code: the
# *_win32.cpp files and the others with _WIN32 branches, as clang targeting x86_64-w64-mingw32
# with that compiler's libstdc++. Any finding fails. A translation unit whose preprocessed text, compile command, clang-tidy and
# .clang-tidy are unchanged since it last passed is not checked again (the cache is in the build
# directory), so a second run costs seconds.
# Usage: ci/check_tidy.sh [BUILD_DIR]   (default build/ci-nogpu, or build/mingw; run after the build)
#   PINBENCH_JOBS=N  parallel clang-tidy processes (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/ci-nogpu}"
jobs="${PINBENCH_JOBS:-2}"
tidy=clang-tidy-14  # Debian's, as ci/setup-debian.sh installs it: the version of the pinned clang-format
command -v "$tidy" >/dev/null || { echo "check_tidy: $tidy is missing (ci/setup-debian.sh)" >&2; exit 2; }
[[ -f $build/compile_commands.json ]] || { echo "check_tidy: no $build/compile_commands.json (configure first)" >&2; exit 2; }
cache="$build/tidy-cache"
mkdir -p "$cache"

# A cross build for Windows: clang is told the target and given g++'s own C++ headers (it does
# not find a Debian mingw-w64 "12-posix" installation by itself).
compiler="$(python3 -c 'import json, shlex, sys
e = json.load(open(sys.argv[1]))[0]
print((e.get("arguments") or shlex.split(e["command"]))[0])' "$build/compile_commands.json")"
windows=0
extra=()
if [[ $compiler == *mingw32* ]]; then
  windows=1
  extra=(--extra-arg=--target=x86_64-w64-mingw32 --extra-arg=-nostdinc++)
  while read -r dir; do extra+=("--extra-arg=-isystem$dir"); done < <(
    "$compiler" -std=c++20 -E -x c++ -v - </dev/null 2>&1 | sed -n '/<...> search starts here/,/End of search/p' |
      sed -n 's|^ \(/.*/include/c++.*\)$|\1|p')
fi
export TIDY_EXTRA="${extra[*]}"
tool_key="$("$tidy" --version | sha256sum | cut -c1-16)-$(sha256sum .clang-tidy | cut -c1-16)-$(echo "$TIDY_EXTRA" | sha256sum | cut -c1-8)"

# FILE<TAB>DIRECTORY<TAB>the command with -E -C instead of -o OUT (what the compiler reads, with
# the comments: a NOLINT taken away must check its unit again).
mapfile -t units < <(python3 - "$build/compile_commands.json" "$PWD" "$windows" <<'PY'
import json, re, shlex, sys
root, windows = sys.argv[2], sys.argv[3] == "1"
for e in sorted(json.load(open(sys.argv[1])), key=lambda e: e["file"]):
    f = e["file"]
    rel = f[len(root) + 1:] if f.startswith(root + "/") else ""
    if not rel.endswith(".cpp") or not rel.startswith(("harness/", "benchmarks/")) or "/tests/" in rel:
        continue
    if windows and not (rel.endswith("_win32.cpp") or "_WIN32" in open(f).read()):
        continue  # the POSIX build's check saw the same text
    args = e.get("arguments") or shlex.split(e["command"])
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == "-o":
            skip = True
        elif a != "-c":
            out.append(a)
    print(rel + "\t" + e["directory"] + "\t" + shlex.join(out[:-1] + ["-E", "-C", f]))
PY
)
((${#units[@]})) || { echo "check_tidy: no sources in $build/compile_commands.json" >&2; exit 2; }

# The units to check: those without a cache entry for their current key.
todo=()
keys=()
for u in "${units[@]}"; do
  IFS=$'\t' read -r file dir cmd <<<"$u"
  key="$( { echo "$tool_key $cmd"; (cd "$dir" && eval "$cmd" 2>/dev/null); } | sha256sum | cut -c1-32)"
  [[ -f $cache/$key ]] && continue
  todo+=("$file")
  keys+=("$key")
done
echo "check_tidy: ${#units[@]} sources, $((${#units[@]} - ${#todo[@]})) unchanged since they passed, checking ${#todo[@]} (-j$jobs)"
((${#todo[@]})) || exit 0

log="$build/tidy.log"
: >"$log"
status=0
printf '%s\n' "${!todo[@]}" | xargs -P "$jobs" -I{} bash -c '
  i=$1; shift; files=("${@:1:$(($#/2))}"); keys=("${@:$(($#/2+1))}")
  if out="$('"$tidy"' -p "'"$build"'" --quiet $TIDY_EXTRA "${files[$i]}" 2>&1)"; then
    touch "'"$cache"'/${keys[$i]}"
  else
    printf "%s\n" "$out" | grep -v "warnings\? generated\.$" >>"'"$log"'"; exit 1
  fi' _ {} "${todo[@]}" "${keys[@]}" || status=1
if ((status)); then
  cat "$log"
  echo "check_tidy: findings above (.clang-tidy; $log)" >&2
else
  echo "check_tidy: clean"
fi
exit "$status"
