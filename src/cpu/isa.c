/*
 * isa.c — the CPU backend's one SIMD dispatch: the instruction-set level of
 * isa.h, detected once per process (__builtin_cpu_init and
 * __builtin_cpu_supports; SCALAR off x86-64), is what every CPU kernel family
 * (sat.c, boxfilter.c, compact.c, knapsack_ref.c) picks its variant by.
 *
 * Override: the environment variable SKSS_CPU_ISA=scalar|avx2|avx512 caps
 * the level (a cap above what the CPU runs changes nothing; avx512 also
 * allows AVX512-VBMI2), e.g. to time or test the portable kernels on a
 * machine with AVX-512. It is read when a context chooses its level; an
 * empty value means no cap and any other value is refused.
 */
#include "isa.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

static skss__cpu_isa detected_level = SKSS__CPU_ISA_SCALAR;
static pthread_once_t detect_once = PTHREAD_ONCE_INIT;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HAS_V3() __builtin_cpu_supports("x86-64-v3")
#define HAS_V4() __builtin_cpu_supports("x86-64-v4")
#elif defined(__x86_64__) && defined(__GNUC__)
/* clang's builtin has no level names: the features the kernels built with
 * clang use (compact.c keeps its x86-64-v3/v4 variants to GCC builds). */
#define HAS_V3()                                                                    \
  (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&               \
   __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma"))
#define HAS_V4()                                                                    \
  (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&       \
   __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&      \
   __builtin_cpu_supports("avx512vl"))
#endif

static void detect(void) {
#if defined(HAS_V3)
  __builtin_cpu_init();
  if (!HAS_V3()) return;
  detected_level = SKSS__CPU_ISA_AVX2;
  if (!HAS_V4()) return;
  detected_level = SKSS__CPU_ISA_AVX512;
  if (__builtin_cpu_supports("avx512vbmi2")) detected_level = SKSS__CPU_ISA_AVX512_VBMI2;
#endif
}

skss__cpu_isa skss__cpu_isa_detected(void) {
  pthread_once(&detect_once, detect);
  return detected_level;
}

skss_status skss__cpu_isa_choose(skss__cpu_isa *isa, const char **name) {
  static const struct {
    const char *name;
    skss__cpu_isa cap;
  } CAPS[] = {{"scalar", SKSS__CPU_ISA_SCALAR},
              {"avx2", SKSS__CPU_ISA_AVX2},
              {"avx512", SKSS__CPU_ISA_AVX512_VBMI2}};
  *isa = skss__cpu_isa_detected();
  *name = getenv("SKSS_CPU_ISA");
  if (*name == NULL || (*name)[0] == '\0') return SKSS_OK;
  for (size_t k = 0; k < sizeof CAPS / sizeof CAPS[0]; k++) {
    if (strcmp(*name, CAPS[k].name) != 0) continue;
    if (CAPS[k].cap < *isa) *isa = CAPS[k].cap;
    return SKSS_OK;
  }
  return SKSS_ERR_INVALID_ARG;
}

skss__cpu_isa skss__ctx_cpu_isa(const skss_ctx *ctx) { return (skss__cpu_isa)ctx->cpu_isa; }
