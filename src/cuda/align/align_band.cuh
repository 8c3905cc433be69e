/*
 * align_band.cuh — the device code of the alignment pass (align_kernel.cu
 * launches it): a warp's band of 32 x R rows (R a lane) as a diagonal
 * wavefront over its lanes, the hand-off of its last row to the band below
 * through the task array's progress counters, the best-cell record, and the
 * kernel that takes bands by ticket. Its own header so that tests/emu/ can run
 * the very same code on CPU threads (warps emulated) in builds without a GPU.
 */
#ifndef SKSS_CUDA_ALIGN_BAND_CUH
#define SKSS_CUDA_ALIGN_BAND_CUH

#include "align_cuda.cuh"

namespace skss__al {

constexpr int WARPS = SKSS_CUDA_ALIGN_WARPS;
constexpr int CH = SKSS_CUDA_ALIGN_CHUNK;
constexpr unsigned FULL = 0xffffffffu;
constexpr int32_t NONE = INT32_MIN; /* below every H - o: no candidate */
constexpr int SROW = SKSS__ALIGN_CODES + 4; /* words a score-table row in shared memory */
static_assert(CH % 32 == 0, "SKSS_CUDA_ALIGN_CHUNK must be a multiple of 32");

/* A lane's rows: H - o and E of its cells left of the current column, the
 * letters of a (as byte offsets of their score-table rows), and with ALL the
 * best cell a row (H - o and its column). */
template <int R>
struct rows_state {
  static_assert(R <= SKSS__ALIGN_BAND, "a lane holds at most one checkpoint row");
  int32_t ho[R], ev[R];
  int arow[R];
  int32_t bs[R];
  int bj[R];
  unsigned valid; /* bit r: row r is inside the pass */
};

struct params {
  int32_t o, e;
};

/* s(a of row r, b_j) from the table in shared memory: arow = a's row offset
 * in bytes, bcode = 4 b_j. Rows are SROW words apart, so that the 16 pairs of
 * DNA letters fall in 16 different banks (bank 4 a + b). */
template <int R>
__device__ __forceinline__ int32_t score(const rows_state<R> &s, const int32_t *ssub, int r, int bcode) {
  return *reinterpret_cast<const int32_t *>(reinterpret_cast<const char *>(ssub) + (s.arow[r] + bcode));
}

/* Column j of the lane's rows. In: uh, uf = H - o and F of the row above at
 * j, d = H - o at (above, j - 1). Out: uh, uf of the lane's last row. With
 * PRED, rows outside the pass (and lanes outside the columns) pass through
 * (only rows after an invalid row are invalid, so their diagonal may be
 * anything). With SAVE, row save_r's H - o and F go to *hs, *fs. */
template <int R, bool LOCAL, bool ALL, bool PRED, bool SAVE, bool BITS = false>
__device__ __forceinline__ void cells(rows_state<R> &s, const params &p, const int32_t *ssub, int bcode, int j,
                                      bool active, int32_t &uh, int32_t &uf, int32_t d, int save_r,
                                      int32_t *hs, int32_t *fs, unsigned long long *word = nullptr) {
  static_assert(!BITS || (!LOCAL && !ALL), "direction bits: a global pass with no track");
  /* H(diag) - o + s of row 0; each row computes its successor's before it
   * overwrites its own H (so H updates in place, no register moves) */
  int32_t t = d + score(s, ssub, 0, bcode);
  unsigned long long w = 0;
#pragma unroll
  for (int r = 0; r < R; r++) {
    int32_t f, en, mx, h;
    const int32_t next = r + 1 < R ? s.ho[r] + score(s, ssub, r + 1, bcode) : 0;
    if (BITS) {
      /* the same values, each max with the side that won (a >= b) */
      bool f_ext, e_ext, from_e, diag;
      f = __vibmax_s32(uf - p.e, uh, &f_ext);
      en = __vibmax_s32(s.ev[r] - p.e, s.ho[r], &e_ext);
      mx = __vibmax_s32(en, f, &from_e);
      h = __vibmax_s32(t, mx - p.o, &diag);
      const unsigned nib = (diag ? SKSS__AL_FROM_DIAG : from_e ? SKSS__AL_FROM_E : SKSS__AL_FROM_F) |
                           (e_ext ? SKSS__AL_E_EXT : 0u) | (f_ext ? SKSS__AL_F_EXT : 0u);
      w |= (unsigned long long)nib << (4 * r);
    } else {
      f = __viaddmax_s32(uf, -p.e, uh);
      en = __viaddmax_s32(s.ev[r], -p.e, s.ho[r]);
      mx = LOCAL ? __vimax_s32_relu(en, f) : max(en, f);
      /* H - o = max(H(diag) + s, E, F [, 0]) - o */
      h = __viaddmax_s32(mx, -p.o, t);
    }
    t = next;
    const bool ok = !PRED || (active && ((s.valid >> r) & 1u));
    if (ok) {
      s.ho[r] = h;
      s.ev[r] = en;
      uh = h;
      uf = f;
      if (ALL) {
        bool keep;
        /* the first (smallest j) of equal scores stays */
        s.bs[r] = __vibmax_s32(s.bs[r], h, &keep);
        s.bj[r] = keep ? s.bj[r] : j;
      }
      if (SAVE && r == save_r) {
        *hs = h;
        *fs = f;
      }
    }
  }
  if (BITS) *word = w;
}

/* A lane's direction word: the nibbles of its R rows in one column (R / 2
 * bytes, so that the bits take half a byte a cell whatever R is). */
template <int R> struct bits_word;
template <> struct bits_word<4> { using type = uint16_t; };
template <> struct bits_word<8> { using type = uint32_t; };
template <> struct bits_word<16> { using type = unsigned long long; };

/* Where a lane's checkpoint row is: its row index r and slot k, or r = -1. */
struct save_spot {
  int r, k;
};

/* Steps t0 .. t0 + 31 of the band's wavefront (lane L: column t - L + 1).
 * qh, qf: H - o and F of the row above the band at columns t0 + 1 + lane. */
template <int R, bool LOCAL, bool ALL, bool PRED, bool SAVE, bool BITS>
__device__ __forceinline__ void steps32(const skss__al_job &job, const params &p, const int32_t *ssub,
                                        rows_state<R> &s, const save_spot &sv, int lane, int t0, int steps,
                                        int32_t qh, int32_t qf, int32_t &uh, int32_t &uf, int32_t &diag,
                                        typename bits_word<R>::type *bits_row) {
#pragma unroll 1
  for (int k = 0; k < 32; k++) {
    const int t = t0 + k;
    if (PRED && t >= steps) break;
    const int j = t - lane + 1;
    const bool active = !PRED || (j >= 1 && j <= job.cols);
    const int bj = PRED ? min(max(j, 1), job.cols) : j;
    const int bcode = 4 * __ldg(job.b + bj - 1);
    const int32_t top_h = __shfl_sync(FULL, qh, k), top_f = __shfl_sync(FULL, qf, k);
    int32_t inh = __shfl_up_sync(FULL, uh, 1), inf = __shfl_up_sync(FULL, uf, 1);
    if (lane == 0) {
      inh = top_h;
      inf = top_f;
    }
    const int32_t d = diag;
    if (active) diag = inh;
    uh = inh;
    uf = inf;
    int32_t hs = 0, fs = 0;
    unsigned long long word = 0;
    cells<R, LOCAL, ALL, PRED, SAVE, BITS>(s, p, ssub, bcode, j, active, uh, uf, d, sv.r, &hs, &fs, &word);
    /* the lane's rows' nibbles of column j (rows past the pass: any) */
    if (BITS && active) bits_row[j] = (typename bits_word<R>::type)word;
    if (SAVE && sv.r >= 0 && active) {
      const size_t at = (size_t)sv.k * (size_t)(job.cols + 1) + (size_t)j;
      job.save_h[at] = hs + p.o;
      job.save_f[at] = fs;
    }
    if (lane == 31 && active) {
      /* plain stores: the band below reads them (__ldcg) only after the warp's publish */
      __stcg(job.h + j, uh + p.o);
      __stcg(job.f + j, uf);
    }
  }
}

/* H of the column-0 cell of row i (row 0: the start). */
__device__ __forceinline__ int32_t h_col0(const skss__al_job &job, int64_t i) {
  if (i == 0) return job.free_start ? 0 : job.h00;
  return skss__al_col0(job.free_start, job.h00, job.f00, job.open, job.extend, i);
}

/* The lane's rows at column 0 and its checkpoint row. */
template <int R>
__device__ __forceinline__ void band_init(const skss__al_job &job, int first, rows_state<R> &s, save_spot &sv) {
  s.valid = 0;
  sv.r = -1;
  sv.k = 0;
#pragma unroll
  for (int r = 0; r < R; r++) {
    const int i = first + r;
    const bool in = i <= job.rows;
    s.valid |= (in ? 1u : 0u) << r;
    const int code = in ? job.a[i - 1] : 0;
    s.arow[r] = code * SROW * 4;
    s.ho[r] = (in ? h_col0(job, i) : 0) - job.open;
    s.ev[r] = SKSS__ALIGN_NEG;
    s.bs[r] = NONE;
    s.bj[r] = 0;
    if (in && job.saves > 0 && i % job.save_every == 0 && i / job.save_every <= job.saves) {
      sv.r = r;
      sv.k = i / job.save_every - 1;
    }
  }
}

/* The best of (score, i, j) by skss's rule: highest score, then smallest i, then smallest j. */
__device__ __forceinline__ bool better(int32_t s, int i, int j, int32_t s2, int i2, int j2) {
  return s > s2 || (s == s2 && (i < i2 || (i == i2 && j < j2)));
}

/* The band's best candidate to its slot and the pass's key (lane 0). */
template <int R, bool ALL>
__device__ __forceinline__ void band_best(const skss__al_job &job, const rows_state<R> &s, int band, int first,
                                          int lane) {
  int32_t bs = NONE;
  int bi = INT32_MAX, bj = INT32_MAX;
#pragma unroll
  for (int r = 0; r < R; r++) {
    if (!((s.valid >> r) & 1u)) continue;
    if (ALL && s.bs[r] > bs) {
      bs = s.bs[r];
      bi = first + r;
      bj = s.bj[r];
    }
    /* semi-global: the last column is a candidate (the last row is the host's) */
    if (job.track == SKSS__ALIGN_TRACK_EDGE && better(s.ho[r], first + r, job.cols, bs, bi, bj)) {
      bs = s.ho[r];
      bi = first + r;
      bj = job.cols;
    }
  }
#pragma unroll
  for (int m = 16; m >= 1; m /= 2) {
    const int32_t s2 = __shfl_xor_sync(FULL, bs, m);
    const int i2 = __shfl_xor_sync(FULL, bi, m), j2 = __shfl_xor_sync(FULL, bj, m);
    if (better(s2, i2, j2, bs, bi, bj)) {
      bs = s2;
      bi = i2;
      bj = j2;
    }
  }
  if (lane == 0 && bs != NONE) {
    job.slot[band] = make_int2(bi, bj);
    const unsigned score = (unsigned)(bs + job.open) ^ 0x80000000u;
    const unsigned long long key = (unsigned long long)score << 32 | (0xffffffffull - (unsigned)band);
    /* relaxed max: only the winner matters; the host reads it after the kernel */
    atomicMax(job.key, key);
  }
}

/* One band: waits for the band above a 32-column block at a time, runs its
 * 32 steps, publishes every finished chunk of its last row. With BITS (no
 * checkpoint rows then) each lane writes its rows' direction word a column. */
template <int R, bool LOCAL, bool ALL, bool BITS = false>
__device__ void run_band(const skss__al_job &job, const int32_t *ssub, const skss_cuda_taskarray_view &ta,
                         int band, int lane) {
  /* indexed by j = 1..cols: the words of the lane's rows */
  using word_t = typename bits_word<R>::type;
  word_t *const bits_row =
      BITS ? static_cast<word_t *>(job.bits) + ((size_t)band * 32 + (size_t)lane) * (size_t)job.cols - 1 : nullptr;
  const params p = {job.open, job.extend};
  const int top = band * 32 * R + 1, first = top + lane * R;
  const bool full = top + 32 * R - 1 <= job.rows;
  rows_state<R> s;
  save_spot sv;
  band_init(job, first, s, sv);
  int32_t diag = h_col0(job, first - 1) - job.open, uh = 0, uf = 0;
  const int steps = job.cols + 31, chunks = ta.cols;
  int have = 0, published = 0;
  for (int t0 = 0; t0 < steps; t0 += 32) {
    const int jq = t0 + 1 + lane;
    int32_t qh = 0, qf = SKSS__ALIGN_NEG;
    if (band == 0) {
      qh = skss__al_row0(job.free_start, job.h00, job.open, job.extend, jq) - job.open;
    } else {
      const int last = min(t0 + 32, job.cols), need = min((last + CH - 1) / CH, chunks);
      if (need > have) {
        /* wait (data): the band above's last row over columns <= last is in the row buffer */
        skss_cuda_warp_wait_row_unchecked(ta, band - 1, need);
        have = need;
      }
      if (jq <= job.cols) {
        qh = __ldcg(job.h + jq) - job.open;
        qf = __ldcg(job.f + jq);
      }
    }
    const bool steady = full && t0 >= 32 && t0 + 32 <= job.cols;
    if constexpr (BITS) {
      if (steady)
        steps32<R, LOCAL, ALL, false, false, true>(job, p, ssub, s, sv, lane, t0, steps, qh, qf, uh, uf, diag,
                                                   bits_row);
      else
        steps32<R, LOCAL, ALL, true, false, true>(job, p, ssub, s, sv, lane, t0, steps, qh, qf, uh, uf, diag,
                                                  bits_row);
    } else if (job.saves > 0 && steady)
      steps32<R, LOCAL, ALL, false, true, false>(job, p, ssub, s, sv, lane, t0, steps, qh, qf, uh, uf, diag, nullptr);
    else if (job.saves > 0)
      steps32<R, LOCAL, ALL, true, true, false>(job, p, ssub, s, sv, lane, t0, steps, qh, qf, uh, uf, diag, nullptr);
    else if (steady)
      steps32<R, LOCAL, ALL, false, false, false>(job, p, ssub, s, sv, lane, t0, steps, qh, qf, uh, uf, diag,
                                                  nullptr);
    else
      steps32<R, LOCAL, ALL, true, false, false>(job, p, ssub, s, sv, lane, t0, steps, qh, qf, uh, uf, diag,
                                                 nullptr);
    const int written = min(t0 + 32, steps) - 31; /* lane 31's columns so far */
    const int done = written >= job.cols ? chunks : written / CH;
    if (done > published) {
      /* publish (release): lane 31's stores of those columns come before the count */
      skss_cuda_warp_publish(ta, band, done);
      published = done;
    }
  }
  if (ALL || job.track == SKSS__ALIGN_TRACK_EDGE) band_best<R, ALL>(job, s, band, first, lane);
}

/* The block's warps take bands until none is left, each band then handed to
 * done(band) on every lane: by a ticket a warp, or with
 * SKSS_CUDA_ALIGN_GROUP_TICKETS one ticket a block for as many consecutive
 * bands as it has warps. ssub: the score table, already in shared memory. */
template <int R, bool LOCAL, bool ALL, bool BITS, typename Done>
__device__ __forceinline__ void take_bands(const skss__al_job &job, const int32_t *ssub,
                                           const skss_cuda_taskarray_view &ta, Done done) {
  const int lane = (int)(threadIdx.x & 31);
  if (SKSS_CUDA_ALIGN_GROUP_TICKETS) {
    __shared__ int s_first;
    const int warp = (int)(threadIdx.x / 32), warps = (int)(blockDim.x / 32);
    for (;;) {
      /* every warp has read the block's last first band before the leader takes the next */
      __syncthreads();
      /* relaxed: the ticket only orders bands; data is ordered by publish and wait */
      if (threadIdx.x == 0) s_first = (int)atomicAdd(ta.ticket, (unsigned)warps);
      /* every warp reads the leader's first band after it is written */
      __syncthreads();
      const int band = s_first + warp;
      if (s_first >= ta.rows) break;
      if (band < ta.rows) {
        run_band<R, LOCAL, ALL, BITS>(job, ssub, ta, band, lane);
        done(band);
      }
    }
  } else {
    for (int band = skss_cuda_warp_take_row(ta); band < ta.rows; band = skss_cuda_warp_take_row(ta)) {
      run_band<R, LOCAL, ALL, BITS>(job, ssub, ta, band, lane);
      done(band);
    }
  }
}

/* The 32 x 32 scores into shared memory (rows SROW words apart), by the
 * whole block, before any warp takes a band. */
__device__ __forceinline__ void load_scores(int32_t *ssub, const int32_t *sub) {
  for (int k = threadIdx.x; k < SKSS__ALIGN_CODES * SKSS__ALIGN_CODES; k += blockDim.x)
    ssub[k / SKSS__ALIGN_CODES * SROW + k % SKSS__ALIGN_CODES] = sub[k];
  /* the table is read by every warp; no warp has taken a band yet */
  __syncthreads();
}

template <int R, bool LOCAL, bool ALL, bool BITS = false>
__global__ void __launch_bounds__(32 * WARPS) pass_kernel(skss__al_job job, const int32_t *sub,
                                                          skss_cuda_taskarray_view ta) {
  __shared__ int32_t ssub[SKSS__ALIGN_CODES * SROW];
  load_scores(ssub, sub);
  take_bands<R, LOCAL, ALL, BITS>(job, ssub, ta, [](int) {});
}

/* The walk back through a pass's direction bits on one warp. The warp loads
 * the words of the WALK_TILE x WALK_TILE cells up and left of the path's cell
 * into shared memory (coalesced along the columns), lane 0 follows the path
 * until it leaves them, and so on to row 0 or column 0, then the straight gap
 * to (0, 0). Ops last first, ending at ops_end (device memory, at most rows +
 * cols of them); their count to *len. One block of one warp. */
constexpr int WALK_TILE = 64;

template <int R>
__global__ void __launch_bounds__(32) walk_kernel(const void *bits, int rows, int cols, const uint8_t *a,
                                                  const uint8_t *b, int end_v, char *ops_end, long long *len) {
  using word_t = typename bits_word<R>::type;
  constexpr int GROUPS = WALK_TILE / R + 1; /* groups of R rows a tile's rows can touch */
  __shared__ word_t tile[GROUPS * WALK_TILE];
  __shared__ uint8_t ta[WALK_TILE], tb[WALK_TILE]; /* the tile's rows' and columns' letters */
  __shared__ int s_i, s_j;
  __shared__ unsigned s_state;
  __shared__ long long s_n;
  const word_t *const words = static_cast<const word_t *>(bits);
  const int lane = (int)(threadIdx.x & 31);
  if (lane == 0) {
    s_i = rows;
    s_j = cols;
    s_state = end_v ? SKSS__AL_FROM_F : SKSS__AL_FROM_DIAG;
    s_n = 0;
  }
  /* every lane reads the path's cell after lane 0 wrote it */
  __syncwarp();
  for (;;) {
    const int i = s_i, j = s_j;
    if (i == 0 || j == 0) break;
    /* the tile: rows (i_lo, i], columns (j_lo, j] */
    const int i_lo = max(0, i - WALK_TILE), j_lo = max(0, j - WALK_TILE);
    const int g_lo = i_lo / R, groups = (i - 1) / R - g_lo + 1, width = j - j_lo;
    for (int k = lane; k < groups * WALK_TILE; k += 32) {
      const int g = k / WALK_TILE, c = k % WALK_TILE;
      if (c < width) tile[k] = __ldg(words + (size_t)(g_lo + g) * (size_t)cols + (size_t)(j_lo + c));
    }
    for (int k = lane; k < WALK_TILE; k += 32) {
      if (k < i - i_lo) ta[k] = a[i_lo + k];
      if (k < width) tb[k] = b[j_lo + k];
    }
    /* lane 0 reads the tile after every lane's loads */
    __syncwarp();
    if (lane == 0) {
      int ii = i, jj = j;
      unsigned st = s_state;
      long long n = s_n;
      while (ii > i_lo && jj > j_lo) {
        const unsigned nib =
            (unsigned)(tile[((ii - 1) / R - g_lo) * WALK_TILE + (jj - 1 - j_lo)] >> (4 * ((ii - 1) % R))) & 15u;
        const char op = skss__al_walk_step(nib, &st, &ii, &jj, ta[ii - 1 - i_lo] == tb[jj - 1 - j_lo]);
        if (op) ops_end[-(++n)] = op;
      }
      s_i = ii;
      s_j = jj;
      s_state = st;
      s_n = n;
    }
    /* every lane reads the new cell, and the tile is free, after lane 0's walk */
    __syncwarp();
  }
  if (lane == 0) {
    long long n = s_n;
    for (int i = s_i; i > 0; i--) ops_end[-(++n)] = 'I';
    for (int j = s_j; j > 0; j--) ops_end[-(++n)] = 'D';
    *len = n;
  }
}

}  // namespace skss__al

#endif
