#!/usr/bin/env bash
# Installs the Debian packages pallas-puzzles needs to build and test, skipping what is present.
# Uses sudo when not run as root. Safe to run repeatedly.
set -euo pipefail

packages=(build-essential cmake ninja-build libfmt-dev libeigen3-dev nlohmann-json3-dev
          libreadline-dev libgtest-dev libgmock-dev libbenchmark-dev tmux)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
