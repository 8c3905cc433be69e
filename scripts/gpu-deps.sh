#!/usr/bin/env bash
# gpu-deps.sh — run HERE (not on the GPU machine) before a device call: the
# lent GPU machine has CUDA, CMake and Python but not cmocka, libspng or cJSON
# and no network, so their Debian packages are unpacked into .gpu-deps/root
# (git-ignored), which the device call carries and scripts/gpu-check uses.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .gpu-deps
mkdir -p .gpu-deps/debs .gpu-deps/root
(cd .gpu-deps/debs && apt-get download -qq libcmocka0 libcmocka-dev libspng0 libspng-dev libcjson1 libcjson-dev zlib1g zlib1g-dev 2>/dev/null)
for deb in .gpu-deps/debs/*.deb; do dpkg-deb -x "$deb" .gpu-deps/root; done
rm -rf .gpu-deps/debs
# OR-Tools, the knapsack peer, for the device's Python 3.12 (it has NumPy,
# pandas and absl but not OR-Tools, immutabledict or the protobuf it needs);
# scripts/gpu-check installs them into a temporary folder.
mkdir -p .gpu-deps/wheels
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d .gpu-deps/wheels ortools==9.15.6755 immutabledict==4.3.1 \
  "protobuf>=6.33.1,<6.34" ||
  echo "gpu-deps: no OR-Tools wheels (no network?): the device runs without the knapsack peer"
echo "gpu-deps: $(du -sh .gpu-deps | cut -f1) in .gpu-deps/root"
