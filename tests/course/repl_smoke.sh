#!/usr/bin/env bash
# Drives the interactive REPL in a real terminal (tmux): tab completion of commands and puzzle
# names, history recall with the Up key, and `watch` re-checking after the file is saved.
# usage: repl_smoke.sh PALLAS_PUZZLES TEST_COURSE_DIR PALLAS_CHECK_PY
set -euo pipefail
cli=$(realpath "$1") course=$(realpath "$2") harness=$(realpath "$3")
if ! command -v tmux >/dev/null; then
  echo "tmux is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
work=$(mktemp -d)
session="pz_smoke_$$"
cleanup() { tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
cp -r "$course"/. "$work"
cp "$harness" "$work/puzzles/pallas_check.py"
(cd "$work" && "$cli" init ws >/dev/null)

tmux -f /dev/null new-session -d -s "$session" -x 200 -y 50 \
  "cd '$work/ws' && env NO_COLOR=1 TERM=xterm '$cli'; sleep 30"

# Waits until the pane shows TEXT (a fixed string) or fails after ~20 s.
wait_for() {
  for _ in $(seq 1 100); do
    if tmux capture-pane -p -t "$session" -S -200 | grep -qF -- "$1"; then return 0; fi
    sleep 0.2
  done
  echo "FAIL: the REPL never showed: $1" >&2
  tmux capture-pane -p -t "$session" -S -200 >&2
  exit 1
}

wait_for "help\` lists the commands"
# Completion of a command: "prog<Tab>" becomes "progress".
tmux send-keys -t "$session" "prog" Tab Enter
wait_for "] 0/2"
# Completion of a puzzle name: "goto 02_row<Tab>" becomes "goto 02_row_blocks".
tmux send-keys -t "$session" "goto 02_row" Tab Enter
wait_for "1.2 Row blocks"
# History: Up recalls the previous command.
tmux send-keys -t "$session" "hint" Enter
wait_for "hint 1 of 2"
tmux send-keys -t "$session" Up Enter
wait_for "hint 2 of 2"
# Watch: the first check fails; saving the solution re-checks and passes; a key stops.
tmux send-keys -t "$session" "watch 1.2" Enter
wait_for "save it to check again"
cp "$work/solutions/01_intro/02_row_blocks.py" "$work/ws/01_intro/02_row_blocks.py"
wait_for "PASSED copy"
tmux send-keys -t "$session" "q"
wait_for "stopped watching"
tmux send-keys -t "$session" "quit" Enter
wait_for "bye"
grep -qx "hint" "$work/ws/.history" || { echo "FAIL: history file lacks 'hint'" >&2; exit 1; }
grep -q '"solved": true' "$work/ws/progress.json" || { echo "FAIL: progress not saved" >&2; exit 1; }
echo "repl smoke test passed"
