#!/usr/bin/env bash
# fuzz-replay.sh [SECONDS] — builds the libFuzzer targets of skss_io with
# clang (ASan+UBSan, build dir $SKSS_FUZZ_BUILD, default build-fuzz), replays
# every committed seed in fuzz/corpus/<target>/ once, then fuzzes each target
# for SECONDS (default 20; 0 = replay only). New inputs go to a scratch corpus
# in the build dir, never into the committed one. Exits non-zero on the
# first crash, leak, timeout or broken invariant; the input that triggered
# it is saved as build-fuzz/artifacts/<target>-crash-* — add it to
# fuzz/corpus/<target>/ once fixed.
set -euo pipefail

seconds="${1:-20}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SKSS_FUZZ_BUILD:-$root/build-fuzz}"
targets=(fuzz_pnm fuzz_png fuzz_npy fuzz_knapsack fuzz_fasta)

cc="${CC:-}"
if [[ -z "$cc" ]]; then
  for candidate in clang clang-14 clang-15 clang-16 clang-17 clang-18; do
    if command -v "$candidate" >/dev/null; then cc="$candidate"; break; fi
  done
fi
[[ -n "$cc" ]] || { echo "fuzz-replay: clang not found (libFuzzer needs clang)" >&2; exit 1; }

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSKSS_FUZZ=ON -DSKSS_CUDA=OFF -DSKSS_BUILD_TESTS=OFF -DSKSS_BUILD_TOOLS=ON >/dev/null
ninja -C "$build" "${targets[@]}"

mkdir -p "$build/artifacts"
# Strict limits: a parser must never need much memory or time for a small input.
options=(-malloc_limit_mb=512 -rss_limit_mb=2048 -timeout=10)
for target in "${targets[@]}"; do
  seeds="$root/fuzz/corpus/${target#fuzz_}"
  echo "== $target: replaying $(ls "$seeds" | wc -l) seeds"
  "$build/fuzz/$target" "${options[@]}" "-artifact_prefix=$build/artifacts/$target-" -runs=0 "$seeds"
  if [[ "$seconds" != 0 ]]; then
    scratch="$build/corpus/${target#fuzz_}"
    mkdir -p "$scratch"
    echo "== $target: fuzzing for ${seconds}s"
    "$build/fuzz/$target" "${options[@]}" "-artifact_prefix=$build/artifacts/$target-" \
      -max_total_time="$seconds" "$scratch" "$seeds"
  fi
done
echo "fuzz-replay: all targets clean"
