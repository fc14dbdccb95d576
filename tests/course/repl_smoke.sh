#!/usr/bin/env bash
# Drives the interactive REPL in a real terminal (tmux): tab completion of commands and puzzle
# names, history recall with the Up key, `watch` clearing the screen, re-checking after the file
# is saved and moving on once it passes (or staying with `s`), `clear`, and `show` paging
# through $PAGER only when its text is longer than the terminal.
# usage: repl_smoke.sh PALLAS_PUZZLES TEST_COURSE_DIR PALLAS_CHECK_PY
set -euo pipefail
cli=$(realpath "$1") course=$(realpath "$2") harness=$(realpath "$3")
if ! command -v tmux >/dev/null; then
  echo "tmux is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
work=$(mktemp -d)
# A tmux server of the test's own, its socket in the work directory: nothing is left in /tmp and
# a user's own tmux sessions are never touched.
sock="$work/tmux.sock"
session="pz_smoke_$$"
cleanup() {
  tmux -S "$sock" kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
cp -r "$course"/. "$work"
cp "$harness" "$work/puzzles/pallas_check.py"
(cd "$work" && "$cli" init ws >/dev/null)

# The pager marks every line it shows, so that paging is visible in the pane.
tmux -S "$sock" -f /dev/null new-session -d -s "$session" -x 200 -y 50 \
  "cd '$work/ws' && env NO_COLOR=1 TERM=xterm PAGER='sed s/^/PAGED:/' '$cli'; sleep 30"

# Waits until the pane of session $2 (default: the REPL's) shows TEXT (a fixed string), in its
# scrollback too, or fails after ~20 s.
wait_for() {
  local target="${2:-$session}"
  for _ in $(seq 1 100); do
    if tmux -S "$sock" capture-pane -p -t "$target" -S -200 | grep -qF -- "$1"; then return 0; fi
    sleep 0.2
  done
  echo "FAIL: the REPL never showed: $1" >&2
  tmux -S "$sock" capture-pane -p -t "$target" -S -200 >&2
  exit 1
}
# Fails when the screen (without its scrollback) shows TEXT.
not_on_screen() {
  if tmux -S "$sock" capture-pane -p -t "$session" | grep -qF -- "$1"; then
    echo "FAIL: the screen still shows: $1" >&2
    tmux -S "$sock" capture-pane -p -t "$session" >&2
    exit 1
  fi
}

wait_for "help\` lists the commands"
# Completion of a command: "prog<Tab>" becomes "progress".
tmux -S "$sock" send-keys -t "$session" "prog" Tab Enter
wait_for "] 0/2"
# Completion of a puzzle name: "goto 02_row<Tab>" becomes "goto 02_row_blocks".
tmux -S "$sock" send-keys -t "$session" "goto 02_row" Tab Enter
wait_for "1.2 Row blocks"
# History: Up recalls the previous command.
tmux -S "$sock" send-keys -t "$session" "hint" Enter
wait_for "hint 1 of 2"
tmux -S "$sock" send-keys -t "$session" Up Enter
wait_for "hint 2 of 2"
# Watch: the screen is cleared; the first check fails; saving the solution re-checks and passes,
# and watch offers to move on to the next unsolved puzzle: `s` stays, `q` stops.
tmux -S "$sock" send-keys -t "$session" "watch 1.2" Enter
wait_for "save it to check again"
not_on_screen "hint 2 of 2"
cp "$work/solutions/01_intro/02_row_blocks.py" "$work/ws/01_intro/02_row_blocks.py"
wait_for "PASSED copy"
wait_for "1.2 passed: moving on to 1.1 Double a vector"
tmux -S "$sock" send-keys -t "$session" "s"
wait_for "staying on 1.2"
tmux -S "$sock" send-keys -t "$session" "q"
wait_for "stopped watching"
# Without a key, watch moves on by itself and checks the next unsolved puzzle.
tmux -S "$sock" send-keys -t "$session" "watch 1.2" Enter
wait_for "checking 1.1 Double a vector"
wait_for "save it to check again"
tmux -S "$sock" send-keys -t "$session" "q"
wait_for "1.1 01_double [1/2]>"
# `clear` empties the screen.
tmux -S "$sock" send-keys -t "$session" "clear" Enter
sleep 0.5
not_on_screen "stopped watching"
# `show` fits this terminal: no pager. On a terminal of 10 rows it pages through $PAGER.
tmux -S "$sock" send-keys -t "$session" "show 1.1" Enter
wait_for "  17 ▌     pass"
not_on_screen "PAGED:"
tmux -S "$sock" -f /dev/null new-session -d -s "${session}_small" -x 100 -y 10 \
  "cd '$work/ws' && env NO_COLOR=1 TERM=xterm PAGER='sed s/^/PAGED:/' '$cli' show 1.1; sleep 30"
wait_for "PAGED:  17 ▌     pass" "${session}_small"
tmux -S "$sock" send-keys -t "$session" "quit" Enter
wait_for "bye"
grep -qx "hint" "$work/ws/.history" || { echo "FAIL: history file lacks 'hint'" >&2; exit 1; }
grep -q '"solved": true' "$work/ws/progress.json" || { echo "FAIL: progress not saved" >&2; exit 1; }
echo "repl smoke test passed"
