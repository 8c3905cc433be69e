/*
 * halftone_strips.cu — SKSS_HALFTONE_ALGORITHM_STRIPS, our exact GPU error diffusion:
 * SKSS's single kernel and row tickets, with what makes each step shorter
 * and the hand-offs rarer (halftone_wavefront.cuh has the strip engine,
 * run_strip_rows(), whose comment gives the per-step chain aimed for and
 * what was measured):
 *  - the shortest chain per pixel: error collection turned into a push into
 *    registers (each pixel's dependent chain is one multiply-add of the left
 *    error, the division and the threshold), the kernel's weights and
 *    divisor compiled in; the row above's error, which comes by shuffle,
 *    added last; the rows above the warp enter lane 0 through the same
 *    rotating shuffle; ~16 instructions an interior step;
 *  - slack (a tuning knob): rows may lag the row above by slope +
 *    SKSS_CUDA_HT_STRIPS_SLACK columns, so that the shuffle handing an
 *    error to the next lane overlaps the next step instead of lengthening
 *    it (measured not to pay yet: cuda/tuning.h);
 *  - taller strips: a block of 4 compute warps (SKSS_CUDA_HT_STRIPS_WARPS;
 *    2 for one image whose strips all run at once, a block an SM) runs one
 *    strip of 32 x warps rows, the warps handing errors down through shared
 *    memory and meeting at a block barrier every 8 steps; only the strip's
 *    bottom rows go through global memory;
 *  - no memory traffic on the chain: each compute warp has an I/O warp that
 *    loads its pixels two chunks ahead and stores its bytes a chunk behind,
 *    through a double ring in shared memory, between the same barriers;
 *  - no fences on the global hand-off: the strip's two bottom rows of
 *    errors go out as 32-bit words that carry their own tag (error in the
 *    low half, the strip's tag in the high half), so the strip below polls
 *    the data itself instead of a progress flag that needs a fence before
 *    it (tagged_exchange below);
 *  - no global load, and no wait on one, on a compute warp: a border warp
 *    of its own, outside the strip's barrier, polls the strip above and
 *    hands the words to compute warp 0 through shared memory, and every
 *    shared-memory read of the exchange is issued halfway through the group
 *    before, so that a warp, which issues in order, never stalls on it at a
 *    group's start (with the loads in warp 0, the address arithmetic and the
 *    wait before each group cost every strip below the first ~12% of its
 *    step);
 *  - batches: block tickets run over every strip of every image, so many
 *    independent wavefronts fill the GPU.
 */
#include <cuda/atomic>

#include "../taskarray.cuh"
#include "../tuning.h"
#include "halftone_wavefront.cuh"

namespace {

using namespace skss_wf;

/* Compute warps a block (cuda/tuning.h): NW_WIDE for batches and wide
 * images, NW_NARROW for one image whose strips all run at once, one an SM
 * (launch below). A strip has 32 NW rows. */
constexpr int NW_WIDE = SKSS_CUDA_HT_STRIPS_WARPS;
constexpr int NW_NARROW = SKSS_CUDA_HT_STRIPS_WARPS_NARROW;
constexpr int D = SKSS_CUDA_HT_STRIPS_WARP_LAG;
static_assert(D == GROUP, "warps meet every GROUP steps; the warp lag must cover one group");

/* Tag of strip s's words in its ring slot: differs from strip s-2's, never 0. */
__device__ __forceinline__ unsigned strip_tag(int strip) { return (unsigned)((strip >> 1) % 65535 + 1); }

/* Threads of a block: its border warp (warp 0), then the strip's compute
 * and I/O warps (warps 1 .. 2 NW). A warp issues on scheduler (its warp in
 * the block) % 4, so the border warp shares scheduler 0 with warps 4 and 8
 * (NW = 4: compute warp 3 and I/O warp 3; NW = 2: I/O warp 1), not with
 * compute warp 0, which already does the most a step (the ring's words).
 * Against the border warp last (sharing compute warp 0's scheduler), H200,
 * FS, NW = 4: one strip 58.2 -> 55.8 ns a step, 1K 0.223 -> 0.215 ms, 4K
 * 0.855 -> 0.822, 16K 3.38 -> 3.28, 32K 6.76 -> 6.55. */
template <int NW>
constexpr int threads_of() { return 32 + strip_rows_threads<NW>(); }
__device__ __forceinline__ bool is_border_warp() { return threadIdx.x < 32; }
/* The thread's warp among the strip's (run_strip_rows), for the others. */
__device__ __forceinline__ int strip_warp() { return (int)(threadIdx.x >> 5) - 1; }

/* Words of one row of errors in global memory: column x at x + PAD + its
 * row's offset (below), so that the border warp's 16-byte loads are aligned
 * and may run a few columns past either edge. */
constexpr int PAD = 8;
__host__ __device__ constexpr size_t word_pitch(int64_t width) { return ((size_t)width + 2 * PAD + 3) & ~(size_t)3; }

/* Groups of errors the border warp may hold ahead of compute warp 0. */
constexpr int BR = 16;

/* What the border warp hands compute warp 0 (shared memory). Groups are
 * counted over the block's strips (Gb = the block's groups before this
 * strip + G): e[Gb % BR][j] holds the error of the strip above's bottom row
 * at lane 0's column of step 8 G + j plus LAG, and e[..][8 + j] that of the
 * row above it at plus 2 LAG (0 outside the image), each as a word that
 * carries its own tag, as the global words do: error in the low half,
 * ring_tag(Gb) in the high half, which differs between two uses of a slot
 * and is never 0 (the ring starts zeroed). `consumed`: warp 0 has read
 * every group before it. Every access is an atomic, so no word is read
 * while half written and no read races a write. */
struct border_ring {
  alignas(16) unsigned e[BR][16];
  int consumed;
};

__device__ __forceinline__ unsigned ring_tag(int Gb) { return (unsigned)((Gb / BR) & 0x7fff) + 1u; }

/*
 * The hand-off between strips. The strip's bottom warp writes the errors of
 * its two bottom rows as 32-bit words that carry their own tag (error in
 * the low half, the strip's tag in the high half), so the strip below polls
 * the data itself instead of a progress flag that needs a fence before it:
 * a word is single-copy atomic, so a matching tag means its error is that
 * strip's. Words live in a ring of two strips per image (strip s-2's words
 * have been read by strip s-1 before strip s, which waits on s-1, gets that
 * far), zeroed before the kernel, tag = strip / 2 + 1.
 *
 * The strip below reads them through its border warp, a warp of its own
 * outside the strip's barrier: it polls eight groups' words at once (one
 * 16-byte load a lane), hands over each group as soon as all of its words
 * carry the tag, and compute warp 0 reads them from shared memory. So no
 * global load, and no wait on one, is on the chain of compute warp 0 (with
 * the loads in warp 0, a strip below its first stepped ~12% slower).
 */
template <int LAG, int NW>
struct tagged_exchange {
  unsigned *words; /* [image][strip % 2][row 0/1][word_pitch(width)] */
  border_ring *br;

  /* Where row `row` (0: the bottom) of strip `strip` keeps column x. */
  __device__ unsigned *word(const strip_pos &p, int strip, int row, int x) const {
    constexpr int off0 = LAG % 4; /* row 0's first column of a group is 8 G - LAG */
    return words + ((size_t)(p.image * 2 + (strip & 1)) * 2 + row) * word_pitch(p.width) +
           (size_t)(x + PAD + (row == 0 ? off0 : 0));
  }

  /* The block's groups before this strip (every thread keeps its count).
   * An int suffices: a group is 8 steps of 128 rows, so 2^31 of them would
   * be 2^41 pixels through one block. */
  int gbase = 0;

  /* Every compute warp, halfway through group G-1 (so that the
   * shared-memory latency is not a stall at the start of group G, where a
   * warp issues in order, and with no branch among the steps; warp 0 uses
   * it): the ring's word for group G. */
  unsigned pf_word = 0;
  __device__ void group_prefetch(int G) {
    const int Gb = gbase + G;
    pf_word = atomicAdd(&br->e[Gb % BR][threadIdx.x & 15], 0u);
    /* Compute warp 0 has read (and used: no fence needed) the words of
     * every group before G, so the border warp may reuse their slots; said
     * once a chunk (BR covers it), by its lane 0. */
    if (G % (CHUNK / GROUP) == 0 && strip_warp() == 0 && (threadIdx.x & 31) == 0) atomicExch(&br->consumed, Gb);
  }

  /* Compute warp 0 at step T8, the first of a group: lane j < 8 gets the
   * error of the bottom row above at lane 0's column of step T8 + j plus
   * LAG, lane 8 + j that of the row above it at plus 2 LAG (0 outside the
   * image); lanes 16-31 get 0. */
  __device__ int group_words(const strip_pos &, int T8) {
    const int G = T8 / GROUP, Gb = gbase + G, lane = threadIdx.x & 31;
    const unsigned want = ring_tag(Gb);
    unsigned word = pf_word;
    /* spin-wait (rarely: the border warp hands over a few groups ahead):
     * it polls the strip above, which took its ticket first, so it is running. */
    while (!__all_sync(FULL, word >> 16 == want)) word = atomicAdd(&br->e[Gb % BR][lane & 15], 0u);
    return lane < 16 ? (int)(int16_t)(word & 0xffffu) : 0;
  }

  /* Lanes 0-7: error e of the strip's bottom row at step T8 + lane; 8-15:
   * of the row above it (run_strip_rows). */
  __device__ void group_end_e(const strip_pos &p, int e, int T8) {
    if (p.last) return;
    int row;
    const int x = bottom_column<LAG, NW, D>(T8, &row);
    if (x < 0 || x >= p.width) return;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> w(*word(p, p.strip, row, x));
    /* relaxed: tag and error travel in one single-copy-atomic word. */
    w.store(strip_tag(p.strip) << 16 | ((unsigned)e & 0xffffu), cuda::memory_order_relaxed);
  }

  /* The border warp of a strip of `groups` groups: lanes 0-15 poll four
   * columns of the bottom row above each (groups G0 + lane / 2), lanes
   * 16-31 four of the row above it, eight groups a load. */
  __device__ void border_loop(const strip_pos &p, int groups) {
    constexpr int PRE = pre_steps<LAG>();
    const int lane = threadIdx.x & 31, m = lane & 15, row = lane >> 4;
    const unsigned want = p.strip > 0 ? strip_tag(p.strip - 1) : 0u;
    for (int G0 = 0; G0 < groups; G0 += 8) {
      const int x = 8 * G0 + (row == 0 ? LAG : 2 * LAG) - PRE + 4 * m; /* this lane's first column */
      const int gl = G0 + m / 2;                                        /* its group */
      int done = 0; /* groups of this batch handed over */
      unsigned ns = 0;
      while (done < 8 && G0 + done < groups) {
        int e[4] = {0, 0, 0, 0};
        bool ok = true;
        if (p.strip > 0 && x + 3 >= 0 && x < p.width) {
          uint4 v;
          /* relaxed, 16 bytes: each 32-bit word single-copy atomic and its
           * own flag; no other data hangs on them. */
          asm volatile("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                       : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                       : "l"(word(p, p.strip - 1, row, x)));
          const unsigned vw[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
          for (int i = 0; i < 4; i++) {
            const bool in = (unsigned)(x + i) < (unsigned)p.width;
            ok = ok && (!in || vw[i] >> 16 == want);
            e[i] = in ? (int)(int16_t)(vw[i] & 0xffffu) : 0;
          }
        }
        /* group g of the batch is complete when lanes 2g, 2g+1, 16+2g and
         * 16+2g+1 all are: the leading complete groups are handed over. */
        const unsigned okb = __ballot_sync(FULL, ok), both = okb & (okb >> 16) & 0xffffu;
        const unsigned pairs = both & (both >> 1) & 0x5555u; /* bit 2g: group g */
        int k = 0;
        while (k < 8 && (pairs >> (2 * k)) & 1u) k++;
        k = min(k, groups - G0);
        if (k > done) {
          if (gl >= G0 + done && gl < G0 + k) {
            const int Gb = gbase + gl;
            /* spin-wait for the slot: warp 0 has read its last use. */
            while (atomicAdd(&br->consumed, 0) <= Gb - BR) __nanosleep(64);
            /* that read before this slot's words are replaced. */
            __threadfence_block();
            const unsigned tag = ring_tag(Gb) << 16;
            unsigned *slot = &br->e[Gb % BR][8 * row + 4 * (m & 1)];
#pragma unroll
            for (int i = 0; i < 4; i++) atomicExch(slot + i, tag | ((unsigned)e[i] & 0xffffu));
          }
          done = k;
          ns = 0;
        } else {
          /* spin-wait: the strip above has not reached these columns yet. */
          __nanosleep(ns);
          ns = ns < 128 ? ns + 32 : 128;
        }
      }
    }
    gbase += groups;
  }
};

/* The kernel's body: blocks take strips by ticket until none is left. */
template <typename K, int NW>
__device__ __forceinline__ void strips_body(const skss__ht_dev_job &job, const skss_cuda_taskarray_view &ta,
                                            unsigned *words, int strips, int total) {
  constexpr int LAG = K::slope + SKSS_CUDA_HT_STRIPS_SLACK;
  constexpr int SPAN = span_steps<LAG, NW, D>();
  __shared__ warp_hist hist[NW];
  __shared__ border_ring br;
  __shared__ int ticket;
  tagged_exchange<LAG, NW> ex;
  ex.words = words;
  ex.br = &br;
  /* an empty ring (tag 0 is nobody's), zeroed before the first __syncthreads() below. */
  for (int i = threadIdx.x; i < BR * 16; i += blockDim.x) (&br.e[0][0])[i] = 0u;
  if (threadIdx.x == 0) br.consumed = 0;
  for (;;) {
    if (threadIdx.x < 32) {
      const int g = skss_cuda_warp_take_row(ta);
      if (threadIdx.x == 0) ticket = g;
    }
    /* the ticket is read by every warp; the last strip's warps are done with br. */
    __syncthreads();
    const int g = ticket;
    /* every warp has read the ticket before warp 0 takes the next. */
    __syncthreads();
    if (g >= total) return;
    const strip_pos p = locate(job, g, strips, 32 * NW);
    const int groups = (pre_steps<LAG>() + p.width + SPAN + CHUNK - 1) / CHUNK * (CHUNK / GROUP);
    if (is_border_warp()) {
      ex.border_loop(p, groups);
    } else {
      run_strip_rows<K, LAG, NW, D>(p, job.white_above, hist, ex, strip_warp());
      ex.gbase += groups;
    }
  }
}

/* Builds of the kernel. strips_kernel lets the compiler take the
 * registers that make a strip step fastest (~90 for Floyd-Steinberg), for
 * one image (launched a block an SM: launch below) and for small batches,
 * with narrow or wide strips; strips_kernel_batch (wide strips) caps them
 * so that 3 blocks fit an SM, for batches of more strips than 2 an SM,
 * where strips in flight matter more than each one's
 * step (H200, FS, with an earlier form of the exchange: one 16K image 3.40
 * against 3.71 ms capped; 64 x 4K 5.41 uncapped against 4.34 ms). (A
 * minimum of 2 blocks an SM, which gave the same registers, scheduled the
 * steps worse: 16K 3.75 ms.) */
template <typename K, int NW>
__global__ void __launch_bounds__(threads_of<NW>()) strips_kernel(skss__ht_dev_job job, skss_cuda_taskarray_view ta,
                                                                  unsigned *words, int strips, int total) {
  strips_body<K, NW>(job, ta, words, strips, total);
}

template <typename K>
__global__ void __launch_bounds__(threads_of<NW_WIDE>(), 3)
    strips_kernel_batch(skss__ht_dev_job job, skss_cuda_taskarray_view ta, unsigned *words, int strips, int total) {
  strips_body<K, NW_WIDE>(job, ta, words, strips, total);
}

int strips_of(const skss__ht_dev_job *job, int rows) { return (int)((job->height + rows - 1) / rows); }

size_t words_bytes(const skss__ht_dev_job *job) {
  return skss__cuda_align((size_t)job->images * 4 * word_pitch(job->width) * sizeof(unsigned));
}

struct launch {
  /* Launches strips of 32 NW rows. */
  template <typename K, int NW>
  static skss_status start(skss_ctx *ctx, const skss__ht_dev_job *job, void *scratch, int sms) {
    const char *fn = "skss_halftone()";
    cudaStream_t stream = skss__cuda(ctx)->stream;
    const int strips = strips_of(job, 32 * NW), total = strips * (int)job->images;
    skss_cuda_taskarray_view ta;
    SKSS_CUDA_TRY(ctx, fn, skss__dev_taskarray_reset(&ta, scratch, 0, 0, stream));
    unsigned *words = reinterpret_cast<unsigned *>(static_cast<uint8_t *>(scratch) +
                                                   skss__dev_taskarray_bytes(0));
    SKSS_CUDA_TRY(ctx, fn, cudaMemsetAsync(words, 0, words_bytes(job), stream));
    auto kern = strips_kernel<K, NW>;
    int grid, per_sm = 0;
    SKSS_CUDA_TRY(ctx, fn, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, threads_of<NW>(), 0));
    if (job->images == 1) {
      /* One image: a block an SM at most. Strips of one image run side by
       * side (each starts a little more than slope x rows steps after the
       * one above); with two blocks an SM, the image's steps took ~20%
       * longer (4-warp strips, 82 against 69 ns; a back-off in a waiting
       * block's spin changed nothing, so it is the strips at work that
       * share an SM's schedulers). A block that finishes its strip takes
       * the next ticket, which, while a strip ends before the strip SMs
       * tickets later is due, would not start earlier anyway (H200, FS,
       * 4-warp strips, ms: 32K 8.08 -> 6.75, 24K 6.01 -> 5.07, 32K x 64K
       * 10.49 -> 10.09; to 16K, at most 132 strips, unchanged). */
      grid = total < sms ? total : sms;
    } else {
      if constexpr (NW == NW_WIDE) {
        if (total > sms * per_sm) {
          /* more strips than fit at once: the build that fits more. */
          kern = strips_kernel_batch<K>;
          SKSS_CUDA_TRY(ctx, fn, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, threads_of<NW>(), 0));
        }
      }
      /* independent images: as many strips in flight as fit. */
      const int resident = sms * (per_sm > 0 ? per_sm : 1);
      grid = total < resident ? total : resident;
    }
    kern<<<grid, threads_of<NW>(), 0, stream>>>(*job, ta, words, strips, total);
    SKSS_CUDA_CHECK_LAUNCH(ctx, fn);
    return SKSS_OK;
  }

  template <typename K>
  static skss_status run(skss_ctx *ctx, const skss__ht_dev_job *job, void *scratch) {
    int sms = 0;
    SKSS_CUDA_TRY(ctx, "skss_halftone()",
                  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, skss__cuda(ctx)->device));
    /* Narrow strips for one image whose strips all run at once, one an SM:
     * a strip lasts W + SPAN steps and starts at least LAG x rows steps
     * after the one above, so at most (W + SPAN) / (LAG x rows) of them
     * run at once. Otherwise wide strips, which run fewer at once. */
    constexpr int LAG = K::slope + SKSS_CUDA_HT_STRIPS_SLACK, ROWS = 32 * NW_NARROW;
    constexpr int SPAN = span_steps<LAG, NW_NARROW, D>();
    if (job->images == 1 && job->width + SPAN <= (int64_t)sms * LAG * ROWS)
      return start<K, NW_NARROW>(ctx, job, scratch, sms);
    return start<K, NW_WIDE>(ctx, job, scratch, sms);
  }
};

}  // namespace

size_t skss__cuda_halftone_strips_scratch(skss_ctx *ctx, int algorithm, const skss__ht_dev_job *job) {
  (void)ctx;
  (void)algorithm;
  return skss__dev_taskarray_bytes(0) + words_bytes(job);
}

skss_status skss__cuda_halftone_strips(skss_ctx *ctx, int algorithm, const skss__ht_dev_job *job,
                                       void *scratch) {
  (void)algorithm;
  if (job->width > (1 << 30) || job->height > (1 << 30) ||
      (job->height + 32 * NW_WIDE - 1) / (32 * NW_WIDE) * job->images > INT32_MAX)
    return skss__fail(ctx, SKSS_ERR_UNSUPPORTED,
                      "skss_halftone(): 'strips' takes at most 2^30 rows and columns and 2^31 strips");
  return skss__ht_by_kernel<launch>(job->kernel, ctx, job, scratch);
}
