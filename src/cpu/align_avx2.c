/*
 * align_avx2.c — Gotoh's recurrences for 8 DP rows at once with AVX2, the cpu
 * backend's kernel (cpu-ref keeps the plain C rows of align_pass.c). Lane r
 * holds row top + r one column behind lane r - 1: its left value is its own
 * previous output, its upper and upper-left values lane r-1's outputs one and
 * two steps before, lane 0 reads the shared row and lane 7 writes it back in
 * place, so eight E chains overlap. The skewed start takes the values left of
 * the columns from the carries; the skewed end writes the carries back.
 */
#include "align_impl.h"

#if SKSS__ALIGN_HAVE_AVX2
#include <immintrin.h>

#define TARGET __attribute__((target("avx2")))

/* Lane r gets x[r-1]; lane 0 gets `first`. */
static inline TARGET __m256i shift_in(__m256i x, int32_t first) {
  const __m256i up = _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6));
  return _mm256_blend_epi32(up, _mm256_set1_epi32(first), 1);
}

/* The letter codes of b at column t - r in lane r: b[t-1-r]. */
static inline TARGET __m256i b_codes(const uint8_t *b, int64_t t) {
  int64_t eight;
  __builtin_memcpy(&eight, b + t - 8, 8); /* b[t-8 .. t-1]: the sequences are padded */
  const __m256i up = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(eight));
  return _mm256_permutevar8x32_epi32(up, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
}

TARGET void skss__align_rows8_avx2(const skss__align_pass *p, const skss__align_scores *sc, int64_t top,
                                   int64_t lo, int64_t hi, int32_t *ch, int32_t *ce, int32_t corner,
                                   skss__align_best *best) {
  const __m256i O = _mm256_set1_epi32(sc->open), X = _mm256_set1_epi32(sc->extend);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), zero = _mm256_setzero_si256();
  const __m256i match = _mm256_set1_epi32(sc->match), mismatch = _mm256_set1_epi32(sc->mismatch);
  const uint8_t *a = p->a + top - 1;
  const __m256i acode = _mm256_setr_epi32(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
  const __m256i abase = _mm256_slli_epi32(acode, 5);
  const bool all = p->track == SKSS__ALIGN_TRACK_ALL;
  int32_t *h = p->h, *f = p->f;
  __m256i h1 = _mm256_set1_epi32(SKSS__ALIGN_NEG), h2 = h1, e1 = h1, f1 = h1;
  h1 = _mm256_blend_epi32(h1, _mm256_set1_epi32(ch[0]), 1);
  e1 = _mm256_blend_epi32(e1, _mm256_set1_epi32(ce[0]), 1);
  __m256i bestv = _mm256_set1_epi32(INT32_MIN), bestj = zero;
  int32_t diag0 = corner;
  for (int64_t t = lo; t <= hi + 6; t++) {
    const bool in = t < hi;
    const int32_t up0 = in ? h[t] : SKSS__ALIGN_NEG, fup0 = in ? f[t] : SKSS__ALIGN_NEG;
    const __m256i up = shift_in(h1, up0), diag = shift_in(h2, diag0), fup = shift_in(f1, fup0);
    const __m256i fv = _mm256_max_epi32(_mm256_sub_epi32(fup, X), _mm256_sub_epi32(up, O));
    __m256i ev = _mm256_max_epi32(_mm256_sub_epi32(e1, X), _mm256_sub_epi32(h1, O));
    const __m256i bc = b_codes(p->b, t);
    const __m256i s = sc->match_mismatch
                          ? _mm256_blendv_epi8(mismatch, match, _mm256_cmpeq_epi32(acode, bc))
                          : _mm256_i32gather_epi32((const int *)sc->sub, _mm256_add_epi32(abase, bc), 4);
    __m256i hv = _mm256_max_epi32(_mm256_add_epi32(diag, s), _mm256_max_epi32(ev, fv));
    if (p->local) hv = _mm256_max_epi32(hv, zero);
    const __m256i j = _mm256_sub_epi32(_mm256_set1_epi32((int32_t)t), lane);
    if (all) {
      /* every lane is inside [lo, hi) but in the skewed first and last 7 steps */
      __m256i better = _mm256_cmpgt_epi32(hv, bestv);
      if (t < lo + 7 || t >= hi) {
        const __m256i valid = _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)lo), j),
                                                  _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)hi), j));
        better = _mm256_and_si256(valid, better);
      }
      bestv = _mm256_blendv_epi8(bestv, hv, better);
      bestj = _mm256_blendv_epi8(bestj, j, better);
    }
    if (t - lo + 1 <= 7) {
      /* lane t-lo+1 is at column lo-1: its values come from the carries */
      const int r = (int)(t - lo + 1);
      const __m256i at = _mm256_cmpeq_epi32(lane, _mm256_set1_epi32(r));
      hv = _mm256_blendv_epi8(hv, _mm256_set1_epi32(ch[r]), at);
      ev = _mm256_blendv_epi8(ev, _mm256_set1_epi32(ce[r]), at);
    }
    if (t >= hi - 1) {
      /* lane t-hi+1 is at column hi-1: its values are the next carries */
      int32_t hs[8], es[8];
      _mm256_storeu_si256((__m256i *)(void *)hs, hv);
      _mm256_storeu_si256((__m256i *)(void *)es, ev);
      const int64_t r = t - hi + 1;
      ch[r] = hs[r];
      ce[r] = es[r];
    }
    if (t - 7 >= lo && t - 7 < hi) {
      h[t - 7] = _mm256_extract_epi32(hv, 7);
      f[t - 7] = _mm256_extract_epi32(fv, 7);
    }
    h2 = h1;
    h1 = hv;
    e1 = ev;
    f1 = fv;
    diag0 = up0;
  }
  if (!all) return;
  int32_t bv[8], bj[8];
  _mm256_storeu_si256((__m256i *)(void *)bv, bestv);
  _mm256_storeu_si256((__m256i *)(void *)bj, bestj);
  for (int r = 0; r < 8; r++)
    if (bv[r] != INT32_MIN) skss__align_consider(best, bv[r], top + r, bj[r]);
}
#endif
