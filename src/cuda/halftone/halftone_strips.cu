/*
 * halftone_strips.cu — SKSS_HALFTONE_STRIPS, our exact GPU error diffusion:
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
 *  - taller strips: a block of SKSS_CUDA_HT_STRIPS_WARPS warps runs one
 *    strip of 32 x warps rows, the warps handing errors down through shared
 *    memory and meeting at a block barrier every 8 steps; only the strip's
 *    bottom rows go through global memory;
 *  - no memory traffic on the chain: each compute warp has an I/O warp that
 *    loads its pixels two chunks ahead and stores its bytes a chunk behind,
 *    through a double ring in shared memory, between the same barriers;
 *  - no fences on the global hand-off: the strip's two bottom rows of
 *    errors go out as 32-bit words that carry their own tag (error in the
 *    low half, the strip's tag in the high half), so the strip below polls
 *    the data itself (relaxed loads, a group of 8 steps fetched two groups
 *    ahead) instead of a progress flag that needs a fence before it; a word
 *    is single-copy atomic, so a matching tag means its error is that
 *    strip's. Words live in a ring of two strips per image (strip s-2's
 *    words have been read by strip s-1 before strip s, which waits on s-1,
 *    gets that far), zeroed before the kernel, tag = strip / 2 + 1;
 *  - batches: block tickets run over every strip of every image, so many
 *    independent wavefronts fill the GPU.
 */
#include <cuda/atomic>

#include "../taskarray.cuh"
#include "../tuning.h"
#include "halftone_wavefront.cuh"

namespace {

using namespace skss_wf;

constexpr int NW = SKSS_CUDA_HT_STRIPS_WARPS;
constexpr int D = SKSS_CUDA_HT_STRIPS_WARP_LAG;
static_assert(D == GROUP, "warps meet every GROUP steps; the warp lag must cover one group");
constexpr int ROWS = 32 * NW;

/* Tag of strip s's words in its ring slot: differs from strip s-2's, never 0. */
__device__ __forceinline__ unsigned strip_tag(int strip) { return (unsigned)((strip >> 1) % 65535 + 1); }

template <int LAG>
struct tagged_exchange {
  unsigned *words; /* [image][strip % 2][row 0/1][width] */
  unsigned p1, p2; /* lane's word for the next group and the one after */

  __device__ unsigned *slot(const strip_pos &p, int strip, int row) const {
    return words + ((size_t)(p.image * 2 + (strip & 1)) * 2 + row) * (size_t)p.width;
  }

  /* The lane's word of the group from T8 (a valid 0 outside the image). */
  __device__ unsigned fetch(const strip_pos &p, int T8) const {
    const unsigned valid0 = p.strip > 0 ? strip_tag(p.strip - 1) << 16 : 0u;
    int row;
    const int x = border_column<LAG>(T8, &row);
    if (p.strip == 0 || x < 0 || x >= p.width) return valid0;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> w(slot(p, p.strip - 1, row)[x]);
    /* relaxed: the word is its own flag; no other data hangs on it. */
    return w.load(cuda::memory_order_relaxed);
  }

  __device__ void begin(const strip_pos &p) {
    p1 = fetch(p, 0);
    p2 = fetch(p, GROUP);
  }

  __device__ void chunk_begin(const strip_pos &, int) {}

  __device__ int group_words(const strip_pos &p, int T8) {
    unsigned cur = p1;
    p1 = p2;
    p2 = fetch(p, T8 + 2 * GROUP);
    if (p.strip > 0) {
      const unsigned want = strip_tag(p.strip - 1);
      unsigned ns = 0;
      bool waited = false;
      /* spin-wait: the strip above took its ticket first, so it is running. */
      while (!__all_sync(FULL, (cur >> 16) == want)) {
        if (ns) __nanosleep(ns);
        ns = ns < 256 ? ns + 32 : 256;
        cur = fetch(p, T8);
        waited = true;
      }
      /* The next two groups' words were fetched before these arrived, so
       * they are likely stale too: fetch them again now, or each would cost
       * another round trip (a consumer that caught up with its producer
       * stalled for three round trips instead of one). */
      if (waited) {
        p1 = fetch(p, T8 + GROUP);
        p2 = fetch(p, T8 + 2 * GROUP);
      }
    }
    return (int)(int16_t)(cur & 0xffffu);
  }

  /* Lanes 0-7: error e of the strip's bottom row at step T8 + lane; 8-15:
   * of the row above it (run_strip_rows). */
  __device__ void group_end_e(const strip_pos &p, int e, int T8) {
    if (p.last) return;
    int row;
    const int x = bottom_column<LAG, NW, D>(T8, &row);
    if (x < 0 || x >= p.width) return;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> w(slot(p, p.strip, row)[x]);
    /* relaxed: tag and error travel in one single-copy-atomic word. */
    w.store(strip_tag(p.strip) << 16 | ((unsigned)e & 0xffffu), cuda::memory_order_relaxed);
  }

  __device__ void chunk_end(const strip_pos &, int) {}
};

template <typename K>
__global__ void __launch_bounds__(strip_rows_threads<NW>()) strips_kernel(skss__ht_dev_job job, skss__dev_taskarray ta,
                                                                         unsigned *words, int strips, int total) {
  constexpr int LAG = K::slope + SKSS_CUDA_HT_STRIPS_SLACK;
  __shared__ warp_hist hist[NW];
  __shared__ int ticket;
  tagged_exchange<LAG> ex;
  ex.words = words;
  for (;;) {
    if (threadIdx.x < 32) {
      const int g = skss__warp_ticket(ta);
      if (threadIdx.x == 0) ticket = g;
    }
    /* the ticket is read by every warp. */
    __syncthreads();
    const int g = ticket;
    /* every warp has read it before warp 0 takes the next. */
    __syncthreads();
    if (g >= total) return;
    const strip_pos p = locate(job, g, strips, ROWS);
    ex.begin(p);
    run_strip_rows<K, LAG, NW, D>(p, job.white_above, hist, ex);
  }
}

int strips_of(const skss__ht_dev_job *job) { return (int)((job->height + ROWS - 1) / ROWS); }

size_t words_bytes(const skss__ht_dev_job *job) {
  return skss__cuda_align((size_t)job->images * 4 * (size_t)job->width * sizeof(unsigned));
}

struct launch {
  template <typename K>
  static skss_status run(skss_ctx *ctx, const skss__ht_dev_job *job, void *scratch) {
    const char *fn = "skss_halftone()";
    cudaStream_t stream = skss__cuda(ctx)->stream;
    const int strips = strips_of(job), total = strips * (int)job->images;
    skss__dev_taskarray ta;
    SKSS_CUDA_TRY(ctx, fn, skss__dev_taskarray_reset(&ta, scratch, 0, stream));
    unsigned *words = reinterpret_cast<unsigned *>(static_cast<uint8_t *>(scratch) +
                                                   skss__dev_taskarray_bytes(0));
    SKSS_CUDA_TRY(ctx, fn, cudaMemsetAsync(words, 0, words_bytes(job), stream));
    auto kern = strips_kernel<K>;
    int sms = 0, per_sm = 0;
    SKSS_CUDA_TRY(ctx, fn, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                                  skss__cuda(ctx)->device));
    constexpr int threads = strip_rows_threads<NW>();
    SKSS_CUDA_TRY(ctx, fn, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, threads, 0));
    const int resident = sms * (per_sm > 0 ? per_sm : 1);
    kern<<<total < resident ? total : resident, threads, 0, stream>>>(*job, ta, words, strips, total);
    SKSS_CUDA_CHECK_LAUNCH(ctx, fn);
    return SKSS_OK;
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
      (job->height + ROWS - 1) / ROWS * job->images > INT32_MAX)
    return skss__fail(ctx, SKSS_ERR_UNSUPPORTED,
                      "skss_halftone(): 'strips' takes at most 2^30 rows and columns and 2^31 strips");
  return skss__ht_by_kernel<launch>(job->kernel, ctx, job, scratch);
}
