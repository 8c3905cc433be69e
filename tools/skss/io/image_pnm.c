/*
 * image_pnm.c — Netpbm gray and bitmap images, our own codec: PGM (P5
 * binary, 8- or 16-bit big-endian; P2 ASCII) and PBM (P4 packed bits, P1
 * ASCII) read; P5 and P4 written. Every size in a header is checked against
 * the limits and against the bytes actually present before the pixel buffer
 * is allocated. maxval != 255 scales as Pillow does: round(v * 255 / maxval),
 * ties to even (the exact rational rounding, which equals Python's
 * round(v / maxval * 255) for every maxval <= 65535 and v <= maxval — checked
 * exhaustively when this was written). Single-threaded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

typedef struct skss__pnm_cursor {
  const uint8_t *data;
  size_t size;
  size_t pos;
  const char *kind; /* "PGM" or "PBM", for messages */
  int64_t max_pixels;
} skss__pnm_cursor;

/* Skips whitespace and '#' comments (to the end of their line). */
static void skss__pnm_skip(skss__pnm_cursor *c) {
  while (c->pos < c->size) {
    uint8_t ch = c->data[c->pos];
    if (skss__io_is_space(ch)) {
      ++c->pos;
    } else if (ch == '#') {
      while (c->pos < c->size && c->data[c->pos] != '\n' && c->data[c->pos] != '\r') ++c->pos;
    } else {
      return;
    }
  }
}

/* A printable rendering of the byte at the cursor for messages. */
static int skss__pnm_found(const skss__pnm_cursor *c) {
  uint8_t ch = c->data[c->pos];
  return ch >= 0x21 && ch < 0x7f ? ch : '?';
}

static int skss__pnm_number(skss__pnm_cursor *c, const char *field, int64_t *value, char *err) {
  skss__pnm_skip(c);
  if (c->pos >= c->size) return skss__io_fail(err, "%s: truncated header (no %s)", c->kind, field);
  switch (skss__io_scan_u63(c->data, c->size, &c->pos, value)) {
    case SKSS__IO_NUM_OK:
      return 0;
    case SKSS__IO_NUM_OVERFLOW:
      return skss__io_fail(err, "%s: the %s does not fit a 64-bit integer", c->kind, field);
    case SKSS__IO_NUM_NONE:
      break;
  }
  return skss__io_fail(err, "%s: expected the %s (a non-negative integer), found '%c'", c->kind, field,
                       skss__pnm_found(c));
}

/* round(v * 255 / maxval), ties to even. */
static uint8_t skss__pnm_scale(uint32_t v, uint32_t maxval) {
  uint32_t num = v * 255u;
  uint32_t q = num / maxval, twice_rem = 2u * (num % maxval);
  if (twice_rem > maxval || (twice_rem == maxval && (q & 1u))) ++q;
  return (uint8_t)q;
}

typedef struct skss__pnm_info {
  char magic;       /* '1', '2', '4' or '5' */
  int64_t width, height;
  uint32_t maxval;  /* 1 for PBM */
} skss__pnm_info;

static int skss__pnm_read_magic(skss__pnm_cursor *c, skss__pnm_info *h, char *err) {
  if (c->size < 2 || c->data[0] != 'P') return skss__io_fail(err, "not a PGM or PBM file");
  h->magic = (char)c->data[1];
  if (h->magic == '3' || h->magic == '6')
    return skss__io_fail(err, "PPM colour images (P%c) are not supported; convert to PGM or PNG", h->magic);
  if (h->magic != '1' && h->magic != '2' && h->magic != '4' && h->magic != '5')
    return skss__io_fail(err, "not a PGM (P2/P5) or PBM (P1/P4) file");
  c->kind = (h->magic == '1' || h->magic == '4') ? "PBM" : "PGM";
  c->pos = 2;
  if (c->pos < c->size && !skss__io_is_space(c->data[c->pos]) && c->data[c->pos] != '#')
    return skss__io_fail(err, "%s: the magic number P%c is not followed by whitespace", c->kind, h->magic);
  return 0;
}

static int skss__pnm_read_header(skss__pnm_cursor *c, skss__pnm_info *h, char *err) {
  if (skss__pnm_read_magic(c, h, err) != 0) return -1;
  if (skss__pnm_number(c, "width", &h->width, err) != 0 ||
      skss__pnm_number(c, "height", &h->height, err) != 0)
    return -1;
  int rc = skss__io_check_dims(c->kind, h->width, h->height, c->max_pixels, err);
  if (rc != 0) return rc;
  h->maxval = 1;
  if (h->magic == '2' || h->magic == '5') {
    int64_t maxval;
    if (skss__pnm_number(c, "maxval", &maxval, err) != 0) return -1;
    if (maxval < 1 || maxval > 65535)
      return skss__io_fail(err, "PGM: maxval %lld is outside 1..65535", (long long)maxval);
    h->maxval = (uint32_t)maxval;
  }
  if (h->magic == '4' || h->magic == '5') { /* binary: exactly one whitespace byte, then the raster */
    if (c->pos >= c->size) return skss__io_fail(err, "%s: truncated header", c->kind);
    if (!skss__io_is_space(c->data[c->pos]))
      return skss__io_fail(err, "%s: expected one whitespace byte after the header, found '%c'", c->kind,
                           skss__pnm_found(c));
    ++c->pos;
  }
  return 0;
}

/* Bytes the raster needs at least, to refuse short files before allocating. */
static int64_t skss__pnm_min_raster(const skss__pnm_info *h) {
  int64_t pixels = h->width * h->height;
  switch (h->magic) {
    case '5': return pixels * (h->maxval > 255 ? 2 : 1);
    case '4': return (h->width + 7) / 8 * h->height;
    case '2': return 2 * pixels - 1; /* a digit and a separator per sample */
    default: return pixels;          /* P1: one digit per sample */
  }
}

static uint8_t *skss__pnm_scale_table(uint32_t maxval, char *err) {
  uint8_t *lut = malloc((size_t)maxval + 1);
  if (lut == NULL) {
    skss__io_fail_nomem(err, "PGM: out of memory");
    return NULL;
  }
  for (uint32_t v = 0; v <= maxval; ++v) lut[v] = skss__pnm_scale(v, maxval);
  return lut;
}

static int skss__pnm_too_large(int64_t index, uint32_t v, uint32_t maxval, char *err) {
  return skss__io_fail(err, "PGM: sample %lld is %u, above maxval %u", (long long)index, v, maxval);
}

static int skss__pnm_raster_p5(skss__pnm_cursor *c, const skss__pnm_info *h, uint8_t *out,
                               char *err) {
  int64_t count = h->width * h->height;
  const uint8_t *src = c->data + c->pos;
  if (h->maxval == 255) {
    memcpy(out, src, (size_t)count);
    c->pos += (size_t)count;
    return 0;
  }
  uint8_t *lut = skss__pnm_scale_table(h->maxval, err);
  if (lut == NULL) return SKSS_IO_ERR_NOMEM;
  int wide = h->maxval > 255;
  for (int64_t i = 0; i < count; ++i) {
    uint32_t v = wide ? ((uint32_t)src[2 * i] << 8) | src[2 * i + 1] : src[i];
    if (v > h->maxval) {
      free(lut);
      return skss__pnm_too_large(i, v, h->maxval, err);
    }
    out[i] = lut[v];
  }
  free(lut);
  c->pos += (size_t)count * (wide ? 2u : 1u);
  return 0;
}

static int skss__pnm_raster_p4(skss__pnm_cursor *c, const skss__pnm_info *h, uint8_t *out) {
  size_t row_bytes = (size_t)(h->width + 7) / 8;
  const uint8_t *src = c->data + c->pos;
  for (int64_t y = 0; y < h->height; ++y) {
    const uint8_t *row = src + (size_t)y * row_bytes;
    uint8_t *dst = out + y * h->width;
    for (int64_t x = 0; x < h->width; ++x) dst[x] = (row[x >> 3] >> (7 - (x & 7))) & 1u ? 0 : 255;
  }
  c->pos += row_bytes * (size_t)h->height;
  return 0;
}

static int skss__pnm_truncated(const skss__pnm_cursor *c, int64_t got, int64_t want, char *err) {
  return skss__io_fail(err, "%s: truncated: %lld of %lld samples", c->kind, (long long)got, (long long)want);
}

static int skss__pnm_raster_p2(skss__pnm_cursor *c, const skss__pnm_info *h, uint8_t *out,
                               char *err) {
  uint8_t *lut = skss__pnm_scale_table(h->maxval, err);
  if (lut == NULL) return SKSS_IO_ERR_NOMEM;
  int64_t count = h->width * h->height;
  int rc = 0;
  for (int64_t i = 0; i < count && rc == 0; ++i) {
    skss__pnm_skip(c);
    int64_t v = 0;
    skss__io_num num = skss__io_scan_u63(c->data, c->size, &c->pos, &v);
    if (c->pos >= c->size && num == SKSS__IO_NUM_NONE) rc = skss__pnm_truncated(c, i, count, err);
    else if (num == SKSS__IO_NUM_NONE)
      rc = skss__io_fail(err, "PGM: sample %lld: expected a non-negative integer, found '%c'", (long long)i,
                         skss__pnm_found(c));
    else if (num == SKSS__IO_NUM_OVERFLOW || v > h->maxval)
      rc = skss__io_fail(err, "PGM: sample %lld is above maxval %u", (long long)i, h->maxval);
    else out[i] = lut[v];
  }
  free(lut);
  return rc;
}

static int skss__pnm_raster_p1(skss__pnm_cursor *c, const skss__pnm_info *h, uint8_t *out,
                               char *err) {
  int64_t count = h->width * h->height;
  for (int64_t i = 0; i < count; ++i) {
    skss__pnm_skip(c);
    if (c->pos >= c->size) return skss__pnm_truncated(c, i, count, err);
    uint8_t ch = c->data[c->pos++];
    if (ch != '0' && ch != '1')
      return skss__io_fail(err, "PBM: sample %lld: expected 0 or 1, found '%c'", (long long)i,
                           ch >= 0x21 && ch < 0x7f ? ch : '?');
    out[i] = ch == '1' ? 0 : 255;
  }
  return 0;
}

/* After the raster only whitespace (and, for ASCII, comments) may follow. */
static int skss__pnm_check_tail(skss__pnm_cursor *c, const skss__pnm_info *h, char *err) {
  if (h->magic == '1' || h->magic == '2') skss__pnm_skip(c);
  else
    while (c->pos < c->size && skss__io_is_space(c->data[c->pos])) ++c->pos;
  if (c->pos == c->size) return 0;
  return skss__io_fail(err, "%s: %zu bytes of trailing data after the image", c->kind, c->size - c->pos);
}

static int skss__pnm_raster(skss__pnm_cursor *c, const skss__pnm_info *h, uint8_t *out, char *err) {
  switch (h->magic) {
    case '5': return skss__pnm_raster_p5(c, h, out, err);
    case '4': return skss__pnm_raster_p4(c, h, out);
    case '2': return skss__pnm_raster_p2(c, h, out, err);
    default: return skss__pnm_raster_p1(c, h, out, err);
  }
}

int skss__pnm_decode(const uint8_t *data, size_t size, int64_t max_pixels, skss_image *out, char *err) {
  skss__pnm_cursor c = {data, size, 0, "PGM", max_pixels};
  skss__pnm_info h;
  int rc = skss__pnm_read_header(&c, &h, err);
  if (rc != 0) return rc;
  int64_t need = skss__pnm_min_raster(&h);
  if ((uint64_t)need > c.size - c.pos)
    return skss__io_fail(err, "%s: truncated: a %lld x %lld image needs at least %lld raster bytes, the file has %zu",
                         c.kind, (long long)h.width, (long long)h.height, (long long)need, c.size - c.pos);
  uint8_t *pixels = malloc((size_t)(h.width * h.height));
  if (pixels == NULL) return skss__io_fail_nomem(err, "%s: out of memory for a %lld x %lld image", c.kind,
                                           (long long)h.width, (long long)h.height);
  rc = skss__pnm_raster(&c, &h, pixels, err);
  if (rc == 0) rc = skss__pnm_check_tail(&c, &h, err);
  if (rc != 0) {
    free(pixels);
    return rc;
  }
  out->width = h.width;
  out->height = h.height;
  out->pixels = pixels;
  return 0;
}

size_t skss__pnm_header(int pbm, int64_t width, int64_t height, char *buf) {
  int len = pbm ? snprintf(buf, SKSS__PNM_HEADER_MAX, "P4\n%lld %lld\n", (long long)width, (long long)height)
                : snprintf(buf, SKSS__PNM_HEADER_MAX, "P5\n%lld %lld\n255\n", (long long)width, (long long)height);
  return (size_t)len;
}

int skss__pbm_pack(const uint8_t *pixels, int64_t width, int64_t height, uint8_t **raster,
                   size_t *raster_size, char *err) {
  size_t row_bytes = (size_t)(width + 7) / 8;
  size_t total = row_bytes * (size_t)height;
  uint8_t *bits = calloc(total > 0 ? total : 1, 1);
  if (bits == NULL) return skss__io_fail_nomem(err, "PBM: out of memory");
  for (int64_t y = 0; y < height; ++y) {
    const uint8_t *src = pixels + y * width;
    uint8_t *row = bits + (size_t)y * row_bytes;
    for (int64_t x = 0; x < width; ++x)
      row[x >> 3] |= (uint8_t)((src[x] == 0) << (7 - (x & 7)));
  }
  *raster = bits;
  *raster_size = total;
  return 0;
}
