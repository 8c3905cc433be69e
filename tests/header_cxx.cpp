/*
 * header_cxx.cpp — skss.h from C++: it compiles alone (as C++11 and C++17,
 * with pedantic warnings as errors), its _INIT macros initialise the
 * descriptors, and a default (AUTO) context runs a primitive through the
 * extern "C" API. A plain program: exit 0 is a pass.
 */
#include "skss.h"

#include <cstdio>
#include <cstring>

int main() {
  skss_ctx *ctx = nullptr;
  if (skss_ctx_create(nullptr, &ctx) != SKSS_OK) {
    std::fprintf(stderr, "header_cxx: %s\n", skss_ctx_last_error(nullptr));
    return 1;
  }
  const uint8_t in[6] = {1, 2, 3, 4, 5, 6};
  uint32_t out[12];
  std::memset(out, 0xA5, sizeof out); /* poisoned: the call must write it */
  skss_sat_desc desc = SKSS_SAT_DESC_INIT;
  desc.height = 2;
  desc.width = 3;
  desc.layout = SKSS_SAT_LAYOUT_PADDED;
  const skss_status st = skss_sat(ctx, &desc, in, out, nullptr);
  const uint32_t want[12] = {0, 0, 0, 0, 0, 1, 3, 6, 0, 5, 12, 21};
  const bool ok = st == SKSS_OK && std::memcmp(out, want, sizeof want) == 0 &&
                  skss_ctx_op_backend(ctx, SKSS_OP_SAT) != SKSS_BACKEND_AUTO;
  if (!ok) std::fprintf(stderr, "header_cxx: %s\n", skss_ctx_last_error(ctx));
  skss_ctx_destroy(ctx);
  const skss_halftone_desc h = SKSS_HALFTONE_DESC_INIT;
  const skss_knapsack_desc k = SKSS_KNAPSACK_DESC_INIT;
  const skss_compact_desc c = SKSS_COMPACT_DESC_INIT;
  const skss_boxfilter_desc b = SKSS_BOXFILTER_DESC_INIT;
  const skss_taskarray_desc t = SKSS_TASKARRAY_DESC_INIT;
  const skss_ctx_desc x = SKSS_CTX_DESC_INIT;
  const bool sizes = h.size == sizeof h && k.size == sizeof k && c.size == sizeof c &&
                     b.size == sizeof b && t.size == sizeof t && x.size == sizeof x;
  return ok && sizes ? 0 : 1;
}
