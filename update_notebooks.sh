#!/usr/bin/env bash
# Regenerates what the course derives from its sources: the diagrams the chapters declare
# (images/, `pallas-puzzles export-diagrams`) and the notebooks (notebooks/NN_chapter.ipynb with
# the starters, notebooks/solutions/NN_chapter.ipynb with the solutions). Commit them with the
# sources they come from.
#
# usage: ./update_notebooks.sh           build the release preset if needed, regenerate
#        ./update_notebooks.sh --check   regenerate into a temporary directory; exit 1 when a
#                                        committed notebook or diagram is stale
# PALLAS_PUZZLES=path/to/pallas-puzzles uses that binary and builds nothing (the ctest test).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *)
    echo "usage: $0 [--check]" >&2
    exit 64
    ;;
esac

bin="${PALLAS_PUZZLES:-}"
if [[ -z "$bin" ]]; then
  if [[ ! -f "$root/build/release/build.ninja" ]]; then
    cmake --preset release -S "$root" >/dev/null
  fi
  cmake --build "$root/build/release" --target pallas-puzzles >/dev/null
  bin="$root/build/release/engine/cli/pallas-puzzles"
fi
cd "$root"
# The course the binary exports is this checkout's, wherever it runs from.
export PALLAS_PUZZLES_COURSE="$root"
export NO_COLOR=1

if ((check == 0)); then
  "$bin" export-diagrams "$root/images"
  rm -f "$root"/notebooks/*.ipynb "$root"/notebooks/solutions/*.ipynb
  "$bin" export-notebooks "$root/notebooks"
  "$bin" export-notebooks --solutions "$root/notebooks/solutions"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$bin" export-diagrams "$tmp/images" >/dev/null
"$bin" export-notebooks "$tmp/notebooks" >/dev/null
"$bin" export-notebooks --solutions "$tmp/notebooks/solutions" >/dev/null

stale=0
compare() {  # compare GENERATED COMMITTED
  if ! cmp -s "$1" "$2"; then
    echo "stale: ${2#"$root"/}" >&2
    stale=1
  fi
}
for f in "$tmp"/images/*.svg; do
  if [[ -e "$f" ]]; then compare "$f" "$root/images/$(basename "$f")"; fi
done
for sub in "" solutions/; do
  for f in "$tmp/notebooks/$sub"*.ipynb; do
    compare "$f" "$root/notebooks/$sub$(basename "$f")"
  done
  for f in "$root/notebooks/$sub"*.ipynb; do
    if [[ -e "$f" && ! -e "$tmp/notebooks/$sub$(basename "$f")" ]]; then
      echo "stale: notebooks/$sub$(basename "$f") belongs to no chapter" >&2
      stale=1
    fi
  done
done
if ((stale)); then
  echo "the committed notebooks or diagrams are out of date; run ./update_notebooks.sh and commit" >&2
  exit 1
fi
echo "notebooks and diagrams are up to date"
