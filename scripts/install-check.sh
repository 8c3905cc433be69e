#!/usr/bin/env bash
# install-check.sh — installs skss into a temporary prefix and builds the
# examples against it twice: with CMake's find_package(skss) and with
# pkg-config, then runs them. Proves the package files are complete.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake -S . -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSKSS_BUILD_TESTS=OFF \
  -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
cmake --build "$work/build" -j "$(nproc)" >/dev/null
cmake --install "$work/build" >/dev/null
cmake -S examples -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
pcdir=$(dirname "$(find "$work/prefix" -name skss.pc | head -n1)")
libdir=$(dirname "$pcdir")
LD_LIBRARY_PATH="$libdir" "$work/consumer/skss_quickstart" >/dev/null
PKG_CONFIG_PATH="$pcdir" cc -std=c11 -o "$work/quickstart_pc" examples/quickstart.c \
  $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs skss)
LD_LIBRARY_PATH="$libdir" "$work/quickstart_pc" >/dev/null
"$work/prefix/bin/skss" info >/dev/null
echo "install-check: find_package(skss) and pkg-config consumers built and ran"
