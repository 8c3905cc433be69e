/*
 * dither_kernels.h — the error-diffusion kernels, one X-macro line each,
 * shared by the CPU and CUDA algorithms (each compiled once per kernel with
 * its weights as constants) and by the table behind
 * skss_dither_kernel_get_info() (dither_kernels.c), so the two never differ.
 */
#ifndef SKSS_DITHER_KERNELS_H
#define SKSS_DITHER_KERNELS_H

#include "skss.h"

#ifdef __cplusplus
extern "C" { /* the CUDA sources (C++) read the table's declaration too */
#endif

/* X(arg, ENUM suffix, name, divisor, rows, slope, weights of row 0 for
 * dx = +1, +2, of row 1 for dx = -2..2, of row 2 for dx = -2..2): weight w of
 * row dy at dx sends w / divisor of a pixel's error to (y + dy, x + dx).
 * slope = 1 + reach, reach = the farthest column to the right of x that
 * pixel x collects from in the rows above (the largest -dx with a weight):
 * a row must lag the row above by `slope` columns. */
#define SKSS__DITHER_KERNELS(X, arg)                                                          \
  X(arg, FLOYD_STEINBERG, "fs", 16, 2, 2, (7, 0), (0, 3, 5, 1, 0), (0, 0, 0, 0, 0))           \
  X(arg, JARVIS_JUDICE_NINKE, "jjn", 48, 3, 3, (7, 5), (3, 5, 7, 5, 3), (1, 3, 5, 3, 1))      \
  X(arg, STUCKI, "stucki", 42, 3, 3, (8, 4), (2, 4, 8, 4, 2), (1, 2, 4, 2, 1))                \
  X(arg, BURKES, "burkes", 32, 2, 3, (8, 4), (2, 4, 8, 4, 2), (0, 0, 0, 0, 0))                \
  X(arg, SIERRA3, "sierra3", 32, 3, 3, (5, 3), (2, 4, 5, 4, 2), (0, 2, 3, 2, 0))              \
  X(arg, SIERRA2, "sierra2", 16, 2, 3, (4, 3), (1, 2, 3, 2, 1), (0, 0, 0, 0, 0))              \
  X(arg, SIERRA_LITE, "sierra-lite", 4, 2, 2, (2, 0), (0, 1, 1, 0, 0), (0, 0, 0, 0, 0))       \
  X(arg, ATKINSON, "atkinson", 8, 3, 2, (1, 1), (0, 1, 1, 1, 0), (0, 0, 1, 0, 0))

#define SKSS__HT_UNPACK(...) __VA_ARGS__
/* An skss_dither_kernel_info initialiser from the tail of an X-macro line. */
#define SKSS__DITHER_INFO(name, divisor, rows, slope, row0, row1, row2)                        \
  {                                                                                            \
    name, {{0, 0, 0, SKSS__HT_UNPACK row0}, {SKSS__HT_UNPACK row1}, {SKSS__HT_UNPACK row2}},   \
        divisor, rows, slope                                                                   \
  }

/* A switch over `kernel` whose case for each kernel runs CALL(k), k pointing
 * at that kernel's constant description: an always-inline CALL is thus
 * compiled per kernel with constant weights, rows and slope. */
#define SKSS__DITHER_SWITCH(kernel, CALL)                       \
  switch (kernel) { SKSS__DITHER_KERNELS(SKSS__DITHER_CASE, CALL) }
#define SKSS__DITHER_CASE(CALL, suffix, ...)                                              \
  case SKSS_DITHER_KERNEL_##suffix: {                                                            \
    static const skss_dither_kernel_info skss__kernel_ = SKSS__DITHER_INFO(__VA_ARGS__);  \
    CALL(&skss__kernel_);                                                                 \
    break;                                                                                \
  }

/* The table behind skss_dither_kernel_get_info(), indexed by kernel. */
extern const skss_dither_kernel_info skss__dither_kernels[SKSS_DITHER_KERNEL_COUNT];

#ifdef __cplusplus
}
#endif

#endif
