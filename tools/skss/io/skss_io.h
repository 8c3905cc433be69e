/*
 * skss_io.h — the file formats of the skss CLI: 8-bit gray images (PNG via
 * libspng, PGM P2/P5, PBM P1/P4 for output), NumPy .npy arrays, knapsack
 * instances, FASTA sequences. Readers never trust a header: every size is checked against
 * limits and the real data length before anything is allocated. Writers
 * write to a temporary file beside the target and rename it into place, so
 * a failure never leaves a partial output. Every function returns 0 on
 * success or a negative SKSS_IO_ERR_* code with a one-line message in `err`
 * (no printing, no exit); `err` may be NULL. On failure every output struct
 * is left zeroed, so its _free() is always safe.
 *
 * Trailing data: after a PGM/PBM raster only whitespace may follow (a second
 * concatenated image is an error); nothing may follow .npy array data; after
 * a knapsack instance only whitespace may follow; bytes after a PNG's IEND
 * chunk are not examined (as libpng and Pillow do).
 */
#ifndef SKSS_IO_H
#define SKSS_IO_H

#include <stddef.h>
#include <stdint.h>

#include "skss.h"

/* Room for a message that names a path of PATH_MAX bytes and its reason. */
#define SKSS_IO_ERRLEN (4096 + 512)

/* Failure codes (every function returns 0 on success). */
#define SKSS_IO_ERR -1           /* bad input, or a file that cannot be read or written */
#define SKSS_IO_ERR_NOMEM -2     /* memory ran out */
#define SKSS_IO_ERR_TOO_LARGE -3 /* an image above the caller's pixel limit */

/* Largest image written or accepted at all: 2^31-1 pixels a side and 2^32
 * pixels in all. Decoding refuses, from the header and before allocating,
 * images of more than a caller's limit of pixels: by default
 * SKSS_IO_DEFAULT_MAX_PIXELS = 2^28 (16384 x 16384, a 256 MiB gray image),
 * the role of Pillow's MAX_IMAGE_PIXELS; a compressed PNG of a few hundred
 * KB can otherwise claim gigabytes. */
#define SKSS_IO_MAX_SIDE ((int64_t)INT32_MAX)
#define SKSS_IO_MAX_PIXELS ((int64_t)1 << 32)
#define SKSS_IO_DEFAULT_MAX_PIXELS ((int64_t)1 << 28)
/* Largest file the readers load (64 GiB; far beyond any image above). */
#define SKSS_IO_MAX_FILE_BYTES ((uint64_t)1 << 36)

/* An 8-bit gray image, rows packed (pitch = width). */
typedef struct skss_image {
  int64_t width, height;
  uint8_t *pixels; /* malloc'd; free with skss_image_free() */
} skss_image;

void skss_image_free(skss_image *img);

/* Reads a PNG, PGM or PBM from a file, or from stdin when path is "-"; the
 * format is detected from the magic bytes.
 *  - PNG (any colour type, bit depth and interlacing, through libspng): colour
 *    becomes gray as Pillow's convert('L'):
 *    L = (19595 R + 38470 G + 7471 B + 0x8000) >> 16; alpha and tRNS are
 *    ignored; a palette maps through its RGB entries; 1/2/4-bit gray scales
 *    to 0..255 (x 255, 85, 17); 16-bit samples keep their high byte (what
 *    libspng's 8-bit output and Pillow's RGB/LA modes do; Pillow's
 *    convert('L') of a 16-bit *gray* PNG clamps to 255 instead, we don't).
 *    Gamma, sBIT and colour profiles are ignored, as Pillow does.
 *  - PGM P5/P2 with maxval 1..65535 (16-bit samples big-endian): a sample v
 *    becomes round(v * 255 / maxval), ties to even, exactly what Pillow
 *    computes when it opens the file (for maxval > 255 Pillow keeps 16 bits;
 *    we scale to 8 bits with the same formula). A sample above maxval is
 *    an error. Comments ('#' to end of line) may appear between any tokens.
 *  - PBM P4/P1: 1 (black) reads as 0, 0 (white) as 255, as Pillow's
 *    convert('L'). P3/P6 colour PPM is rejected with a clear message. */
int skss_image_read(const char *path, skss_image *out, char err[SKSS_IO_ERRLEN]);
/* Same from memory (used by the fuzzers). */
int skss_image_decode(const uint8_t *data, size_t size, skss_image *out, char err[SKSS_IO_ERRLEN]);
/* Same with a pixel limit of max_pixels (1..SKSS_IO_MAX_PIXELS) instead of
 * SKSS_IO_DEFAULT_MAX_PIXELS: a larger image fails with
 * SKSS_IO_ERR_TOO_LARGE, checked from its header. */
int skss_image_decode_limited(const uint8_t *data, size_t size, int64_t max_pixels, skss_image *out,
                              char err[SKSS_IO_ERRLEN]);

/* Output kinds for a halftone or gray image. */
typedef enum skss_image_format {
  SKSS_IMAGE_PGM = 0,   /* P5, 8-bit */
  SKSS_IMAGE_PBM = 1,   /* P4, 1-bit, 1 = black */
  SKSS_IMAGE_PNG_GRAY8 = 2,
  SKSS_IMAGE_PNG_BIT = 3 /* 1-bit gray PNG, 1 = white */
} skss_image_format;

/* Picks the format from the path's extension (.pgm, .pbm, .png, any case);
 * `bilevel` chooses 1-bit PNG for .png. "-" (stdout) gives PGM, or PBM when
 * bilevel. Returns -1 for a missing or unknown extension. */
int skss_image_format_from_path(const char *path, int bilevel, skss_image_format *out,
                                char err[SKSS_IO_ERRLEN]);

/* Writes width x height packed 8-bit pixels (for PBM/1-bit PNG: 0 = black,
 * anything else = white) atomically to `path` ("-" = stdout). Sizes must be
 * 1..SKSS_IO_MAX_SIDE with at most SKSS_IO_MAX_PIXELS pixels. */
int skss_image_write(const char *path, skss_image_format fmt, const uint8_t *pixels,
                     int64_t width, int64_t height, char err[SKSS_IO_ERRLEN]);

/* A NumPy array (C order only: a Fortran-order file is an error; version
 * 1.0, 2.0 and 3.0 headers read, 1.0 written). dtypes |u1 |i1 <u2 <i2 <u4
 * <i4 <u8 <i8 <f4 <f8, their '>' (byte-swapped on reading) and '=' forms,
 * and |b1 (read as u8 0/1 with is_bool = 1; a nonzero byte reads as 1).
 * The header dict is parsed strictly (exactly the keys descr, fortran_order,
 * shape; Python literals only) but accepts any key order, spacing, quotes
 * and trailing commas. The data must be exactly count * itemsize bytes. */
typedef struct skss_npy {
  skss_dtype dtype;       /* also: bool arrays read as u8 with is_bool = 1 */
  int is_bool;
  int ndim;               /* 0..8 */
  int64_t shape[8];
  int64_t count;          /* product of shape */
  void *data;             /* malloc'd, count * skss_dtype_size(dtype) bytes
                             (never NULL after a successful read) */
} skss_npy;

void skss_npy_free(skss_npy *arr);
int skss_npy_read(const char *path, skss_npy *out, char err[SKSS_IO_ERRLEN]);
int skss_npy_decode(const uint8_t *data, size_t size, skss_npy *out, char err[SKSS_IO_ERRLEN]);
/* Writes an array (ndim 0..8 dims, each >= 0; shape may be NULL when ndim
 * is 0) atomically ("-" = stdout). data may be NULL only when the array is
 * empty. */
int skss_npy_write(const char *path, skss_dtype dtype, int ndim, const int64_t *shape,
                   const void *data, char err[SKSS_IO_ERRLEN]);

/* A knapsack instance. Two text formats are accepted, told apart by the
 * first non-blank line (a comma, or the CSV header, means CSV):
 *  - the standard generator's (Pisinger's gen*.c): n, then n lines
 *    "id value weight", then the capacity, one item per line;
 *  - CSV: one "weight,value" line per item (a first line "weight,value",
 *    any case, is a header), capacity given separately (capacity_override
 *    >= 0 is required).
 * capacity_override >= 0 replaces the file's capacity (the generator's
 * capacity line may then be left out). All numbers are non-negative
 * decimal integers that fit int64 (no sign, fraction, exponent or NaN);
 * blank lines and '\r' are ignored; n = 0 is a valid instance, an empty
 * text is not. */
typedef struct skss_knapsack_instance {
  int64_t n;
  int64_t capacity;
  int64_t *ids;     /* item ids as written (1..n in order for CSV) */
  int64_t *weights;
  int64_t *values;  /* ids, weights, values: malloc'd, never NULL on success */
} skss_knapsack_instance;

void skss_knapsack_instance_free(skss_knapsack_instance *inst);
int skss_knapsack_read(const char *path, int64_t capacity_override, skss_knapsack_instance *out,
                       char err[SKSS_IO_ERRLEN]);
int skss_knapsack_parse(const char *text, size_t size, int64_t capacity_override,
                        skss_knapsack_instance *out, char err[SKSS_IO_ERRLEN]);

/* The first record of a FASTA file. The text must start (after blank
 * lines) with a '>' header line; the record's sequence is every following
 * line up to the next line that starts with '>' (later records are not
 * read) or the end. Blank lines, spaces, tabs and '\r' (CRLF files) are
 * skipped; every other byte must be a letter of the alphabet, in either
 * case: DNA "ACGTN", protein the 20 amino acids and "BZX*" (BLOSUM62's
 * letters). A record without letters, an empty text and a bad letter (named
 * with its line) are errors. */
typedef enum skss_fasta_alphabet {
  SKSS_FASTA_DNA = 0,
  SKSS_FASTA_PROTEIN = 1
} skss_fasta_alphabet;

typedef struct skss_fasta {
  char *name;    /* the header after '>', blanks trimmed; malloc'd */
  char *seq;     /* upper-case letters, NUL-terminated; malloc'd */
  int64_t len;   /* >= 1 */
} skss_fasta;

/* The alphabet's letters (upper case), e.g. "ACGTN". */
const char *skss_fasta_letters(skss_fasta_alphabet alphabet);
void skss_fasta_free(skss_fasta *f);
int skss_fasta_read(const char *path, skss_fasta_alphabet alphabet, skss_fasta *out, char err[SKSS_IO_ERRLEN]);
int skss_fasta_parse(const char *text, size_t size, skss_fasta_alphabet alphabet, skss_fasta *out,
                     char err[SKSS_IO_ERRLEN]);

/* Whole-file helpers shared by the readers (path "-" = stdin). Refuses
 * files larger than max_bytes (before reading them when their size is
 * known). *data is malloc'd with one extra NUL byte after *size bytes. */
int skss_read_file(const char *path, size_t max_bytes, uint8_t **data, size_t *size,
                   char err[SKSS_IO_ERRLEN]);
/* Atomic write: a new temporary file in the target's directory (created
 * O_EXCL with mode 0666 less the umask, or the mode of the file it
 * replaces), fully written and fsync'd, then rename()d over the target; on
 * any failure the temporary file is removed and the target is untouched.
 * A symbolic link at `path` is replaced, not written through. "-" writes
 * to stdout (not atomic). */
int skss_write_file_atomic(const char *path, const void *data, size_t size, char err[SKSS_IO_ERRLEN]);

/* Several outputs that replace their targets together or not at all:
 * between skss_io_stage_begin() and skss_io_stage_commit() or _abort(),
 * each atomic write (of any format) keeps its finished temporary file
 * instead of renaming it; commit renames them all into place, abort removes
 * them. At most SKSS_IO_MAX_STAGED writes may be staged ("-" is not staged:
 * stdout is written at once). Temporary files are named
 * "<target's directory>/.skss-<16 hex digits>.tmp", so any target name that
 * fits NAME_MAX works. */
#define SKSS_IO_MAX_STAGED 4
void skss_io_stage_begin(void);
int skss_io_stage_commit(char err[SKSS_IO_ERRLEN]);
void skss_io_stage_abort(void);
/* Removes every temporary file that a write has open or staged.
 * Async-signal-safe (unlink only): for a SIGINT/SIGTERM/SIGHUP handler, so
 * that an interrupted run leaves no temporary file behind. */
void skss_io_remove_temporaries(void);

#endif
