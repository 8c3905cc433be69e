/*
 * compact_paper.cu — SKSS_COMPACT_ALGORITHM_FLAG_SCAN_SCATTER and FLAG_CPUSCAN_SCATTER:
 * Pirjan's three steps ("Designing an efficient stream compaction algorithmic function"),
 * a kernel each: 1. a 0/1 flag byte per element; 2. the exclusive prefix sum of the flags,
 * per block by warp scans and one warp summing the warps' totals (Solutions 4, 5), the
 * block sums scanned the same way, level by level; 3. the scatter of each kept element to
 * its slot. Every kernel gives a thread 8 elements as two groups of four (Solution 3); block
 * size and grid come from n and the device's threads-per-block limit as in Figure 4.
 * FLAG_CPUSCAN_SCATTER does step 2 on the host (the Solution 1 ablation). Positions are kept
 * as a 16-bit offset in the block plus the block's 64-bit offset, so n reaches 2^40.
 */
#include <string.h>

#include "../tuning.h"
#include "../warp_scan.cuh"
#include "compact_cuda.cuh"

namespace {

constexpr int ITEMS = SKSS_CUDA_COMPACT_PAPER_ITEMS;
static_assert(ITEMS == 8, "two groups of four elements a thread");

/* Figure 4: blocks = max(1, ceil(m / (8 * max_threads))); threads =
 * max_threads when there are several blocks, else ceil(m / 8) (here rounded
 * up to whole warps, which the warp scans need). A block covers 8 * threads
 * elements: group g of thread i holds elements 4 * (g * threads + i) .. +3. */
struct geometry {
  long long blocks;
  int threads;
  long long span() const { return static_cast<long long>(ITEMS) * threads; }
  long long padded() const { return blocks * span(); }
};

geometry figure4(long long m, int max_threads) {
  geometry g;
  const long long per = static_cast<long long>(ITEMS) * max_threads;
  g.blocks = m <= per ? 1 : (m + per - 1) / per;
  const long long t = g.blocks > 1 ? max_threads : (m + ITEMS - 1) / ITEMS;
  g.threads = static_cast<int>((t + 31) / 32 * 32);
  if (g.threads < 32) g.threads = 32;
  return g;
}

/* Exclusive scan of one value a thread over the block (whole warps):
 * warp scans, the warps' totals in shared memory, one warp scanning them. */
template <typename V>
__device__ V block_exclusive(V x, V *s_warp /* [33] */, V &total) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const V incl = skss_warp::kogge_stone::scan(x, lane);
  if (lane == 31) s_warp[warp] = incl;
  /* every warp's total is in shared memory */
  __syncthreads();
  if (warp == 0) {
    const V w = lane < warps ? s_warp[lane] : V(0);
    const V wi = skss_warp::kogge_stone::scan(w, lane);
    if (lane < warps) s_warp[lane] = wi - w;
    if (lane == 31) s_warp[32] = wi;
  }
  /* the warps' offsets and the block's total are in shared memory */
  __syncthreads();
  total = s_warp[32];
  return s_warp[warp] + incl - x;
}

/* Four elements idx .. idx+3 (loaded when below n); `vec`: one aligned load. */
template <typename UT>
__device__ __forceinline__ void load4(const UT *in, long long idx, long long n, bool vec, UT x[4]) {
  if (vec && idx + 4 <= n) {
    if constexpr (sizeof(UT) == 8) {
      const uint4 a = *reinterpret_cast<const uint4 *>(in + idx), b = *reinterpret_cast<const uint4 *>(in + idx + 2);
      x[0] = skss__cp_get<UT>(a, 0);
      x[1] = skss__cp_get<UT>(a, 1);
      x[2] = skss__cp_get<UT>(b, 0);
      x[3] = skss__cp_get<UT>(b, 1);
    } else if constexpr (sizeof(UT) == 4) {
      const uint4 a = *reinterpret_cast<const uint4 *>(in + idx);
      x[0] = a.x;
      x[1] = a.y;
      x[2] = a.z;
      x[3] = a.w;
    } else if constexpr (sizeof(UT) == 2) {
      const uint2 a = *reinterpret_cast<const uint2 *>(in + idx);
      x[0] = static_cast<UT>(a.x);
      x[1] = static_cast<UT>(a.x >> 16);
      x[2] = static_cast<UT>(a.y);
      x[3] = static_cast<UT>(a.y >> 16);
    } else {
      const unsigned a = *reinterpret_cast<const unsigned *>(in + idx);
#pragma unroll
      for (int e = 0; e < 4; e++) x[e] = static_cast<UT>(a >> (8 * e));
    }
    return;
  }
#pragma unroll
  for (int e = 0; e < 4; e++) x[e] = idx + e < n ? in[idx + e] : UT(0);
}

/* 4 flag bits as 4 flag bytes of one word (byte e = bit e). */
__device__ __forceinline__ unsigned spread4(unsigned b) {
  return (b & 1u) | (b >> 1 & 1u) << 8 | (b >> 2 & 1u) << 16 | (b >> 3 & 1u) << 24;
}

/* Step 1: flags[k] = 1 if element k is kept (0 past n, up to the padding). */
template <typename UT, int TEST>
__global__ void flags_kernel(const UT *in, const uint8_t *mask, long long n, skss__cp_rule r, unsigned *flags,
                             bool vec, bool vec_mask) {
  constexpr bool MASK = TEST == SKSS__CP_MASK_BYTES || TEST == SKSS__CP_MASK_BITS;
  const long long base = static_cast<long long>(blockIdx.x) * ITEMS * blockDim.x;
#pragma unroll
  for (int g = 0; g < 2; g++) {
    const long long idx = base + 4ll * (g * blockDim.x + threadIdx.x);
    unsigned bits = 0;
    if (idx < n) {
      if constexpr (MASK) {
        bits = skss__cp_mask_flags<TEST, 4>(mask, idx, n, vec_mask);
      } else {
        UT x[4];
        load4<UT>(in, idx, n, vec, x);
#pragma unroll
        for (int e = 0; e < 4; e++) bits |= skss__cp_keep<UT, TEST>(x[e], r) << e;
        bits &= skss__cp_valid<4>(idx, n);
      }
    }
    flags[idx / 4] = spread4(bits);
  }
}

/* Step 2, per block: local[k] = kept elements before k in its block (16
 * bits: a block holds at most 8 x 1024), sums[b] = the block's count. */
__global__ void scan_flags_kernel(const unsigned *flags, unsigned short *local, long long *sums) {
  __shared__ unsigned s_warp[33];
  const long long base = static_cast<long long>(blockIdx.x) * ITEMS * blockDim.x;
  const long long i0 = base + 4ll * threadIdx.x, i1 = i0 + 4ll * blockDim.x;
  const unsigned f0 = flags[i0 / 4], f1 = flags[i1 / 4];
  /* both groups in one scan: group 0's counts in the low half, group 1's in the high */
  const unsigned packed = static_cast<unsigned>(__popc(f0)) | static_cast<unsigned>(__popc(f1)) << 16;
  unsigned total;
  const unsigned excl = block_exclusive<unsigned>(packed, s_warp, total);
  unsigned start[2] = {excl & 0xffffu, (total & 0xffffu) + (excl >> 16)};
  const unsigned f[2] = {f0, f1};
  const long long at[2] = {i0, i1};
#pragma unroll
  for (int g = 0; g < 2; g++) {
    unsigned s = start[g], l[4];
#pragma unroll
    for (int e = 0; e < 4; e++) {
      l[e] = s;
      s += (f[g] >> (8 * e)) & 1u;
    }
    *reinterpret_cast<uint2 *>(local + at[g]) = make_uint2(l[0] | l[1] << 16, l[2] | l[3] << 16);
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = (total & 0xffffu) + (total >> 16);
}

/* Step 2, the block sums: an exclusive scan of a[0 .. m) in place, per
 * block; its total to next[b] (several blocks) or to *count (one). */
__global__ void scan_sums_kernel(long long *a, long long m, long long *next, long long *count) {
  __shared__ long long s_warp[33];
  const long long base = static_cast<long long>(blockIdx.x) * ITEMS * blockDim.x;
  long long x[2][4], sum[2] = {0, 0};
#pragma unroll
  for (int g = 0; g < 2; g++) {
    const long long idx = base + 4ll * (g * blockDim.x + threadIdx.x);
#pragma unroll
    for (int e = 0; e < 4; e++) {
      x[g][e] = idx + e < m ? a[idx + e] : 0;
      sum[g] += x[g][e];
    }
  }
  long long t0, t1;
  const long long e0 = block_exclusive<long long>(sum[0], s_warp, t0);
  /* group 0's scan has been read before group 1's reuses the shared words */
  __syncthreads();
  const long long e1 = block_exclusive<long long>(sum[1], s_warp, t1);
  long long start[2] = {e0, t0 + e1};
#pragma unroll
  for (int g = 0; g < 2; g++) {
    const long long idx = base + 4ll * (g * blockDim.x + threadIdx.x);
#pragma unroll
    for (int e = 0; e < 4; e++) {
      if (idx + e < m) a[idx + e] = start[g];
      start[g] += x[g][e];
    }
  }
  if (threadIdx.x == 0) {
    if (next != nullptr) next[blockIdx.x] = t0 + t1;
    else *count = t0 + t1;
  }
}

/* Step 2, down a level: a[k] += the scanned sum of k's block. */
__global__ void add_sums_kernel(long long *a, long long m, const long long *next) {
  const long long base = static_cast<long long>(blockIdx.x) * ITEMS * blockDim.x;
  const long long add = next[blockIdx.x];
#pragma unroll
  for (int g = 0; g < 2; g++) {
    const long long idx = base + 4ll * (g * blockDim.x + threadIdx.x);
#pragma unroll
    for (int e = 0; e < 4; e++)
      if (idx + e < m) a[idx + e] += add;
  }
}

/* Step 3: each kept element k to values / indices[offsets[block] + local[k]];
 * the payload of a group of four is read only when one of them is kept. */
template <typename UT>
__global__ void scatter_kernel(const UT *in, long long n, const unsigned *flags, const unsigned short *local,
                               const long long *offsets, UT *values, long long *indices, bool vec) {
  const long long base = static_cast<long long>(blockIdx.x) * ITEMS * blockDim.x;
  const long long off = offsets[blockIdx.x];
#pragma unroll
  for (int g = 0; g < 2; g++) {
    const long long idx = base + 4ll * (g * blockDim.x + threadIdx.x);
    const unsigned f = flags[idx / 4];
    if (f == 0) continue;
    const uint2 lw = *reinterpret_cast<const uint2 *>(local + idx);
    const unsigned l[4] = {lw.x & 0xffffu, lw.x >> 16, lw.y & 0xffffu, lw.y >> 16};
    UT x[4] = {0, 0, 0, 0};
    if (values != nullptr) load4<UT>(in, idx, n, vec, x);
#pragma unroll
    for (int e = 0; e < 4; e++) {
      if (((f >> (8 * e)) & 1u) == 0) continue;
      const long long dst = off + l[e];
      if (values != nullptr) values[dst] = x[e];
      if (indices != nullptr) indices[dst] = idx + e;
    }
  }
}

/* In place: the kept elements back from scratch, *count of them (read on the device). */
template <typename UT>
__global__ void copy_back_kernel(UT *dst, const UT *src, const long long *count) {
  const long long k = *count, step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < k; i += step) dst[i] = src[i];
}

/* Device scratch of one run, carved in this order. */
struct layout {
  geometry g;
  size_t flags, local, sums, stage; /* bytes of each part (256-aligned) */
  size_t total() const { return flags + local + sums + stage; }
};

layout plan(const skss__cp_args *a) {
  layout l;
  l.g = figure4(a->n, a->device_max_threads);
  const size_t padded = static_cast<size_t>(l.g.padded());
  l.flags = skss__cuda_align(padded);
  l.local = skss__cuda_align(padded * 2);
  /* the block sums of every level: m, then blocks(m), ... down to one block */
  size_t sums = 0;
  for (long long m = l.g.blocks;;) {
    sums += skss__cuda_align(static_cast<size_t>(m) * 8);
    const geometry h = figure4(m, a->device_max_threads);
    if (h.blocks == 1) break;
    m = h.blocks;
  }
  l.sums = sums;
  l.stage = a->values != nullptr && a->values == a->in ? skss__cuda_align(static_cast<size_t>(a->n) * a->width) : 0;
  return l;
}

/* Step 2 of the block sums on the GPU, level by level, the total to *count. */
skss_status scan_sums(skss_ctx *ctx, const char *fn, long long *a, long long m, int max_threads, long long *count) {
  cudaStream_t stream = skss__cuda(ctx)->stream;
  const geometry h = figure4(m, max_threads);
  long long *next = h.blocks > 1 ? a + (skss__cuda_align(static_cast<size_t>(m) * 8) / 8) : nullptr;
  scan_sums_kernel<<<static_cast<unsigned>(h.blocks), h.threads, 0, stream>>>(a, m, next, count);
  SKSS_CUDA_CHECK_LAUNCH(ctx, fn);
  if (next == nullptr) return SKSS_OK;
  skss_status st = scan_sums(ctx, fn, next, h.blocks, max_threads, count);
  if (st != SKSS_OK) return st;
  add_sums_kernel<<<static_cast<unsigned>(h.blocks), h.threads, 0, stream>>>(a, m, next);
  SKSS_CUDA_CHECK_LAUNCH(ctx, fn);
  return SKSS_OK;
}

/* Step 2 on the host (Solution 1's ablation): the flags come back, the
 * host scans them sequentially, the positions and the count go back. */
skss_status host_scan(skss_ctx *ctx, const char *fn, const layout &l, const unsigned *flags_dev,
                      unsigned short *local_dev, long long *offsets_dev, long long *count_dev) {
  cudaStream_t stream = skss__cuda(ctx)->stream;
  const size_t padded = static_cast<size_t>(l.g.padded()), span = static_cast<size_t>(l.g.span());
  const size_t blocks = static_cast<size_t>(l.g.blocks);
  uint8_t *host = static_cast<uint8_t *>(skss__scratch(ctx, padded * 3 + blocks * 8 + 8));
  if (host == nullptr)
    return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no host memory for the flags of the host scan", fn);
  uint8_t *flags = host;
  unsigned short *local = reinterpret_cast<unsigned short *>(host + padded);
  long long *offsets = reinterpret_cast<long long *>(host + padded * 3);
  SKSS_CUDA_TRY(ctx, fn, cudaMemcpyAsync(flags, flags_dev, padded, cudaMemcpyDeviceToHost, stream));
  SKSS_CUDA_TRY(ctx, fn, cudaStreamSynchronize(stream));
  long long total = 0;
  for (size_t b = 0; b < blocks; b++) {
    offsets[b] = total;
    unsigned in_block = 0;
    for (size_t k = b * span; k < (b + 1) * span; k++) {
      local[k] = static_cast<unsigned short>(in_block);
      in_block += flags[k];
    }
    total += in_block;
  }
  offsets[blocks] = total; /* the count, uploaded with the offsets */
  SKSS_CUDA_TRY(ctx, fn, cudaMemcpyAsync(local_dev, local, padded * 2, cudaMemcpyHostToDevice, stream));
  SKSS_CUDA_TRY(ctx, fn, cudaMemcpyAsync(offsets_dev, offsets, blocks * 8, cudaMemcpyHostToDevice, stream));
  SKSS_CUDA_TRY(ctx, fn, cudaMemcpyAsync(count_dev, offsets + blocks, 8, cudaMemcpyHostToDevice, stream));
  /* the host buffers are the context's scratch: they must be read before the call returns */
  SKSS_CUDA_TRY(ctx, fn, cudaStreamSynchronize(stream));
  return SKSS_OK;
}

struct run_paper {
  skss_ctx *ctx;
  const char *fn;
  const skss__cp_args *a;
  bool cpu_scan;
  uint8_t *scratch;
  template <typename UT, int TEST>
  skss_status operator()() const {
    cudaStream_t stream = skss__cuda(ctx)->stream;
    const layout l = plan(a);
    unsigned *flags = reinterpret_cast<unsigned *>(scratch);
    unsigned short *local = reinterpret_cast<unsigned short *>(scratch + l.flags);
    long long *sums = reinterpret_cast<long long *>(scratch + l.flags + l.local);
    UT *stage = reinterpret_cast<UT *>(scratch + l.flags + l.local + l.sums);
    const bool in_place = l.stage != 0;
    const UT *in = static_cast<const UT *>(a->in);
    const bool vec = reinterpret_cast<uintptr_t>(in) % 16 == 0;
    const bool vec_mask = reinterpret_cast<uintptr_t>(a->mask) % 16 == 0;
    const unsigned blocks = static_cast<unsigned>(l.g.blocks);
    flags_kernel<UT, TEST><<<blocks, l.g.threads, 0, stream>>>(in, a->mask, a->n, a->rule, flags, vec, vec_mask);
    SKSS_CUDA_CHECK_LAUNCH(ctx, fn);
    skss_status st;
    if (cpu_scan) {
      st = host_scan(ctx, fn, l, flags, local, sums, a->count);
    } else {
      scan_flags_kernel<<<blocks, l.g.threads, 0, stream>>>(flags, local, sums);
      SKSS_CUDA_CHECK_LAUNCH(ctx, fn);
      st = scan_sums(ctx, fn, sums, l.g.blocks, a->device_max_threads, a->count);
    }
    if (st != SKSS_OK || (a->values == nullptr && a->indices == nullptr)) return st;
    UT *values = in_place ? stage : static_cast<UT *>(a->values);
    scatter_kernel<UT><<<blocks, l.g.threads, 0, stream>>>(in, a->n, flags, local, sums, values, a->indices, vec);
    SKSS_CUDA_CHECK_LAUNCH(ctx, fn);
    if (!in_place) return SKSS_OK;
    const long long most = static_cast<long long>(a->device_sms) * SKSS_CUDA_COMPACT_COPY_BLOCKS_PER_SM;
    const long long want = (a->n + 255) / 256;
    copy_back_kernel<UT><<<static_cast<unsigned>(want < most ? want : most), 256, 0, stream>>>(
        static_cast<UT *>(a->values), stage, a->count);
    SKSS_CUDA_CHECK_LAUNCH(ctx, fn);
    return SKSS_OK;
  }
};

}  // namespace

size_t skss__cp_paper_scratch(const skss__cp_args *a) { return plan(a).total(); }

skss_status skss__cp_paper(skss_ctx *ctx, const char *fn, const skss__cp_args *a, bool cpu_scan, void *scratch) {
  return skss__cp_dispatch(a, run_paper{ctx, fn, a, cpu_scan, static_cast<uint8_t *>(scratch)});
}
