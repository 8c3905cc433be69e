/*
 * dither_kernels.c — the table of dither kernels behind
 * skss_dither_kernel_get_info() and skss_dither_kernel_from_name(), made
 * from the X-macro lines of dither_kernels.h that the algorithms are
 * compiled from.
 */
#include "dither_kernels.h"

#define SKSS__DITHER_TABLE_ROW(unused, suffix, ...) \
  [SKSS_DITHER_KERNEL_##suffix] = SKSS__DITHER_INFO(__VA_ARGS__),

const skss_dither_kernel_info skss__dither_kernels[SKSS_DITHER_KERNEL_COUNT] = {
    SKSS__DITHER_KERNELS(SKSS__DITHER_TABLE_ROW, 0)};
