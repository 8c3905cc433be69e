/*
 * bench_data.c — seeded benchmark inputs. Never zeros: timing on zeros
 * flatters branchy code and compressing memory. Every value is a pure
 * function of (seed, index) through the splitmix64 finaliser, so
 * bench/peers/cpu_peers.py rebuilds the same inputs with NumPy, vectorised,
 * and the peers' results can be checked against ours.
 */
#include "bench.h"

uint64_t bench_hash(uint64_t seed, uint64_t k) {
  uint64_t z = seed + (k + 1) * UINT64_C(0x9E3779B97F4A7C15);
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* The gradient runs from black at the top left to white at the bottom right,
 * so every gray level occurs and error diffusion does its full work. */
void bench_fill_image_u8(uint8_t *px, int64_t height, int64_t width, uint64_t seed) {
  int64_t wd = width > 1 ? width - 1 : 1, hd = height > 1 ? height - 1 : 1;
  for (int64_t y = 0; y < height; y++) {
    int64_t gy = y * 255 / hd;
    for (int64_t x = 0; x < width; x++) {
      int64_t noise = (int64_t)(bench_hash(seed, (uint64_t)(y * width + x)) >> 59) - 16;
      int64_t v = (x * 255 / wd + gy) / 2 + noise;
      px[y * width + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
  }
}

void bench_fill_unit_f32(float *out, int64_t n, uint64_t seed) {
  for (int64_t k = 0; k < n; k++)
    out[k] = (float)(bench_hash(seed, (uint64_t)k) >> 40) * 0x1p-24f;
}

void bench_fill_unit_f64(double *out, int64_t n, uint64_t seed) {
  for (int64_t k = 0; k < n; k++) out[k] = (double)(bench_hash(seed, (uint64_t)k) >> 11) * 0x1p-53;
}

void bench_fill_i32(int32_t *out, int64_t n, uint64_t seed) {
  for (int64_t k = 0; k < n; k++) out[k] = (int32_t)(uint32_t)(bench_hash(seed, (uint64_t)k) >> 32);
}
