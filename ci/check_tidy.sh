#!/usr/bin/env bash
# clang-tidy with the checks .clang-tidy configures, on the host sources of the harness and the
# benchmarks (their .cpp files in build/ci-nogpu/compile_commands.json; not .cu, not the tests).
# Given the mingw-w64 build (build/mingw, ci/check_windows.sh), it checks the Windows code: the
# *_win32.cpp files and the others with _WIN32 branches, as clang targeting x86_64-w64-mingw32
# with that compiler's libstdc++. Any finding fails.
#
# A translation unit that passed is not checked again while its key is unchanged. The key covers
# everything clang-tidy reads for it: the unit as clang itself preprocesses it with the unit's
# compile command and the extra arguments below (`-E -C -dD`: every header's active text with
# its comments, so a NOLINT taken away counts, and every macro definition, used or not), that
# command, .clang-tidy, and the clang-tidy and clang packages. The clone's own path is replaced
# by a placeholder in the command and the text, so another clone of the same sources (in another
# directory) reuses the entries; whether that path matches .clang-tidy's HeaderFilterRegex is
# part of the key. A unit whose key cannot be computed is checked and not remembered. The
# entries live outside the clone (PINBENCH_TIDY_CACHE, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/pinbench/clang-tidy, one empty file per passed key; deleting
# it is safe: everything is checked again), so a second run, or a fresh clone, costs seconds.
# Usage: ci/check_tidy.sh [BUILD_DIR]   (default build/ci-nogpu, or build/mingw; run after the build)
#   PINBENCH_JOBS=N  parallel clang-tidy processes (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/cache_dirs.sh
build="${1:-build/ci-nogpu}"
jobs="${PINBENCH_JOBS:-2}"
tidy=clang-tidy-14   # Debian's, as ci/setup-debian.sh installs it: the version of the pinned clang-format
clang=clang++-14     # the same LLVM release's compiler, for the preprocessed text of the key
command -v "$tidy" >/dev/null || { echo "check_tidy: $tidy is missing (ci/setup-debian.sh)" >&2; exit 2; }
[[ -f $build/compile_commands.json ]] || { echo "check_tidy: no $build/compile_commands.json (configure first)" >&2; exit 2; }
cache="${PINBENCH_TIDY_CACHE:-$pinbench_cache/clang-tidy}"
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
# The tools: clang-tidy's version, and the Debian packages of clang-tidy, the clang it runs
# (libclang-cpp, its builtin headers) and the clang that preprocesses for the key.
packages="$(dpkg-query -W -f='${Package} ${Version}\n' clang-tidy-14 libclang-cpp14 libllvm14 libclang-common-14-dev \
              clang-14 2>/dev/null || true)"
tool_key="$("$tidy" --version; echo "$packages"; cat .clang-tidy; echo "extra: $TIDY_EXTRA")"

# The units (the first line: how many) and, one a line, FILE<TAB>KEY of each unit to check: those
# without a cache entry for their current key (KEY "-" when it could not be computed: checked,
# not remembered). The keys are computed $jobs at a time.
list="$(TOOL_KEY="$tool_key" python3 - "$build/compile_commands.json" "$PWD" "$windows" "$clang" "$cache" "$jobs" <<'PY'
import concurrent.futures, hashlib, json, os, re, shlex, shutil, subprocess, sys
commands, root, windows, clang, cache, jobs = sys.argv[1:7]
windows = windows == "1"
extra = [a.removeprefix("--extra-arg=") for a in shlex.split(os.environ["TIDY_EXTRA"])]
tidy_config = open(".clang-tidy").read()
header_filter = re.search(r"^HeaderFilterRegex:\s*'(.*)'\s*$", tidy_config, re.M)
in_filter = bool(header_filter and re.search(header_filter.group(1), root + "/"))
base = f"{os.environ['TOOL_KEY']}\nroot matches HeaderFilterRegex: {in_filter}\n"
roots = sorted({root, os.path.realpath(root)}, key=len, reverse=True)
have_clang = shutil.which(clang) is not None


def normal(text):
    for r in roots:
        text = text.replace(r, "@ROOT@")
    return text


units = []
for e in sorted(json.load(open(commands)), key=lambda e: e["file"]):
    f = e["file"]
    rel = f[len(root) + 1 :] if f.startswith(root + "/") else ""
    if not rel.endswith(".cpp") or not rel.startswith(("harness/", "benchmarks/")) or "/tests/" in rel:
        continue
    if windows and not (rel.endswith("_win32.cpp") or "_WIN32" in open(f).read()):
        continue  # the POSIX build's check saw the same text
    units.append((rel, e))


def key(unit):
    rel, e = unit
    args = e.get("arguments") or shlex.split(e["command"])
    out, skip = [], False
    for a in args[1:]:
        if skip:
            skip = False
        elif a == "-o":
            skip = True
        elif a != "-c":
            out.append(a)
    if not have_clang:
        return rel, "-"
    h = hashlib.sha256((base + normal(shlex.join(args[:1] + out)) + "\n").encode())
    try:
        p = subprocess.run([clang, *extra, *out, "-E", "-C", "-dD", "-o", "-"], cwd=e["directory"], capture_output=True)
    except OSError:
        return rel, "-"
    if p.returncode != 0:
        return rel, "-"
    h.update(normal(p.stdout.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape"))
    return rel, h.hexdigest()[:40]


with concurrent.futures.ThreadPoolExecutor(max(1, int(jobs))) as pool:
    keys = list(pool.map(key, units))
print(len(keys))
for rel, k in keys:
    if k == "-" or not os.path.exists(os.path.join(cache, k)):
        print(f"{rel}\t{k}")
PY
)"
mapfile -t lines <<<"$list"
units="${lines[0]}"
todo=("${lines[@]:1}")
((units)) || { echo "check_tidy: no sources in $build/compile_commands.json" >&2; exit 2; }
echo "check_tidy: $units sources, $((units - ${#todo[@]})) unchanged since they passed ($cache), checking ${#todo[@]} (-j$jobs)"
((${#todo[@]})) || exit 0

log="$build/tidy.log"
: >"$log"
status=0
printf '%s\n' "${todo[@]}" | xargs -P "$jobs" -d '\n' -n 1 bash -c '
  IFS=$'"'"'\t'"'"' read -r file key <<<"$1"
  if out="$('"$tidy"' -p "'"$build"'" --quiet $TIDY_EXTRA "$file" 2>&1)"; then
    [[ $key == - ]] || touch "'"$cache"'/$key"
  else
    printf "%s\n" "$out" | grep -v "warnings\? generated\.$" >>"'"$log"'"; exit 1
  fi' _ || status=1
if ((status)); then
  cat "$log"
  echo "check_tidy: findings above (.clang-tidy; $log)" >&2
else
  echo "check_tidy: clean"
fi
exit "$status"
