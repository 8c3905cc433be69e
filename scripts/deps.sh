#!/usr/bin/env bash
# deps.sh — installs what a fresh Debian 12 machine lacks to build, test and
# run skss: the C toolchain, CMake/Ninja, libspng, cmocka and cJSON from
# Debian's packages; clang's libFuzzer runtime for the fuzz replay; and, from
# PyPI, the Python peers (NumPy, Pillow, OpenCV, OR-Tools, parasail, Biopython,
# pytest, matplotlib; mknapsack in a virtual environment of its own)
# what builds the Python package (scikit-build-core, nanobind) and Dask for
# its skss.dask tests.
# Idempotent and quiet when everything is present. The CUDA toolkit is not
# installed here: with nvcc on PATH (or in /usr/local/cuda) the CUDA backend
# is built too, without it the build is CPU-only.
#
# Python: if `python3` already imports every peer it is used as is; else a
# virtual environment is made in .venv (the Makefile prefers it when present).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(build-essential cmake ninja-build pkg-config libspng-dev libcmocka-dev libcjson-dev
  python3 python3-venv python3-pip clang libclang-rt-14-dev)
PY_PACKAGES=(numpy pillow opencv-python-headless ortools pytest matplotlib scikit-build-core nanobind
  "dask[array,distributed]" parasail biopython)
PY_IMPORTS="import numpy, PIL, cv2, ortools, pytest, matplotlib, scikit_build_core, nanobind, dask.array, distributed, parasail, Bio"

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps.sh: installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# mknapsack (Martello and Toth's MT1/MT2, a knapsack peer of the bench and its
# tests) ships wheels built against NumPy 1, which cannot load beside the
# NumPy 2 of the other peers: it gets a virtual environment of its own,
# .venv-mknapsack, that bench/peers/mknapsack_peer.py runs in.
if ! { [ -x .venv-mknapsack/bin/python ] && .venv-mknapsack/bin/python -c "import mknapsack" 2>/dev/null; }; then
  echo "deps.sh: installing mknapsack into .venv-mknapsack"
  rm -rf .venv-mknapsack
  python3 -m venv .venv-mknapsack
  .venv-mknapsack/bin/python -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
    "numpy<2" mknapsack==1.1.12
fi

if python3 -c "$PY_IMPORTS" 2>/dev/null; then
  exit 0
fi
if [ -x .venv/bin/python ] && .venv/bin/python -c "$PY_IMPORTS" 2>/dev/null; then
  exit 0
fi
# Prefer installing into a python3 that is not Debian-managed (pyenv, conda);
# Debian's own interpreter refuses global pip installs, so use a venv there.
if python3 -m pip --version >/dev/null 2>&1 &&
  python3 -c 'import sys, sysconfig, os; sys.exit(os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
  echo "deps.sh: installing Python packages into $(command -v python3): ${PY_PACKAGES[*]}"
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore "${PY_PACKAGES[@]}"
else
  echo "deps.sh: installing Python packages into .venv: ${PY_PACKAGES[*]}"
  python3 -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --root-user-action=ignore "${PY_PACKAGES[@]}"
fi
