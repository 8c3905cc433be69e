/*
 * halftone_wavefront.cuh — the strip engine shared by SKSS error collection
 * (halftone_skss.cu) and ours (halftone_strips.cu).
 *
 * A strip of 32 x NW rows is run by NW warps; lane i of warp w owns row
 * r = 32 w + i of the strip. All walk one step counter t: at step t, row r
 * handles column x = t - PRE - LAG r - D w (LAG >= the kernel's slope; D:
 * the extra lag between two warps; PRE = 2 LAG steps let lane 0 receive
 * the strip above's first columns before its own). The rows of one warp thus cover a 32 x 32
 * parallelogram every 32 steps (the paper's task, Funasaka, Nakano, Ito, SKSS task arrays, Fig.
 * 9-11, with LAG = slope and one warp: D does not matter).
 *
 * Each pixel is error collection with register caching turned into a push:
 * a row keeps `ahead[k]`, what pixel x+1+k has been sent so far by the two
 * rows above; after its own pixel it receives, by shuffle from the lanes
 * above, the error the row above made this step (column x + LAG) and the
 * error two rows above made (column x + 2 LAG), and adds their weighted
 * shares to ahead[]. The pixel's chain of dependent instructions is thus
 * one multiply-add of the left error, the division and the threshold.
 * With LAG = slope the error of the row above is used the step after it is
 * made, so the shuffle is on the critical path; LAG = slope + 1 moves it off.
 *
 * Lanes 0 and 1 of warp 0 get the rows above from the strip above (through
 * the exchange policy Ex, global memory), lanes 0 and 1 of warp w > 0 from
 * warp w-1 through shared memory: the lanes write their errors by step into
 * a 32-slot ring, and warp w reads lanes 31 and 30 of slot t - D. The warps meet at a
 * block barrier every GROUP = 8 steps, so with D = GROUP everything read was
 * written before the last barrier.
 *
 * Pixels go through a 32-column ring per warp in shared memory: every 32
 * steps the warp loads the next 32 columns of each of its rows (coalesced
 * per row, issued a chunk ahead), each lane takes its row's 32 pixels into
 * 8 registers, gathers its 32 bytes of 0/255 in 8 others, puts those back
 * into the ring, and the warp stores them (coalesced per row).
 */
#ifndef SKSS_CUDA_HALFTONE_WAVEFRONT_CUH
#define SKSS_CUDA_HALFTONE_WAVEFRONT_CUH

#include <cuda/atomic>
#include <type_traits>

#include "../warp_scan.cuh"
#include "halftone_cuda.cuh"

namespace skss_wf {

/* the engines' shuffles and votes are reached by all 32 lanes of a warp
 * (rows outside the image make zero errors; all of the border warp's lanes
 * poll), so every mask names the whole warp */
constexpr unsigned FULL = skss_warp::FULL_MASK;
constexpr int CHUNK = 32; /* steps between pixel loads/stores (and SKSS tasks) */
constexpr int GROUP = 8;  /* steps between block barriers and border fetches */
constexpr int RING_PITCH = CHUNK + 4; /* bytes per row: lanes hit different banks */

/* Steps before row 0 reaches column 0 (t = PRE + LAG r + D w + x): lane 0
 * must receive the errors of the rows above from column 0 on (the row above
 * at x + LAG, two above at x + 2 LAG) before its own pixel 0. */
template <int LAG>
constexpr int pre_steps() { return 2 * LAG; }

/* Steps by which the last row of a strip of NW warps (row 32 NW - 1 of
 * warp NW - 1) trails its row 0 (t = PRE + LAG r + D w + x): a strip lasts
 * PRE + W + span steps. Host code uses it too (the narrow-strip rule). */
template <int LAG, int NW, int D>
constexpr int span_steps() { return LAG * (32 * NW - 1) + D * (NW - 1); }

/* A warp's shared memory. */
struct warp_smem {
  alignas(4) uint8_t ring[32][RING_PITCH]; /* pixels of the chunk, then its 0/255 bytes */
  int xs[CHUNK][32];            /* by step % 32 and lane: errors (every lane
                                   stores, so the step has no branch; lanes 31
                                   and 30 are read) */
};

/* The pixel rule of skss__ht_pixel() (halftone_cuda.cuh) arranged for the
 * shortest chain from the left neighbour's error `left1` (weight w1):
 * u = in + trunc(s / D) with s = base + w1 left1 is, for D = 2^k, the
 * arithmetic shift of s + D in + (s < 0 ? D - 1 : 0), whose two sums are
 * multiply-adds of left1 side by side (bin = base + D in is ready early);
 * then white = u > white_above (the quotient test of the rule, moved by in)
 * and e = white ? min(u - 255, 0) : max(u, 0), which is clamp(u) - out
 * because a white u exceeds the threshold >= 0 and a black one is at most
 * 254. Other divisors divide as the rule does. Same bytes, fewer steps. */
template <typename K>
__device__ __forceinline__ int pixel(int in, int base, int w1, int left1, int white_above, int *white) {
  int u;
  if constexpr ((K::divisor & (K::divisor - 1)) == 0) {
    constexpr int k = K::divisor == 4 ? 2 : K::divisor == 8 ? 3 : K::divisor == 16 ? 4 : 5;
    static_assert((1 << k) == K::divisor, "divisor is 4, 8, 16 or 32");
    const int sum = base + w1 * left1, biased = base + K::divisor * in + w1 * left1;
    u = (biased + (int)((unsigned)(sum >> 31) >> (32 - k))) >> k;
  } else {
    u = in + (base + w1 * left1) / K::divisor;
  }
  const bool wh = u > white_above;
  *white = wh ? 255 : 0;
  return wh ? min(u - 255, 0) : max(u, 0);
}

/* pixel() with one more term of the sum, wc * pend, added last: the error
 * the row above made the step before (slack 0), which arrives by shuffle
 * after the left neighbour's, so it meets the chain one multiply-add before
 * the division instead of two. */
template <typename K, int WC>
__device__ __forceinline__ int pixel_late(int in, int base, int w1, int left1, int pend, int white_above,
                                          int *white) {
  int u;
  if constexpr ((K::divisor & (K::divisor - 1)) == 0) {
    constexpr int k = K::divisor == 4 ? 2 : K::divisor == 8 ? 3 : K::divisor == 16 ? 4 : 5;
    static_assert((1 << k) == K::divisor, "divisor is 4, 8, 16 or 32");
    int s0 = base + w1 * left1, b0 = base + K::divisor * in + w1 * left1;
    /* opaque to the optimizer, which would otherwise add the late term
     * first and put two more steps after the shuffle. */
    if (WC != 0) asm("" : "+r"(s0), "+r"(b0));
    const int sum = s0 + WC * pend, biased = b0 + WC * pend;
    u = (biased + (int)((unsigned)(sum >> 31) >> (32 - k))) >> k;
  } else {
    u = in + (base + w1 * left1 + WC * pend) / K::divisor;
  }
  const bool wh = u > white_above;
  *white = wh ? 255 : 0;
  return wh ? min(u - 255, 0) : max(u, 0);
}

/* Where a strip is: its image and first row, and the geometry. */
struct strip_pos {
  const uint8_t *in;  /* the image's row 0 */
  uint8_t *out;
  size_t in_pitch, out_pitch;
  int height, width;
  int image, strip;   /* strip within the image */
  int g;              /* ticket: image * strips per image + strip */
  int y0;             /* its first row */
  bool last;          /* the image's last strip (no strip below reads it) */
};

/* Where ticket g is, for strips of `rows` rows. */
__device__ __forceinline__ strip_pos locate(const skss__ht_dev_job &job, int g, int strips, int rows) {
  strip_pos p;
  p.image = g / strips;
  p.strip = g % strips;
  p.g = g;
  p.in = job.in + (size_t)p.image * job.in_image_stride;
  p.out = job.out + (size_t)p.image * job.out_image_stride;
  p.in_pitch = job.in_pitch;
  p.out_pitch = job.out_pitch;
  p.height = (int)job.height;
  p.width = (int)job.width;
  p.y0 = p.strip * rows;
  p.last = p.strip == strips - 1;
  return p;
}

/* The column of the error in xs slot (T8 + j) % 32 of the strip's last warp
 * that lane j (row 0) or 8 + j (row 1) hands down; -1 for lanes >= 16. */
template <int LAG, int NW, int D>
__device__ __forceinline__ int bottom_column(int T8, int *row) {
  const int lane = threadIdx.x & 31, j = lane & 7;
  *row = lane >> 3;
  const int t = T8 + j - pre_steps<LAG>();
  constexpr int SPAN = span_steps<LAG, NW, D>(); /* the last row's lag; the row above's is LAG less */
  return lane < 8 ? t - SPAN : lane < 16 ? t - (SPAN - LAG) : -1;
}

/* A warp's pixels, a chunk of 32 columns of its 32 rows at a time: lane j
 * handles column T + j - xoff0 - LAG i of row i (coalesced per row, one
 * pointer walking down the parallelogram), 0 outside the image; `in`:
 * every pixel of the chunk is inside (no bounds checks). */
template <int LAG>
struct chunk_io {
  const strip_pos &pos;
  int row0;  /* the warp's row 0 in the image */
  int xoff0; /* the step at which the warp's row 0 reaches column 0 */
  int rows;  /* the warp's rows inside the image (may be <= 0 or > 32) */
  uint8_t pre[32];

  /* Whether every byte the unchecked loads of chunk T touch lies within
   * the image's own bytes, [in, in + (height - 1) pitch + width): then an
   * edge chunk loads as an interior one does, whatever bytes lie outside
   * the image there (padding, or the rows beside), and the compute warps
   * replace each outside pixel by their own value (warp-uniform; the
   * addresses, linear in row and lane, are extreme at the corners). */
  __device__ __forceinline__ bool loads_within(int T) const {
    const int64_t pitch = pos.in_pitch, a00 = (int64_t)row0 * pitch + (T - xoff0);
    const int64_t a31 = a00 + 31 * (pitch - LAG); /* row 31, lane 0 */
    const int64_t lo = min(a00, a31), hi = max(a00, a31) + 31;
    return lo >= 0 && hi < (int64_t)(pos.height - 1) * pitch + pos.width;
  }

  /* Chunk T's pixels into pre[]: `in`: every pixel is inside the image (or
   * loads_within(T): every load is); otherwise only those inside are
   * loaded, the others 0. */
  __device__ __forceinline__ void load(int T, bool in) {
    const int lane = threadIdx.x & 31, xa = T + lane - xoff0, W = pos.width;
    const uint8_t *p = pos.in + (int64_t)row0 * (int64_t)pos.in_pitch + xa;
    const int64_t step = (int64_t)pos.in_pitch - LAG;
    if (in) {
#pragma unroll
      for (int i = 0; i < 32; i++, p += step) pre[i] = __ldg(p);
    } else {
#pragma unroll
      for (int i = 0; i < 32; i++, p += step)
        pre[i] = i < rows && (unsigned)(xa - LAG * i) < (unsigned)W ? __ldg(p) : 0;
    }
  }
  /* pre[] into a ring (row i's byte j at ring[i][j]). */
  __device__ __forceinline__ void stage(uint8_t (*ring)[RING_PITCH]) const {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int i = 0; i < 32; i++) ring[i][lane] = pre[i];
  }
  /* A ring's 0/255 bytes of chunk T to the image. */
  __device__ __forceinline__ void flush(int T, bool in, const uint8_t (*ring)[RING_PITCH]) const {
    const int lane = threadIdx.x & 31, xa = T + lane - xoff0, W = pos.width;
    uint8_t *p = pos.out + (int64_t)row0 * (int64_t)pos.out_pitch + xa;
    const int64_t step = (int64_t)pos.out_pitch - LAG;
    if (in) {
#pragma unroll
      for (int i = 0; i < 32; i++, p += step) *p = ring[i][lane];
    } else {
      /* every byte read first (the ring is always in bounds): the loads
       * pipeline instead of each store waiting for its own load. */
      uint8_t v[32];
#pragma unroll
      for (int i = 0; i < 32; i++) v[i] = ring[i][lane];
#pragma unroll
      for (int i = 0; i < 32; i++, p += step)
        if (i < rows && (unsigned)(xa - LAG * i) < (unsigned)W) *p = v[i];
    }
  }
};

/*
 * Runs one strip. Ex is the exchange with the strips above and below:
 *   ex.chunk_begin(pos, c)       before chunk c (SKSS: wait for the strip above);
 *   ex.group_words(pos, T8)      warp 0: lane j < 8 gets e(bottom row above,
 *                                T8 + j + LAG), lane 8 + j gets e(second to
 *                                bottom, T8 + j + 2 LAG) (0 outside the image);
 *   ex.group_end(pos, sm, T8)    warp NW-1: the errors of the group's steps in
 *                                sm->xs go to the strip below;
 *   ex.chunk_end(pos, c)         after chunk c (SKSS: publish progress).
 */
template <typename K, int LAG, int NW, int D, typename Ex>
__device__ __forceinline__ void run_strip(const strip_pos &pos, int white_above, warp_smem *smem, Ex &ex) {
  constexpr int AH = K::rows == 3 ? 2 * LAG + 2 : LAG + 2;
  constexpr int PRE = pre_steps<LAG>();
  constexpr int SPAN = span_steps<LAG, NW, D>(); /* lag of the last row */
  const int lane = threadIdx.x & 31, w = (threadIdx.x >> 5) % NW;
  warp_smem *sm = smem + (threadIdx.x >> 5);
  const int W = pos.width;
  const int r = 32 * w + lane;
  const bool row_ok = pos.y0 + r < pos.height;
  const int xoff = PRE + LAG * r + D * w;     /* the lane's x = t - xoff */
  const int xoff0 = PRE + LAG * 32 * w + D * w; /* row 0 of the warp */
  const int steps = PRE + W + SPAN;
  const int chunks = (steps + CHUNK - 1) / CHUNK;
  const int warp_rows = pos.height - (pos.y0 + 32 * w); /* rows of this warp inside the image */
  /* Whether every pixel of chunk T of every row of the strip is inside the
   * image (the same answer in every warp of the block, so the barriers
   * inside both paths match): no bounds checks then. */
  const bool strip_full = pos.y0 + 32 * NW <= pos.height;
  auto interior = [&](int T) { return strip_full && T - PRE - SPAN >= 0 && T + CHUNK - 1 - PRE < W; };

  chunk_io<LAG> io{pos, pos.y0 + 32 * w, xoff0, warp_rows};
  auto load_chunk = [&](int T) { io.load(T, interior(T)); };
  auto stage_chunk = [&]() { io.stage(sm->ring); };
  auto flush_chunk = [&](int T) { io.flush(T, interior(T), sm->ring); };

  int ahead[AH];
#pragma unroll
  for (int k = 0; k < AH; k++) ahead[k] = 0;
  int left1 = 0, left2 = 0;

  /* 32 steps from T; FAST: every pixel inside the image. */
  auto chunk_steps = [&](int T, auto fast) {
    constexpr bool FAST = decltype(fast)::value;
    /* The lane's 32 pixels, 4 a word (the ring row is 4-aligned), and its
     * 32 bytes of 0/255: no shared memory on the step's chain. */
    unsigned px[CHUNK / 4], ow[CHUNK / 4];
#pragma unroll
    for (int k = 0; k < CHUNK / 4; k++) {
      px[k] = *reinterpret_cast<const unsigned *>(&sm->ring[lane][4 * k]);
      ow[k] = 0;
    }
#pragma unroll
    for (int g = 0; g < CHUNK / GROUP; g++) {
      const int T8 = T + g * GROUP;
      int bw;
      if (w == 0) {
        bw = ex.group_words(pos, T8);
      } else {
        /* warp w-1's errors of step T8 + j - D, written before the last barrier. */
        const warp_smem *up = sm - 1;
        bw = lane < 16 ? up->xs[(g * GROUP + (lane & 7) - D) & (CHUNK - 1)][31 - (lane >> 3)] : 0;
      }
#pragma unroll
      for (int j = 0; j < GROUP; j++) {
        const int jc = g * GROUP + j; /* step in the chunk */
        const int pix = (int)__byte_perm(px[jc / 4], 0u, 0x4440u | (unsigned)(jc % 4));
        int white;
        const int base = ahead[0] + K::weight(0, 4) * left2;
        int e = pixel<K>(pix, base, K::weight(0, 3), left1, white_above, &white);
        if (!FAST) e = row_ok && (unsigned)(T + jc - xoff) < (unsigned)W ? e : 0;
        /* byte jc % 4 of ow[jc / 4] becomes `white` */
        const unsigned nib = 4u * (unsigned)(jc % 4);
        ow[jc / 4] = __byte_perm(ow[jc / 4], (unsigned)white, (0x3210u & ~(0xfu << nib)) | (4u << nib));
        left2 = left1;
        left1 = e;
#pragma unroll
        for (int k = 0; k + 1 < AH; k++) ahead[k] = ahead[k + 1];
        ahead[AH - 1] = 0;
        /* The errors the rows above made this step: lanes above, or the border. */
        int u1 = skss_warp::from_below(e, 1);
        const int b1 = skss_warp::broadcast(bw, j);
        if (lane == 0) u1 = b1;
#pragma unroll
        for (int dx = -2; dx <= 2; dx++)
          if (K::weight(1, dx + 2) != 0) ahead[LAG + dx - 1] += K::weight(1, dx + 2) * u1;
        if (K::rows == 3) {
          int u2 = skss_warp::from_below(e, 2);
          const int b2 = skss_warp::broadcast(bw, 8 + j);
          if (lane == 0) u2 = b2;
          if (lane == 1) u2 = b1;
#pragma unroll
          for (int dx = -2; dx <= 2; dx++)
            if (K::weight(2, dx + 2) != 0) ahead[2 * LAG + dx - 1] += K::weight(2, dx + 2) * u2;
        }
        sm->xs[jc][lane] = e;
      }
      /* the xs slots of this group are read by lanes of this warp (group_end). */
      __syncwarp();
      if (w == NW - 1) ex.group_end(pos, sm, T8);
      /* warp w+1 reads this group's xs slots after the barrier. */
      if (NW > 1) __syncthreads();
    }
#pragma unroll
    for (int k = 0; k < CHUNK / 4; k++) *reinterpret_cast<unsigned *>(&sm->ring[lane][4 * k]) = ow[k];
  };

  load_chunk(0);
  stage_chunk();
  for (int c = 0; c < chunks; c++) {
    const int T = c * CHUNK;
    if (c + 1 < chunks) load_chunk(T + CHUNK);
    if (w == 0) ex.chunk_begin(pos, c);
    /* the ring's pixels, staged by other lanes, are read below. */
    __syncwarp();
    if (interior(T))
      chunk_steps(T, std::true_type{});
    else
      chunk_steps(T, std::false_type{});
    /* the ring's 0/255 bytes were written by other lanes. */
    __syncwarp();
    flush_chunk(T);
    stage_chunk();
    if (w == NW - 1) ex.chunk_end(pos, c);
  }
  /* the next strip reuses the rings. */
  if (NW > 1) __syncthreads(); else __syncwarp();
}


/*
 * The row engine of ours (halftone_strips.cu): the strip, lanes and steps of
 * run_strip(), with less work around each step's chain.
 *
 * The chain we aim for. Step t of row r needs its left neighbour's error
 * (made by the same lane at step t-1) and, with slack 0, the error the row
 * above made at step t-1, which arrives by shuffle. So the loop-carried
 * chain of one step is
 *   SHFL (row above's e) -> IMAD (sum = s0 + w u, with s0 = base + w1 left
 *   already formed) -> SHF/LEA.HI/SHF (truncating division by 2^k) ->
 *   ISETP | IMNMX (white, clamp) -> SEL (e) -> SEL (lane 31: the border)
 *   -> SHFL of the next step,
 * the pixel rule's ~6 dependent instructions plus one shuffle; everything
 * else a step does (the byte of the pixel, the 0/255 byte, the pushes of u
 * into ahead[] for later pixels, the stores of errors for the warp below)
 * has slack and should hide under that chain if the warp issues fewer
 * instructions a step than the chain has cycles. With slack 1 the shuffle
 * gets a step of its own and the chain is the pixel rule alone. Hence:
 *  - pixel_late(): the row above's term is added last, after the left
 *    neighbour's (an empty asm keeps the optimizer from reassociating it
 *    to the front, which put three instructions after the shuffle);
 *  - the errors of the rows above reach lane 0 (and 1) by the same shuffle
 *    as every other lane's: lane 31 (30) swaps its own error for the strip
 *    or warp above's before a rotating shuffle (one select and one shuffle a
 *    step instead of two shuffles and a select);
 *  - a lane keeps its 8 errors of a group in registers and writes them with
 *    two 16-byte stores per group (was a store a step); warp w+1 reads lanes
 *    30 and 31's the same way, 8 at a time.
 * In the SASS (sm_90, FS) an interior step is ~16 instructions, ~20 with
 * its share of the group's (run_strip(): ~32); the ring I/O adds ~11 a
 * step (ncu, FS 4K, whole kernel: 43 -> ~35 a step, spin loops included).
 *
 * What was measured (H200, FS, slack 0): 4K 1.36 -> 1.32 ms, 16K 6.11 ->
 * 5.77, 32K 12.9 -> 12.1, 1K unchanged; the 64 x 4K batch 236 -> 214
 * Gpixels/s (112 registers instead of fewer: 4 blocks an SM) and one 4M row
 * 83 -> 94 ns a step. So the step is NOT bound by its instruction count:
 * at ~17-30 instructions and ~150-190 cycles a step (1.98 GHz) the warp is
 * stalled ~85% of the time (ncu, FS 4K: 0.09 issued per cycle per
 * scheduler, most stalls at the group barrier, which every warp reaches
 * only when its 8-step chain is done). Per-warp progress flags instead of
 * the barrier, and each lane loading its own row as words instead of the
 * ring, were measured slower (docs/performance.md).
 *
 * The microbenchmarks (bench/micro/halftone_step.cu, H200) then found where
 * the step goes: a dependent shuffle costs 16 ns, the pixel rule 18.6, one
 * warp of 32 rows 37 ns a step at slack 0 (25 at slack 1), four warps with
 * a barrier every 8 steps 40 (30), and the same four warps doing their own
 * ring I/O 68 (63): the loads, stores and ring accesses of each chunk,
 * issued in order by the warp whose chain they interrupt and waited for by
 * the other warps at the next barrier, cost as much as the chain. Hence the
 * I/O warps: a block of 2 NW warps, compute warp w and I/O warp NW + w
 * sharing a double ring; the I/O warp loads two chunks ahead, stages one
 * ahead and stores the chunk before, between the same barriers, so a
 * compute warp only reads its 32 pixels and writes its 32 bytes a chunk.
 *
 * The exchange Ex of run_strip_rows(): ex.group_prefetch(G), every compute
 * warp halfway through group G-1 (the exchange's shared-memory reads, off
 * the start of group G); ex.group_words(pos, T8), warp 0 at the start of a
 * group (as in run_strip()); ex.group_end_e(pos, e, T8), the bottom warp at
 * its end, lanes 0-15 with the errors of its lanes 31 and 30.
 */
struct warp_hist {
  int4 h[2][2][32]; /* [group % 2][steps 0-3 / 4-7][lane]: 16-byte accesses, no bank conflicts */
  /* [chunk % 2]: the chunk's pixels (staged by the I/O warp), then its 0/255 bytes */
  alignas(4) uint8_t ring[2][32][RING_PITCH];
};

/* Threads of a block of run_strip_rows(): NW compute warps and NW I/O warps. */
template <int NW>
constexpr int strip_rows_threads() { return 64 * NW; }

/* The strip's barrier: every GROUP steps, its 2 NW compute and I/O warps
 * (named barrier 1 with their thread count, so that a block's other warps,
 * such as the strip-border warp of halftone_strips.cu, run on without it).
 * The compute and the I/O warps reach it from different places in the
 * code, which __syncthreads() (an aligned barrier: every thread at the same
 * instruction) does not allow; the unaligned form does, with the same
 * ordering of shared and global memory among the threads it counts. */
template <int NW>
__device__ __forceinline__ void strip_barrier() {
  asm volatile("barrier.sync 1, %0;" ::"n"(64 * NW) : "memory");
}

/* `warp`: the calling thread's warp among the strip's 2 NW (compute warps
 * 0 .. NW - 1, then their I/O warps), whatever its warp in the block. */
template <typename K, int LAG, int NW, int D, typename Ex>
__device__ __forceinline__ void run_strip_rows(const strip_pos &pos, int white_above, warp_hist *hist, Ex &ex,
                                               int warp) {
  constexpr int AH = K::rows == 3 ? 2 * LAG + 2 : LAG + 2;
  constexpr int PRE = pre_steps<LAG>();
  constexpr int SPAN = span_steps<LAG, NW, D>(); /* lag of the last row */
  const int lane = threadIdx.x & 31;
  const bool io = warp >= NW;  /* an I/O warp, serving compute warp w */
  const int w = warp % NW;
  warp_hist *hs = hist + w;
  const int W = pos.width;
  const int steps = PRE + W + SPAN;
  const int chunks = (steps + CHUNK - 1) / CHUNK;
  /* Whether every pixel of chunk T of every row of the strip is inside the
   * image (block-uniform). */
  const bool strip_full = pos.y0 + 32 * NW <= pos.height;
  auto interior = [&](int T) { return strip_full && T - PRE - SPAN >= 0 && T + CHUNK - 1 - PRE < W; };

  if (io) {
    /* The I/O warp of compute warp w: lane j loads column T + j - xoff0 -
     * LAG i of each row i of warp w (coalesced per row, walking one pointer
     * down the parallelogram; 0 outside the image) two chunks ahead, stages
     * it into the ring a chunk ahead, and stores the 0/255 bytes of the
     * chunk before. It meets the compute warps at every barrier, so its
     * loads and stores never sit on their chain. */
    chunk_io<LAG> io{pos, pos.y0 + 32 * w, PRE + LAG * 32 * w + D * w, pos.height - (pos.y0 + 32 * w)};
    /* an edge chunk whose loads all fall within the image's bytes loads
     * unchecked (its outside pixels are the compute warps' own): H200, FS,
     * 16K 3.63 -> 3.42 ms, as fast as with no checks at all */
    auto load_chunk = [&](int T) { io.load(T, interior(T) || io.loads_within(T)); };
    auto stage_chunk = [&](int c) { io.stage(hs->ring[c & 1]); };
    auto flush_chunk = [&](int c) { io.flush(c * CHUNK, interior(c * CHUNK), hs->ring[c & 1]); };
    load_chunk(0);
    stage_chunk(0);
    if (chunks > 1) load_chunk(CHUNK);
    /* chunk 0's pixels are in the ring before the compute warps read them. */
    strip_barrier<NW>();
    for (int c = 0; c < chunks; c++) {
      /* One kind of work a group, so that no group of the compute warps
       * waits at its barrier for the whole chunk's I/O (all of it in the
       * first group made a step ~15 ns slower, ~40 where the bounds checks
       * of a strip's edges lengthen it). Group 0: chunk c-1's bytes,
       * written before its barrier, go out; group 1: chunk c+1's pixels go
       * into the same slot (flushed above, and last read at the start of
       * chunk c-1); group 2: chunk c+2's loads, after the staging read the
       * registers (and not before it: a wait for the staged loads would
       * then wait for these too). */
      static_assert(CHUNK / GROUP == 4, "the I/O warp meets the compute warps four times a chunk");
      if (c > 0) flush_chunk(c - 1);
      strip_barrier<NW>();
      if (c + 1 < chunks) stage_chunk(c + 1);
      strip_barrier<NW>();
      if (c + 2 < chunks) load_chunk((c + 2) * CHUNK);
      strip_barrier<NW>();
      strip_barrier<NW>();
    }
    flush_chunk(chunks - 1);
    /* the next strip reuses the rings. */
    strip_barrier<NW>();
    return;
  }

  const int r = 32 * w + lane;
  const bool row_ok = pos.y0 + r < pos.height;
  const int xoff = PRE + LAG * r + D * w; /* the lane's x = t - xoff */
  int ahead[AH];
#pragma unroll
  for (int k = 0; k < AH; k++) ahead[k] = 0;
  int left1 = 0, left2 = 0;
  /* The row above's error of this step feeds the next pixel (ahead[0])
   * when LAG + DXC - 1 == 0: that term waits in `pend` (pixel_late). */
  constexpr int DXC = 1 - LAG;
  constexpr int WC = DXC >= -2 ? K::weight(1, DXC + 2 >= 0 ? DXC + 2 : 0) : 0;
  int pend = 0;
  const int src1 = (lane + 31) & 31, src2 = (lane + 30) & 31;

  /* 32 steps of chunk c (lane's first column x0); FAST: every pixel inside. */
  auto chunk_steps = [&](int c, int x0, auto fast) {
    constexpr bool FAST = decltype(fast)::value;
    const int T = c * CHUNK;
    /* The lane's 32 pixels, 4 a word, and its 32 bytes of 0/255. */
    unsigned px[CHUNK / 4], ow[CHUNK / 4];
    /* bit jc: pixel x0 + jc of the lane's row is inside the image. */
    unsigned okm = ~0u;
    if (!FAST) {
      const int lo = max(-x0, 0), hi = min(W - x0, CHUNK);
      okm = row_ok && lo < hi ? (hi >= CHUNK ? ~0u : (1u << hi) - 1u) & (~0u << lo) : 0u;
    }
#pragma unroll
    for (int k = 0; k < CHUNK / 4; k++) {
      px[k] = *reinterpret_cast<const unsigned *>(&hs->ring[c & 1][lane][4 * k]);
      ow[k] = 0;
    }
#pragma unroll
    for (int g = 0; g < CHUNK / GROUP; g++) {
      const int T8 = T + g * GROUP;
      const int G = T8 / GROUP, slot = G & 1, prev = (G - 1) & 1;
      /* b[j]: lane 31 the error of the row above lane 0 at step T8 + j,
       * lane 30 that of two rows above (what lanes 0 and 1 receive). */
      int b[GROUP];
      if (w == 0) {
        const int bw = ex.group_words(pos, T8);
#pragma unroll
        for (int j = 0; j < GROUP; j++) b[j] = __shfl_sync(FULL, bw, (lane & 1) ? j : GROUP + j);
      } else {
        /* warp w-1's errors of steps T8 + j - D (its last group), written
         * before the last barrier. */
        const warp_hist *up = hs - 1;
        const int4 lo = up->h[prev][0][lane], hi = up->h[prev][1][lane];
        b[0] = lo.x; b[1] = lo.y; b[2] = lo.z; b[3] = lo.w;
        b[4] = hi.x; b[5] = hi.y; b[6] = hi.z; b[7] = hi.w;
      }
      int eh[GROUP];
#pragma unroll
      for (int j = 0; j < GROUP; j++) {
        const int jc = g * GROUP + j; /* step in the chunk */
        int pix = (int)__byte_perm(px[jc / 4], 0u, 0x4440u | (unsigned)(jc % 4));
        /* outside the image: an input so negative that u < 0 <= white_above,
         * so the rule itself returns e = 0 (and white = 0): the same errors
         * as masking e, with no select between e and the shuffle. */
        if (!FAST && !((okm >> jc) & 1u)) pix = -(1 << 20);
        int white;
        const int base = ahead[0] + K::weight(0, 4) * left2;
        const int e = pixel_late<K, WC>(pix, base, K::weight(0, 3), left1, pend, white_above, &white);
        const unsigned nib = 4u * (unsigned)(jc % 4);
        ow[jc / 4] = __byte_perm(ow[jc / 4], (unsigned)white, (0x3210u & ~(0xfu << nib)) | (4u << nib));
        left2 = left1;
        left1 = e;
#pragma unroll
        for (int k = 0; k + 1 < AH; k++) ahead[k] = ahead[k + 1];
        ahead[AH - 1] = 0;
        const int v1 = lane == 31 ? b[j] : e;
        const int u1 = __shfl_sync(FULL, v1, src1);
#pragma unroll
        for (int dx = -2; dx <= 2; dx++)
          if (K::weight(1, dx + 2) != 0 && !(WC != 0 && dx == DXC))
            ahead[LAG + dx - 1] += K::weight(1, dx + 2) * u1;
        pend = u1;
        if (K::rows == 3) {
          const int v2 = lane == 30 ? b[j] : v1;
          const int u2 = __shfl_sync(FULL, v2, src2);
#pragma unroll
          for (int dx = -2; dx <= 2; dx++)
            if (K::weight(2, dx + 2) != 0) ahead[2 * LAG + dx - 1] += K::weight(2, dx + 2) * u2;
        }
        eh[j] = e;
        /* the exchange's shared-memory reads for the next group, halfway
         * (so that their latency is not a stall at the start of the group,
         * where the warp issues in order), in every warp (so that no branch
         * splits the steps). */
        if (j == GROUP / 2) ex.group_prefetch(G + 1);
      }
      hs->h[slot][0][lane] = make_int4(eh[0], eh[1], eh[2], eh[3]);
      hs->h[slot][1][lane] = make_int4(eh[4], eh[5], eh[6], eh[7]);
      if (w == NW - 1) {
        /* lanes 0-7: lane 31's error of step T8 + lane, 8-15: lane 30's. */
        __syncwarp();
        const int j = lane & 7;
        const int e = reinterpret_cast<const int *>(&hs->h[slot][j >> 2][31 - ((lane >> 3) & 1)])[j & 3];
        ex.group_end_e(pos, e, T8);
      }
      if (g == CHUNK / GROUP - 1) {
        /* the chunk's 0/255 bytes, for the I/O warp after the barrier */
#pragma unroll
        for (int k = 0; k < CHUNK / 4; k++) *reinterpret_cast<unsigned *>(&hs->ring[c & 1][lane][4 * k]) = ow[k];
      }
      /* warp w+1 reads this group's slot, the I/O warp the chunk's bytes, after it. */
      strip_barrier<NW>();
    }
  };

  /* the I/O warps stage chunk 0 before it. */
  strip_barrier<NW>();
  for (int c = 0; c < chunks; c++) {
    const int x0 = c * CHUNK - xoff;
    if (interior(c * CHUNK))
      chunk_steps(c, x0, std::true_type{});
    else
      chunk_steps(c, x0, std::false_type{});
  }

  /* the next strip reuses hist. */
  strip_barrier<NW>();
}

}  // namespace skss_wf

#endif
