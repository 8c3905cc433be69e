/*
 * knapsack_dispatch.cu — skss_knapsack() on the CUDA backend, after the C
 * entry point has validated and reduced the call (core/knapsack_api.c):
 *  - uploads the DP items of every instance once (int32 weights, int64 values);
 *  - plans the device memory against max_bytes before allocating: the
 *    papers' family needs its whole value table; strips needs O(C') plus the
 *    decision bits, or, when those do not fit, value-row checkpoints (a
 *    value-only pass saving a row every s items, then each segment's bits
 *    recomputed from its checkpoint, last segment first);
 *  - a batch whose instances each fit one strip runs in one launch, a block
 *    an instance; anything else runs one instance after another;
 *  - the walk back runs on the device over the decision bits (walk_bits:
 *    a block loads the window of bits the next rows' walk can touch into
 *    shared memory, then one thread walks it) or over the papers' table;
 *  - best values and chosen items come back to the host; values_by_capacity
 *    is written on the device (for a host table, staged and copied back).
 */
#include <stdio.h>
#include <string.h>

#include <memory>

#include "knapsack_cuda.cuh"

namespace {

const char *const FN = "skss_knapsack()";

constexpr int WALK_THREADS = 256;
constexpr int WALK_WORDS = 11264; /* 44 KB of bits a window */
constexpr int WALK_ROWS = 128;    /* rows a window: four warps plan them */
static_assert(WALK_ROWS == 128 && WALK_THREADS >= WALK_ROWS, "the plan's scan is four warps wide");

/* Exclusive prefix sum of x over threads 0..127 (four warps); every thread
 * of the block calls it. */
__device__ long long scan128(long long x, long long *s_part) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  long long inc = x;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const long long y = __shfl_up_sync(0xffffffffu, inc, d);
    if (lane >= d) inc += y;
  }
  if (lane == 31 && warp < 4) s_part[warp] = inc;
  /* the four warps' totals are in place before any thread adds them */
  __syncthreads();
  long long before = 0;
  for (int q = 0; q < warp && q < 4; q++) before += s_part[q];
  /* the totals are read before the next scan overwrites them */
  __syncthreads();
  return before + inc - x;
}

__device__ __forceinline__ void cp_async4(uint32_t *smem, const uint32_t *gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(gmem) : "memory");
}

/* rows < 0: each instance's items from its cap; else rows [row_lo, row_lo +
 * rows) of instance 0 (bits of row row_lo at `bits`) from *cpos.
 * A window is the next rows k, k - 1, ... whose reachable bits fit
 * WALK_WORDS: row k - i can only be read at capacities [c - (weights of rows
 * k .. k - i + 1), c]. The block plans it by two scans, copies its words
 * with every copy in flight at once (cp.async), and thread 0 walks it. */
__global__ void __launch_bounds__(WALK_THREADS)
    walk_bits_kernel(const skss__knap_dev_inst *inst, const int *w_all, const uint32_t *bits, int row_lo,
                     int rows, long long *cpos, uint8_t *chosen_all) {
  __shared__ uint32_t words[WALK_WORDS];
  __shared__ int s_off[WALK_ROWS], s_lo[WALK_ROWS], s_n[WALK_ROWS], s_w[WALK_ROWS];
  __shared__ long long s_part[4], s_c;
  const skss__knap_dev_inst I = inst[blockIdx.x];
  const int n = rows < 0 ? I.items : rows, lo = rows < 0 ? 0 : row_lo;
  const int *W = w_all + I.first + lo;
  uint8_t *chosen = chosen_all + I.first + lo;
  const uint32_t *B = bits + I.bits_off;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  if (t == 0) s_c = cpos != nullptr ? cpos[blockIdx.x] : I.cap;
  /* the start capacity is known before the first plan */
  __syncthreads();
  for (int k = n - 1; k >= 0;) {
    const long long c = s_c;
    /* row k - t of the window (t < WALK_ROWS): its weight and its reachable words */
    const bool row = t < WALK_ROWS && t <= k;
    const int w = row ? W[k - t] : 0;
    const long long above = scan128(w, s_part); /* weights of the rows walked before it */
    const long long low = c - above > 0 ? c - above : 0;
    const long long nw = row ? c / 32 - low / 32 + 1 : 0;
    const long long off = scan128(nw < WALK_WORDS ? nw : WALK_WORDS + 1, s_part);
    /* the window: the rows whose words all fit (row k's single word always does) */
    const int cnt = __syncthreads_count(row && off + nw <= WALK_WORDS);
    if (t < cnt) {
      s_off[t] = (int)off;
      s_lo[t] = (int)(low / 32);
      s_n[t] = (int)nw;
      s_w[t] = w;
    }
    /* the window's shape is known to every thread */
    __syncthreads();
    for (int i = warp; i < cnt; i += WALK_THREADS / 32) {
      const uint32_t *from = B + (size_t)(k - i) * I.row_words + s_lo[i];
      uint32_t *to = words + s_off[i];
      for (int f = lane; f < s_n[i]; f += 32) cp_async4(to + f, from + f);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    /* every thread's copies of the window are in shared memory before thread 0 walks it */
    __syncthreads();
    if (t == 0) {
      long long cc = c;
      for (int i = 0; i < cnt; i++) {
        const uint32_t word = words[s_off[i] + (int)(cc / 32) - s_lo[i]];
        const bool take = (word >> (cc & 31)) & 1u;
        chosen[k - i] = take;
        if (take) cc -= s_w[i];
      }
      s_c = cc;
    }
    k -= cnt;
    /* the walk is done (and s_c written) before the next window's plan and copies */
    __syncthreads();
  }
  if (t == 0 && cpos != nullptr) cpos[blockIdx.x] = s_c;
}

/* The weights as int32 (each is at most its instance's cap, an int). */
__global__ void narrow_kernel(const long long *w64, int *w, long long count) {
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < count; j += (long long)gridDim.x * blockDim.x)
    w[j] = (int)w64[j];
}

/* dst[c] = base + V[min(c, cap)] for c = 0..count-1 of each instance (y). */
template <typename Cell>
__global__ void table_kernel(const skss__knap_dev_inst *inst, const Cell *rows, const long long *base,
                             long long count, long long stride, long long *dst) {
  const int k = blockIdx.y;
  const skss__knap_dev_inst I = inst[k];
  for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < count;
       c += (long long)gridDim.x * blockDim.x) {
    const long long at = c < I.cap ? c : I.cap;
    dst[k * stride + c] = base[k] + (I.items > 0 ? static_cast<long long>(rows[I.row_off + at]) : 0);
  }
}

/* Bump allocation of one arena block, 256-byte aligned parts. */
struct carve {
  uint8_t *base;
  size_t used;
  template <typename T>
  T *take(size_t count) {
    T *p = reinterpret_cast<T *>(base + used);
    used += skss__cuda_align(count * sizeof(T));
    return p;
  }
};

static size_t al(size_t bytes) { return skss__cuda_align(bytes); }

/* Device memory of a call, part by part (bytes). */
struct need {
  size_t lists, family, bits, rows, ckpt;
  size_t total() const { return lists + family + bits + rows + ckpt; }
};

bool is_papers(int algorithm) {
  return algorithm >= SKSS_KNAPSACK_ALGORITHM_PARALLEL_FORWARD && algorithm <= SKSS_KNAPSACK_ALGORITHM_SKSS;
}

skss_status over_limit(skss_ctx *ctx, const skss__knapsack_call *call, const char *what, size_t bytes,
                       size_t least, const char *way_out) {
  char alt[96] = "";
  if (least > 0) snprintf(alt, sizeof alt, ", or at least %zu reconstructing from checkpoints", least);
  return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY,
                    "%s: needs %zu bytes of device memory (%s)%s for %lld DP item%s, over the limit "
                    "max_bytes = %lld; raise max_bytes%s",
                    FN, bytes, what, alt, (long long)call->total_items, call->total_items == 1 ? "" : "s",
                    (long long)call->limit, way_out);
}

/* The state of one call on the device. */
struct run_state {
  skss_ctx *ctx;
  const skss__knapsack_call *call;
  int algorithm;
  size_t cell;
  skss__knap_dev_items items;
  skss__knap_dev_inst *dev_inst; /* per instance; offsets set per group */
  skss__knap_dev_inst *host_inst;
  long long *best, *cpos, *base;
  uint8_t *chosen;
  cudaStream_t stream;
};

/* values_by_capacity of instances [k0, k0 + count) from their output rows. */
skss_status write_tables(run_state &s, int k0, int count, const void *rows, long long *staging) {
  const skss__knapsack_call *call = s.call;
  if (call->table == nullptr) return SKSS_OK;
  const long long entries = call->capacity + 1;
  long long *table = reinterpret_cast<long long *>(call->table);
  const bool on_device = skss__cuda_is_device_ptr(table);
  for (int k = k0; k < k0 + count; k += 65535) {
    const int batch = k0 + count - k < 65535 ? k0 + count - k : 65535;
    /* a host table is staged up to its largest C' + 1 and completed on the host */
    long long filled = entries;
    if (!on_device) {
      filled = 0;
      for (int i = k; i < k + batch; i++)
        filled = s.host_inst[i].cap + 1 > filled ? s.host_inst[i].cap + 1 : filled;
      filled = filled < entries ? filled : entries;
    }
    long long *dst = on_device ? table + (size_t)k * entries : staging;
    const long long stride = on_device ? entries : filled;
    const int blocks = (int)((filled + 255) / 256 < 4096 ? (filled + 255) / 256 : 4096);
    const dim3 grid(blocks > 0 ? blocks : 1, batch);
    if (call->wide)
      table_kernel<long long><<<grid, 256, 0, s.stream>>>(s.dev_inst + k, static_cast<const long long *>(rows),
                                                          s.base + k, filled, stride, dst);
    else
      table_kernel<int><<<grid, 256, 0, s.stream>>>(s.dev_inst + k, static_cast<const int *>(rows), s.base + k,
                                                    filled, stride, dst);
    SKSS_CUDA_CHECK_LAUNCH(s.ctx, FN);
    if (on_device) continue;
    for (int i = k; i < k + batch; i++) {
      long long *out = table + (size_t)i * entries;
      SKSS_CUDA_TRY(s.ctx, FN, cudaMemcpyAsync(out, staging + (size_t)(i - k) * filled,
                                               (size_t)filled * sizeof(long long), cudaMemcpyDeviceToHost,
                                               s.stream));
    }
    SKSS_CUDA_TRY(s.ctx, FN, cudaStreamSynchronize(s.stream));
    for (int i = k; i < k + batch; i++) {
      long long *out = table + (size_t)i * entries;
      for (long long c = filled; c < entries; c++) out[c] = out[filled - 1];
    }
  }
  return SKSS_OK;
}

/* The papers' family: each instance in turn, in its whole table. */
skss_status run_papers(run_state &s, carve work, long long *staging) {
  const skss__knapsack_call *call = s.call;
  for (int k = 0; k < (int)call->instances; k++) {
    skss__knap_dev_inst in = s.host_inst[k];
    carve c = work;
    void *sc = c.take<uint8_t>(skss__knap_papers_scratch(s.algorithm, in.cap));
    void *table = c.take<uint8_t>((size_t)(in.items + 1) * (size_t)skss__knap_row_cells(in.cap) * s.cell);
    if (in.items > 0) {
      skss_status st = skss__knap_papers_run(s.ctx, s.algorithm, call->wide, &in, s.items, table, sc);
      if (st != SKSS_OK) return st;
      if (call->chosen != nullptr) {
        st = skss__knap_papers_walk(s.ctx, call->wide, &in, s.items, table, s.chosen + in.first);
        if (st != SKSS_OK) return st;
      }
    }
    /* the last row V[items] is instance k's output row (its row_off is 0) */
    const size_t last = (size_t)in.items * (size_t)skss__knap_row_cells(in.cap);
    const uint8_t *row = static_cast<const uint8_t *>(table) + last * s.cell;
    long long best_cell = 0;
    if (in.items > 0) {
      if (call->wide) {
        long long v = 0;
        SKSS_CUDA_TRY(s.ctx, FN, cudaMemcpyAsync(&v, row + (size_t)in.cap * 8, 8, cudaMemcpyDeviceToHost, s.stream));
        SKSS_CUDA_TRY(s.ctx, FN, cudaStreamSynchronize(s.stream));
        best_cell = v;
      } else {
        int v = 0;
        SKSS_CUDA_TRY(s.ctx, FN, cudaMemcpyAsync(&v, row + (size_t)in.cap * 4, 4, cudaMemcpyDeviceToHost, s.stream));
        SKSS_CUDA_TRY(s.ctx, FN, cudaStreamSynchronize(s.stream));
        best_cell = v;
      }
    }
    call->best[k] = best_cell;
    skss_status st = write_tables(s, k, 1, row, staging);
    if (st != SKSS_OK) return st;
  }
  return SKSS_OK;
}

/* Asking for g segments of `items` items gives segments of s = ceil(items / g)
 * items, of which ceil(items / s) are used. */
long long segment_items(long long items, long long g) { return (items + g - 1) / g; }
long long segments_used(long long items, long long g) {
  const long long s = segment_items(items, g);
  return (items + s - 1) / s;
}

/* Bytes of checkpoints and bits with g segments of `items` items. */
double checkpoint_bytes(long long items, long long g, size_t row_bytes, size_t bits_row) {
  return (double)al((size_t)(segments_used(items, g) - 1) * row_bytes) +
         (double)al((size_t)segment_items(items, g) * bits_row);
}

/* The least memory any number of segments (>= 2) takes; 0 when none can. */
size_t least_checkpoints(long long items, size_t row_bytes, size_t bits_row) {
  double least = 0;
  for (long long g = 2; g <= items; g++) {
    const double b = checkpoint_bytes(items, g, row_bytes, bits_row);
    if (least == 0 || b < least) least = b;
  }
  return (size_t)least;
}

/* Segments for the checkpoint walk: the fewest whose memory fits `room`. */
int segments_for(long long items, size_t row_bytes, size_t bits_row, size_t room) {
  for (long long g = 2; g <= items; g++)
    if (checkpoint_bytes(items, g, row_bytes, bits_row) <= (double)room) return (int)segments_used(items, g);
  return 0;
}

} // namespace

skss_status skss__cuda_copy(skss_ctx *ctx, const char *fn, void *dst, const void *src, size_t bytes) {
  if (bytes == 0) return SKSS_OK;
  cudaStream_t stream = skss__cuda(ctx)->stream;
  SKSS_CUDA_TRY(ctx, fn, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
  SKSS_CUDA_TRY(ctx, fn, cudaStreamSynchronize(stream));
  return SKSS_OK;
}

skss_status skss__cuda_knapsack(skss_ctx *ctx, int algorithm, const skss__knapsack_call *call) {
  const int64_t K = call->instances, T = call->total_items;
  if (K > INT32_MAX / 2 || T > INT32_MAX)
    return skss__fail(ctx, SKSS_ERR_UNSUPPORTED,
                      "%s: the cuda backend takes at most 2^30 instances and 2^31 - 1 DP items a call", FN);
  run_state s = {};
  s.ctx = ctx;
  s.call = call;
  s.algorithm = algorithm;
  s.cell = call->wide ? 8 : 4;
  s.stream = skss__cuda(ctx)->stream;
  const bool items_out = call->chosen != nullptr;
  long long max_cap = 0, max_items = 0, max_w = 1, sum_rows = 0;
  for (int64_t k = 0; k < K; k++) {
    const skss__knapsack_instance &in = call->inst[k];
    if (in.cap > SKSS__CUDA_KNAP_MAX_CAP) {
      /* two value rows that no device holds, or beyond max_bytes: out of memory */
      size_t free_b = 0, total_b = 0;
      if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) (void)cudaGetLastError();
      const double rows = 2.0 * (double)(in.cap + 1) * (call->wide ? 8.0 : 4.0);
      if (rows > (double)total_b || rows > (double)call->limit)
        return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY,
                          "%s: needs more than %.0f bytes of device memory (two value rows of "
                          "capacities 0..%lld), over the device's %zu or max_bytes = %lld",
                          FN, rows, (long long)in.cap, total_b, (long long)call->limit);
    }
    if (in.cap > SKSS__CUDA_KNAP_MAX_CAP)
      return skss__fail(ctx, SKSS_ERR_UNSUPPORTED,
                        "%s: the cuda backend indexes capacities below %lld; this instance needs 0..%lld "
                        "(use the cpu backend)",
                        FN, (long long)SKSS__CUDA_KNAP_MAX_CAP, (long long)in.cap);
    max_cap = in.cap > max_cap ? in.cap : max_cap;
    max_items = in.items > max_items ? in.items : max_items;
    sum_rows += in.items > 0 ? skss__knap_row_cells(in.cap) : 0;
  }
  for (int64_t j = 0; j < T; j++) max_w = call->w[j] > max_w ? call->w[j] : max_w;

  /* The lists: items, instances, best, walk positions, bases, chosen. */
  need nd = {};
  nd.lists = al((size_t)T * 4) + 2 * al((size_t)T * 8) + al((size_t)K * sizeof(skss__knap_dev_inst)) +
             3 * al((size_t)K * 8) + al((size_t)T);
  const bool host_table = call->table != nullptr && !skss__cuda_is_device_ptr(call->table);
  /* a host table is staged on the device: a row an instance of a batch run at once, else one row */
  const size_t staged_row = (size_t)(max_cap + 1 < call->capacity + 1 ? max_cap + 1 : call->capacity + 1) * 8;
  size_t staging = host_table ? al(staged_row) : 0;
  nd.lists += staging;
  skss__knap_strips_plan plan = {};
  bool batch = false;
  int segments = 1;
  const double limit = (double)call->limit;
  size_t bits_row_max = (size_t)skss__knap_row_words(max_cap) * 4;
  if (is_papers(algorithm)) {
    nd.family = al(skss__knap_papers_scratch(algorithm, max_cap));
    size_t most = 0;
    for (int64_t k = 0; k < K; k++) {
      const double t = (double)(call->inst[k].items + 1) * (double)skss__knap_row_cells(call->inst[k].cap) * (double)s.cell;
      if (t > 1e18) return over_limit(ctx, call, "the value table", SIZE_MAX, 0, "");
      const size_t b = al((size_t)t);
      most = b > most ? b : most;
    }
    nd.family += most;
    if ((double)nd.total() > limit)
      return over_limit(ctx, call, "the whole value table, which the papers' algorithms keep", nd.total(), 0,
                        ", or use the strips algorithm (no table)");
  } else {
    skss_status st = skss__knap_strips_plan_for(ctx, call->wide, items_out, (int)max_w, max_cap, max_items, (int)K, &plan);
    if (st != SKSS_OK) return st;
    batch = plan.strips == 1 && plan.onchip && (K > 1 || max_cap + 1 <= plan.strip);
    double bits = 0, rows = 0;
    if (batch) {
      for (int64_t k = 0; k < K; k++) {
        bits += (double)call->inst[k].items * (double)skss__knap_row_words(call->inst[k].cap) * 4;
        rows += (double)skss__knap_row_cells(call->inst[k].cap) * (double)s.cell;
      }
      bits = items_out ? bits : 0;
      rows = call->table != nullptr ? rows : 0;
      /* a batch whose rows and bits do not fit runs its instances one at a time */
      const size_t batch_staging = host_table ? al(staged_row * (size_t)(K < 65535 ? K : 65535)) : 0;
      if ((double)(nd.lists - staging + batch_staging + al((size_t)rows)) + bits > limit) {
        batch = false;
      } else {
        nd.lists += batch_staging - staging;
        staging = batch_staging;
      }
    }
    if (!batch) {
      /* one instance at a time: the scratch of the most demanding */
      size_t most = 0;
      for (int64_t k = 0; k < K; k++) {
        if (call->inst[k].items == 0) continue;
        skss__knap_strips_plan one;
        st = skss__knap_strips_plan_for(ctx, call->wide, items_out, (int)max_w, call->inst[k].cap, call->inst[k].items, 1, &one);
        if (st != SKSS_OK) return st;
        if (one.scratch > most) most = one.scratch;
      }
      plan.scratch = most;
      bits = items_out ? (double)max_items * (double)bits_row_max : 0;
      rows = call->table != nullptr ? (double)skss__knap_row_cells(max_cap) * (double)s.cell : 0;
    }
    nd.family = al(plan.scratch);
    nd.rows = al((size_t)rows);
    if (bits > 1e18) bits = 1e18;
    nd.bits = bits > 0 ? al((size_t)bits) : 0;
    if ((double)nd.total() > limit) {
      const size_t without_bits = nd.total() - nd.bits;
      const size_t row_bytes = (size_t)skss__knap_row_cells(max_cap) * s.cell;
      size_t least = items_out ? least_checkpoints(max_items, row_bytes, bits_row_max) : 0;
      if (least >= nd.bits) least = 0; /* checkpoints would not save memory */
      if (!items_out || least == 0 || (double)(without_bits + least) > limit) {
        return over_limit(ctx, call, items_out ? "value rows and decision bits" : "value rows", nd.total(),
                          least > 0 ? without_bits + least : 0, items_out ? ", or use value_only mode" : "");
      }
      /* checkpoints: the fewest segments that fit */
      segments = segments_for(max_items, row_bytes, bits_row_max, (size_t)(limit - (double)without_bits));
      const long long seg = (max_items + segments - 1) / segments;
      nd.bits = al((size_t)seg * bits_row_max);
      nd.ckpt = al((size_t)(segments - 1) * row_bytes);
    }
  }
  uint8_t *arena = static_cast<uint8_t *>(skss__cuda_scratch(ctx, FN, nd.total()));
  if (arena == nullptr) return SKSS_ERR_OUT_OF_MEMORY;
  carve mem = {arena, 0};
  int *dw = mem.take<int>((size_t)T);
  long long *dv = mem.take<long long>((size_t)T);
  long long *dw64 = mem.take<long long>((size_t)T); /* the weights as given, narrowed on the device */
  s.dev_inst = mem.take<skss__knap_dev_inst>((size_t)K);
  s.best = mem.take<long long>((size_t)K);
  s.cpos = mem.take<long long>((size_t)K);
  s.base = mem.take<long long>((size_t)K);
  s.chosen = mem.take<uint8_t>((size_t)T);
  long long *stage = staging ? mem.take<long long>(staging / 8) : nullptr;

  /* host copies: the instances with their bit and row offsets */
  skss__knap_dev_inst *hi = static_cast<skss__knap_dev_inst *>(malloc(sizeof *hi * (size_t)(K > 0 ? K : 1)));
  std::unique_ptr<skss__knap_dev_inst, void (*)(void *)> hold_hi(hi, free); /* freed on every return */
  long long *hb = static_cast<long long *>(malloc(sizeof(long long) * (size_t)(K > 0 ? K : 1)));
  if (hi == nullptr || hb == nullptr) {
    free(hb);
    return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no host memory for the item lists", FN);
  }
  long long bits_off = 0, row_off = 0;
  for (int64_t k = 0; k < K; k++) {
    const skss__knapsack_instance &in = call->inst[k];
    hi[k].items = (int)in.items;
    hi[k].cap = (int)in.cap;
    hi[k].first = in.first;
    hi[k].row_words = skss__knap_row_words(in.cap);
    hi[k].bits_off = batch ? bits_off : 0;
    hi[k].row_off = batch ? row_off : 0;
    bits_off += (long long)in.items * hi[k].row_words;
    row_off += skss__knap_row_cells(in.cap);
    hb[k] = in.base;
  }
  s.host_inst = hi;
  s.items = {dw, dv, call->w, call->v};
  skss_status st = SKSS_OK;
  /* the lists come from page-locked host memory (core/knapsack_api.c) */
  cudaError_t err = cudaMemcpyAsync(dw64, call->w, 8 * (size_t)T, cudaMemcpyHostToDevice, s.stream);
  if (err == cudaSuccess && T > 0) {
    narrow_kernel<<<(unsigned)((T + 255) / 256 < 4096 ? (T + 255) / 256 : 4096), 256, 0, s.stream>>>(dw64, dw, T);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess) err = cudaMemcpyAsync(dv, call->v, 8 * (size_t)T, cudaMemcpyHostToDevice, s.stream);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(s.dev_inst, hi, sizeof *hi * (size_t)K, cudaMemcpyHostToDevice, s.stream);
  if (err == cudaSuccess) err = cudaMemcpyAsync(s.base, hb, 8 * (size_t)K, cudaMemcpyHostToDevice, s.stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(s.stream); /* the host copies are freed below */
  free(hb);
  if (err != cudaSuccess) {
    return skss__fail(ctx, SKSS_ERR_CUDA, "%s: uploading the items: %s", FN, cudaGetErrorString(err));
  }

  if (is_papers(algorithm)) {
    st = run_papers(s, mem, stage);
  } else {
    void *scratch = mem.take<uint8_t>(plan.scratch);
    uint32_t *bits = nd.bits ? mem.take<uint32_t>(nd.bits / 4) : nullptr;
    void *rows = nd.rows ? mem.take<uint8_t>(nd.rows) : nullptr;
    void *ckpt = nd.ckpt ? mem.take<uint8_t>(nd.ckpt) : nullptr;
    skss__knap_strips_job job = {};
    job.wide = call->wide;
    job.items = s.items;
    if (batch) {
      job.inst = s.dev_inst;
      job.host_inst = hi;
      job.instances = (int)K;
      job.lo = 0;
      job.hi = -1;
      job.out = rows;
      job.bits = bits;
      job.best = s.best;
      st = skss__knap_strips_run(ctx, &job, &plan, scratch);
      if (st == SKSS_OK && items_out) {
        walk_bits_kernel<<<(unsigned)K, WALK_THREADS, 0, s.stream>>>(s.dev_inst, dw, bits, 0, -1, nullptr, s.chosen);
        err = cudaGetLastError();
        if (err != cudaSuccess) st = skss__fail(ctx, SKSS_ERR_CUDA, "%s: walk: %s", FN, cudaGetErrorString(err));
      }
      if (st == SKSS_OK) st = write_tables(s, 0, (int)K, rows, stage);
      if (st == SKSS_OK)
        st = skss__cuda_copy(ctx, FN, call->best, s.best, 8 * (size_t)K);
    }
    for (int64_t k = 0; !batch && k < K && st == SKSS_OK; k++) {
      const skss__knap_dev_inst &I = hi[k];
      if (I.items == 0) {
        call->best[k] = 0;
        st = write_tables(s, (int)k, 1, rows, stage);
        continue;
      }
      skss__knap_strips_plan one;
      st = skss__knap_strips_plan_for(ctx, call->wide, items_out, (int)max_w, I.cap, I.items, 1, &one);
      if (st != SKSS_OK) break;
      job.inst = s.dev_inst + k;
      job.host_inst = hi + k;
      job.instances = 1;
      job.best = s.best + k;
      job.out = rows;
      job.lo = 0;
      job.hi = I.items;
      if (segments == 1) {
        job.bits = items_out ? bits : nullptr;
        st = skss__knap_strips_run(ctx, &job, &one, scratch);
        if (st == SKSS_OK && items_out) {
          walk_bits_kernel<<<1, WALK_THREADS, 0, s.stream>>>(s.dev_inst + k, dw, bits, 0, -1, nullptr, s.chosen);
          SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
        }
      } else {
        /* pass 1: values only, a checkpoint row every seg items */
        const int seg = (I.items + segments - 1) / segments;
        job.bits = nullptr;
        job.ckpt = ckpt;
        job.save_every = seg;
        st = skss__knap_strips_run(ctx, &job, &one, scratch);
        const long long start = I.cap;
        if (st == SKSS_OK)
          SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(s.cpos + k, &start, 8, cudaMemcpyHostToDevice, s.stream));
        /* pass 2: each segment's bits from its checkpoint, last first, and its walk */
        job.ckpt = nullptr;
        job.save_every = 0;
        job.out = nullptr;
        job.best = nullptr;
        job.bits = bits;
        const size_t row_cells = (size_t)skss__knap_row_cells(I.cap);
        for (int g = (I.items - 1) / seg; g >= 0 && st == SKSS_OK; g--) {
          job.lo = g * seg;
          job.hi = job.lo + seg < I.items ? job.lo + seg : I.items;
          job.init = g == 0 ? nullptr : static_cast<uint8_t *>(ckpt) + (size_t)(g - 1) * row_cells * s.cell;
          st = skss__knap_strips_run(ctx, &job, &one, scratch);
          if (st == SKSS_OK) {
            walk_bits_kernel<<<1, WALK_THREADS, 0, s.stream>>>(s.dev_inst + k, dw, bits, job.lo, job.hi - job.lo,
                                                                s.cpos + k, s.chosen);
            SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
          }
        }
        job.init = nullptr;
      }
      if (st == SKSS_OK) st = write_tables(s, (int)k, 1, rows, stage);
      if (st == SKSS_OK) st = skss__cuda_copy(ctx, FN, call->best + k, s.best + k, 8);
    }
  }
  if (st == SKSS_OK && items_out) st = skss__cuda_copy(ctx, FN, call->chosen, s.chosen, (size_t)T);
  if (st == SKSS_OK) {
    err = cudaStreamSynchronize(s.stream);
    if (err != cudaSuccess) st = skss__fail(ctx, SKSS_ERR_CUDA, "%s: %s", FN, cudaGetErrorString(err));
  }
  return st;
}
