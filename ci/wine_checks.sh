# Sourced by the Wine step scripts (ci/wine_double.sh, ci/wine_unicode.sh, ci/wine_wheel.sh) after
# ci/cache_dirs.sh: the prefix they may change (this run's copy, never the cached template), their
# counted checks, and the test-double driver in that prefix. Usage: . ci/wine_checks.sh NAME   (NAME starts every line they print)
wine_checks_name="$1"
[[ -n ${WINEPREFIX:-} && -d $WINEPREFIX/drive_c/windows/system32 ]] ||
  { echo "$wine_checks_name: WINEPREFIX is not a Wine prefix" >&2; exit 2; }
[[ $WINEPREFIX != "$pinbench_cache"* ]] ||
  { echo "$wine_checks_name: refusing to change the cached template prefix $WINEPREFIX" >&2; exit 2; }

start=$SECONDS
say() { printf '%s: [%3ds] %s\n' "$wine_checks_name" "$((SECONDS - start))" "$*"; }
passed=0
failed=0
check() {  # DESCRIPTION COMMAND...: one check, counted
  local what="$1"
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    say "FAILED: $what"
  fi
}

# A Linux path as pinbench.exe and the double read it: Z: is the Linux root in a new prefix.
windows_path() { printf 'Z:%s' "${1//\//\\}"; }
# The test-double driver and NVML in DIR (docs/test-double.md) into this prefix's System32, the
# only place the harness loads them from.
double_into_system32() { cp "$1/nvcuda.dll" "$1/nvml.dll" "$WINEPREFIX/drive_c/windows/system32/"; }
