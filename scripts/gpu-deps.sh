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
echo "gpu-deps: $(du -sh .gpu-deps | cut -f1) in .gpu-deps/root"
