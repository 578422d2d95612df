# Sourced by the CI scripts (ci/test.sh, ci/check_tidy.sh, ci/check_windows.sh): where they keep
# what they reuse between runs and between clones, outside the clone, under the user's cache
# directory. ci/README.md ("Caches") lists each directory and its key; each is keyed by
# everything it was made from, and deleting any of them (or all) is safe: the next run makes
# it again and gives the same verdict, only slower.
#   PINBENCH_CACHE         the root (default ${XDG_CACHE_HOME:-$HOME/.cache}/pinbench)
#   PINBENCH_CCACHE_DIR    ccache's directory (default $PINBENCH_CACHE/ccache)
#   PINBENCH_CCACHE_SIZE   its size limit (default 2G)
#   PINBENCH_TIDY_CACHE, PINBENCH_MINGW_DEPS, PINBENCH_WINEPREFIX: see ci/check_tidy.sh and
#   ci/check_windows.sh
pinbench_cache="${PINBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pinbench}"

# ccache for the compilers CMake starts (CMakeLists.txt makes ccache the compiler launcher where
# it is installed): its own directory, and paths under the clone hashed relative to it
# (CCACHE_BASEDIR, CCACHE_NOHASHDIR) so that a fresh clone in another directory still hits.
# Usage: pinbench_ccache_env CLONE_ROOT
pinbench_ccache_env() {
  export CCACHE_DIR="${PINBENCH_CCACHE_DIR:-$pinbench_cache/ccache}"
  export CCACHE_BASEDIR="$1"
  export CCACHE_NOHASHDIR=1
  export CCACHE_MAXSIZE="${PINBENCH_CCACHE_SIZE:-2G}"
}

# ccache's counters now (pinbench_ccache_counters), and the hits and misses since such a snapshot:
#   before="$(pinbench_ccache_counters)"; ...build...; pinbench_ccache_figures "$before"
# prints "N hits, N misses (N% hit)" (other builds using the same directory at the same time
# count too), or why there are no figures.
pinbench_ccache_counters() { command -v ccache >/dev/null && ccache --print-stats 2>/dev/null || true; }
pinbench_ccache_figures() {
  command -v ccache >/dev/null || { echo "no ccache installed"; return 0; }
  { printf '%s\n' "$1" | sed 's/^/before\t/'; pinbench_ccache_counters | sed 's/^/after\t/'; } | awk -F'\t' '
    function add(sign, name, n) {
      if (name == "direct_cache_hit" || name == "preprocessed_cache_hit") hits += sign * n
      else if (name == "cache_miss") misses += sign * n
      else if (name ~ /^(unsupported_|could_not_|bad_compiler_arguments|multiple_source_files|preprocessor_error|internal_error)/) other += sign * n
    }
    $1 == "before" { add(-1, $2, $3) }
    $1 == "after" { add(1, $2, $3) }
    END { total = hits + misses
          printf "%d hits, %d misses (%s hit)%s\n", hits, misses, total ? sprintf("%.0f%%", 100 * hits / total) : "n/a",
                 other ? sprintf(", %d not cacheable", other) : "" }'
}
