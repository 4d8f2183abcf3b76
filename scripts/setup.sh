#!/usr/bin/env bash
# setup.sh: installs the Debian packages shardc builds and tests with, and only
# those that are missing, so it is fast and offline on a prepared machine.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++
  antlr4 default-jre-headless libantlr4-runtime-dev
  llvm-14-dev llvm-14-tools
  libfmt-dev googletest libgtest-dev
  libmimalloc-dev
  python3 python3-jsonschema
  clang-14 libclang-rt-14-dev clang-format-14
)

# `dpkg -s` alone succeeds for removed packages that left config files behind;
# the status line says whether one is really installed.
installed() {
  dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed$'
}

missing=()
for p in "${PACKAGES[@]}"; do
  installed "$p" || missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup.sh: all packages present"
  exit 0
fi

echo "setup.sh: installing ${missing[*]}"
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  SUDO=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing[@]}"
