/*
 * fuzz_knapsack.c — libFuzzer target of the knapsack text parser. The first
 * byte picks the capacity override (odd: none; even: byte / 2), the rest is
 * the text. A parsed instance must be non-negative throughout and its item
 * count must fit the text.
 */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  int64_t capacity_override = (data[0] & 1) ? -1 : data[0] / 2;
  skss_knapsack_instance inst;
  char err[SKSS_IO_ERRLEN] = "";
  if (skss_knapsack_parse((const char *)data + 1, size - 1, capacity_override, &inst, err) != 0) {
    fuzz_check_failure(err, &inst, sizeof inst);
    return 0;
  }
  fuzz_require(inst.n >= 0 && (size_t)inst.n <= size && inst.capacity >= 0);
  fuzz_require(inst.ids != NULL && inst.weights != NULL && inst.values != NULL);
  fuzz_require(capacity_override < 0 || inst.capacity == capacity_override);
  for (int64_t i = 0; i < inst.n; ++i) fuzz_require(inst.ids[i] >= 0 && inst.weights[i] >= 0 && inst.values[i] >= 0);
  skss_knapsack_instance_free(&inst);
  return 0;
}
