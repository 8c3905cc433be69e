/*
 * test_sat_matrix_cases.c — the case list of suite sat-matrix, built without
 * a GPU (bench_sat.c lists it only for GPU runs, so the config says one):
 * every type pair x layout x plain/squared x pitch at each side, each cell
 * once (distinct specs), cuda-only, with its copy row, the one-call row at
 * 1K only, and NPP exactly on the cells NPP has; --quick keeps 1K; a run
 * without a GPU lists none. Exits 1 with the first broken rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int fail(const char *what, const bench_case *c) {
  fprintf(stderr, "sat-matrix cases: %s%s%s\n", what, c ? ": " : "", c ? c->spec : "");
  return 1;
}

static int count_cases(int gpu, int quick, bench_cases *list) {
  bench_config cfg;
  bench_config_defaults(&cfg);
  cfg.suites = BENCH_SUITE_SAT_MATRIX;
  cfg.gpu = gpu;
  cfg.quick = quick;
  list->count = 0;
  return bench_sat.add_cases(&cfg, list) == 0 ? (int)list->count : -1;
}

int main(void) {
  bench_cases list = {0};
  if (count_cases(0, 0, &list) != 0) return fail("a run without a GPU lists cases", NULL);
  if (count_cases(1, 1, &list) != 9 * 8) return fail("--quick is not the 72 cells at 1K", NULL);
  if (count_cases(1, 0, &list) != 9 * 8 * 3) return fail("not 9 pairs x 8 cells x 3 sides", NULL);
  int npp = 0, single = 0;
  for (size_t k = 0; k < list.count; k++) {
    const bench_case *c = &list.items[k];
    for (size_t j = 0; j < k; j++)
      if (strcmp(list.items[j].spec, c->spec) == 0) return fail("a spec twice", c);
    if (c->op != SKSS_OP_SAT || strcmp(c->table, "sat matrix") != 0) return fail("not in the matrix table", c);
    if (c->backends != 1u << SKSS_BACKEND_CUDA) return fail("runs on a host backend", c);
    if (!c->copy_row || !c->no_script_peers) return fail("no copy row, or the Python peers", c);
    if (c->single_call != (c->p.sat.width == 1024)) return fail("the one-call row off 1K", c);
    if ((strstr(c->spec, ":sq") != NULL) != c->p.sat.squared ||
        (strstr(c->spec, ":pitch256") != NULL) != c->p.sat.pitched)
      return fail("spec and flags disagree", c);
    const int npp_cell = c->p.sat.in == SKSS_DTYPE_U8 && c->p.sat.layout == SKSS_SAT_LAYOUT_PADDED &&
                         !c->p.sat.pitched &&
                         (c->p.sat.squared ? c->p.sat.out == SKSS_DTYPE_I32
                                           : c->p.sat.out == SKSS_DTYPE_I32 || c->p.sat.out == SKSS_DTYPE_F32);
    if (npp_cell == c->no_peers) return fail("NPP on a cell it lacks, or not on one it has", c);
    npp += npp_cell;
    single += c->single_call;
  }
  if (npp != 3 * 3) return fail("not three NPP cells a side", NULL);
  if (single != 72) return fail("not 72 one-call rows", NULL);
  free(list.items);
  printf("sat-matrix: %zu cases, %d with NPP\n", list.count, npp);
  return 0;
}
