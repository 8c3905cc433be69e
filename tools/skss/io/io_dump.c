/*
 * io_dump.c — a small test driver of skss_io for the Python peer tests
 * (tests/python/test_io_peer.py, found through $SKSS_IO_DUMP): it exposes
 * the readers and writers on the command line so their results can be
 * compared with Pillow's and NumPy's. Not installed.
 *   skss_io_dump image IN             "W H\n" then the gray pixels, raw
 *   skss_io_dump convert IN OUT [bilevel]   IN re-written in OUT's format
 *   skss_io_dump npy IN OUT           "dtype is_bool ndim d0 d1 ...\n";
 *                                     the array re-written to OUT
 *   skss_io_dump knapsack IN [CAP]    "n capacity\n" then "id weight value"
 * Errors: the reader's one-line message on stderr, exit status 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skss_io.h"

static int dump_fail(const char *err) {
  fprintf(stderr, "skss_io_dump: %s\n", err);
  return 1;
}

static int dump_image(const char *in) {
  char err[SKSS_IO_ERRLEN];
  skss_image img;
  if (skss_image_read(in, &img, err) != 0) return dump_fail(err);
  printf("%lld %lld\n", (long long)img.width, (long long)img.height);
  size_t bytes = (size_t)(img.width * img.height);
  int ok = fwrite(img.pixels, 1, bytes, stdout) == bytes && fflush(stdout) == 0;
  skss_image_free(&img);
  return ok ? 0 : dump_fail("cannot write to stdout");
}

static int dump_convert(const char *in, const char *out, int bilevel) {
  char err[SKSS_IO_ERRLEN];
  skss_image img;
  skss_image_format fmt;
  if (skss_image_format_from_path(out, bilevel, &fmt, err) != 0) return dump_fail(err);
  if (skss_image_read(in, &img, err) != 0) return dump_fail(err);
  int rc = skss_image_write(out, fmt, img.pixels, img.width, img.height, err);
  skss_image_free(&img);
  return rc == 0 ? 0 : dump_fail(err);
}

static int dump_npy(const char *in, const char *out) {
  char err[SKSS_IO_ERRLEN];
  skss_npy arr;
  if (skss_npy_read(in, &arr, err) != 0) return dump_fail(err);
  printf("%s %d %d", skss_dtype_name(arr.dtype), arr.is_bool, arr.ndim);
  for (int i = 0; i < arr.ndim; ++i) printf(" %lld", (long long)arr.shape[i]);
  printf("\n");
  int rc = skss_npy_write(out, arr.dtype, arr.ndim, arr.shape, arr.data, err);
  skss_npy_free(&arr);
  return rc == 0 ? 0 : dump_fail(err);
}

static int dump_knapsack(const char *in, const char *capacity) {
  char err[SKSS_IO_ERRLEN];
  skss_knapsack_instance inst;
  int64_t cap = capacity != NULL ? strtoll(capacity, NULL, 10) : -1;
  if (skss_knapsack_read(in, cap, &inst, err) != 0) return dump_fail(err);
  printf("%lld %lld\n", (long long)inst.n, (long long)inst.capacity);
  for (int64_t i = 0; i < inst.n; ++i)
    printf("%lld %lld %lld\n", (long long)inst.ids[i], (long long)inst.weights[i], (long long)inst.values[i]);
  skss_knapsack_instance_free(&inst);
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "image") == 0 && argc == 3) return dump_image(argv[2]);
  if (strcmp(mode, "convert") == 0 && (argc == 4 || argc == 5))
    return dump_convert(argv[2], argv[3], argc == 5 && strcmp(argv[4], "bilevel") == 0);
  if (strcmp(mode, "npy") == 0 && argc == 4) return dump_npy(argv[2], argv[3]);
  if (strcmp(mode, "knapsack") == 0 && (argc == 3 || argc == 4)) return dump_knapsack(argv[2], argc == 4 ? argv[3] : NULL);
  fprintf(stderr, "usage: skss_io_dump image IN | convert IN OUT [bilevel] | npy IN OUT | knapsack IN [CAP]\n");
  return 2;
}
