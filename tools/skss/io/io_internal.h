/*
 * io_internal.h — what the format files of skss_io share but the CLI never
 * calls: error formatting, strict number scanning, in-memory codecs (which
 * the fuzzers drive directly) and the piecewise atomic writer. Everything
 * here is single-threaded and keeps no state between calls.
 */
#ifndef SKSS_IO_INTERNAL_H
#define SKSS_IO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skss_io.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "skss_io stores .npy data and 16-bit samples little-endian: a little-endian host is required"
#endif

#if defined(__GNUC__)
#define SKSS__IO_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SKSS__IO_PRINTF(f, a)
#endif

/* Formats a one-line message into err (control characters become '?'), and
 * returns -1 so callers can `return skss__io_fail(err, ...)`. err may be NULL. */
int skss__io_fail(char *err, const char *fmt, ...) SKSS__IO_PRINTF(2, 3);
/* The same for memory that ran out: returns SKSS_IO_ERR_NOMEM. */
int skss__io_fail_nomem(char *err, const char *fmt, ...) SKSS__IO_PRINTF(2, 3);
/* Prefixes the message already in err with "<path>: " ("stdin" for "-") and
 * returns `code`. */
int skss__io_fail_path(char *err, const char *path, int code);

/* ASCII whitespace as Netpbm and Python define it (locale-independent). */
static inline bool skss__io_is_space(uint8_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
static inline bool skss__io_is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

/* Scans a run of decimal digits at data[*pos] (no sign, no spaces) into
 * *value and advances *pos past it. Returns SKSS__IO_NUM_OK, _NONE when
 * there is no digit at *pos, or _OVERFLOW when the number exceeds INT64_MAX
 * (the whole digit run is consumed either way). */
typedef enum skss__io_num {
  SKSS__IO_NUM_OK = 0,
  SKSS__IO_NUM_NONE,
  SKSS__IO_NUM_OVERFLOW
} skss__io_num;
skss__io_num skss__io_scan_u63(const uint8_t *data, size_t size, size_t *pos, int64_t *value);

/* Checks width x height against SKSS_IO_MAX_SIDE and against max_pixels
 * (SKSS_IO_ERR_TOO_LARGE when only that is exceeded); `what` names the
 * format in the message. */
int skss__io_check_dims(const char *what, int64_t width, int64_t height, int64_t max_pixels, char *err);

/* One piece of an output file; pieces are written back to back. */
typedef struct skss__io_piece {
  const void *data;
  size_t size;
} skss__io_piece;
/* Atomic write of the concatenated pieces (see skss_write_file_atomic). */
int skss__io_write_pieces(const char *path, const skss__io_piece *pieces, int count, char *err);

/* In-memory codecs. The decoders fill a zeroed *out only on success and
 * refuse images of more than max_pixels pixels. */
int skss__pnm_decode(const uint8_t *data, size_t size, int64_t max_pixels, skss_image *out, char *err);
/* The P5 (pbm == 0) or P4 (pbm == 1) header of a width x height image into
 * buf (at least SKSS__PNM_HEADER_MAX bytes); returns its length. */
#define SKSS__PNM_HEADER_MAX 64
size_t skss__pnm_header(int pbm, int64_t width, int64_t height, char *buf);
/* P4 raster (1 = black: pixel == 0), rows padded to whole bytes; malloc'd. */
int skss__pbm_pack(const uint8_t *pixels, int64_t width, int64_t height, uint8_t **raster,
                   size_t *raster_size, char *err);

int skss__png_decode(const uint8_t *data, size_t size, int64_t max_pixels, skss_image *out, char *err);
/* Encodes gray8 (bilevel == 0) or 1-bit (bilevel == 1, 1 = white: pixel
 * != 0) into a malloc'd PNG. */
int skss__png_encode(const uint8_t *pixels, int64_t width, int64_t height, int bilevel,
                     uint8_t **png, size_t *png_size, char *err);

/* The version 1.0 .npy header (magic through the padded dict) of an array
 * into buf (at least SKSS__NPY_HEADER_MAX bytes); returns its length, 0 on a
 * bad argument (message in err). */
#define SKSS__NPY_HEADER_MAX 256
size_t skss__npy_header(skss_dtype dtype, int ndim, const int64_t *shape, int64_t *count,
                        char *buf, char *err);

#endif
