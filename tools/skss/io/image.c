/*
 * image.c — the image entry points of skss_io: format detection by magic
 * bytes on reading, by extension on writing, argument checks, and dispatch
 * to the PNG (image_png.c) and Netpbm (image_pnm.c) codecs. Single-threaded.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io_internal.h"

static const uint8_t skss__png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

void skss_image_free(skss_image *img) {
  if (img == NULL) return;
  free(img->pixels);
  memset(img, 0, sizeof *img);
}

int skss_image_decode_limited(const uint8_t *data, size_t size, int64_t max_pixels, skss_image *out,
                              char err[SKSS_IO_ERRLEN]) {
  if (out == NULL) return skss__io_fail(err, "skss_image_decode(): out is NULL");
  memset(out, 0, sizeof *out);
  if (data == NULL && size > 0) return skss__io_fail(err, "skss_image_decode(): data is NULL");
  if (max_pixels < 1 || max_pixels > SKSS_IO_MAX_PIXELS)
    return skss__io_fail(err, "skss_image_decode(): max_pixels %lld is outside 1..%lld", (long long)max_pixels,
                         (long long)SKSS_IO_MAX_PIXELS);
  if (size == 0) return skss__io_fail(err, "empty file");
  if (size >= sizeof skss__png_magic && memcmp(data, skss__png_magic, sizeof skss__png_magic) == 0)
    return skss__png_decode(data, size, max_pixels, out, err);
  if (data[0] == 'P') return skss__pnm_decode(data, size, max_pixels, out, err);
  if (size >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff)
    return skss__io_fail(err, "JPEG is not supported; convert to PNG or PGM");
  return skss__io_fail(err, "not a PNG, PGM or PBM file");
}

int skss_image_decode(const uint8_t *data, size_t size, skss_image *out, char err[SKSS_IO_ERRLEN]) {
  return skss_image_decode_limited(data, size, SKSS_IO_DEFAULT_MAX_PIXELS, out, err);
}

int skss_image_read(const char *path, skss_image *out, char err[SKSS_IO_ERRLEN]) {
  if (out != NULL) memset(out, 0, sizeof *out);
  if (path == NULL || out == NULL) return skss__io_fail(err, "skss_image_read(): path and out must not be NULL");
  uint8_t *data;
  size_t size;
  int rc = skss_read_file(path, (size_t)SKSS_IO_MAX_FILE_BYTES, &data, &size, err);
  if (rc != 0) return rc;
  rc = skss_image_decode(data, size, out, err);
  free(data);
  return rc == 0 ? 0 : skss__io_fail_path(err, path, rc);
}

int skss_image_format_from_path(const char *path, int bilevel, skss_image_format *out, char err[SKSS_IO_ERRLEN]) {
  if (path == NULL || out == NULL)
    return skss__io_fail(err, "skss_image_format_from_path(): path and out must not be NULL");
  if (strcmp(path, "-") == 0) {
    *out = bilevel ? SKSS_IMAGE_PBM : SKSS_IMAGE_PGM;
    return 0;
  }
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  if (dot == NULL || (slash != NULL && dot < slash))
    return skss__io_fail(err, "%s: no file extension; use .png, .pgm or .pbm", path);
  if (strcasecmp(dot, ".png") == 0) *out = bilevel ? SKSS_IMAGE_PNG_BIT : SKSS_IMAGE_PNG_GRAY8;
  else if (strcasecmp(dot, ".pgm") == 0) *out = SKSS_IMAGE_PGM;
  else if (strcasecmp(dot, ".pbm") == 0) *out = SKSS_IMAGE_PBM;
  else return skss__io_fail(err, "%s: unknown image extension '%s'; use .png, .pgm or .pbm", path, dot);
  return 0;
}

static int skss__image_write_pnm(const char *path, int pbm, const uint8_t *pixels, int64_t width,
                                 int64_t height, char *err) {
  char header[SKSS__PNM_HEADER_MAX];
  skss__io_piece pieces[2] = {{header, skss__pnm_header(pbm, width, height, header)},
                              {pixels, (size_t)(width * height)}};
  if (!pbm) return skss__io_write_pieces(path, pieces, 2, err);
  uint8_t *raster;
  int rc = skss__pbm_pack(pixels, width, height, &raster, &pieces[1].size, err);
  if (rc != 0) return rc;
  pieces[1].data = raster;
  rc = skss__io_write_pieces(path, pieces, 2, err);
  free(raster);
  return rc;
}

static int skss__image_write_png(const char *path, int bilevel, const uint8_t *pixels, int64_t width,
                                 int64_t height, char *err) {
  uint8_t *png;
  size_t png_size;
  int rc = skss__png_encode(pixels, width, height, bilevel, &png, &png_size, err);
  if (rc != 0) return rc;
  rc = skss_write_file_atomic(path, png, png_size, err);
  free(png);
  return rc;
}

int skss_image_write(const char *path, skss_image_format fmt, const uint8_t *pixels, int64_t width,
                     int64_t height, char err[SKSS_IO_ERRLEN]) {
  if (path == NULL || pixels == NULL)
    return skss__io_fail(err, "skss_image_write(): path and pixels must not be NULL");
  if (skss__io_check_dims("skss_image_write()", width, height, SKSS_IO_MAX_PIXELS, err) != 0) return SKSS_IO_ERR;
  switch (fmt) {
    case SKSS_IMAGE_PGM: return skss__image_write_pnm(path, 0, pixels, width, height, err);
    case SKSS_IMAGE_PBM: return skss__image_write_pnm(path, 1, pixels, width, height, err);
    case SKSS_IMAGE_PNG_GRAY8: return skss__image_write_png(path, 0, pixels, width, height, err);
    case SKSS_IMAGE_PNG_BIT: return skss__image_write_png(path, 1, pixels, width, height, err);
  }
  return skss__io_fail(err, "skss_image_write(): unknown format %d", (int)fmt);
}
