/*
 * fuzz_check.h — invariants every skss_io fuzz target checks: a failure
 * leaves a non-empty one-line message and a zeroed output; a success gives
 * sizes within the documented limits. A broken invariant aborts, which
 * libFuzzer reports as a crash with the input saved.
 */
#ifndef SKSS_FUZZ_CHECK_H
#define SKSS_FUZZ_CHECK_H

#include <stdlib.h>
#include <string.h>

#include "skss_io.h"

/* The prototype libFuzzer calls (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fuzz_require(int ok) {
  if (!ok) abort();
}

/* After a failure (rc < 0): a one-line message and an all-zero output struct. */
static inline void fuzz_check_failure(const char *err, const void *out, size_t out_size) {
  fuzz_require(err[0] != '\0' && strchr(err, '\n') == NULL && strlen(err) < SKSS_IO_ERRLEN);
  const unsigned char *bytes = out;
  for (size_t i = 0; i < out_size; ++i) fuzz_require(bytes[i] == 0);
}

static inline void fuzz_check_image(const skss_image *img) {
  fuzz_require(img->pixels != NULL && img->width >= 1 && img->height >= 1 &&
               img->width <= SKSS_IO_MAX_SIDE && img->height <= SKSS_IO_MAX_SIDE &&
               img->width <= SKSS_IO_DEFAULT_MAX_PIXELS / img->height);
}

#endif
