#!/usr/bin/env bash
# The newcomer's path (issue 58), run as a new user would on a Linux machine without a GPU:
# the Linux wheel (ci/wheel.py linux, from the release build) installed into a fresh venv from an
# empty folder, then `pinbench --help`, `pinbench run quick -o out/quick.json` (no GPU: one line,
# exit 3, no results file, no out/), the replay by name, `pinreport html` on one file, both
# programs' bash completion installed and driven through `complete -p` and its function, the
# progress line on a terminal (tmux capture-pane snapshots, labelled with the seconds since the
# replay started), and `pip uninstall` leaving nothing of pinbench's.
# Writes OUT (default results/newcomer/): transcript.txt (every command, its output and exit
# code), progress-tty.txt (the terminal's line as the replay ran), README.md is committed beside.
# Exit 0 when every step behaved as it should, 1 when one did not, 3 when the build failed.
#
# Usage: ci/newcomer.sh [OUT]   (reuses build/release and build/wheel when they are there)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/results/newcomer}"
mkdir -p "$out" "$root/build"
. "$root/ci/cache_dirs.sh"
pinbench_ccache_env "$root"
{ cmake --preset release && cmake --build --preset release -j"${PINBENCH_JOBS:-2}" --target pinbench pinbench_trace_inject; } \
  >"$root/build/newcomer-build.log" 2>&1 || { echo "newcomer: the release build failed" >&2; exit 3; }
rm -rf "$root/build/newcomer-wheel"
PATH="$root/.venv/bin:$PATH" "$root/.venv/bin/python" "$root/ci/wheel.py" linux --build "$root/build/release" \
  --out "$root/build/newcomer-wheel" --auditwheel "$root/.venv/bin/auditwheel" >"$root/build/newcomer-wheel.log" 2>&1 ||
  { echo "newcomer: ci/wheel.py failed" >&2; tail "$root/build/newcomer-wheel.log" >&2; exit 3; }
wheel="$(ls "$root"/build/newcomer-wheel/pinbench-*.whl)"

tmp="$(mktemp -d)"
trap 'tmux kill-session -t newcomer 2>/dev/null; rm -rf "$tmp"' EXIT
home="$tmp/home"
work="$tmp/empty"
mkdir -p "$home" "$work"
transcript="$out/transcript.txt"
: >"$transcript"
failed=0
# One step: the command as typed (paths shortened to ~ and the wheel's name), its output, its code.
step() {  # WANT_CODE COMMAND...
  local want="$1" code
  shift
  printf '$ %s\n' "$*" | sed "s|$tmp|/tmp/newcomer|g; s|$root/build/newcomer-wheel/||g" >>"$transcript"
  (cd "$work" && env -i HOME="$home" PATH="$home/venv/bin:/usr/bin:/bin" TERM=dumb LANG=C.UTF-8 bash -c "$*") \
    >"$tmp/step.out" 2>&1
  code=$?
  sed "s|$tmp|/tmp/newcomer|g" "$tmp/step.out" >>"$transcript"
  printf '[exit %d]\n\n' "$code" >>"$transcript"
  if [[ $code != "$want" ]]; then
    echo "newcomer: FAILED (exit $code, wanted $want): $*" >&2
    failed=1
  fi
  return 0
}
expect() {  # WHAT TEST...: a check on the state after a step, written to the transcript
  local what="$1"
  shift
  if "$@"; then echo "# ok: $what" >>"$transcript"; else echo "# FAILED: $what" >>"$transcript"; failed=1; fi
  echo >>"$transcript"
}

step 0 "python3 -m venv ~/venv && ~/venv/bin/pip install --quiet $wheel"
step 0 "pinbench --help"
step 3 "pinbench run quick -o out/quick.json"
expect "one line, no results file, no summary, no out/ folder" \
  bash -c "[[ \$(grep -c . '$tmp/step.out') == 1 ]] && [[ -z \$(ls -A '$work') ]]"
step 0 "pinbench run --backend replay --from h200-smoke --script relabel-demo -o replayed.json"
expect "the replay wrote its results and the answer's Markdown" test -s "$work/replayed.json" -a -s "$work/replayed.summary.md"
step 0 "pinreport html --current replayed.json -o report.html"
expect "the page says the verdict" grep -q 'id="verdict">' "$work/report.html"
step 0 "mkdir -p ~/.local/share/bash-completion/completions && pinbench completion bash > ~/.local/share/bash-completion/completions/pinbench"
step 0 "source ~/.local/share/bash-completion/completions/pinbench && complete -p pinbench &&
  for line in 'pinbench ru' 'pinbench run --on' 'pinbench store a' 'pinbench completion f'; do
    read -ra COMP_WORDS <<<\"\$line\"; COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1)); _pinbench_complete;
    echo \"\$line<TAB> -> \${COMPREPLY[*]}\"; done"
step 0 "pinreport completion bash > ~/.local/share/bash-completion/completions/pinreport"
step 0 "source ~/.local/share/bash-completion/completions/pinreport && complete -p pinreport &&
  for typed in 'pinreport su' 'pinreport summary --mark' 'pinreport completion '; do
    read -ra COMP_WORDS <<<\"\$typed\"; [[ \$typed == *' ' ]] && COMP_WORDS+=(''); COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1));
    _shtab_pinreport pinreport \"\${COMP_WORDS[COMP_CWORD]}\" \"\${COMP_WORDS[COMP_CWORD-1]}\";
    echo \"\$typed<TAB> -> \${COMPREPLY[*]}\"; done"
expect "pinreport's completion offered summary, --markdown, and the shells" \
  bash -c "grep -qx 'pinreport su<TAB> -> summary' '$tmp/step.out' && grep -qx 'pinreport summary --mark<TAB> -> --markdown' '$tmp/step.out' && grep -qx 'pinreport completion <TAB> -> bash zsh' '$tmp/step.out'"

# The progress line on a terminal: the same replay in tmux, its screen polled every 0.1 s (for
# at most 60 s), each new screen labelled with the seconds since the replay started.
tmux kill-session -t newcomer 2>/dev/null
tmux new-session -d -s newcomer -x 100 -y 12 \
  "cd '$work' && env -i HOME='$home' PATH='$home/venv/bin:/usr/bin:/bin' TERM=xterm LANG=C.UTF-8 pinbench run --backend replay --from h200-smoke --no-summary -o tty.json; echo \"[exit \$?]\"; sleep 30"
started="$EPOCHREALTIME"
: >"$out/progress-tty.txt"
while :; do
  elapsed="$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
  screen="$(tmux capture-pane -p -t newcomer 2>/dev/null | sed "s|$tmp|/tmp/newcomer|g" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')"
  if [[ $screen != "${last:-}" ]]; then
    printf -- '--- %s s ---\n%s\n' "$elapsed" "$screen" >>"$out/progress-tty.txt"
    last="$screen"
  fi
  grep -q '^\[exit' <<<"$screen" && break
  awk -v e="$elapsed" 'BEGIN { exit !(e > 60) }' && break
  sleep 0.1
done
expect "the terminal showed the progress line in place (one [n/N] line at a time)" \
  bash -c "! awk '/^--- /{if (n > 1) bad=1; n=0; next} /^\\[[0-9]+\\/[0-9]+\\] /{n++} END{exit !bad && n <= 1 ? 1 : 0}' '$out/progress-tty.txt'"

step 0 "~/venv/bin/pip uninstall --yes --quiet pinbench && find ~/venv -path '*pinbench*' -o -path '*pinreport*' | grep -v /pip/ | wc -l"
expect "nothing of pinbench's left in the venv" bash -c "tail -3 '$transcript' | grep -qx '0'"
echo "newcomer: $( ((failed)) && echo FAILED || echo ok ); $transcript"
exit "$failed"
