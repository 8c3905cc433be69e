/*
 * fuzz_pnm.c — libFuzzer target of the PGM/PBM decoder (P1/P2/P4/P5). A
 * decoded image is written again as P5 and as P4 in memory and decoded
 * back: P5 must give the same pixels, P4 the same pixels thresholded
 * (0 stays black, anything else white).
 */
#include "fuzz_check.h"
#include "io_internal.h"

static skss_image fuzz_redecode(const char *header, size_t header_len, const uint8_t *raster, size_t raster_len) {
  uint8_t *file = malloc(header_len + raster_len);
  fuzz_require(file != NULL);
  memcpy(file, header, header_len);
  memcpy(file + header_len, raster, raster_len);
  skss_image img;
  char err[SKSS_IO_ERRLEN];
  memset(&img, 0, sizeof img);
  fuzz_require(skss__pnm_decode(file, header_len + raster_len, SKSS_IO_DEFAULT_MAX_PIXELS, &img, err) == 0);
  free(file);
  return img;
}

static void fuzz_roundtrip(const skss_image *img) {
  size_t pixels = (size_t)(img->width * img->height);
  char header[SKSS__PNM_HEADER_MAX];
  size_t len = skss__pnm_header(0, img->width, img->height, header);
  skss_image again = fuzz_redecode(header, len, img->pixels, pixels);
  fuzz_require(again.width == img->width && again.height == img->height);
  fuzz_require(memcmp(again.pixels, img->pixels, pixels) == 0);
  skss_image_free(&again);

  uint8_t *bits;
  size_t bits_len;
  char err[SKSS_IO_ERRLEN];
  fuzz_require(skss__pbm_pack(img->pixels, img->width, img->height, &bits, &bits_len, err) == 0);
  len = skss__pnm_header(1, img->width, img->height, header);
  again = fuzz_redecode(header, len, bits, bits_len);
  for (size_t i = 0; i < pixels; ++i) fuzz_require(again.pixels[i] == (img->pixels[i] ? 255 : 0));
  skss_image_free(&again);
  free(bits);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  skss_image img;
  char err[SKSS_IO_ERRLEN] = "";
  memset(&img, 0, sizeof img);
  if (skss__pnm_decode(data, size, SKSS_IO_DEFAULT_MAX_PIXELS, &img, err) != 0) {
    fuzz_check_failure(err, &img, sizeof img);
    return 0;
  }
  fuzz_check_image(&img);
  fuzz_roundtrip(&img);
  skss_image_free(&img);
  return 0;
}
