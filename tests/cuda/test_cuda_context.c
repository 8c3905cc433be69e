/*
 * test_cuda_context.c — the CUDA backend's groundwork on a real GPU: device
 * discovery, a context on the default and on a caller's stream, deferred
 * error reporting, and the rule that a primitive the CUDA backend does not
 * implement yet is an error, never a silent CPU fallback. Exits 77 (skipped)
 * when the build has no CUDA backend or the machine no GPU.
 */
#include <stdio.h>
#include <string.h>

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

int main(void) {
  if (!skss_backend_built(SKSS_BACKEND_CUDA) || skss_device_count() == 0) {
    printf("no CUDA backend or no GPU: skipped\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_info),
      cmocka_unit_test(test_context_on_device),
      cmocka_unit_test(test_missing_primitive_is_unsupported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
