/*
 * align_api.c — skss_align(), skss_align_cigar(), skss_align_score_ops():
 * validation, letters to codes, the score table and the int32 range check,
 * then the passes (Gotoh; semantics in skss.h, docs/algorithms/align.md):
 * a forward pass for the score and end, a backward pass anchored at the end
 * for the begin (local, semi-global), and the traceback between them
 * (align_trace.c; global alignments skip the first pass). Passes run on the
 * calling thread (GOTOH), as task arrays on the context's threads
 * (TASKARRAY_CPU) or as one SKSS kernel a pass on the GPU (SKSS_CUDA,
 * src/cuda/align/; the traceback's small pieces then run on the threads).
 */
#include <string.h>

#include "cpu/align_impl.h"
#include "cpu/isa.h"
#include "internal.h"

static const char *const FN = "skss_align()";

/* BLOSUM62 (Henikoff and Henikoff, 1992) over BLOSUM_LETTERS. */
static const char BLOSUM_LETTERS[] = "ARNDCQEGHILKMFPSTWYVBZX*";
static const int8_t BLOSUM62[24][24] = {
    {4, -1, -2, -2, 0, -1, -1, 0, -2, -1, -1, -1, -1, -2, -1, 1, 0, -3, -2, 0, -2, -1, 0, -4},
    {-1, 5, 0, -2, -3, 1, 0, -2, 0, -3, -2, 2, -1, -3, -2, -1, -1, -3, -2, -3, -1, 0, -1, -4},
    {-2, 0, 6, 1, -3, 0, 0, 0, 1, -3, -3, 0, -2, -3, -2, 1, 0, -4, -2, -3, 3, 0, -1, -4},
    {-2, -2, 1, 6, -3, 0, 2, -1, -1, -3, -4, -1, -3, -3, -1, 0, -1, -4, -3, -3, 4, 1, -1, -4},
    {0, -3, -3, -3, 9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1, -3, -3, -2, -4},
    {-1, 1, 0, 0, -3, 5, 2, -2, 0, -3, -2, 1, 0, -3, -1, 0, -1, -2, -1, -2, 0, 3, -1, -4},
    {-1, 0, 0, 2, -4, 2, 5, -2, 0, -3, -3, 1, -2, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4},
    {0, -2, 0, -1, -3, -2, -2, 6, -2, -4, -4, -2, -3, -3, -2, 0, -2, -2, -3, -3, -1, -2, -1, -4},
    {-2, 0, 1, -1, -3, 0, 0, -2, 8, -3, -3, -1, -2, -1, -2, -1, -2, -2, 2, -3, 0, 0, -1, -4},
    {-1, -3, -3, -3, -1, -3, -3, -4, -3, 4, 2, -3, 1, 0, -3, -2, -1, -3, -1, 3, -3, -3, -1, -4},
    {-1, -2, -3, -4, -1, -2, -3, -4, -3, 2, 4, -2, 2, 0, -3, -2, -1, -2, -1, 1, -4, -3, -1, -4},
    {-1, 2, 0, -1, -3, 1, 1, -2, -1, -3, -2, 5, -1, -3, -1, 0, -1, -3, -2, -2, 0, 1, -1, -4},
    {-1, -1, -2, -3, -1, 0, -2, -3, -2, 1, 2, -1, 5, 0, -2, -1, -1, -1, -1, 1, -3, -1, -1, -4},
    {-2, -3, -3, -3, -2, -3, -3, -3, -1, 0, 0, -3, 0, 6, -4, -2, -2, 1, 3, -1, -3, -3, -1, -4},
    {-1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4, 7, -1, -1, -4, -3, -2, -2, -1, -2, -4},
    {1, -1, 1, 0, -1, 0, 0, 0, -1, -2, -2, 0, -1, -2, -1, 4, 1, -3, -2, -2, 0, 0, 0, -4},
    {0, -1, 0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1, 1, 5, -2, -2, 0, -1, -1, 0, -4},
    {-3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1, 1, -4, -3, -2, 11, 2, -3, -4, -3, -2, -4},
    {-2, -2, -2, -3, -2, -1, -2, -3, 2, -1, -1, -2, -1, 3, -3, -2, -2, 2, 7, -1, -3, -2, -1, -4},
    {0, -3, -3, -3, -1, -2, -2, -3, -3, 3, 1, -2, 1, -1, -2, -2, 0, -3, -1, 4, -3, -2, -1, -4},
    {-2, -1, 3, 4, -3, 0, 1, -1, 0, -3, -4, 0, -3, -3, -2, 0, -1, -4, -3, -3, 4, 1, -1, -4},
    {-1, 0, 0, 1, -3, 3, 4, -2, 0, -3, -3, 1, -1, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4},
    {0, -1, -1, -1, -2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -2, 0, 0, -2, -1, -1, -1, -1, -1, -4},
    {-4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, 1},
};

/* Letters -> codes (0xFF: not a letter of the scoring) and the score table. */
typedef struct scoring {
  uint8_t code[256];
  int k;
  skss__align_scores sc;
  int64_t widest;  /* W of skss.h: the largest |s|, open or extend */
} scoring;

static uint8_t fold(uint8_t c) { return c >= 'a' && c <= 'z' ? (uint8_t)(c - 'a' + 'A') : c; }

static void add_letter(scoring *s, uint8_t letter, int code) {
  s->code[letter] = (uint8_t)code;
  if (letter >= 'A' && letter <= 'Z') s->code[letter - 'A' + 'a'] = (uint8_t)code;
}

static skss_status build_scoring(skss_ctx *ctx, const char *fn, const skss_align_desc *d, scoring *s) {
  memset(s->code, 0xFF, sizeof s->code);
  memset(&s->sc, 0, sizeof s->sc);
  if (d->gap_extend < 0 || d->gap_open < d->gap_extend)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                      "%s: gap penalties open %d, extend %d: need 0 <= gap_extend <= gap_open", fn,
                      (int)d->gap_open, (int)d->gap_extend);
  switch (d->scoring) {
    case SKSS_ALIGN_SCORING_MATCH_MISMATCH:
      s->k = 26;
      for (int x = 0; x < 26; x++) {
        add_letter(s, (uint8_t)('A' + x), x);
        for (int y = 0; y < 26; y++) s->sc.sub[x * SKSS__ALIGN_CODES + y] = x == y ? d->match : d->mismatch;
      }
      break;
    case SKSS_ALIGN_SCORING_BLOSUM62:
      s->k = 24;
      for (int x = 0; x < 24; x++) {
        add_letter(s, (uint8_t)BLOSUM_LETTERS[x], x);
        for (int y = 0; y < 24; y++) s->sc.sub[x * SKSS__ALIGN_CODES + y] = BLOSUM62[x][y];
      }
      break;
    case SKSS_ALIGN_SCORING_MATRIX: {
      if (d->alphabet == NULL || d->matrix == NULL)
        return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: scoring MATRIX needs alphabet and matrix", fn);
      const size_t k = strlen(d->alphabet);
      if (k == 0 || k > SKSS__ALIGN_CODES)
        return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: the alphabet has %zu letters, need 1 to 32", fn, k);
      s->k = (int)k;
      for (size_t x = 0; x < k; x++) {
        const uint8_t c = fold((uint8_t)d->alphabet[x]);
        if (c < 0x21 || c > 0x7E || s->code[c] != 0xFF)
          return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                            "%s: alphabet letter %zu (byte 0x%02x) is %s", fn, x, (unsigned)c,
                            s->code[c] != 0xFF ? "repeated" : "not printable ASCII");
        add_letter(s, c, (int)x);
        for (size_t y = 0; y < k; y++) s->sc.sub[x * SKSS__ALIGN_CODES + y] = d->matrix[x * k + y];
      }
      break;
    }
    default:
      return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown scoring %d", fn, (int)d->scoring);
  }
  s->sc.open = d->gap_open;
  s->sc.extend = d->gap_extend;
  s->sc.match_mismatch = d->scoring == SKSS_ALIGN_SCORING_MATCH_MISMATCH;
  s->sc.match = d->match;
  s->sc.mismatch = d->mismatch;
  s->widest = d->gap_open;
  for (int x = 0; x < s->k; x++)
    for (int y = 0; y < s->k; y++) {
      const int64_t v = s->sc.sub[x * SKSS__ALIGN_CODES + y];
      if ((v < 0 ? -v : v) > s->widest) s->widest = v < 0 ? -v : v;
    }
  return SKSS_OK;
}

/* Codes of a sequence (and, when rev is not NULL, reversed); the first
 * letter the scoring lacks is an error naming it. */
static skss_status encode(skss_ctx *ctx, const scoring *s, const char *name, const char *seq, int64_t len,
                          uint8_t *out, uint8_t *rev) {
  for (int64_t k = 0; k < len; k++) {
    const uint8_t c = s->code[(uint8_t)seq[k]];
    if (c == 0xFF) {
      const uint8_t bad = (uint8_t)seq[k];
      if (bad >= 0x21 && bad <= 0x7E)
        return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: %s[%lld] is '%c', not a letter of the scoring", FN,
                          name, (long long)k, bad);
      return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: %s[%lld] is byte 0x%02x, not a letter of the scoring",
                        FN, name, (long long)k, (unsigned)bad);
    }
    out[k] = c;
    if (rev != NULL) rev[len - 1 - k] = c;
  }
  return SKSS_OK;
}

static skss_status check_desc(skss_ctx *ctx, const skss_align_desc *d, const char *a, const char *b,
                              const skss_align_result *result, const char *ops) {
  if (d->a_len < 0 || d->b_len < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: lengths %lld and %lld must be >= 0", FN,
                      (long long)d->a_len, (long long)d->b_len);
  if ((d->a_len > 0 && a == NULL) || (d->b_len > 0 && b == NULL))
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: %s is NULL with length > 0", FN,
                      d->a_len > 0 && a == NULL ? "a" : "b");
  if (result == NULL) return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: result is NULL", FN);
  if ((unsigned)d->mode > SKSS_ALIGN_MODE_SEMI_GLOBAL)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown mode %d", FN, (int)d->mode);
  if ((unsigned)d->output > SKSS_ALIGN_OUTPUT_ALIGNMENT)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown output %d", FN, (int)d->output);
  if (d->output == SKSS_ALIGN_OUTPUT_ALIGNMENT) {
    if (ops == NULL) return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: output ALIGNMENT needs ops", FN);
    if (d->a_len > INT64_MAX - d->b_len || d->ops_capacity < d->a_len + d->b_len)
      return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                        "%s: ops_capacity %lld is below a_len + b_len = %lld (the longest alignment)", FN,
                        (long long)d->ops_capacity, (long long)(d->a_len + d->b_len));
  }
  return SKSS_OK;
}

/* (m + n + 2) * W < 2^29, so no value of the recurrences can wrap. */
static skss_status check_range(skss_ctx *ctx, const skss_align_desc *d, const scoring *s) {
  const int64_t limit = INT64_C(1) << 29;
  const int64_t w = s->widest > 0 ? s->widest : 1;
  if (d->a_len > limit || d->b_len > limit || d->a_len + d->b_len + 2 > (limit - 1) / w)
    return skss__fail(ctx, SKSS_ERR_OVERFLOW,
                      "%s: scores of %lld + %lld letters with scores or penalties up to %lld could pass 2^29 "
                      "in int32 (need (m + n + 2) * W < 2^29)",
                      FN, (long long)d->a_len, (long long)d->b_len, (long long)s->widest);
  return SKSS_OK;
}

/* Work of one call, carved from the context's arena. */
typedef struct call {
  skss__align_seqs seqs;
  uint8_t *a, *b, *ar, *br;
  int32_t *h, *f;
  void *work;
  int workers;
} call;

static size_t up64(size_t x) { return (x + 63) / 64 * 64; }

static skss_status prepare(skss_ctx *ctx, const skss_align_desc *d, const scoring *s, int algorithm,
                           const char *a, const char *b, call *c) {
  const size_t m = (size_t)d->a_len, n = (size_t)d->b_len;
  c->workers = algorithm == SKSS_ALIGN_ALGORITHM_TASKARRAY_CPU ? ctx->threads : 1;
  const bool reversed = d->output != SKSS_ALIGN_OUTPUT_SCORE;
  const size_t work = skss__align_pass_work(c->workers, d->a_len, d->b_len);
  const size_t pad = SKSS__ALIGN_PAD, am = up64(m + 2 * pad), bn = up64(n + 2 * pad);
  const size_t seq = am + bn, row = up64((n + 1) * sizeof(int32_t));
  char *mem = skss__scratch(ctx, seq * (reversed ? 2 : 1) + 2 * row + work);
  if (mem == NULL)
    return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no memory for %zu bytes of working memory", FN,
                      seq * 2 + 2 * row + work);
  /* Zeroed padding around every code array: the AVX2 rows read past the ends. */
  memset(mem, 0, seq * (reversed ? 2 : 1));
  c->a = (uint8_t *)mem + pad;
  c->b = (uint8_t *)mem + am + pad;
  c->ar = reversed ? (uint8_t *)mem + seq + pad : NULL;
  c->br = reversed ? (uint8_t *)mem + seq + am + pad : NULL;
  mem += seq * (reversed ? 2 : 1);
  c->h = (int32_t *)(void *)mem;
  c->f = (int32_t *)(void *)(mem + row);
  c->work = mem + 2 * row;
  skss_status st = encode(ctx, s, "a", a, d->a_len, c->a, c->ar);
  if (st == SKSS_OK) st = encode(ctx, s, "b", b, d->b_len, c->b, c->br);
  const skss__align_seqs seqs = {c->a, c->b, c->ar, c->br, d->a_len, d->b_len};
  c->seqs = seqs;
  return st;
}

/* Pass 1: the score and the end. */
static skss_status score_pass(skss_ctx *ctx, const skss_align_desc *d, const scoring *s, call *c,
                       skss_align_result *r) {
  skss__align_pass p;
  memset(&p, 0, sizeof p);
  p.a = c->a;
  p.b = c->b;
  p.rows = d->a_len;
  p.cols = d->b_len;
  p.h = c->h;
  p.f = c->f;
  p.free_start = d->mode != SKSS_ALIGN_MODE_GLOBAL;
  p.f00 = SKSS__ALIGN_NEG;
  p.local = d->mode == SKSS_ALIGN_MODE_LOCAL;
  p.track = d->mode == SKSS_ALIGN_MODE_LOCAL         ? SKSS__ALIGN_TRACK_ALL
            : d->mode == SKSS_ALIGN_MODE_SEMI_GLOBAL ? SKSS__ALIGN_TRACK_EDGE
                                                     : SKSS__ALIGN_TRACK_NONE;
  const skss_status st = skss__align_pass_exec(ctx, c->workers, &s->sc, &p, c->work);
  if (st != SKSS_OK) return st;
  if (d->mode == SKSS_ALIGN_MODE_GLOBAL) {
    r->score = c->h[d->b_len];
    r->a_end = d->a_len;
    r->b_end = d->b_len;
  } else {
    r->score = p.best.score;
    r->a_end = p.best.i;
    r->b_end = p.best.j;
  }
  return SKSS_OK;
}

/* Pass 2: the begin, from a backward pass anchored at the end. With
 * `keep` (the parallel traceback follows) its checkpoint rows are kept for
 * the traceback's first split, which then needs no backward pass of its own. */
static skss_status begin_pass(skss_ctx *ctx, const skss_align_desc *d, const scoring *s, call *c,
                              skss_align_result *r, skss__align_checkpoints *keep) {
  skss__align_pass p;
  memset(&p, 0, sizeof p);
  p.a = c->ar + (d->a_len - r->a_end);
  p.b = c->br + (d->b_len - r->b_end);
  p.rows = r->a_end;
  p.cols = r->b_end;
  p.h = c->h;
  p.f = c->f;
  p.f00 = SKSS__ALIGN_NEG;
  p.track = d->mode == SKSS_ALIGN_MODE_LOCAL ? SKSS__ALIGN_TRACK_ALL : SKSS__ALIGN_TRACK_EDGE;
  if (keep != NULL) {
    skss__align_checkpoint_plan(p.rows, p.cols, s->sc.checkpoints, &keep->count, &keep->every);
    int32_t *rows = keep->count > 0 ? skss__alloc(ctx, 2 * (size_t)keep->count * (size_t)(p.cols + 1) * 4) : NULL;
    if (rows == NULL) keep->count = keep->every = 0; /* the traceback then runs its own pass */
    keep->cols = p.cols;
    keep->h = p.save_h = rows;
    keep->f = p.save_f = rows != NULL ? rows + keep->count * (p.cols + 1) : NULL;
    p.save_every = keep->every;
    p.saves = keep->count;
  }
  const skss_status st = skss__align_pass_exec(ctx, c->workers, &s->sc, &p, c->work);
  if (st != SKSS_OK) return st;
  if (p.best.score != r->score)
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: the backward pass found score %lld, the forward %lld (a bug)",
                      FN, (long long)p.best.score, (long long)r->score);
  r->a_begin = r->a_end - p.best.i;
  r->b_begin = r->b_end - p.best.j;
  return SKSS_OK;
}

static skss_status run(skss_ctx *ctx, const skss_align_desc *d, const scoring *s, int algorithm, call *c,
                       skss_align_result *r, char *ops) {
  const bool global = d->mode == SKSS_ALIGN_MODE_GLOBAL;
  if (global) {
    r->a_begin = r->b_begin = 0;
    r->a_end = d->a_len;
    r->b_end = d->b_len;
  }
  const bool parallel = (algorithm == SKSS_ALIGN_ALGORITHM_TASKARRAY_CPU && ctx->threads > 1) || s->sc.cuda;
  skss__align_checkpoints rows = {0, 0, 0, NULL, NULL};
  if (!(global && d->output == SKSS_ALIGN_OUTPUT_ALIGNMENT)) {
    const skss_status st = score_pass(ctx, d, s, c, r);
    if (st != SKSS_OK) return st;
  }
  if (!global && d->output != SKSS_ALIGN_OUTPUT_SCORE) {
    const bool keep = parallel && d->output == SKSS_ALIGN_OUTPUT_ALIGNMENT;
    skss_status st = begin_pass(ctx, d, s, c, r, keep ? &rows : NULL);
    if (st != SKSS_OK) {
      skss__free(ctx, rows.h);
      return st;
    }
  }
  if (d->output != SKSS_ALIGN_OUTPUT_ALIGNMENT) return SKSS_OK;
  skss__align_seg root = {r->a_begin, r->b_begin, r->a_end, r->b_end, 0, 0,
                          global ? INT64_MIN : r->score, 0, 0};
  int64_t score = 0;
  const skss_status st =
      skss__align_traceback(ctx, parallel, &s->sc, &c->seqs, &root, ops, rows.count > 0 ? &rows : NULL, &score);
  skss__free(ctx, rows.h);
  if (st == SKSS_ERR_OUT_OF_MEMORY)
    return skss__fail(ctx, st, "%s: no memory for the traceback of %lld x %lld letters", FN,
                      (long long)(r->a_end - r->a_begin), (long long)(r->b_end - r->b_begin));
  if (st == SKSS_ERR_CUDA) return st; /* the pass recorded what failed */
  if (st != SKSS_OK)
    return skss__fail(ctx, st, "%s: the traceback disagrees with its own split (a bug)", FN);
  r->score = score;
  r->length = root.len;
  return SKSS_OK;
}

skss_status skss_align(skss_ctx *ctx, const skss_align_desc *desc, const char *a, const char *b,
                       skss_align_result *result, char *ops) {
  SKSS__CHECK_CTX(ctx);
  SKSS__CHECK_DESC(ctx, FN, desc, skss_align_desc);
  skss_status st = check_desc(ctx, desc, a, b, result, ops);
  int algorithm = 0;
  if (st == SKSS_OK) st = skss__resolve_algorithm(ctx, FN, SKSS_OP_ALIGN, (int)desc->algorithm, &algorithm);
  if (st == SKSS_OK) {
    const void *const host[4] = {a, b, result, ops};
    const char *const names[4] = {"a", "b", "result", "ops"};
    st = skss__check_host_pointers(ctx, FN, 4, host, names);
  }
  scoring s;
  if (st == SKSS_OK) st = build_scoring(ctx, FN, desc, &s);
  /* The oracle backend runs the plain C rows; the cpu backend AVX2 where it
   * can, and so do the cuda backend's traceback pieces on the CPU. */
  const skss_backend backend = st == SKSS_OK ? skss__algorithm_backend(ctx, SKSS_OP_ALIGN, algorithm)
                                             : SKSS_BACKEND_AUTO;
  s.sc.cuda = backend == SKSS_BACKEND_CUDA;
  s.sc.checkpoints = skss__align_checkpoints_for(s.sc.cuda);
  s.sc.simd = SKSS__ALIGN_HAVE_AVX2 && (backend == SKSS_BACKEND_CPU || s.sc.cuda) &&
              skss__ctx_cpu_isa(ctx) >= SKSS__CPU_ISA_AVX2;
  if (st == SKSS_OK) st = check_range(ctx, desc, &s);
  call c;
  if (st == SKSS_OK) st = prepare(ctx, desc, &s, algorithm, a, b, &c);
  if (st != SKSS_OK) return st;
  skss_align_result r = {0, -1, -1, -1, -1, 0};
  st = run(ctx, desc, &s, algorithm, &c, &r, ops);
  if (st == SKSS_OK) *result = r;
  return st;
}

static bool is_op(char op) { return op == '=' || op == 'X' || op == 'I' || op == 'D' || op == 'M'; }

skss_status skss_align_cigar(const char *ops, int64_t count, char *out, size_t capacity, size_t *length) {
  if (length == NULL || count < 0 || (count > 0 && ops == NULL) || (capacity > 0 && out == NULL))
    return SKSS_ERR_INVALID_ARG;
  size_t len = 0;
  for (int64_t k = 0; k < count;) {
    if (!is_op(ops[k])) return SKSS_ERR_INVALID_ARG;
    int64_t run = 1;
    while (k + run < count && ops[k + run] == ops[k]) run++;
    char digits[24];
    int nd = 0;
    for (int64_t v = run; v > 0; v /= 10) digits[nd++] = (char)('0' + v % 10);
    for (int x = nd - 1; x >= 0; x--, len++)
      if (len < capacity) out[len] = digits[x];
    if (len < capacity) out[len] = ops[k];
    len++;
    k += run;
  }
  *length = len;
  if (out == NULL && capacity == 0) return SKSS_OK;
  if (capacity <= len) return SKSS_ERR_INVALID_ARG;
  out[len] = '\0';
  return SKSS_OK;
}

skss_status skss_align_score_ops(skss_ctx *ctx, const skss_align_desc *desc, const char *a, const char *b,
                                 int64_t a_begin, int64_t b_begin, const char *ops, int64_t count,
                                 int64_t *score) {
  static const char *const SFN = "skss_align_score_ops()";
  SKSS__CHECK_CTX(ctx);
  SKSS__CHECK_DESC(ctx, SFN, desc, skss_align_desc);
  if (score == NULL || count < 0 || (count > 0 && ops == NULL) || a_begin < 0 || b_begin < 0 ||
      a_begin > desc->a_len || b_begin > desc->b_len || (desc->a_len > 0 && a == NULL) ||
      (desc->b_len > 0 && b == NULL))
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                      "%s: a NULL score, ops, a or b, a negative count, or a begin outside a or b", SFN);
  scoring s;
  skss_status st = build_scoring(ctx, SFN, desc, &s);
  if (st != SKSS_OK) return st;
  int64_t i = a_begin, j = b_begin, total = 0;
  char prev = 0;
  for (int64_t k = 0; k < count; k++) {
    const char op = ops[k];
    const bool pair = op == '=' || op == 'X' || op == 'M';
    if (!is_op(op) || (op != 'D' && i >= desc->a_len) || (op != 'I' && j >= desc->b_len))
      return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: op %lld ('%c') is not an op or runs past a or b", SFN,
                        (long long)k, is_op(op) ? op : '?');
    if (pair) {
      const uint8_t x = s.code[(uint8_t)a[i]], y = s.code[(uint8_t)b[j]];
      if (x == 0xFF || y == 0xFF || (op == '=' && x != y) || (op == 'X' && x == y))
        return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: op %lld ('%c') does not fit a[%lld], b[%lld]", SFN,
                          (long long)k, op, (long long)i, (long long)j);
      total += s.sc.sub[x * SKSS__ALIGN_CODES + y];
      i++;
      j++;
    } else {
      total -= op == prev ? s.sc.extend : s.sc.open;
      if (op == 'I') i++;
      else j++;
    }
    prev = pair ? 0 : op;
  }
  *score = total;
  return SKSS_OK;
}
