#!/usr/bin/env bash
# The live display on a real terminal (tmux): `kernelarc run` at 200x50 and at 80x24, the first resized to 80x24 mid-run,
# and one on a terminal too small for the block (plain lines). Each screen is captured as the user sees it (tmux
# capture-pane: the text on the screen, escape codes applied) into OUT_DIR as a text file; the checks are on those files:
# the block drawn exactly once, no line of it reaching the terminal's last column, nothing left of an earlier block after a
# redraw or a resize, the summary below the final block. docs/terminal/ keeps a copy of the captures.
# Usage: live_display_terminal.sh KERNELARC TASK_DIR OUT_DIR
set -euo pipefail
[[ ${TRACE:-} ]] && set -x
kernelarc=$1 task=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
command -v tmux >/dev/null || { echo "tmux is not installed (scripts/setup installs it)"; exit 1; }
# A tmux server per session (tmux 3.3a's server can crash making a second session with window-size manual).
tmux_() {
  local name=$1
  shift
  tmux -L "kernelarc-live-$$-$name" -f /dev/null "$@"
}
trap 'for s in wide narrow tiny; do tmux_ $s kill-server 2>/dev/null || true; done' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Starts a run in a new session of WIDTHxHEIGHT named NAME; the pane stays after the command ends.
start() {
  local name=$1 width=$2 height=$3
  local command="cd '$out' && KERNELARC_CACHE_DIR='$out/cache' TERM=xterm-256color '$kernelarc' run '$task' --agents 4 --budget 10 --seed 5 --specialise 1 \
--rounds 1 --warmup 1 --iterations 3 --cpu-bandwidth 20 --cpu-gflops 100 --store '$out/$name.db'; echo \"exit code \$?\"; sleep 600"
  tmux_ "$name" new-session -d -s "$name" -x "$width" -y "$height" "$command"
  tmux_ "$name" set-option -g window-size manual
  tmux_ "$name" resize-window -t "$name" -x "$width" -y "$height"
}
capture() { tmux_ "$1" capture-pane -p -t "$1"; }
# Waits (up to 3 minutes) until the screen of NAME matches the extended regex PATTERN.
wait_for() {
  local name=$1 pattern=$2
  for _ in $(seq 1 900); do
    capture "$name" | grep -Eq "$pattern" && return 0
    sleep 0.2
  done
  fail "$name: never showed /$pattern/"; capture "$name"; return 1
}
# The block's lines on a captured screen: its header, the incumbent and the agents.
block_lines() { grep -E '^(copy_grid on cpu: [0-9]+/10 judged|  incumbent |  no incumbent|  agent-[0-9] )' "$1" || true; }
check_block() {
  local file=$1 width=$2 height=$3
  local headers
  headers=$(grep -cE '^copy_grid on cpu: [0-9]+/10 judged' "$file" || true)
  [[ $headers == 1 ]] || fail "$file: the block's header is on the screen $headers times, not once"
  [[ $(block_lines "$file" | grep -c '^  agent-') == 4 ]] || fail "$file: not one line per agent"
  block_lines "$file" | awk -v w="$width" -v f="$file" 'length($0) >= w { print "FAIL: " f ": a line of the block reaches column " w ": " $0; bad = 1 } END { exit bad }' ||
    failures=$((failures + 1))
  [[ $(wc -l <"$file") -le $height ]] || fail "$file: more rows than the terminal has"
  # Right under the header: the incumbent, then the agents (nothing of an earlier block between them).
  grep -A5 -E '^copy_grid on cpu: ' "$file" | sed -n 2p | grep -Eq '^  (incumbent|no incumbent)' || fail "$file: the incumbent is not under the header"
}

# 1. 200x50, resized to 80x24 mid-run.
start wide 200 50
wait_for wide '^  \[3/10\] candidate' && sleep 0.5
capture wide >"$out/live_200x50.txt"
check_block "$out/live_200x50.txt" 200 50
grep -Eq '^copy_grid on cpu: [0-9]+/10 judged in [0-9]+s, about [0-9ms]+ left, [0-9]+ promotions, board [0-9]+ entries, [0-9]+ plateaus$' \
  "$out/live_200x50.txt" || fail "live_200x50.txt: the header is not whole at 200 columns"
tmux_ wide resize-window -t wide -x 80 -y 24
sleep 1.5  # the display looks at the size every quarter second
capture wide >"$out/live_200x50_resized_to_80x24.txt"
check_block "$out/live_200x50_resized_to_80x24.txt" 80 24
grep -Eq '^copy_grid on cpu: .*\.\.\.$' "$out/live_200x50_resized_to_80x24.txt" || fail "resized: the header is not cut to 80 columns"
wait_for wide '^exit code [0-9]+$'  # one run at a time: two would share the cores they are timed on

# 2. 80x24 from the start, to its end: the final block stays above the summary.
start narrow 80 24
wait_for narrow '^  \[3/10\] candidate' && sleep 0.5
capture narrow >"$out/live_80x24.txt"
check_block "$out/live_80x24.txt" 80 24
wait_for narrow '^exit code [0-9]+$'
# The whole history (the summary scrolls the final block off a 24-row screen), wrapped lines joined.
tmux_ narrow capture-pane -p -J -S - -t narrow >"$out/live_80x24_finished.txt"
grep -q '^exit code 0$' "$out/live_80x24_finished.txt" || fail "the 80x24 run did not exit 0"
grep -q '^copy_grid on cpu: 10/10 judged' "$out/live_80x24_finished.txt" || fail "the final block is not on the screen at the end"
grep -Eq '^  best:  candidate [0-9]+, ' "$out/live_80x24_finished.txt" || fail "the summary is not on the screen at the end"
[[ $(grep -cE '^copy_grid on cpu: [0-9]+/10 judged' "$out/live_80x24_finished.txt") == 1 ]] || fail "80x24: more than one block left in the history"

# 3. Too small for the block: plain lines, no block.
start tiny 36 7
wait_for tiny '^exit code [0-9]+$'
tmux_ tiny capture-pane -p -J -S - -t tiny | grep -v '^$' >"$out/live_36x7_plain.txt" || true
grep -q '^status: 1/10 judged' "$out/live_36x7_plain.txt" || fail "36x7: no plain status line"
[[ $(grep -cE '^copy_grid on cpu: [0-9]+/10 judged in' "$out/live_36x7_plain.txt") == 0 ]] || fail "36x7: a block was drawn"

ls "$out"/*.txt
if ((failures > 0)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "live display: every check passed"
