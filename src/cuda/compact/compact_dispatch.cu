/*
 * compact_dispatch.cu — skss_compact() on the CUDA backend, after the C entry
 * point has validated the call and reduced the predicate to an interval test
 * (core/compact_api.c): host buffers among `in`, the mask, the outputs and
 * `count` are staged through the context's device arena (inputs uploaded;
 * outputs downloaded once the count is known; the call then waits), device
 * buffers are used in place and an all-device call returns at once, the
 * count written by the device. Also the one pass's tile status words
 * (skss__cp_status_take): 64-bit epoch words in a buffer of the context.
 */
#include <string.h>

#include "compact_cuda.cuh"

static const char *const FN = "skss_compact()";

/* Group counters a buffer of `words` status words needs (its calls' groups are fewer). */
static size_t group_capacity(size_t words) { return words / SKSS__CP_GROUP + 1; }

skss_status skss__cp_status_take(skss_ctx *ctx, const char *fn, size_t words, unsigned long long tickets,
                                 skss__cp_status *out) {
  skss__cuda_state *st = skss__cuda(ctx);
  cudaStream_t stream = st->stream;
  bool zero = st->cp_epoch >= SKSS__CP_LAST_EPOCH;
  if (words > st->cp_status_words || st->cp_status == NULL) {
    size_t want = words < st->cp_status_words / 2 * 3 ? st->cp_status_words / 2 * 3 : words;
    if (want < 1024) want = 1024;
    /* cudaFree waits for the device, so no queued kernel still uses the old words */
    if (st->cp_status != NULL) cudaFree(st->cp_status);
    st->cp_status = NULL;
    st->cp_status_words = 0;
    /* 256 bytes ahead of the words: the ticket counter; after them the group counters */
    if (cudaMalloc(&st->cp_status, 256 + (want + 2 * group_capacity(want)) * 8) != cudaSuccess) {
      (void)cudaGetLastError();
      st->cp_status = NULL;
      return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no device memory for %zu tile status words", fn, want);
    }
    st->cp_status_words = want;
    zero = true;
  }
  if (zero) {
    /* until the memset is queued, the next call must zero again (a failed one left the words as they were) */
    st->cp_epoch = SKSS__CP_LAST_EPOCH;
    SKSS_CUDA_TRY(ctx, fn, cudaMemsetAsync(st->cp_status, 0,
                                           256 + (st->cp_status_words + 2 * group_capacity(st->cp_status_words)) * 8,
                                           stream));
    st->cp_epoch = 0;
    st->cp_tickets = 0;
  }
  st->cp_epoch++;
  out->ticket = static_cast<unsigned long long *>(st->cp_status);
  out->words = reinterpret_cast<unsigned long long *>(static_cast<uint8_t *>(st->cp_status) + 256);
  out->ticket_base = st->cp_tickets;
  out->epoch = st->cp_epoch;
  out->group_capacity = static_cast<long long>(group_capacity(st->cp_status_words));
  unsigned long long *counts = out->words + st->cp_status_words;
  out->group_counts = counts + (st->cp_epoch & 1u) * group_capacity(st->cp_status_words);
  out->next_group_counts = counts + (~st->cp_epoch & 1u) * group_capacity(st->cp_status_words);
  st->cp_tickets += tickets;
  return SKSS_OK;
}

void skss__cp_status_abandon(skss_ctx *ctx) { skss__cuda(ctx)->cp_epoch = SKSS__CP_LAST_EPOCH; }

namespace {

/* One caller buffer and where the kernels see it. */
struct staged {
  void *user;
  size_t bytes;     /* what the call may read or write of it */
  bool on_device;
  void *dev;        /* the device copy, or the caller's pointer */
};

staged make_staged(const void *ptr, size_t bytes) {
  staged s;
  s.user = const_cast<void *>(ptr);
  s.bytes = bytes;
  s.on_device = ptr == NULL || bytes == 0 || skss__cuda_is_device_ptr(ptr);
  s.dev = s.user;
  return s;
}

size_t stage_bytes(const staged &s) { return s.on_device ? 0 : skss__cuda_align(s.bytes); }

uint8_t *place(staged &s, uint8_t *at) {
  if (s.on_device) return at;
  s.dev = at;
  return at + stage_bytes(s);
}

int test_of(const skss__compact_job *job) {
  if (job->predicate == SKSS_COMPACT_KEEP_MASK_BYTES) return SKSS__CP_MASK_BYTES;
  if (job->predicate == SKSS_COMPACT_KEEP_MASK_BITS) return SKSS__CP_MASK_BITS;
  if (job->dtype == SKSS_DTYPE_F32) return SKSS__CP_F32;
  if (job->dtype == SKSS_DTYPE_F64) return SKSS__CP_F64;
  return SKSS__CP_INT;
}

skss__cp_rule rule_of(const skss__compact_rule &r) {
  skss__cp_rule d;
  d.lo = r.lo;
  d.span = r.span;
  d.lo_f = r.lo_f;
  d.hi_f = r.hi_f;
  d.lo32 = static_cast<float>(r.lo_f);
  d.hi32 = static_cast<float>(r.hi_f);
  d.invert = r.invert;
  return d;
}

/* n == 0: nothing to run, the count is 0 wherever it lives. */
skss_status zero_count(skss_ctx *ctx, int64_t *count) {
  if (!skss__cuda_is_device_ptr(count)) {
    *count = 0;
    return SKSS_OK;
  }
  SKSS_CUDA_TRY(ctx, FN, cudaMemsetAsync(count, 0, sizeof *count, skss__cuda(ctx)->stream));
  return SKSS_OK;
}

}  // namespace

extern "C" skss_status skss__cuda_compact(skss_ctx *ctx, int algorithm, const skss__compact_job *job,
                                          int64_t *count) {
  if (job->n > SKSS__CP_MAX_N)
    return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "%s: n = %lld is over 2^40, the most the cuda backend takes", FN,
                      (long long)job->n);
  if (algorithm == SKSS_COMPACT_ALGORITHM_AUTO) algorithm = SKSS_COMPACT_ALGORITHM_ONEPASS;
  if (job->n == 0) return zero_count(ctx, count);
  cudaStream_t stream = skss__cuda(ctx)->stream;
  const size_t n = static_cast<size_t>(job->n), width = skss_dtype_size(job->dtype);
  const int test = test_of(job);
  const bool mask_test = test == SKSS__CP_MASK_BYTES || test == SKSS__CP_MASK_BITS;
  const bool in_place = job->values != NULL && job->values == job->in;
  /* a mask predicate without values never reads the input */
  const bool reads_in = !mask_test || job->values != NULL;
  const size_t mask_bytes = test == SKSS__CP_MASK_BYTES ? n : test == SKSS__CP_MASK_BITS ? (n + 7) / 8 : 0;

  staged in = make_staged(reads_in ? job->in : NULL, reads_in ? n * width : 0);
  staged mask = make_staged(job->mask, mask_bytes);
  staged values = make_staged(in_place ? NULL : job->values, in_place ? 0 : (job->values ? n * width : 0));
  staged indices = make_staged(job->indices, job->indices ? n * 8 : 0);
  staged cnt = make_staged(count, 8);

  skss__cp_args a;
  memset(&a, 0, sizeof a);
  a.n = job->n;
  a.width = static_cast<int>(width);
  a.test = test;
  a.rule = rule_of(job->rule);
  int dev = 0;
  SKSS_CUDA_TRY(ctx, FN, cudaGetDevice(&dev));
  SKSS_CUDA_TRY(ctx, FN, cudaDeviceGetAttribute(&a.device_sms, cudaDevAttrMultiProcessorCount, dev));
  SKSS_CUDA_TRY(ctx, FN, cudaDeviceGetAttribute(&a.device_max_threads, cudaDevAttrMaxThreadsPerBlock, dev));
  /* the paper's scratch is planned on the shape of the call (in place or not) */
  a.in = job->in;
  a.values = job->values;
  const bool paper = algorithm == SKSS_COMPACT_ALGORITHM_FLAG_SCAN_SCATTER ||
                     algorithm == SKSS_COMPACT_ALGORITHM_FLAG_CPUSCAN_SCATTER;
  if (!paper && algorithm != SKSS_COMPACT_ALGORITHM_ONEPASS)
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: no CUDA code for algorithm %d", FN, algorithm);
  const size_t work = paper ? skss__cuda_align(skss__cp_paper_scratch(&a)) : 0;
  const size_t total = work + stage_bytes(in) + stage_bytes(mask) + stage_bytes(values) + stage_bytes(indices) +
                       stage_bytes(cnt);
  uint8_t *arena = NULL;
  if (total > 0) {
    arena = static_cast<uint8_t *>(skss__cuda_scratch(ctx, FN, total));
    if (arena == NULL) return SKSS_ERR_OUT_OF_MEMORY;
  }
  uint8_t *next = arena + work;
  next = place(in, next);
  next = place(mask, next);
  next = place(values, next);
  next = place(indices, next);
  place(cnt, next);

  if (!in.on_device) SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(in.dev, in.user, in.bytes, cudaMemcpyHostToDevice, stream));
  if (!mask.on_device)
    SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(mask.dev, mask.user, mask.bytes, cudaMemcpyHostToDevice, stream));
  a.in = reads_in ? in.dev : NULL;
  a.mask = static_cast<const uint8_t *>(mask_test ? mask.dev : NULL);
  a.values = in_place ? in.dev : values.dev;
  a.indices = static_cast<long long *>(indices.dev);
  a.count = static_cast<long long *>(cnt.dev);
  skss_status st = paper ? skss__cp_paper(ctx, FN, &a, algorithm == SKSS_COMPACT_ALGORITHM_FLAG_CPUSCAN_SCATTER, arena)
                         : skss__cp_onepass(ctx, FN, &a);
  if (st != SKSS_OK) return st;

  /* Host outputs need the count first; the in-place copy goes back to `in`. */
  const bool host_values = job->values != NULL && !(in_place ? in.on_device : values.on_device);
  const bool host_outputs = host_values || !indices.on_device;
  if (!host_outputs && cnt.on_device && in.on_device && mask.on_device) return SKSS_OK;
  long long kept = 0;
  SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(&kept, a.count, 8, cudaMemcpyDeviceToHost, stream));
  /* the count is on the host before the downloads are sized by it */
  SKSS_CUDA_TRY(ctx, FN, cudaStreamSynchronize(stream));
  if (kept < 0 || kept > job->n)
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: the device counted %lld of %lld elements", FN, kept,
                      (long long)job->n);
  if (host_values)
    SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(job->values, a.values, static_cast<size_t>(kept) * width,
                                           cudaMemcpyDeviceToHost, stream));
  if (!indices.on_device)
    SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(indices.user, indices.dev, static_cast<size_t>(kept) * 8,
                                           cudaMemcpyDeviceToHost, stream));
  if (!cnt.on_device) *count = kept;
  /* host results are in place when the call returns */
  SKSS_CUDA_TRY(ctx, FN, cudaStreamSynchronize(stream));
  return SKSS_OK;
}
