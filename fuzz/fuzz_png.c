/*
 * fuzz_png.c — libFuzzer target of the image reader's PNG path (libspng
 * with our limits and conversions; checksums are ignored in fuzz builds so
 * mutations reach the decoder). A decoded image is encoded again as 8-bit
 * gray PNG and decoded back: the pixels must survive.
 */
#include "fuzz_check.h"
#include "io_internal.h"

/* Round trips only images this small, to keep the fuzzer fast. */
#define FUZZ_PNG_ROUNDTRIP_PIXELS (1 << 16)

static void fuzz_roundtrip(const skss_image *img) {
  uint8_t *png;
  size_t len;
  char err[SKSS_IO_ERRLEN];
  fuzz_require(skss__png_encode(img->pixels, img->width, img->height, 0, &png, &len, err) == 0);
  skss_image again;
  memset(&again, 0, sizeof again);
  fuzz_require(skss__png_decode(png, len, SKSS_IO_DEFAULT_MAX_PIXELS, &again, err) == 0);
  fuzz_require(again.width == img->width && again.height == img->height);
  fuzz_require(memcmp(again.pixels, img->pixels, (size_t)(img->width * img->height)) == 0);
  skss_image_free(&again);
  free(png);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  skss_image img;
  char err[SKSS_IO_ERRLEN] = "";
  if (skss_image_decode(data, size, &img, err) != 0) {
    fuzz_check_failure(err, &img, sizeof img);
    return 0;
  }
  fuzz_check_image(&img);
  if (img.width * img.height <= FUZZ_PNG_ROUNDTRIP_PIXELS) fuzz_roundtrip(&img);
  skss_image_free(&img);
  return 0;
}
