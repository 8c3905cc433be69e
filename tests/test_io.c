/*
 * test_io.c — the CLI's file formats (tools/skss/io): round trips of PGM,
 * PBM, 8-bit and 1-bit PNG at awkward sizes; every PNG colour type, bit
 * depth and interlacing (encoded here with libspng) against the Pillow
 * convert('L') formula; PGM maxval scaling against values Pillow produced;
 * .npy round trips of every dtype and 0..8 dimensions and hand-written
 * headers (versions, byte orders, spacing, bool, malformed ones); knapsack
 * text in both formats; and bad input of every kind (truncation, wrong
 * magic, zero/negative/huge sizes, overflowing and NaN-like numbers,
 * trailing data), which must give -1, a one-line message and zeroed output.
 * The pixel limit on decoded images, the out-of-memory code, and staged
 * writes of several outputs (all or none replace their targets; signal
 * cleanup removes the temporary files; names up to NAME_MAX). Failed writes
 * must leave an existing target untouched and no temporary file behind.
 */
#include <dirent.h>
#include <fcntl.h>
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skss_io.h"
#include "testutil.h"

/* ---- helpers -------------------------------------------------------------------- */

typedef struct io_dir {
  char path[256];
} io_dir;

static int dir_setup(void **state) {
  io_dir *d = calloc(1, sizeof *d);
  const char *base = getenv("TMPDIR");
  snprintf(d->path, sizeof d->path, "%s/skss_test_io_XXXXXX", base && *base ? base : "/tmp");
  if (mkdtemp(d->path) == NULL) return -1;
  *state = d;
  return 0;
}

static void remove_tree(const char *path) {
  DIR *dir = opendir(path);
  if (dir == NULL) {
    unlink(path);
    return;
  }
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char child[512];
    snprintf(child, sizeof child, "%s/%s", path, e->d_name);
    remove_tree(child);
  }
  closedir(dir);
  rmdir(path);
}

static int dir_teardown(void **state) {
  io_dir *d = *state;
  remove_tree(d->path);
  free(d);
  return 0;
}

static const char *in_dir(void **state, const char *name, char *buf, size_t cap) {
  io_dir *d = *state;
  snprintf(buf, cap, "%s/%s", d->path, name);
  return buf;
}

/* A failure: -1, a non-empty one-line message containing `want`. */
static void expect_failure(int rc, const char *err, const char *want, const char *what) {
  if (rc != -1 || err[0] == '\0' || strchr(err, '\n') != NULL || (want != NULL && strstr(err, want) == NULL))
    TU_FAIL("%s: rc %d, message '%s', wanted one containing '%s'\n", what, rc, err, want ? want : "");
}

static void expect_image_zeroed(const skss_image *img) {
  assert_null(img->pixels);
  assert_int_equal(img->width, 0);
  assert_int_equal(img->height, 0);
}

/* Decodes with the largest pixel limit, so that headers meet the size and
 * truncation checks rather than the default limit (test_pixel_limit). */
static int decode_text(const char *text, size_t n, skss_image *img, char *err) {
  memset(img, 0xA5, sizeof *img);
  err[0] = '\0';
  return skss_image_decode_limited((const uint8_t *)text, n, SKSS_IO_MAX_PIXELS, img, err);
}

static void write_bytes(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, n, f), n);
  assert_int_equal(fclose(f), 0);
}

static size_t read_bytes(const char *path, uint8_t *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t n = fread(buf, 1, cap, f);
  fclose(f);
  return n;
}

static int count_temp_files(void **state) {
  io_dir *d = *state;
  DIR *dir = opendir(d->path);
  assert_non_null(dir);
  int count = 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) count += strncmp(e->d_name, ".skss-", 6) == 0;
  closedir(dir);
  return count;
}

/* ---- image round trips ---------------------------------------------------------- */

static const int64_t sizes[][2] = {{1, 1}, {1, 37}, {37, 1}, {31, 33}, {32, 32}, {33, 31}, {97, 61}, {8, 3}, {9, 2}};
#define SIZE_COUNT (sizeof sizes / sizeof sizes[0])

static void roundtrip_format(void **state, skss_image_format fmt, const char *name, int bilevel) {
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + (uint64_t)fmt);
  char path[512], err[SKSS_IO_ERRLEN];
  in_dir(state, name, path, sizeof path);
  for (size_t s = 0; s < SIZE_COUNT; ++s) {
    int64_t w = sizes[s][0], h = sizes[s][1];
    uint8_t *px = malloc((size_t)(w * h));
    tu_fill_bytes(&rng, px, (size_t)(w * h));
    for (int64_t i = 0; i < w * h && bilevel; i += 3) px[i] = 0; /* plenty of black */
    if (skss_image_write(path, fmt, px, w, h, err) != 0) TU_FAIL("write %s %lldx%lld: %s\n", name, (long long)w, (long long)h, err);
    skss_image img;
    memset(&img, 0xA5, sizeof img);
    if (skss_image_read(path, &img, err) != 0) TU_FAIL("read %s: %s\n", name, err);
    assert_int_equal(img.width, w);
    assert_int_equal(img.height, h);
    for (int64_t i = 0; i < w * h; ++i) {
      uint8_t want = bilevel ? (px[i] ? 255 : 0) : px[i];
      if (img.pixels[i] != want)
        TU_FAIL("%s %lldx%lld: pixel %lld is %d, wrote %d\n", name, (long long)w, (long long)h, (long long)i,
                img.pixels[i], px[i]);
    }
    skss_image_free(&img);
    expect_image_zeroed(&img);
    free(px);
  }
}

static void test_image_roundtrips(void **state) {
  roundtrip_format(state, SKSS_IMAGE_PGM, "a.pgm", 0);
  roundtrip_format(state, SKSS_IMAGE_PBM, "a.pbm", 1);
  roundtrip_format(state, SKSS_IMAGE_PNG_GRAY8, "a.png", 0);
  roundtrip_format(state, SKSS_IMAGE_PNG_BIT, "b.png", 1);
}

static void test_written_headers(void **state) {
  char path[512], err[SKSS_IO_ERRLEN];
  uint8_t px[3 * 2] = {0, 255, 7, 0, 0, 1}, buf[64];
  in_dir(state, "h.pgm", path, sizeof path);
  assert_int_equal(skss_image_write(path, SKSS_IMAGE_PGM, px, 3, 2, err), 0);
  size_t n = read_bytes(path, buf, sizeof buf);
  assert_int_equal(n, 11 + 6);
  assert_memory_equal(buf, "P5\n3 2\n255\n", 11);
  assert_memory_equal(buf + 11, px, 6);
  in_dir(state, "h.pbm", path, sizeof path);
  assert_int_equal(skss_image_write(path, SKSS_IMAGE_PBM, px, 3, 2, err), 0);
  n = read_bytes(path, buf, sizeof buf);
  assert_int_equal(n, 7 + 2);
  assert_memory_equal(buf, "P4\n3 2\n", 7);
  assert_int_equal(buf[7], 0x80); /* 1 = black, MSB first, padding 0 */
  assert_int_equal(buf[8], 0xC0);
}

/* ---- PNG colour types through libspng ------------------------------------------ */

static int png_channels(int color_type) {
  return color_type == SPNG_COLOR_TYPE_TRUECOLOR ? 3
         : color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA ? 2
         : color_type == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA ? 4 : 1;
}

/* Sample k of a row in libspng's SPNG_FMT_PNG layout, reduced to 8 bits the
 * way Pillow reduces it (high byte of 16; gray < 8 bits scaled; palette raw). */
static unsigned png_sample(const uint8_t *row, int depth, int64_t k, int scale) {
  if (depth == 16) {
    uint16_t v;
    memcpy(&v, row + 2 * k, 2);
    return v >> 8;
  }
  if (depth == 8) return row[k];
  int64_t bit = k * depth;
  unsigned v = (row[bit / 8] >> (8 - depth - bit % 8)) & ((1u << depth) - 1);
  return scale ? v * (255u / ((1u << depth) - 1)) : v;
}

static uint8_t luma(unsigned r, unsigned g, unsigned b) {
  return (uint8_t)((19595u * r + 38470u * g + 7471u * b + 0x8000u) >> 16);
}

static uint8_t png_expected(const uint8_t *row, int color_type, int depth, int64_t x, const struct spng_plte *plte) {
  int ch = png_channels(color_type);
  switch (color_type) {
    case SPNG_COLOR_TYPE_INDEXED: {
      const struct spng_plte_entry *e = &plte->entries[png_sample(row, depth, x, 0)];
      return luma(e->red, e->green, e->blue);
    }
    case SPNG_COLOR_TYPE_TRUECOLOR:
    case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA:
      return luma(png_sample(row, depth, x * ch, 1), png_sample(row, depth, x * ch + 1, 1),
                  png_sample(row, depth, x * ch + 2, 1));
    default:
      return (uint8_t)png_sample(row, depth, x * ch, 1);
  }
}

static uint8_t *png_encode(const struct spng_ihdr *ihdr, const uint8_t *raw, size_t raw_len,
                           const struct spng_plte *plte, size_t *len) {
  spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
  assert_non_null(ctx);
  assert_int_equal(spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1), 0);
  assert_int_equal(spng_set_ihdr(ctx, (struct spng_ihdr *)ihdr), 0);
  struct spng_trns trns = {0};
  trns.gray = 1;
  trns.red = trns.green = trns.blue = 2;
  if (ihdr->color_type == SPNG_COLOR_TYPE_INDEXED) {
    assert_int_equal(spng_set_plte(ctx, (struct spng_plte *)plte), 0);
    trns.n_type3_entries = 1; /* transparency must be ignored */
  }
  if (ihdr->color_type != SPNG_COLOR_TYPE_GRAYSCALE_ALPHA && ihdr->color_type != SPNG_COLOR_TYPE_TRUECOLOR_ALPHA)
    assert_int_equal(spng_set_trns(ctx, &trns), 0);
  int rc = spng_encode_image(ctx, raw, raw_len, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
  if (rc != 0) TU_FAIL("libspng encode: %s\n", spng_strerror(rc));
  int e = 0;
  uint8_t *png = spng_get_png_buffer(ctx, len, &e);
  assert_non_null(png);
  spng_ctx_free(ctx);
  return png;
}

static void check_png_kind(tu_rng *rng, int color_type, int depth, int interlace, uint32_t w, uint32_t h) {
  struct spng_ihdr ihdr = {w, h, (uint8_t)depth, (uint8_t)color_type, 0, 0, (uint8_t)interlace};
  size_t row_bytes = ((size_t)w * (size_t)png_channels(color_type) * (size_t)depth + 7) / 8;
  size_t raw_len = row_bytes * h;
  uint8_t *raw = malloc(raw_len);
  tu_fill_bytes(rng, raw, raw_len);
  struct spng_plte plte = {0};
  plte.n_entries = 1u << depth;
  for (uint32_t i = 0; i < plte.n_entries && color_type == SPNG_COLOR_TYPE_INDEXED; ++i) {
    plte.entries[i].red = (uint8_t)tu_next(rng);
    plte.entries[i].green = (uint8_t)tu_next(rng);
    plte.entries[i].blue = (uint8_t)tu_next(rng);
  }
  size_t len;
  uint8_t *png = png_encode(&ihdr, raw, raw_len, &plte, &len);
  skss_image img;
  char err[SKSS_IO_ERRLEN];
  memset(&img, 0xA5, sizeof img);
  if (skss_image_decode(png, len, &img, err) != 0)
    TU_FAIL("PNG type %d depth %d interlace %d %ux%u: %s\n", color_type, depth, interlace, w, h, err);
  assert_int_equal(img.width, w);
  assert_int_equal(img.height, h);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      uint8_t want = png_expected(raw + y * row_bytes, color_type, depth, x, &plte);
      if (img.pixels[(size_t)y * w + x] != want)
        TU_FAIL("PNG type %d depth %d interlace %d %ux%u: (%u,%u) is %d, want %d\n", color_type, depth, interlace, w,
                h, x, y, img.pixels[(size_t)y * w + x], want);
    }
  skss_image_free(&img);
  free(png);
  free(raw);
}

static void test_png_every_colour_type(void **state) {
  (void)state;
  static const int kinds[][2] = {{SPNG_COLOR_TYPE_GRAYSCALE, 1},       {SPNG_COLOR_TYPE_GRAYSCALE, 2},
                                 {SPNG_COLOR_TYPE_GRAYSCALE, 4},       {SPNG_COLOR_TYPE_GRAYSCALE, 8},
                                 {SPNG_COLOR_TYPE_GRAYSCALE, 16},      {SPNG_COLOR_TYPE_TRUECOLOR, 8},
                                 {SPNG_COLOR_TYPE_TRUECOLOR, 16},      {SPNG_COLOR_TYPE_INDEXED, 1},
                                 {SPNG_COLOR_TYPE_INDEXED, 2},         {SPNG_COLOR_TYPE_INDEXED, 4},
                                 {SPNG_COLOR_TYPE_INDEXED, 8},         {SPNG_COLOR_TYPE_GRAYSCALE_ALPHA, 8},
                                 {SPNG_COLOR_TYPE_GRAYSCALE_ALPHA, 16}, {SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 8},
                                 {SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 16}};
  static const uint32_t dims[][2] = {{1, 1}, {7, 5}, {33, 17}, {1, 40}, {40, 1}, {9, 9}};
  tu_rng rng;
  tu_rng_init(&rng, tu_seed());
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
    for (int interlace = 0; interlace <= 1; ++interlace)
      for (size_t d = 0; d < sizeof dims / sizeof dims[0]; ++d)
        check_png_kind(&rng, kinds[k][0], kinds[k][1], interlace, dims[d][0], dims[d][1]);
}

/* Every prefix and every single-byte corruption of a valid PNG either fails
 * cleanly or decodes to an image of the right size. */
static void test_png_truncated_and_corrupt(void **state) {
  (void)state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 7);
  uint8_t raw[13 * 11 * 3];
  tu_fill_bytes(&rng, raw, sizeof raw);
  struct spng_ihdr ihdr = {13, 11, 8, SPNG_COLOR_TYPE_TRUECOLOR, 0, 0, 1};
  struct spng_plte plte = {0};
  size_t len;
  uint8_t *png = png_encode(&ihdr, raw, sizeof raw, &plte, &len);
  skss_image img;
  char err[SKSS_IO_ERRLEN];
  for (size_t cut = 0; cut < len; ++cut) {
    int rc = decode_text((const char *)png, cut, &img, err);
    expect_failure(rc, err, NULL, "truncated PNG");
    expect_image_zeroed(&img);
  }
  for (size_t at = 0; at < len; ++at) {
    png[at] ^= 0x5a;
    int rc = decode_text((const char *)png, len, &img, err);
    if (rc == 0) {
      assert_true(img.width == 13 && img.height == 11);
      skss_image_free(&img);
    } else {
      expect_failure(rc, err, NULL, "corrupt PNG");
    }
    png[at] ^= 0x5a;
  }
  free(png);
}

static uint32_t crc32_of(const uint8_t *p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return ~c;
}

static size_t put_chunk(uint8_t *out, const char *type, const uint8_t *data, uint32_t n) {
  out[0] = (uint8_t)(n >> 24), out[1] = (uint8_t)(n >> 16), out[2] = (uint8_t)(n >> 8), out[3] = (uint8_t)n;
  memcpy(out + 4, type, 4);
  if (n > 0) memcpy(out + 8, data, n);
  uint32_t crc = crc32_of(out + 4, n + 4);
  out[8 + n] = (uint8_t)(crc >> 24), out[9 + n] = (uint8_t)(crc >> 16), out[10 + n] = (uint8_t)(crc >> 8);
  out[11 + n] = (uint8_t)crc;
  return 12 + n;
}

/* A PNG that claims width x height with a few bytes of image data. */
static size_t forged_png(uint8_t *out, uint32_t width, uint32_t height, int bit_depth, int color_type) {
  static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  static const uint8_t idat[] = {0x78, 0x9c, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01};
  uint8_t ihdr[13] = {(uint8_t)(width >> 24), (uint8_t)(width >> 16), (uint8_t)(width >> 8), (uint8_t)width,
                      (uint8_t)(height >> 24), (uint8_t)(height >> 16), (uint8_t)(height >> 8), (uint8_t)height,
                      (uint8_t)bit_depth, (uint8_t)color_type, 0, 0, 0};
  memcpy(out, sig, 8);
  size_t n = 8;
  n += put_chunk(out + n, "IHDR", ihdr, 13);
  n += put_chunk(out + n, "IDAT", idat, sizeof idat);
  n += put_chunk(out + n, "IEND", NULL, 0);
  return n;
}

static void test_png_forged_headers(void **state) {
  (void)state;
  static const struct {
    uint32_t w, h;
    int depth, type;
    const char *want;
  } cases[] = {
      {0x7fffffff, 0x7fffffff, 8, 0, "exceeds the limit"},
      {65536, 65536, 1, 0, "cannot be stored"},      /* 2^32 pixels: allowed in size, not from 80 bytes */
      {1000000, 1000, 16, 6, "cannot be stored"},
      {0x80000000u, 1, 8, 0, "PNG"},                 /* beyond libspng's limit */
      {0, 5, 8, 0, "PNG"},
      {5, 5, 3, 0, "PNG"},                           /* invalid bit depth */
      {5, 5, 8, 3, "PNG"},                           /* palette without PLTE */
      {1, 1, 8, 0, "PNG"},                           /* valid header, image data too short */
  };
  uint8_t buf[128];
  skss_image img;
  char err[SKSS_IO_ERRLEN];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    size_t n = forged_png(buf, cases[i].w, cases[i].h, cases[i].depth, cases[i].type);
    int rc = decode_text((const char *)buf, n, &img, err);
    expect_failure(rc, err, cases[i].want, "forged PNG");
    expect_image_zeroed(&img);
  }
}

/* A too-large image: SKSS_IO_ERR_TOO_LARGE, a message naming the limit, zeroed output. */
static void expect_too_large(const uint8_t *data, size_t n, int64_t limit, const char *what) {
  skss_image img;
  char err[SKSS_IO_ERRLEN] = "";
  memset(&img, 0xA5, sizeof img);
  int rc = limit ? skss_image_decode_limited(data, n, limit, &img, err) : skss_image_decode(data, n, &img, err);
  char want[64];
  snprintf(want, sizeof want, "exceeds the limit of %lld pixels",
           (long long)(limit ? limit : SKSS_IO_DEFAULT_MAX_PIXELS));
  if (rc != SKSS_IO_ERR_TOO_LARGE || strstr(err, want) == NULL || strchr(err, '\n') != NULL)
    TU_FAIL("%s: rc %d, message '%s'\n", what, rc, err);
  expect_image_zeroed(&img);
}

static void test_pixel_limit(void **state) {
  (void)state;
  uint8_t buf[128];
  /* A 1-bit 32768 x 32768 PNG header (2^30 pixels): refused by default from the header. */
  size_t n = forged_png(buf, 32768, 32768, 1, 0);
  expect_too_large(buf, n, 0, "PNG of 2^30 pixels");
  expect_too_large(buf, n, 1000, "PNG, limit 1000");
  static const char over[] = "P5 16385 16384 255\nab", at[] = "P5 16384 16384 255\nab";
  expect_too_large((const uint8_t *)over, sizeof over - 1, 0, "PGM of 2^28 + 16384 pixels");
  skss_image img;
  char err[SKSS_IO_ERRLEN];
  /* exactly 2^28 pixels pass the limit and reach the truncation check */
  expect_failure(skss_image_decode((const uint8_t *)at, sizeof at - 1, &img, err), err, "truncated", "2^28 pixels");
  static const char small[] = "P5 3 2 255\nabcdef";
  assert_int_equal(skss_image_decode_limited((const uint8_t *)small, sizeof small - 1, 6, &img, err), 0);
  assert_int_equal(img.width * img.height, 6);
  skss_image_free(&img);
  expect_too_large((const uint8_t *)small, sizeof small - 1, 5, "PGM of 6 pixels, limit 5");
  expect_failure(skss_image_decode_limited((const uint8_t *)small, sizeof small - 1, 0, &img, err), err,
                 "max_pixels", "limit 0");
  expect_failure(skss_image_decode_limited((const uint8_t *)small, sizeof small - 1, SKSS_IO_MAX_PIXELS + 1, &img,
                                           err),
                 err, "max_pixels", "limit above SKSS_IO_MAX_PIXELS");
  expect_image_zeroed(&img);
}

#if defined(__SANITIZE_ADDRESS__)
#define IO_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IO_TEST_ASAN 1
#endif
#endif
#ifndef IO_TEST_ASAN
#define IO_TEST_ASAN 0
#endif

/* The address space this process uses now, in bytes (from /proc). */
static long long address_space_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long long pages = -1;
  if (f == NULL || fscanf(f, "%lld", &pages) != 1) pages = -1;
  if (f != NULL) fclose(f);
  return pages < 0 ? -1 : pages * sysconf(_SC_PAGESIZE);
}

static void test_out_of_memory_code(void **state) {
  (void)state;
#if IO_TEST_ASAN
  skip(); /* ASan reserves terabytes of address space: RLIMIT_AS cannot be used */
#endif
  /* A valid .npy of 64 MiB of bytes whose copy cannot be allocated under RLIMIT_AS. */
  const size_t data_bytes = (size_t)64 << 20;
  static const char header[] = "{'descr': '|u1', 'fortran_order': False, 'shape': (67108864,), }";
  size_t dict = sizeof header - 1, pad = 64 - (10 + dict + 1) % 64, head = 10 + dict + pad + 1;
  uint8_t *file = calloc(head + data_bytes, 1);
  assert_non_null(file);
  memcpy(file, "\x93NUMPY\x01\x00", 8);
  file[8] = (uint8_t)((head - 10) & 0xff);
  file[9] = (uint8_t)((head - 10) >> 8);
  memcpy(file + 10, header, dict);
  memset(file + 10 + dict, ' ', pad);
  file[head - 1] = '\n';
  long long used = address_space_bytes();
  struct rlimit old;
  assert_true(used > 0 && getrlimit(RLIMIT_AS, &old) == 0);
  struct rlimit tight = {(rlim_t)used + (16 << 20), old.rlim_max};
  assert_int_equal(setrlimit(RLIMIT_AS, &tight), 0);
  skss_npy arr;
  char err[SKSS_IO_ERRLEN] = "";
  int rc = skss_npy_decode(file, head + data_bytes, &arr, err);
  assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
  free(file);
  if (rc != SKSS_IO_ERR_NOMEM || strstr(err, "out of memory") == NULL)
    TU_FAIL("npy decode under RLIMIT_AS: rc %d, message '%s'\n", rc, err);
  assert_null(arr.data);
}

/* ---- PGM / PBM variants ---------------------------------------------------------- */

static void expect_pixels(const char *text, size_t n, int64_t w, int64_t h, const uint8_t *want) {
  skss_image img;
  char err[SKSS_IO_ERRLEN];
  if (decode_text(text, n, &img, err) != 0) TU_FAIL("decoding '%.20s...': %s\n", text, err);
  assert_int_equal(img.width, w);
  assert_int_equal(img.height, h);
  assert_memory_equal(img.pixels, want, (size_t)(w * h));
  skss_image_free(&img);
}

#define EXPECT_PIXELS(text, w, h, ...)                                  \
  do {                                                                  \
    static const uint8_t want_[] = {__VA_ARGS__};                       \
    expect_pixels(text, sizeof(text) - 1, w, h, want_);                  \
  } while (0)

static void test_pnm_variants(void **state) {
  (void)state;
  /* Values below are what Pillow 13 gives for the same files (for maxval > 255,
   * what its formula round(v / maxval * 255) gives; Pillow itself keeps 16 bits). */
  EXPECT_PIXELS("P5\n4 2\n7\n\x00\x01\x02\x03\x04\x05\x06\x07", 4, 2, 0, 36, 73, 109, 146, 182, 219, 255);
  EXPECT_PIXELS("P2\n# comment\n 4 1 # more\n7\n0 3\n4\t7\n", 4, 1, 0, 109, 146, 255);
  EXPECT_PIXELS("P2 3 1 2 0 1 2", 3, 1, 0, 128, 255);    /* 127.5 rounds to even */
  EXPECT_PIXELS("P2 3 1 6 1 3 5", 3, 1, 42, 128, 212);   /* 42.5 -> 42, 127.5 -> 128, 212.5 -> 212 */
  EXPECT_PIXELS("P5 3 1 1000\n\x00\x00\x01\xf4\x03\xe7", 3, 1, 0, 128, 255); /* 16-bit: 0, 500, 999 */
  EXPECT_PIXELS("P5 2 1 65535\n\x80\x00\xff\xff", 2, 1, 128, 255);
  EXPECT_PIXELS("P5 2 1 255\n\x05\xfa\n\n", 2, 1, 5, 250);                   /* trailing whitespace is fine */
  EXPECT_PIXELS("P1\n3 2\n1 0 1\n001\n", 3, 2, 0, 255, 0, 255, 255, 0);
  EXPECT_PIXELS("P1 5 1 10#c\n110", 5, 1, 0, 255, 0, 0, 255);
  EXPECT_PIXELS("P4\n10 2\n\xc0\x7f\x40\x00", 10, 2, 0, 0, 255, 255, 255, 255, 255, 255, 255, 0, 255, 0, 255, 255,
                255, 255, 255, 255, 255, 255);
}

typedef struct bad_case {
  const char *text;
  size_t size; /* 0: strlen(text) */
  const char *want;
} bad_case;

static void test_pnm_bad_input(void **state) {
  (void)state;
  static const bad_case cases[] = {
      {"", 0, "empty"},
      {"P5", 0, "truncated header"},
      {"P5 4", 0, "truncated header"},
      {"P5 0 5 255\n", 0, "at least 1"},
      {"P5 5 0 255\n", 0, "at least 1"},
      {"P5 -5 5 255\n", 0, "found '-'"},
      {"P5 1000000000 1000000000 255\n", 0, "exceeds the limit"},
      {"P5 3000000000 1 255\n", 0, "exceeds the limit"},
      {"P5 99999999999999999999 1 255\n", 0, "does not fit"},
      {"P5 2 2 0\n", 0, "maxval 0"},
      {"P5 2 2 65536\n", 0, "maxval 65536"},
      {"P5 2 2 255\nab", 0, "truncated"},
      {"P5 65536 65536 255\nab", 0, "truncated"},
      {"P5 2 1 255\nabXYZ", 0, "trailing data"},
      {"P5 1 1 255\nxP5 1 1 255\nx", 0, "trailing data"},
      {"P5 2 1 7\n\x01\x09", 0, "above maxval"},
      {"P5 1 1 300\n\x01\x2d", 0, "above maxval"},
      {"P5 2 1 255x", 0, "whitespace"},
      {"P5 1 1 255#\nx", 0, "whitespace"},
      {"P2 2 1 255\n1 256", 0, "above maxval"},
      {"P2 2 1 255\n1 99999999999999999999999", 0, "above maxval"},
      {"P2 2 1 255\n1 nan", 0, "found 'n'"},
      {"P2 2 1 255\n1 -2", 0, "found '-'"},
      {"P2 2 1 255\n1.5 2", 0, "found '.'"},
      {"P2 2 1 255\n1", 0, "truncated"},
      {"P2 3 1 255\n1 2       ", 0, "truncated"},
      {"P2 2 1 255\n1 2 3", 0, "trailing data"},
      {"P1 3 1\n012", 0, "expected 0 or 1"},
      {"P1 3 1\n0 1", 0, "truncated"},
      {"P4 9 1\n\xff", 0, "truncated"},
      {"P6 1 1 255\nabc", 0, "PPM colour"},
      {"P3 1 1 255\n1 2 3", 0, "PPM colour"},
      {"P7\nWIDTH 1\n", 0, "not a PGM"},
      {"P5x", 0, "not followed by whitespace"},
      {"P", 0, "not a PGM"},
      {"GIF89a", 0, "not a PNG, PGM or PBM"},
      {"\xff\xd8\xff\xe0", 0, "JPEG"},
      {"\x89PNG\r\n\x1a\n", 0, "PNG"},
      {"\x00\x00\x00", 3, "not a PNG"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    skss_image img;
    char err[SKSS_IO_ERRLEN];
    size_t n = cases[i].size ? cases[i].size : strlen(cases[i].text);
    int rc = decode_text(cases[i].text, n, &img, err);
    expect_failure(rc, err, cases[i].want, cases[i].text);
    expect_image_zeroed(&img);
  }
}

/* ---- .npy -------------------------------------------------------------------------------- */

static const skss_dtype all_dtypes[] = {SKSS_DTYPE_U8,  SKSS_DTYPE_I8,  SKSS_DTYPE_U16, SKSS_DTYPE_I16,
                                        SKSS_DTYPE_U32, SKSS_DTYPE_I32, SKSS_DTYPE_U64, SKSS_DTYPE_I64,
                                        SKSS_DTYPE_F32, SKSS_DTYPE_F64};

static void test_npy_roundtrip(void **state) {
  char path[512], err[SKSS_IO_ERRLEN];
  in_dir(state, "a.npy", path, sizeof path);
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 3);
  for (size_t t = 0; t < sizeof all_dtypes / sizeof all_dtypes[0]; ++t) {
    for (int ndim = 0; ndim <= 8; ++ndim) {
      for (int variant = 0; variant < 3; ++variant) {
        int64_t shape[8], count = 1;
        for (int i = 0; i < ndim; ++i) {
          shape[i] = variant == 2 && i == ndim / 2 ? 0 : tu_range(&rng, 1, ndim > 4 ? 2 : 5);
          count *= shape[i];
        }
        size_t bytes = (size_t)count * skss_dtype_size(all_dtypes[t]);
        uint8_t *data = malloc(bytes + 1);
        tu_fill_bytes(&rng, data, bytes);
        if (skss_npy_write(path, all_dtypes[t], ndim, shape, data, err) != 0) TU_FAIL("npy write: %s\n", err);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(((size_t)st.st_size - bytes) % 64, 0); /* data aligned as NumPy aligns it */
        skss_npy arr;
        memset(&arr, 0xA5, sizeof arr);
        if (skss_npy_read(path, &arr, err) != 0) TU_FAIL("npy read: %s\n", err);
        assert_int_equal(arr.dtype, all_dtypes[t]);
        assert_int_equal(arr.is_bool, 0);
        assert_int_equal(arr.ndim, ndim);
        assert_int_equal(arr.count, count);
        for (int i = 0; i < ndim; ++i) assert_int_equal(arr.shape[i], shape[i]);
        assert_non_null(arr.data);
        if (bytes > 0) assert_memory_equal(arr.data, data, bytes);
        skss_npy_free(&arr);
        assert_null(arr.data);
        free(data);
      }
    }
  }
}

/* A .npy file in memory: preamble of `version`, then header text, then data. */
static size_t make_npy(uint8_t *out, int version, const char *header, const void *data, size_t n) {
  size_t hlen = strlen(header), at = version == 1 ? 10 : 12;
  memcpy(out, "\x93NUMPY", 6);
  out[6] = (uint8_t)version;
  out[7] = 0;
  out[8] = (uint8_t)hlen;
  out[9] = (uint8_t)(hlen >> 8);
  if (version > 1) out[10] = out[11] = 0;
  memcpy(out + at, header, hlen);
  if (n > 0) memcpy(out + at + hlen, data, n);
  return at + hlen + n;
}

static void expect_npy(const uint8_t *file, size_t size, skss_dtype dtype, int is_bool, int ndim,
                       const int64_t *shape, const void *want, size_t want_bytes) {
  skss_npy arr;
  char err[SKSS_IO_ERRLEN];
  memset(&arr, 0xA5, sizeof arr);
  if (skss_npy_decode(file, size, &arr, err) != 0) TU_FAIL("npy decode: %s\n", err);
  assert_int_equal(arr.dtype, dtype);
  assert_int_equal(arr.is_bool, is_bool);
  assert_int_equal(arr.ndim, ndim);
  for (int i = 0; i < ndim; ++i) assert_int_equal(arr.shape[i], shape[i]);
  assert_int_equal((size_t)arr.count * skss_dtype_size(dtype), want_bytes);
  if (want_bytes > 0) assert_memory_equal(arr.data, want, want_bytes);
  skss_npy_free(&arr);
}

static void test_npy_headers(void **state) {
  (void)state;
  uint8_t file[1024];
  static const int32_t ints[6] = {1, -2, 3, -4, 5, 0x01020304};
  static const int64_t s23[2] = {2, 3}, s6[1] = {6}, s0[1] = {0};
  for (int version = 1; version <= 3; ++version) {
    size_t n = make_npy(file, version, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }          \n",
                        ints, sizeof ints);
    expect_npy(file, n, SKSS_DTYPE_I32, 0, 2, s23, ints, sizeof ints);
  }
  size_t n = make_npy(file, 1, "{\"shape\":(2,3),\"fortran_order\":False,\"descr\":\"<i4\"}", ints, sizeof ints);
  expect_npy(file, n, SKSS_DTYPE_I32, 0, 2, s23, ints, sizeof ints);
  n = make_npy(file, 1, "\n{ 'descr' : '=i4' ,\n 'fortran_order' : False , 'shape' : ( 2L , 3L , ) , }\n", ints,
               sizeof ints);
  expect_npy(file, n, SKSS_DTYPE_I32, 0, 2, s23, ints, sizeof ints);
  uint8_t be[24];
  for (int i = 0; i < 6; ++i)
    for (int b = 0; b < 4; ++b) be[4 * i + b] = (uint8_t)((uint32_t)ints[i] >> (24 - 8 * b));
  n = make_npy(file, 1, "{'descr': '>i4', 'fortran_order': False, 'shape': (6,), }", be, sizeof be);
  expect_npy(file, n, SKSS_DTYPE_I32, 0, 1, s6, ints, sizeof ints);
  static const double f[2] = {1.5, -0.0};
  uint8_t fbe[16];
  for (int i = 0; i < 16; ++i) fbe[i] = ((const uint8_t *)f)[(i / 8) * 8 + 7 - i % 8];
  static const int64_t s2[1] = {2};
  n = make_npy(file, 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", fbe, sizeof fbe);
  expect_npy(file, n, SKSS_DTYPE_F64, 0, 1, s2, f, sizeof f);
  static const uint8_t bools[6] = {0, 1, 2, 0, 255, 1}, bools01[6] = {0, 1, 1, 0, 1, 1};
  n = make_npy(file, 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (6,), }", bools, sizeof bools);
  expect_npy(file, n, SKSS_DTYPE_U8, 1, 1, s6, bools01, sizeof bools01);
  n = make_npy(file, 1, "{'descr': 'u1', 'fortran_order': False, 'shape': (6,), }", bools, sizeof bools);
  expect_npy(file, n, SKSS_DTYPE_U8, 0, 1, s6, bools, sizeof bools);
  n = make_npy(file, 1, "{'descr': '<u2', 'fortran_order': False, 'shape': (), }", bools, 2);
  expect_npy(file, n, SKSS_DTYPE_U16, 0, 0, NULL, bools, 2);
  n = make_npy(file, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", NULL, 0);
  expect_npy(file, n, SKSS_DTYPE_F32, 0, 1, s0, NULL, 0);
  n = make_npy(file, 1, "{'descr': '<u8', 'fortran_order': False, 'shape': (1000000000000, 0), }", NULL, 0);
  skss_npy arr;
  char err[SKSS_IO_ERRLEN];
  assert_int_equal(skss_npy_decode(file, n, &arr, err), 0);
  assert_int_equal(arr.count, 0);
  skss_npy_free(&arr);
}

static void test_npy_bad_input(void **state) {
  (void)state;
  static const uint8_t zeros[64] = {0};
  static const struct {
    int version;
    const char *header;
    size_t data;
    const char *want;
  } cases[] = {
      {1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", 24, "Fortran"},
      {1, "{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }", 16, "not supported"},
      {1, "{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }", 2, "not supported"},
      {1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", 8, "not supported"},
      {1, "{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", 12, "not supported"},
      {1, "{'descr': '<i44', 'fortran_order': False, 'shape': (1,), }", 4, "not supported"},
      {1, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", 4, "structured"},
      {1, "{'descr': '<i4', 'fortran_order': False, 'shape': (3), }", 12, "not a tuple"},
      {1, "{'descr': '<i4', 'fortran_order': False, 'shape': (-1,), }", 0, "non-negative"},
      {1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1.5,), }", 4, "')'"},
      {1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", 4, "more than 8"},
      {1, "{'descr': '<i4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", 4, "does not fit"},
      {1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2305843009213693952,), }", 4, "does not fit"},
      {1, "{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 4, "does not fit"},
      {1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1000000000, 1000000000), }", 4, "need 4000000000000000000"},
      {1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", 20, "the file has 20"},
      {1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", 28, "the file has 28"},
      {1, "{'descr': '<i4', 'fortran_order': False}", 4, "all required"},
      {1, "{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (1,)}", 4, "twice"},
      {1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), 'x': 1}", 4, "unexpected key"},
      {1, "{'descr': '<i4', 'fortran_order': Falsey, 'shape': (1,)}", 4, "True or False"},
      {1, "{'descr': '<i4', 'fortran_order': 0, 'shape': (1,)}", 4, "True or False"},
      {1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,)} x", 4, "after the dict"},
      {1, "{'descr': '<i4' 'fortran_order': False, 'shape': (1,)}", 4, "'}'"},
      {1, "{'descr': '<\\x69', 'fortran_order': False, 'shape': (1,)}", 4, "unsupported string"},
      {1, "{'descr': '<i4\xc3\xa9', 'fortran_order': False, 'shape': (1,)}", 4, "unsupported string"},
      {1, "{'descr': '<i4, 'fortran_order': False, 'shape': (1,)}", 4, "not supported"},
      {1, "{'descr: '<i4'", 4, "':'"},
      {1, "('descr', '<i4')", 4, "'{'"},
      {1, "", 4, "'{'"},
      {4, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,)}", 4, "version 4.0"},
  };
  uint8_t file[512];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    size_t n = make_npy(file, cases[i].version, cases[i].header, zeros, cases[i].data);
    skss_npy arr;
    char err[SKSS_IO_ERRLEN];
    memset(&arr, 0xA5, sizeof arr);
    int rc = skss_npy_decode(file, n, &arr, err);
    expect_failure(rc, err, cases[i].want, cases[i].header);
    assert_null(arr.data);
    assert_int_equal(arr.count, 0);
  }
  /* Preambles: wrong magic, truncated, header length beyond the file, minor version. */
  size_t n = make_npy(file, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,)}", zeros, 4);
  for (size_t cut = 0; cut < n; ++cut) {
    skss_npy arr;
    char err[SKSS_IO_ERRLEN];
    expect_failure(skss_npy_decode(file, cut, &arr, err), err, NULL, "truncated npy");
  }
  skss_npy arr;
  char err[SKSS_IO_ERRLEN];
  file[8] = 0xff;
  expect_failure(skss_npy_decode(file, n, &arr, err), err, "header claims", "header length");
  file[8] = 0;
  file[7] = 1;
  expect_failure(skss_npy_decode(file, n, &arr, err), err, "version 1.1", "minor version");
  file[0] = 0x92;
  expect_failure(skss_npy_decode(file, n, &arr, err), err, "bad magic", "magic");
  expect_failure(skss_npy_decode(NULL, 0, &arr, err), err, "bad magic", "empty");
}

/* ---- knapsack text ----------------------------------------------------------------- */

static void expect_instance(const char *text, int64_t cap_override, int64_t n, int64_t capacity, const int64_t *ids,
                            const int64_t *weights, const int64_t *values) {
  skss_knapsack_instance inst;
  char err[SKSS_IO_ERRLEN];
  memset(&inst, 0xA5, sizeof inst);
  if (skss_knapsack_parse(text, strlen(text), cap_override, &inst, err) != 0) TU_FAIL("knapsack '%s': %s\n", text, err);
  assert_int_equal(inst.n, n);
  assert_int_equal(inst.capacity, capacity);
  assert_non_null(inst.ids);
  for (int64_t i = 0; i < n; ++i) {
    assert_int_equal(inst.ids[i], ids[i]);
    assert_int_equal(inst.weights[i], weights[i]);
    assert_int_equal(inst.values[i], values[i]);
  }
  skss_knapsack_instance_free(&inst);
  assert_null(inst.ids);
}

static void test_knapsack_formats(void **state) {
  (void)state;
  static const int64_t ids[3] = {1, 2, 3}, w[3] = {5, 6, 7}, v[3] = {10, 20, 30}, big[1] = {INT64_MAX};
  static const int64_t ids7[3] = {7, 8, 9};
  expect_instance("3\n1 10 5\n2 20 6\n3 30 7\n15\n", -1, 3, 15, ids, w, v);
  expect_instance("  3\r\n\r\n    1    10     5\r\n2\t20\t6\r\n3 30 7\r\n\r\n15", -1, 3, 15, ids, w, v);
  expect_instance("3\n7 10 5\n8 20 6\n9 30 7\n15\n", 99, 3, 99, ids7, w, v);
  expect_instance("3\n1 10 5\n2 20 6\n3 30 7\n", 4, 3, 4, ids, w, v);
  expect_instance("0\n10\n", -1, 0, 10, ids, w, v);
  expect_instance("1\n1 9223372036854775807 9223372036854775807\n9223372036854775807\n", -1, 1, INT64_MAX, ids, big, big);
  expect_instance("weight,value\n5,10\n6,20\n7,30\n", 15, 3, 15, ids, w, v);
  expect_instance(" Weight , VALUE \r\n 5 , 10\n\n6,20\n7 ,30", 0, 3, 0, ids, w, v);
  expect_instance("5,10\n6,20\n7,30\n", 8, 3, 8, ids, w, v);
  expect_instance("weight,value\n", 8, 0, 8, ids, w, v);
}

static void test_knapsack_bad_input(void **state) {
  (void)state;
  static const struct {
    const char *text;
    int64_t cap;
    const char *want;
  } cases[] = {
      {"", -1, "empty"},
      {" \n\t\n", -1, "empty"},
      {"3\n1 2 3\n            \n", -1, "after 1 of 3 items"},
      {"1\n1 2 3\n", -1, "capacity line"},
      {"1\n1 2 3\n10\n99\n", -1, "line 4: unexpected text"},
      {"1\n1 -2 3\n10", -1, "line 2: expected a non-negative integer, found '-2'"},
      {"1\n1 2 3 4\n10", -1, "line 2: expected 3 numbers"},
      {"1\n1 2\n10", -1, "end of the line"},
      {"1\n1 nan 3\n10", -1, "found 'nan'"},
      {"1\n1 NaN 3\n10", -1, "found 'NaN'"},
      {"1\n1 inf 3\n10", -1, "found 'inf'"},
      {"1\n1 1.5 3\n10", -1, "found '1.5'"},
      {"1\n1 1e3 3\n10", -1, "found '1e3'"},
      {"1\n1 0x10 3\n10", -1, "found '0x10'"},
      {"1\n1 +2 3\n10", -1, "found '+2'"},
      {"1\n1 9223372036854775808 3\n10", -1, "does not fit"},
      {"1\n1 2 3\n-10", -1, "found '-10'"},
      {"1\n1 2 3\n10 11", -1, "expected 1 number"},
      {"two\n1 2 3\n10", -1, "line 1: expected a non-negative integer, found 'two'"},
      {"1000000000000\n1 2 3\n10\n", -1, "cannot fit"},
      {"9999999999999999999999\n", -1, "does not fit"},
      {"5,3\n", -1, "give the capacity"},
      {"weight,value\n5;3\n", 10, "found '5;3'"},
      {"5,3,2\n", 10, "expected 2 numbers"},
      {"5,,3\n", 10, "found ','"},
      {"6,4\n5 3\n", 10, "line 2: expected ','"},
      {"weight,value\nweight,value\n", 10, "line 2"},
      {"5,-3\n", 10, "found '-3'"},
      {"1\n1 2\0 3\n10", -1, "NUL"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    skss_knapsack_instance inst;
    char err[SKSS_IO_ERRLEN];
    memset(&inst, 0xA5, sizeof inst);
    size_t n = strlen(cases[i].text);
    if (strcmp(cases[i].want, "NUL") == 0) n = 11;
    int rc = skss_knapsack_parse(cases[i].text, n, cases[i].cap, &inst, err);
    expect_failure(rc, err, cases[i].want, cases[i].text);
    assert_null(inst.ids);
    assert_null(inst.weights);
    assert_null(inst.values);
    assert_int_equal(inst.n, 0);
  }
}

static void test_knapsack_file(void **state) {
  char path[512], err[SKSS_IO_ERRLEN];
  in_dir(state, "k.txt", path, sizeof path);
  write_bytes(path, "2\n1 3 4\n2 5 6\n9\n", 16);
  skss_knapsack_instance inst;
  assert_int_equal(skss_knapsack_read(path, -1, &inst, err), 0);
  assert_int_equal(inst.n, 2);
  assert_int_equal(inst.capacity, 9);
  assert_int_equal(inst.weights[1], 6);
  skss_knapsack_instance_free(&inst);
  write_bytes(path, "2\n1 3 4\n", 8);
  expect_failure(skss_knapsack_read(path, -1, &inst, err), err, path, "knapsack file error names the file");
}

/* ---- files and writers ------------------------------------------------------------- */

static void test_read_file_limits(void **state) {
  char path[512], err[SKSS_IO_ERRLEN];
  uint8_t *data = (uint8_t *)&err;
  size_t size = 7;
  in_dir(state, "hundred", path, sizeof path);
  uint8_t bytes[100] = {0};
  write_bytes(path, bytes, sizeof bytes);
  expect_failure(skss_read_file(path, 99, &data, &size, err), err, "larger than the limit", "size cap");
  assert_null(data);
  assert_int_equal(size, 0);
  assert_int_equal(skss_read_file(path, 100, &data, &size, err), 0);
  assert_int_equal(size, 100);
  assert_int_equal(data[100], 0); /* NUL after the data */
  free(data);
  in_dir(state, "missing", path, sizeof path);
  expect_failure(skss_read_file(path, 100, &data, &size, err), err, "cannot open", "missing file");
  io_dir *d = *state;
  expect_failure(skss_read_file(d->path, 100, &data, &size, err), err, "is a directory", "directory");
  expect_failure(skss_image_read(path, &(skss_image){0}, err), err, "missing", "image read names the path");
}

static void expect_unchanged(const char *path, const char *content) {
  uint8_t buf[64];
  size_t n = read_bytes(path, buf, sizeof buf);
  assert_int_equal(n, strlen(content));
  assert_memory_equal(buf, content, n);
}

static void test_failed_writes_leave_target(void **state) {
  char path[512], sub[512], err[SKSS_IO_ERRLEN];
  static const uint8_t px[4] = {1, 2, 3, 4};
  in_dir(state, "keep.pgm", path, sizeof path);
  write_bytes(path, "OLD", 3);
  expect_failure(skss_image_write(path, SKSS_IMAGE_PGM, px, 0, 4, err), err, "at least 1", "width 0");
  expect_failure(skss_image_write(path, SKSS_IMAGE_PNG_GRAY8, px, 4, -1, err), err, "at least 1", "height -1");
  expect_failure(skss_image_write(path, (skss_image_format)9, px, 2, 2, err), err, "unknown format", "bad format");
  expect_failure(skss_image_write(path, SKSS_IMAGE_PGM, NULL, 2, 2, err), err, "NULL", "NULL pixels");
  expect_failure(skss_image_write(path, SKSS_IMAGE_PGM, px, (int64_t)1 << 31, 1, err), err, "exceeds", "too wide");
  static const int64_t shape[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, negative[2] = {2, -1};
  expect_failure(skss_npy_write(path, SKSS_DTYPE_U8, 9, shape, px, err), err, "ndim 9", "ndim 9");
  expect_failure(skss_npy_write(path, SKSS_DTYPE_U8, 2, negative, px, err), err, "negative", "negative dim");
  expect_failure(skss_npy_write(path, (skss_dtype)99, 1, shape, px, err), err, "unknown dtype", "bad dtype");
  expect_failure(skss_npy_write(path, SKSS_DTYPE_U8, 1, shape, NULL, err), err, "data is NULL", "NULL data");
  expect_unchanged(path, "OLD");

  in_dir(state, "no/such/dir/x.pgm", sub, sizeof sub);
  expect_failure(skss_image_write(sub, SKSS_IMAGE_PGM, px, 2, 2, err), err, "temporary file", "missing directory");
  assert_int_not_equal(access(sub, F_OK), 0);
  in_dir(state, "keep.pgm/x.pgm", sub, sizeof sub);
  expect_failure(skss_image_write(sub, SKSS_IMAGE_PGM, px, 2, 2, err), err, NULL, "parent is a file");
  expect_unchanged(path, "OLD");

  in_dir(state, "adir", sub, sizeof sub);
  assert_int_equal(mkdir(sub, 0755), 0);
  expect_failure(skss_image_write(sub, SKSS_IMAGE_PGM, px, 2, 2, err), err, "is a directory", "target is a directory");
  expect_failure(skss_write_file_atomic(sub, "x", 1, err), err, "is a directory", "atomic onto a directory");
  strcat(sub, "/");
  expect_failure(skss_write_file_atomic(sub, "x", 1, err), err, "directory", "trailing slash");
  struct stat st;
  assert_int_equal(stat(sub, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  expect_failure(skss_write_file_atomic("", "x", 1, err), err, "empty", "empty path");
  assert_int_equal(count_temp_files(state), 0);
}

static void test_successful_writes_replace_atomically(void **state) {
  char path[512], err[SKSS_IO_ERRLEN];
  in_dir(state, "mode.bin", path, sizeof path);
  write_bytes(path, "OLD CONTENT", 11);
  assert_int_equal(chmod(path, 0640), 0);
  assert_int_equal(skss_write_file_atomic(path, "new", 3, err), 0);
  expect_unchanged(path, "new");
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0640);
  in_dir(state, "fresh.bin", path, sizeof path);
  mode_t mask = umask(022);
  assert_int_equal(skss_write_file_atomic(path, "", 0, err), 0);
  umask(mask);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0644);
  assert_int_equal(st.st_size, 0);
  assert_int_equal(count_temp_files(state), 0);
}

static void expect_file(void **state, const char *name, const char *content) {
  char path[512];
  expect_unchanged(in_dir(state, name, path, sizeof path), content);
}

static void test_staged_writes(void **state) {
  char a[512], b[512], dir[512], err[SKSS_IO_ERRLEN];
  static const uint8_t px[4] = {1, 2, 3, 4};
  static const int64_t shape[1] = {4};
  in_dir(state, "stage_a.npy", a, sizeof a);
  in_dir(state, "stage_b.pgm", b, sizeof b);
  write_bytes(a, "OLD A", 5);
  write_bytes(b, "OLD B", 5);
  /* Both staged: the targets change only at commit. */
  skss_io_stage_begin();
  assert_int_equal(skss_npy_write(a, SKSS_DTYPE_U8, 1, shape, px, err), 0);
  assert_int_equal(skss_image_write(b, SKSS_IMAGE_PGM, px, 2, 2, err), 0);
  expect_file(state, "stage_a.npy", "OLD A");
  expect_file(state, "stage_b.pgm", "OLD B");
  assert_int_equal(count_temp_files(state), 2);
  assert_int_equal(skss_io_stage_commit(err), 0);
  expect_file(state, "stage_b.pgm", "P5\n2 2\n255\n\x01\x02\x03\x04");
  assert_int_equal(count_temp_files(state), 0);
  /* The second output fails: abort leaves the first target as it was. */
  write_bytes(a, "OLD A", 5);
  in_dir(state, "stage_dir.npy", dir, sizeof dir);
  assert_int_equal(mkdir(dir, 0755), 0);
  skss_io_stage_begin();
  assert_int_equal(skss_npy_write(a, SKSS_DTYPE_U8, 1, shape, px, err), 0);
  expect_failure(skss_npy_write(dir, SKSS_DTYPE_U8, 1, shape, px, err), err, "is a directory", "staged onto a dir");
  skss_io_stage_abort();
  expect_file(state, "stage_a.npy", "OLD A");
  assert_int_equal(count_temp_files(state), 0);
  /* What a signal handler does: every temporary file goes, no target changes. */
  skss_io_stage_begin();
  assert_int_equal(skss_npy_write(a, SKSS_DTYPE_U8, 1, shape, px, err), 0);
  assert_int_equal(count_temp_files(state), 1);
  skss_io_remove_temporaries();
  assert_int_equal(count_temp_files(state), 0);
  skss_io_stage_abort();
  expect_file(state, "stage_a.npy", "OLD A");
  /* At most SKSS_IO_MAX_STAGED outputs. */
  skss_io_stage_begin();
  for (int k = 0; k < SKSS_IO_MAX_STAGED; ++k) assert_int_equal(skss_npy_write(a, SKSS_DTYPE_U8, 1, shape, px, err), 0);
  expect_failure(skss_npy_write(a, SKSS_DTYPE_U8, 1, shape, px, err), err, "staged outputs", "too many staged");
  skss_io_stage_abort();
  expect_file(state, "stage_a.npy", "OLD A");
  assert_int_equal(count_temp_files(state), 0);
}

static void test_long_names(void **state) {
  char name[300], path[600], err[SKSS_IO_ERRLEN];
  static const uint8_t px[1] = {7};
  memset(name, 'n', 255);
  name[255] = '\0';
  memcpy(name + 251, ".pgm", 4);
  in_dir(state, name, path, sizeof path);
  if (skss_image_write(path, SKSS_IMAGE_PGM, px, 1, 1, err) != 0) TU_FAIL("a NAME_MAX name: %s\n", err);
  assert_int_equal(access(path, F_OK), 0);
  memset(name, 'm', 256);
  name[256] = '\0';
  in_dir(state, name, path, sizeof path);
  expect_failure(skss_image_write(path, SKSS_IMAGE_PGM, px, 1, 1, err), err, "longer than", "256-byte name");
  assert_int_equal(count_temp_files(state), 0);
  /* A message about a 4000-byte path keeps its reason. */
  char deep[4200] = "";
  for (int k = 0; k < 20; ++k) strcat(deep, "/ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd");
  strcat(deep, "/x.pgm");
  expect_failure(skss_image_write(deep, SKSS_IMAGE_PGM, px, 1, 1, err), err, "No such file or directory",
                 "a long path keeps the reason");
}

/* Runs fn with file descriptor `fd` (0 or 1) redirected to `path`. */
static void with_fd_redirected(int fd, const char *path, int flags, void (*fn)(void *), void *arg) {
  fflush(stdout);
  int saved = dup(fd), file = open(path, flags, 0644);
  assert_true(saved >= 0 && file >= 0);
  assert_int_equal(dup2(file, fd), fd);
  close(file);
  fn(arg);
  assert_int_equal(dup2(saved, fd), fd);
  close(saved);
}

typedef struct std_io_case {
  int rc;
  char err[SKSS_IO_ERRLEN];
  skss_image img;
} std_io_case;

static void read_stdin_image(void *arg) {
  std_io_case *c = arg;
  c->rc = skss_image_read("-", &c->img, c->err);
}

static void write_stdout_image(void *arg) {
  std_io_case *c = arg;
  static const uint8_t px[3] = {9, 0, 200};
  c->rc = skss_image_write("-", SKSS_IMAGE_PGM, px, 3, 1, c->err);
}

static void test_stdin_and_stdout(void **state) {
  char path[512];
  std_io_case c = {0};
  in_dir(state, "stdout.pgm", path, sizeof path);
  with_fd_redirected(STDOUT_FILENO, path, O_WRONLY | O_CREAT | O_TRUNC, write_stdout_image, &c);
  assert_int_equal(c.rc, 0);
  uint8_t buf[32];
  assert_int_equal(read_bytes(path, buf, sizeof buf), 14);
  assert_memory_equal(buf, "P5\n3 1\n255\n\x09\x00\xc8", 14);
  memset(&c.img, 0xA5, sizeof c.img);
  with_fd_redirected(STDIN_FILENO, path, O_RDONLY, read_stdin_image, &c);
  if (c.rc != 0) TU_FAIL("reading stdin: %s\n", c.err);
  assert_int_equal(c.img.width, 3);
  assert_int_equal(c.img.pixels[2], 200);
  skss_image_free(&c.img);
  write_bytes(path, "P5 3 1 255\n", 11);
  with_fd_redirected(STDIN_FILENO, path, O_RDONLY, read_stdin_image, &c);
  expect_failure(c.rc, c.err, "stdin: PGM: truncated", "truncated stdin");
}

static void test_format_from_path(void **state) {
  (void)state;
  skss_image_format f;
  char err[SKSS_IO_ERRLEN];
  static const struct {
    const char *path;
    int bilevel;
    skss_image_format want;
  } ok[] = {{"a.png", 0, SKSS_IMAGE_PNG_GRAY8}, {"a.PNG", 1, SKSS_IMAGE_PNG_BIT}, {"x/y.z/a.pgm", 1, SKSS_IMAGE_PGM},
            {"a.Pbm", 0, SKSS_IMAGE_PBM},       {"-", 0, SKSS_IMAGE_PGM},         {"-", 1, SKSS_IMAGE_PBM}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; ++i) {
    assert_int_equal(skss_image_format_from_path(ok[i].path, ok[i].bilevel, &f, err), 0);
    assert_int_equal(f, ok[i].want);
  }
  expect_failure(skss_image_format_from_path("a.jpg", 0, &f, err), err, "'.jpg'", "jpg");
  expect_failure(skss_image_format_from_path("noext", 0, &f, err), err, "no file extension", "no extension");
  expect_failure(skss_image_format_from_path("dir.png/file", 0, &f, err), err, "no file extension", "dot in dir");
  expect_failure(skss_image_format_from_path(NULL, 0, &f, err), err, "NULL", "NULL path");
}

static void test_api_misuse(void **state) {
  (void)state;
  char err[SKSS_IO_ERRLEN];
  skss_image img;
  skss_npy arr;
  skss_knapsack_instance inst;
  uint8_t *data;
  size_t size;
  expect_failure(skss_image_read(NULL, &img, err), err, "NULL", "image_read NULL path");
  expect_failure(skss_image_read("x", NULL, err), err, "NULL", "image_read NULL out");
  expect_failure(skss_image_decode(NULL, 5, &img, err), err, "NULL", "image_decode NULL data");
  expect_failure(skss_image_decode((const uint8_t *)"P5", 2, NULL, err), err, "NULL", "image_decode NULL out");
  expect_failure(skss_npy_read(NULL, &arr, err), err, "NULL", "npy_read NULL");
  expect_failure(skss_npy_decode(NULL, 5, &arr, err), err, "NULL", "npy_decode NULL data");
  expect_failure(skss_npy_write(NULL, SKSS_DTYPE_U8, 0, NULL, "x", err), err, "NULL", "npy_write NULL path");
  expect_failure(skss_knapsack_read(NULL, -1, &inst, err), err, "NULL", "knapsack_read NULL");
  expect_failure(skss_knapsack_parse(NULL, 3, -1, &inst, err), err, "NULL", "knapsack_parse NULL");
  expect_failure(skss_read_file(NULL, 10, &data, &size, err), err, "NULL", "read_file NULL");
  expect_failure(skss_write_file_atomic(NULL, "x", 1, err), err, "NULL", "write NULL path");
  expect_failure(skss_write_file_atomic("x", NULL, 1, err), err, "NULL", "write NULL data");
  /* err may be NULL */
  assert_int_equal(skss_image_decode((const uint8_t *)"junk", 4, &img, NULL), -1);
  assert_int_equal(skss_knapsack_parse("x", 1, -1, &inst, NULL), -1);
  skss_image_free(NULL);
  skss_npy_free(NULL);
  skss_knapsack_instance_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_image_roundtrips),
      cmocka_unit_test(test_written_headers),
      cmocka_unit_test(test_png_every_colour_type),
      cmocka_unit_test(test_png_truncated_and_corrupt),
      cmocka_unit_test(test_png_forged_headers),
      cmocka_unit_test(test_pixel_limit),
      cmocka_unit_test(test_out_of_memory_code),
      cmocka_unit_test(test_pnm_variants),
      cmocka_unit_test(test_pnm_bad_input),
      cmocka_unit_test(test_npy_roundtrip),
      cmocka_unit_test(test_npy_headers),
      cmocka_unit_test(test_npy_bad_input),
      cmocka_unit_test(test_knapsack_formats),
      cmocka_unit_test(test_knapsack_bad_input),
      cmocka_unit_test(test_knapsack_file),
      cmocka_unit_test(test_read_file_limits),
      cmocka_unit_test(test_failed_writes_leave_target),
      cmocka_unit_test(test_successful_writes_replace_atomically),
      cmocka_unit_test(test_staged_writes),
      cmocka_unit_test(test_long_names),
      cmocka_unit_test(test_stdin_and_stdout),
      cmocka_unit_test(test_format_from_path),
      cmocka_unit_test(test_api_misuse),
  };
  return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
