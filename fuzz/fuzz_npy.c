/*
 * fuzz_npy.c — libFuzzer target of the .npy decoder. A decoded array is
 * written again (our version 1.0 header + its data) in memory and decoded
 * back: dtype, shape and bytes must survive.
 */
#include "fuzz_check.h"
#include "io_internal.h"

static void fuzz_roundtrip(const skss_npy *arr) {
  char header[SKSS__NPY_HEADER_MAX], err[SKSS_IO_ERRLEN];
  int64_t count = -1;
  size_t len = skss__npy_header(arr->dtype, arr->ndim, arr->shape, &count, header, err);
  fuzz_require(len > 0 && len % 64 == 0 && count == arr->count);
  size_t bytes = (size_t)arr->count * skss_dtype_size(arr->dtype);
  uint8_t *file = malloc(len + bytes);
  fuzz_require(file != NULL);
  memcpy(file, header, len);
  if (bytes > 0) memcpy(file + len, arr->data, bytes);
  skss_npy again;
  fuzz_require(skss_npy_decode(file, len + bytes, &again, err) == 0);
  fuzz_require(again.dtype == arr->dtype && again.ndim == arr->ndim && again.count == arr->count);
  fuzz_require(memcmp(again.shape, arr->shape, sizeof arr->shape) == 0);
  fuzz_require(bytes == 0 || memcmp(again.data, arr->data, bytes) == 0);
  skss_npy_free(&again);
  free(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  skss_npy arr;
  char err[SKSS_IO_ERRLEN] = "";
  if (skss_npy_decode(data, size, &arr, err) != 0) {
    fuzz_check_failure(err, &arr, sizeof arr);
    return 0;
  }
  fuzz_require(arr.data != NULL && arr.ndim >= 0 && arr.ndim <= 8 && arr.count >= 0);
  int64_t count = 1;
  for (int i = 0; i < arr.ndim; ++i) count *= arr.shape[i];
  fuzz_require(count == arr.count && (uint64_t)count * skss_dtype_size(arr.dtype) <= size);
  for (int i = arr.ndim; i < 8; ++i) fuzz_require(arr.shape[i] == 0);
  fuzz_roundtrip(&arr);
  skss_npy_free(&arr);
  return 0;
}
