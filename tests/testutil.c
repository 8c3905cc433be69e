/*
 * testutil.c — implementation of the shared test helpers (testutil.h).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const int64_t tu_sizes[] = {1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 97, 127, 128, 129, 257, 521};
const int tu_sizes_count = (int)(sizeof tu_sizes / sizeof tu_sizes[0]);

uint64_t tu_seed(void) {
  const char *s = getenv("SKSS_TEST_SEED");
  return s && *s ? strtoull(s, NULL, 0) : 20261121u;
}

static uint64_t splitmix(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void tu_rng_init(tu_rng *r, uint64_t seed) {
  uint64_t x = seed;
  for (int k = 0; k < 4; k++) r->s[k] = splitmix(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t tu_next(tu_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

int64_t tu_range(tu_rng *r, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
  return span == 0 ? (int64_t)tu_next(r) : lo + (int64_t)(tu_next(r) % span);
}

double tu_unit(tu_rng *r) { return (double)(tu_next(r) >> 11) * 0x1.0p-53; }

void tu_fill_bytes(tu_rng *r, void *p, size_t n) {
  unsigned char *b = p;
  for (size_t k = 0; k < n; k++) b[k] = (unsigned char)tu_next(r);
}

skss_ctx *tu_ctx(skss_backend backend, int threads) {
  skss_ctx_desc d = SKSS_CTX_DESC_INIT;
  d.backend = backend;
  d.threads = threads;
  skss_ctx *ctx = NULL;
  skss_status st = skss_ctx_create(&d, &ctx);
  if (st != SKSS_OK) {
    print_error("skss_ctx_create(%s, %d threads): %s\n", skss_backend_name(backend), threads,
                skss_status_string(st));
    fail();
  }
  return ctx;
}

void tu_expect_halftone_misuse(skss_ctx *ctx, const skss_halftone_desc *d, const uint8_t *in,
                               uint8_t *out, size_t out_bytes, skss_status want,
                               const char *needle) {
  memset(out, 0xA5, out_bytes);
  skss_status st = skss_halftone(ctx, d, in, out);
  if (st != want)
    TU_FAIL("expected %s, got %s: %s", skss_status_string(want), skss_status_string(st),
            skss_ctx_last_error(ctx));
  const char *msg = skss_ctx_last_error(ctx);
  if (strncmp(msg, "skss_halftone(): ", 17) != 0 || strstr(msg, needle) == NULL)
    TU_FAIL("message \"%s\" lacks \"%s\"", msg, needle);
  for (size_t i = 0; i < out_bytes; i++) assert_int_equal(out[i], 0xA5);
}
