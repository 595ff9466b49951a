#!/usr/bin/env bash
# Installs, idempotently, every Debian package shard needs to build and test.
set -euo pipefail
PKGS=(build-essential meson ninja-build pkg-config
      llvm-19-dev lld-19 libboost1.81-dev libfmt-dev catch2 libreadline-dev
      zlib1g-dev libzstd-dev libffi-dev libedit-dev libxml2-dev libtinfo-dev
      python3-numpy libopenblas-dev clang-19 libclang-rt-19-dev tmux
      libpcre2-dev openmpi-bin libopenmpi-dev libfftw3-dev)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
