/*
 * skss_io.h — the file formats of the skss CLI: 8-bit gray images (PNG via
 * libspng, PGM P2/P5, PBM P1/P4 for output), NumPy .npy arrays, knapsack
 * instances. Readers never trust a header: every size is checked against
 * limits and the real data length before anything is allocated. Writers
 * write to a temporary file beside the target and rename it into place, so
 * a failure never leaves a partial output. Every function returns 0 on
 * success or -1 with a one-line message in `err` (no printing, no exit).
 */
#ifndef SKSS_IO_H
#define SKSS_IO_H

#include <stddef.h>
#include <stdint.h>

#include "skss.h"

#define SKSS_IO_ERRLEN 256

/* Largest image accepted: 2^31-1 pixels a side and 2^32 pixels in all. */
#define SKSS_IO_MAX_SIDE ((int64_t)INT32_MAX)
#define SKSS_IO_MAX_PIXELS ((int64_t)1 << 32)

/* An 8-bit gray image, rows packed (pitch = width). */
typedef struct skss_image {
  int64_t width, height;
  uint8_t *pixels; /* malloc'd; free with skss_image_free() */
} skss_image;

void skss_image_free(skss_image *img);

/* Reads a PNG (any colour type/depth; colour converted to gray as Pillow's
 * convert('L'): L = (19595 R + 38470 G + 7471 B + 0x8000) >> 16, alpha
 * ignored, 16-bit samples reduced to their high byte) or a PGM (P2/P5,
 * maxval <= 255, or <= 65535 scaled as Pillow does) from a file, or from
 * stdin when path is "-". The format is detected from the magic bytes. */
int skss_image_read(const char *path, skss_image *out, char err[SKSS_IO_ERRLEN]);
/* Same from memory (used by the fuzzers). */
int skss_image_decode(const uint8_t *data, size_t size, skss_image *out, char err[SKSS_IO_ERRLEN]);

/* Output kinds for a halftone or gray image. */
typedef enum skss_image_format {
  SKSS_IMAGE_PGM = 0,   /* P5, 8-bit */
  SKSS_IMAGE_PBM = 1,   /* P4, 1-bit, 1 = black */
  SKSS_IMAGE_PNG_GRAY8 = 2,
  SKSS_IMAGE_PNG_BIT = 3 /* 1-bit gray PNG, 1 = white */
} skss_image_format;

/* Picks the format from the path's extension (.pgm, .pbm, .png); `bilevel`
 * chooses 1-bit PNG for .png. Returns -1 for an unknown extension or "-"
 * (stdout: PGM unless bilevel, then PBM). */
int skss_image_format_from_path(const char *path, int bilevel, skss_image_format *out,
                                char err[SKSS_IO_ERRLEN]);

/* Writes 8-bit pixels (for PBM/1-bit PNG: 0 = black, anything else = white)
 * atomically to `path` ("-" = stdout). */
int skss_image_write(const char *path, skss_image_format fmt, const uint8_t *pixels,
                     int64_t width, int64_t height, char err[SKSS_IO_ERRLEN]);

/* A NumPy array (C order only; version 1.0, 2.0 and 3.0 headers read,
 * 1.0 written). Little- and big-endian data are read; data is stored
 * native (little-endian) in memory. */
typedef struct skss_npy {
  skss_dtype dtype;       /* also: bool arrays read as u8 with is_bool = 1 */
  int is_bool;
  int ndim;               /* 0..8 */
  int64_t shape[8];
  int64_t count;          /* product of shape */
  void *data;             /* malloc'd, count * skss_dtype_size(dtype) bytes */
} skss_npy;

void skss_npy_free(skss_npy *arr);
int skss_npy_read(const char *path, skss_npy *out, char err[SKSS_IO_ERRLEN]);
int skss_npy_decode(const uint8_t *data, size_t size, skss_npy *out, char err[SKSS_IO_ERRLEN]);
/* Writes an array (shape of ndim dims) atomically ("-" = stdout). */
int skss_npy_write(const char *path, skss_dtype dtype, int ndim, const int64_t *shape,
                   const void *data, char err[SKSS_IO_ERRLEN]);

/* A knapsack instance. Two text formats are accepted:
 *  - the standard generator's: n, then n lines "id value weight", then the
 *    capacity;
 *  - CSV: one "weight,value" line per item (a header line "weight,value"
 *    is allowed), capacity given separately (capacity_override >= 0).
 * capacity_override >= 0 replaces the file's capacity. All numbers are
 * non-negative integers that fit int64. */
typedef struct skss_knapsack_instance {
  int64_t n;
  int64_t capacity;
  int64_t *ids;     /* item ids (1-based line numbers for CSV) */
  int64_t *weights;
  int64_t *values;
} skss_knapsack_instance;

void skss_knapsack_instance_free(skss_knapsack_instance *inst);
int skss_knapsack_read(const char *path, int64_t capacity_override, skss_knapsack_instance *out,
                       char err[SKSS_IO_ERRLEN]);
int skss_knapsack_parse(const char *text, size_t size, int64_t capacity_override,
                        skss_knapsack_instance *out, char err[SKSS_IO_ERRLEN]);

/* Whole-file helpers shared by the readers (path "-" = stdin). Refuses
 * files larger than max_bytes. */
int skss_read_file(const char *path, size_t max_bytes, uint8_t **data, size_t *size,
                   char err[SKSS_IO_ERRLEN]);
/* Atomic write: temp file in the same directory, fsync, rename. */
int skss_write_file_atomic(const char *path, const void *data, size_t size, char err[SKSS_IO_ERRLEN]);

#endif
