/*
 * test_cuda_context.c — the CUDA backend's groundwork on a real GPU: device
 * discovery, a context on the default and on a caller's stream, deferred
 * error reporting, the rule that a primitive an explicit CUDA context does
 * not implement is an error, never a silent CPU fallback, and an AUTO
 * context that runs such a primitive on the CPU threads (with host memory,
 * refusing device memory with an error) and the others on CUDA (knapsack:
 * the same choice as cpu-ref, from host or device memory), and
 * skss_ctx_set_stream() moving a context between the caller's streams. Exits 77 (skipped)
 * when the build has no CUDA backend or the machine no GPU.
 */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

#include "testutil.h"

static void test_device_info(void **state) {
  (void)state;
  int n = skss_device_count();
  assert_true(n >= 1);
  for (int d = 0; d < n; d++) {
    skss_device_info info;
    TU_OK(NULL, skss_device_get_info(d, &info));
    assert_true(strlen(info.name) > 0);
    assert_true(info.major >= 3);
    assert_true(info.multiprocessors > 0);
    assert_true(info.global_memory > ((int64_t)1 << 30));
  }
  skss_device_info info;
  assert_int_equal(skss_device_get_info(n, &info), SKSS_ERR_NO_DEVICE);
}

static void test_context_on_device(void **state) {
  (void)state;
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CUDA, 0);
  assert_int_equal(skss_ctx_backend(ctx), SKSS_BACKEND_CUDA);
  TU_OK(ctx, skss_ctx_synchronize(ctx));
  skss_ctx_destroy(ctx);

  skss_ctx_desc d = SKSS_CTX_DESC_INIT;
  d.backend = SKSS_BACKEND_CUDA;
  d.device = skss_device_count(); /* one past the last device */
  ctx = NULL;
  assert_int_equal(skss_ctx_create(&d, &ctx), SKSS_ERR_NO_DEVICE);
  assert_null(ctx);

  ctx = tu_ctx(SKSS_BACKEND_AUTO, 0);
  assert_int_equal(skss_ctx_backend(ctx), SKSS_BACKEND_CUDA);
  skss_ctx_destroy(ctx);
}

static void test_missing_primitive_is_unsupported(void **state) {
  (void)state;
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CUDA, 0);
  uint8_t in[4] = {1, 2, 3, 4};
  uint32_t out[4] = {0, 0, 0, 0};
  skss_sat_desc sd = SKSS_SAT_DESC_INIT;
  sd.height = 2;
  sd.width = 2;
  if (!skss_algorithm_supported(SKSS_OP_SAT, SKSS_SAT_ALGORITHM_AUTO, SKSS_BACKEND_CUDA)) {
    assert_int_equal(skss_sat(ctx, &sd, in, out, NULL), SKSS_ERR_UNSUPPORTED);
    assert_non_null(strstr(skss_ctx_last_error(ctx), "cuda"));
    assert_int_equal(out[3], 0);
  }
  /* CPU algorithms are never run by the CUDA backend. */
  sd.algorithm = SKSS_SAT_ALGORITHM_BANDS_CPU;
  assert_int_equal(skss_sat(ctx, &sd, in, out, NULL), SKSS_ERR_UNSUPPORTED);
  skss_ctx_destroy(ctx);
}

/* An AUTO context on the GPU: primitives CUDA lacks run on the CPU threads
 * with host memory, and device memory given to them is refused; those it
 * has run on CUDA. */
static void test_auto_context_runs_cpu_primitives(void **state) {
  (void)state;
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_AUTO, 2);
  assert_int_equal(skss_ctx_backend(ctx), SKSS_BACKEND_CUDA);
  assert_int_equal(skss_ctx_op_backend(ctx, SKSS_OP_SAT), SKSS_BACKEND_CUDA);
  assert_int_equal(skss_ctx_op_backend(ctx, SKSS_OP_HALFTONE), SKSS_BACKEND_CUDA);
  for (int op = SKSS_OP_SAT; op <= SKSS_OP_COMPACT; op++) {
    skss_backend b = skss_ctx_op_backend(ctx, (skss_op)op);
    assert_true(b == (skss_algorithm_supported((skss_op)op, 0, SKSS_BACKEND_CUDA)
                          ? SKSS_BACKEND_CUDA
                          : SKSS_BACKEND_CPU));
  }
  if (skss_ctx_op_backend(ctx, SKSS_OP_COMPACT) == SKSS_BACKEND_CPU) {
    const int32_t host_in[6] = {5, -1, 7, 0, 9, 2};
    int32_t kept[6];
    int64_t count = -1;
    skss_compact_desc cd = SKSS_COMPACT_DESC_INIT;
    cd.n = 6;
    cd.dtype = SKSS_DTYPE_I32;
    cd.keep = SKSS_COMPACT_KEEP_GT;
    cd.a.i = 2;
    TU_OK(ctx, skss_compact(ctx, &cd, host_in, kept, NULL, &count));
    assert_int_equal(count, 3);
    assert_true(kept[0] == 5 && kept[1] == 7 && kept[2] == 9);
    void *dev = NULL;
    assert_int_equal(cudaMalloc(&dev, sizeof host_in), cudaSuccess);
    assert_int_equal(cudaMemcpy(dev, host_in, sizeof host_in, cudaMemcpyHostToDevice), cudaSuccess);
    count = -1;
    assert_int_equal(skss_compact(ctx, &cd, dev, kept, NULL, &count), SKSS_ERR_INVALID_ARG);
    assert_non_null(strstr(skss_ctx_last_error(ctx), "in is device memory"));
    assert_int_equal(count, -1);
    cudaFree(dev);
  }
  if (skss_ctx_op_backend(ctx, SKSS_OP_KNAPSACK) == SKSS_BACKEND_CPU) {
    const int64_t w[4] = {3, 4, 5, 9}, v[4] = {4, 5, 6, 10};
    int64_t best = -1;
    uint8_t taken[4];
    skss_knapsack_desc kd = SKSS_KNAPSACK_DESC_INIT;
    kd.n_items = 4;
    kd.capacity = 9;
    TU_OK(ctx, skss_knapsack(ctx, &kd, w, v, &best, taken));
    assert_int_equal(best, 11); /* items 1 and 2 (4 + 5 = 9): 5 + 6 */
    assert_true(taken[1] && taken[2] && !taken[0] && !taken[3]);
  } else {
    /* Knapsack has CUDA kernels: AUTO runs them, on host and device memory,
     * and chooses what cpu-ref chooses. */
    assert_int_equal(skss_ctx_op_backend(ctx, SKSS_OP_KNAPSACK), SKSS_BACKEND_CUDA);
    skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
    tu_rng r;
    tu_rng_init(&r, tu_seed());
    tu_knapsack in = tu_knapsack_random(&r, TU_KNAPSACK_WEAK, 200, 30, -1);
    int64_t want = -1, best = -1;
    uint8_t want_taken[200], taken[200];
    skss_knapsack_desc kd = SKSS_KNAPSACK_DESC_INIT;
    kd.n_items = in.n;
    kd.capacity = in.cap;
    TU_OK(ref, skss_knapsack(ref, &kd, in.w, in.v, &want, want_taken));
    memset(taken, 0xA5, sizeof taken);
    TU_OK(ctx, skss_knapsack(ctx, &kd, in.w, in.v, &best, taken));
    assert_int_equal(best, want);
    assert_memory_equal(taken, want_taken, sizeof taken);
    int64_t *dw = NULL, *dv = NULL;
    assert_int_equal(cudaMalloc((void **)&dw, sizeof(int64_t) * 200), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&dv, sizeof(int64_t) * 200), cudaSuccess);
    assert_int_equal(cudaMemcpy(dw, in.w, sizeof(int64_t) * 200, cudaMemcpyHostToDevice), cudaSuccess);
    assert_int_equal(cudaMemcpy(dv, in.v, sizeof(int64_t) * 200, cudaMemcpyHostToDevice), cudaSuccess);
    best = -1;
    memset(taken, 0xA5, sizeof taken);
    TU_OK(ctx, skss_knapsack(ctx, &kd, dw, dv, &best, taken));
    assert_int_equal(best, want);
    assert_memory_equal(taken, want_taken, sizeof taken);
    cudaFree(dw);
    cudaFree(dv);
    tu_knapsack_free(&in);
    skss_ctx_destroy(ref);
  }
  skss_ctx_destroy(ctx);
}

/* One SAT of device memory on `stream`, read back after synchronising only
 * that stream (non-blocking streams: nothing else orders the work). */
static void sat_on_stream(skss_ctx *ctx, skss_ctx *ref, cudaStream_t stream, unsigned seed) {
  enum { H = 67, W = 129 };
  uint8_t *in = NULL, *d_in = NULL;
  uint32_t *out = NULL, *d_out = NULL, want[H * W];
  assert_int_equal(cudaMallocHost((void **)&in, H * W), cudaSuccess);
  assert_int_equal(cudaMallocHost((void **)&out, sizeof want), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&d_in, H * W), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&d_out, sizeof want), cudaSuccess);
  for (int k = 0; k < H * W; k++) in[k] = (uint8_t)((unsigned)k * 2654435761u >> 24 ^ seed);
  skss_sat_desc d = SKSS_SAT_DESC_INIT;
  d.height = H;
  d.width = W;
  TU_OK(ref, skss_sat(ref, &d, in, want, NULL));
  assert_int_equal(cudaMemsetAsync(d_out, 0xA5, sizeof want, stream), cudaSuccess);
  assert_int_equal(cudaMemcpyAsync(d_in, in, H * W, cudaMemcpyHostToDevice, stream), cudaSuccess);
  TU_OK(ctx, skss_sat(ctx, &d, d_in, d_out, NULL));
  assert_int_equal(cudaMemcpyAsync(out, d_out, sizeof want, cudaMemcpyDeviceToHost, stream), cudaSuccess);
  assert_int_equal(cudaStreamSynchronize(stream), cudaSuccess);
  assert_memory_equal(out, want, sizeof want);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFreeHost(in);
  cudaFreeHost(out);
}

static void test_set_stream(void **state) {
  (void)state;
  cudaStream_t a, b;
  assert_int_equal(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
  assert_int_equal(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
  skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CUDA, 0);
  int device = -1;
  assert_int_equal(cudaGetDevice(&device), cudaSuccess);
  for (unsigned rep = 0; rep < 3; rep++) {
    TU_OK(ctx, skss_ctx_set_stream(ctx, a));
    TU_OK(ctx, skss_ctx_set_stream(ctx, a)); /* again: nothing to do */
    sat_on_stream(ctx, ref, a, rep);
    TU_OK(ctx, skss_ctx_set_stream(ctx, b));
    sat_on_stream(ctx, ref, b, rep + 7);
    TU_OK(ctx, skss_ctx_set_stream(ctx, cudaStreamLegacy));
    sat_on_stream(ctx, ref, cudaStreamLegacy, rep + 13);
    TU_OK(ctx, skss_ctx_set_stream(ctx, NULL)); /* back to its own stream */
    TU_OK(ctx, skss_ctx_synchronize(ctx));
  }
  int after = -1;
  assert_int_equal(cudaGetDevice(&after), cudaSuccess);
  assert_int_equal(after, device);
  skss_ctx_destroy(ctx);

  /* a context made on the caller's stream gets its own stream on demand */
  skss_ctx_desc cd = SKSS_CTX_DESC_INIT;
  cd.backend = SKSS_BACKEND_CUDA;
  cd.cuda_stream = a;
  ctx = NULL;
  TU_OK(NULL, skss_ctx_create(&cd, &ctx));
  sat_on_stream(ctx, ref, a, 21);
  TU_OK(ctx, skss_ctx_set_stream(ctx, NULL));
  TU_OK(ctx, skss_ctx_synchronize(ctx));
  TU_OK(ctx, skss_ctx_set_stream(ctx, b));
  sat_on_stream(ctx, ref, b, 22);
  skss_ctx_destroy(ctx);
  skss_ctx_destroy(ref);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
}

int main(void) {
  if (!skss_backend_built(SKSS_BACKEND_CUDA) || skss_device_count() == 0) {
    printf("no CUDA backend or no GPU: skipped\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_info),
      cmocka_unit_test(test_context_on_device),
      cmocka_unit_test(test_missing_primitive_is_unsupported),
      cmocka_unit_test(test_auto_context_runs_cpu_primitives),
      cmocka_unit_test(test_set_stream),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
