/*
 * align_emu.h — just enough of CUDA to run src/cuda/align/align_band.cuh on CPU
 * threads: one std::thread a CUDA thread of one block, a warp's lanes meeting at
 * a barrier for every shuffle and __syncwarp, the block at __syncthreads, the
 * DPX intrinsics by their documented formulas, and the three task-array calls
 * of include/skss_cuda.cuh (ticket, acquire wait, release publish) on
 * std::atomic_ref, which also report waits and publishes out of range.
 * Include after the CUDA runtime header and before the device code.
 */
#ifndef SKSS_TESTS_ALIGN_EMU_H
#define SKSS_TESTS_ALIGN_EMU_H
#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstring>
#include <thread>
#include <cstdio>
#include <cstdlib>

#undef __device__
#define __device__
#undef __global__
#define __global__
#undef __forceinline__
#define __forceinline__ inline
#undef __launch_bounds__
#define __launch_bounds__(x)
#undef __shared__
#define __shared__ static

struct emu_warp {
  std::barrier<> bar{32};
  int slot[32];
};
inline thread_local int emu_lane = 0, emu_tid = 0;
inline thread_local emu_warp *emu_w = nullptr;
inline std::barrier<> *emu_block = nullptr;
inline int emu_block_dim = 0;
struct emu_idx { unsigned x, y, z; };
inline emu_idx emu_thread_idx() { return emu_idx{(unsigned)emu_tid, 0, 0}; }
inline emu_idx emu_block_dim_f() { return emu_idx{(unsigned)emu_block_dim, 1, 1}; }
#define threadIdx emu_thread_idx()
#define blockDim emu_block_dim_f()

template <class T> T emu_xchg(T v, int src, bool keep_own_if_oob) {
  static_assert(sizeof(T) == 4, "4-byte shuffles");
  int x;
  std::memcpy(&x, &v, 4);
  emu_w->slot[emu_lane] = x;
  emu_w->bar.arrive_and_wait();
  int r = (src < 0 || src > 31) && keep_own_if_oob ? x : emu_w->slot[src & 31];
  emu_w->bar.arrive_and_wait();
  T out;
  std::memcpy(&out, &r, 4);
  return out;
}
template <class T> T __shfl_sync(unsigned, T v, int src) { return emu_xchg(v, src, false); }
template <class T> T __shfl_up_sync(unsigned, T v, unsigned d) { return emu_xchg(v, emu_lane - (int)d, true); }
template <class T> T __shfl_xor_sync(unsigned, T v, int m) { return emu_xchg(v, emu_lane ^ m, false); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_w->bar.arrive_and_wait(); }
inline void __syncthreads() { emu_block->arrive_and_wait(); }
template <class T> T __ldg(const T *p) { return *p; }
template <class T> T __ldcg(const T *p) { return *p; }
template <class T> void __stcg(T *p, T v) { *p = v; }
inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v) {
  std::atomic_ref<unsigned long long> a(*p);
  unsigned long long cur = a.load();
  while (cur < v && !a.compare_exchange_weak(cur, v)) {}
  return cur;
}
inline unsigned atomicAdd(unsigned *p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
inline int __viaddmax_s32(int a, int b, int c) { return std::max(a + b, c); }
inline int __vimax_s32_relu(int a, int b) { return std::max(std::max(a, b), 0); }
inline int __vibmax_s32(int a, int b, bool *pred) { *pred = a >= b; return std::max(a, b); }
using std::max;
using std::min;

inline std::atomic<int> emu_faults{0};
inline int skss_cuda_warp_take_row(const skss_cuda_taskarray_view &v) {
  int row = 0;
  if (emu_lane == 0) row = (int)std::atomic_ref<unsigned>(*v.ticket).fetch_add(1u);
  return __shfl_sync(0xffffffffu, row, 0);
}
inline void skss_cuda_warp_wait_row_unchecked(const skss_cuda_taskarray_view &v, int row, int done) {
  if (emu_lane == 0) {
    if (done > v.cols || row < 0 || row >= v.rows) { std::fprintf(stderr, "bad wait %d %d\n", row, done); emu_faults++; }
    std::atomic_ref<int> p(v.progress[row]);
    while (p.load(std::memory_order_acquire) < done) std::this_thread::yield();
  }
  __syncwarp();
}
inline void skss_cuda_warp_publish(const skss_cuda_taskarray_view &v, int row, int done) {
  __syncwarp();
  if (emu_lane == 0) {
    std::atomic_ref<int> p(v.progress[row]);
    if (done > v.cols || done < p.load()) { std::fprintf(stderr, "bad publish %d %d\n", row, done); emu_faults++; }
    p.store(done, std::memory_order_release);
  }
}

#endif
