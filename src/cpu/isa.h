/*
 * isa.h — the CPU instruction-set levels the CPU kernels are compiled for,
 * and the one place that picks a level at run time (isa.c). Each level
 * includes the one before; a kernel family compiles one variant per level it
 * benefits from (with __attribute__((target(...)))) and the caller picks the
 * variant through a function pointer from the context's level.
 * Only standard headers and the public header are included, so white-box
 * tests can include it.
 */
#ifndef SKSS_CPU_ISA_H
#define SKSS_CPU_ISA_H

#include "skss.h"

typedef enum skss__cpu_isa {
  SKSS__CPU_ISA_SCALAR = 0,       /* plain C, any CPU */
  SKSS__CPU_ISA_AVX2 = 1,         /* x86-64-v3: AVX2, BMI2, FMA, ... */
  SKSS__CPU_ISA_AVX512 = 2,       /* x86-64-v4: AVX-512 F, BW, CD, DQ, VL */
  SKSS__CPU_ISA_AVX512_VBMI2 = 3  /* x86-64-v4 with AVX512-VBMI2 (compress of bytes and words) */
} skss__cpu_isa;

/* The highest level this CPU (and OS) runs, detected once per process. */
skss__cpu_isa skss__cpu_isa_detected(void);

/* The level a new context uses: the detected one, capped by the environment
 * variable SKSS_CPU_ISA (see isa.c). Fails with SKSS_ERR_INVALID_ARG, and
 * *name pointing at the variable's value, when the value is not a level. */
skss_status skss__cpu_isa_choose(skss__cpu_isa *isa, const char **name);

/* The level the CPU kernels of `ctx` run at (SCALAR on CPU_REF). */
skss__cpu_isa skss__ctx_cpu_isa(const skss_ctx *ctx);

#endif
