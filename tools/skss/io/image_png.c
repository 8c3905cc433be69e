/*
 * image_png.c — PNG through libspng. Decoding yields 8-bit gray exactly as
 * Pillow's convert('L'): 1/2/4/8-bit gray through libspng's G8 output (which
 * scales low depths by 255/85/17, as Pillow does); every other colour type
 * (RGB, RGBA, gray+alpha, palette, 16-bit gray) through libspng's RGB8
 * output — palette entries expanded, alpha and tRNS dropped, 16-bit samples
 * reduced to their high byte (verified against libspng 0.7.3) — and then
 * L = (19595 R + 38470 G + 7471 B + 0x8000) >> 16 (gray+alpha gives L = G
 * exactly). RGB8 is decoded progressively one row at a time, so memory is
 * the gray image plus one RGB row; for interlaced files each Adam7 pass
 * writes only its own columns of a row and only those are converted.
 * Untrusted input: every chunk through IEND must lie inside the file;
 * libspng's image and chunk limits are set, and a header
 * whose image could not be inflated from a file of this size (deflate
 * expands at most 1032:1) is refused before anything is allocated.
 * Encoding: 8-bit gray or 1-bit gray (1 = white), progressive rows into
 * libspng's own output buffer. Single-threaded.
 */
#include <spng.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

/* Deflate's largest expansion: a 258-byte match coded in two bits. */
#define SKSS__PNG_INFLATE_RATIO 1032u
#define SKSS__PNG_CHUNK_LIMIT ((size_t)1 << 24)
#define SKSS__PNG_CACHE_LIMIT ((size_t)1 << 26)

static int skss__png_fail(int code, const char *step, char *err) {
  if (code == SPNG_EMEM) return skss__io_fail_nomem(err, "PNG: %s: %s", step, spng_strerror(code));
  return skss__io_fail(err, "PNG: %s: %s", step, spng_strerror(code));
}

static int skss__png_channels(uint8_t color_type) {
  switch (color_type) {
    case SPNG_COLOR_TYPE_TRUECOLOR: return 3;
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA: return 2;
    case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA: return 4;
    default: return 1; /* gray, palette */
  }
}

/* Refuses a header whose filtered image data (at least h * ceil(w * bpp / 8)
 * bytes) could not come out of `size` bytes of deflate stream. */
static int skss__png_check_size(const struct spng_ihdr *ihdr, size_t size, int64_t max_pixels, char *err) {
  int64_t width = ihdr->width, height = ihdr->height;
  int rc = skss__io_check_dims("PNG", width, height, max_pixels, err);
  if (rc != 0) return rc;
  uint64_t bits = (uint64_t)width * (uint64_t)skss__png_channels(ihdr->color_type) * ihdr->bit_depth;
  uint64_t raw = (bits + 7) / 8 * (uint64_t)height;
  uint64_t most = (uint64_t)size * SKSS__PNG_INFLATE_RATIO + 1024u;
  if (raw > most)
    return skss__io_fail(err, "PNG: a %lld x %lld image cannot be stored in %zu bytes (truncated or corrupt)",
                         (long long)width, (long long)height, size);
  return 0;
}

/* Walks the chunk headers to IEND: every chunk, IEND's CRC included, must
 * lie inside the buffer (libspng stops reading once it has seen IEND's type,
 * so a file cut inside the last CRC would otherwise pass). */
static int skss__png_check_chunks(const uint8_t *data, size_t size, char *err) {
  size_t at = 8;
  while (size - at >= 8) {
    uint32_t len = (uint32_t)data[at] << 24 | (uint32_t)data[at + 1] << 16 | (uint32_t)data[at + 2] << 8 | data[at + 3];
    if (len > INT32_MAX) return skss__io_fail(err, "PNG: chunk at byte %zu has an invalid length", at);
    if ((uint64_t)len + 12 > size - at)
      return skss__io_fail(err, "PNG: truncated: the chunk at byte %zu needs %u bytes, the file has %zu", at,
                           len + 12, size - at);
    if (memcmp(data + at + 4, "IEND", 4) == 0) return 0;
    at += (size_t)len + 12;
  }
  return skss__io_fail(err, "PNG: truncated: no IEND chunk");
}

static void skss__png_rgb_to_gray(const uint8_t *restrict rgb, uint8_t *restrict gray, int64_t first,
                                  int64_t step, int64_t width) {
  for (int64_t x = first; x < width; x += step) {
    const uint8_t *p = rgb + 3 * x;
    gray[x] = (uint8_t)((19595u * p[0] + 38470u * p[1] + 7471u * p[2] + 0x8000u) >> 16);
  }
}

/* First column and column step of each Adam7 pass. */
static const uint8_t skss__adam7_first[7] = {0, 4, 0, 2, 0, 1, 0};
static const uint8_t skss__adam7_step[7] = {8, 8, 4, 4, 2, 2, 1};

static int skss__png_decode_rgb(spng_ctx *ctx, const struct spng_ihdr *ihdr, uint8_t *gray, char *err) {
  int64_t width = ihdr->width;
  size_t row_bytes = (size_t)width * 3;
  uint8_t *row = malloc(row_bytes);
  if (row == NULL) return skss__io_fail_nomem(err, "PNG: out of memory for a row of %lld pixels", (long long)width);
  int rc = spng_decode_image(ctx, NULL, 0, SPNG_FMT_RGB8, SPNG_DECODE_PROGRESSIVE);
  while (rc == 0) {
    struct spng_row_info info;
    rc = spng_get_row_info(ctx, &info);
    if (rc != 0) break;
    rc = spng_decode_row(ctx, row, row_bytes);
    if (rc != 0 && rc != SPNG_EOI) break;
    int pass = ihdr->interlace_method ? info.pass : 6; /* pass 6 = every column */
    if (pass < 0 || pass > 6 || info.row_num >= ihdr->height) { rc = SPNG_EINTERNAL; break; }
    skss__png_rgb_to_gray(row, gray + (int64_t)info.row_num * width, skss__adam7_first[pass],
                          skss__adam7_step[pass], width);
  }
  free(row);
  return rc == SPNG_EOI ? 0 : skss__png_fail(rc, "decoding the image", err);
}

static int skss__png_decode_ctx(spng_ctx *ctx, const uint8_t *data, size_t size, int64_t max_pixels,
                                skss_image *out, char *err) {
  int rc = spng_set_image_limits(ctx, (uint32_t)SKSS_IO_MAX_SIDE, (uint32_t)SKSS_IO_MAX_SIDE);
  if (rc == 0) rc = spng_set_chunk_limits(ctx, SKSS__PNG_CHUNK_LIMIT, SKSS__PNG_CACHE_LIMIT);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  /* Fuzz builds (fuzz/) ignore checksums so that mutations reach the decoder. */
  if (rc == 0) rc = spng_set_crc_action(ctx, SPNG_CRC_USE, SPNG_CRC_USE);
#endif
  /* libspng only reads the buffer; its API takes it non-const. */
  if (rc == 0) rc = spng_set_png_buffer(ctx, (void *)(uintptr_t)data, size);
  if (rc != 0) return skss__png_fail(rc, "setting up the decoder", err);
  struct spng_ihdr ihdr;
  rc = spng_get_ihdr(ctx, &ihdr);
  if (rc != 0) return skss__png_fail(rc, "reading the header", err);
  rc = skss__png_check_size(&ihdr, size, max_pixels, err);
  if (rc != 0) return rc;
  size_t pixels = (size_t)ihdr.width * ihdr.height;
  uint8_t *gray = malloc(pixels);
  if (gray == NULL)
    return skss__io_fail_nomem(err, "PNG: out of memory for a %u x %u image", ihdr.width, ihdr.height);
  if (ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE && ihdr.bit_depth <= 8) {
    rc = spng_decode_image(ctx, gray, pixels, SPNG_FMT_G8, 0);
    rc = rc == 0 ? 0 : skss__png_fail(rc, "decoding the image", err);
  } else {
    rc = skss__png_decode_rgb(ctx, &ihdr, gray, err);
  }
  if (rc == 0 && (rc = spng_decode_chunks(ctx)) != 0) rc = skss__png_fail(rc, "reading to the end", err);
  if (rc != 0) {
    free(gray);
    return rc;
  }
  out->width = ihdr.width;
  out->height = ihdr.height;
  out->pixels = gray;
  return 0;
}

int skss__png_decode(const uint8_t *data, size_t size, int64_t max_pixels, skss_image *out, char *err) {
  if (skss__png_check_chunks(data, size, err) != 0) return SKSS_IO_ERR;
  spng_ctx *ctx = spng_ctx_new(0);
  if (ctx == NULL) return skss__io_fail_nomem(err, "PNG: out of memory");
  int rc = skss__png_decode_ctx(ctx, data, size, max_pixels, out, err);
  spng_ctx_free(ctx);
  return rc;
}

/* ---- encoding -------------------------------------------------------------------- */

/* 1-bit row, most significant bit first, 1 = white (pixel != 0). */
static void skss__png_pack_row(const uint8_t *restrict src, int64_t width, uint8_t *restrict bits) {
  memset(bits, 0, (size_t)(width + 7) / 8);
  for (int64_t x = 0; x < width; ++x) bits[x >> 3] |= (uint8_t)((src[x] != 0) << (7 - (x & 7)));
}

static int skss__png_encode_rows(spng_ctx *ctx, const uint8_t *pixels, int64_t width, int64_t height,
                                 int bilevel, char *err) {
  size_t row_bytes = bilevel ? (size_t)(width + 7) / 8 : (size_t)width;
  uint8_t *packed = bilevel ? malloc(row_bytes) : NULL;
  if (bilevel && packed == NULL) return skss__io_fail_nomem(err, "PNG: out of memory");
  int rc = spng_encode_image(ctx, NULL, 0, SPNG_FMT_PNG, SPNG_ENCODE_PROGRESSIVE | SPNG_ENCODE_FINALIZE);
  for (int64_t y = 0; y < height && rc == 0; ++y) {
    const uint8_t *src = pixels + y * width;
    if (bilevel) skss__png_pack_row(src, width, packed);
    rc = spng_encode_row(ctx, bilevel ? packed : src, row_bytes);
  }
  free(packed);
  return rc == SPNG_EOI ? 0 : skss__png_fail(rc, "encoding the image", err);
}

static int skss__png_encode_ctx(spng_ctx *ctx, const uint8_t *pixels, int64_t width, int64_t height,
                                int bilevel, uint8_t **png, size_t *png_size, char *err) {
  struct spng_ihdr ihdr = {0};
  ihdr.width = (uint32_t)width;
  ihdr.height = (uint32_t)height;
  ihdr.bit_depth = bilevel ? 1 : 8;
  ihdr.color_type = SPNG_COLOR_TYPE_GRAYSCALE;
  int rc = spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
  if (rc == 0) rc = spng_set_ihdr(ctx, &ihdr);
  if (rc != 0) return skss__png_fail(rc, "setting up the encoder", err);
  if (skss__png_encode_rows(ctx, pixels, width, height, bilevel, err) != 0) return -1;
  void *buffer = spng_get_png_buffer(ctx, png_size, &rc);
  if (buffer == NULL) return skss__png_fail(rc, "collecting the output", err);
  *png = buffer;
  return 0;
}

int skss__png_encode(const uint8_t *pixels, int64_t width, int64_t height, int bilevel, uint8_t **png,
                     size_t *png_size, char *err) {
  spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
  if (ctx == NULL) return skss__io_fail_nomem(err, "PNG: out of memory");
  int rc = skss__png_encode_ctx(ctx, pixels, width, height, bilevel, png, png_size, err);
  spng_ctx_free(ctx);
  return rc;
}
