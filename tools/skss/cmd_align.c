/*
 * cmd_align.c — `skss align`: aligns the first FASTA record of A with the
 * first of B with skss_align() (global, local or semi-global; match and
 * mismatch or BLOSUM62; affine gaps) and prints the score, where the
 * alignment begins and ends in each sequence, and its CIGAR. Penalties are
 * given as positive numbers. The library call alone is timed.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"

static const char USAGE[] =
    "usage: skss align [options] A.fa B.fa\n\n"
    "Aligns the first record of FASTA file A ('-' = stdin) with the first\n"
    "record of B and prints the best score, the aligned ranges a[begin, end)\n"
    "and b[begin, end) (0-based, end excluded) and the alignment as a CIGAR\n"
    "string of = (match), X (mismatch), I (letter of A against a gap), D\n"
    "(letter of B against a gap). A gap of L letters costs\n"
    "gap-open + (L - 1) * gap-extend (parasail's convention).\n\n"
    "  --global         end to end (default)\n"
    "  --local          the best pair of substrings (Smith-Waterman)\n"
    "  --semi-global    free end gaps in both sequences (parasail's sg)\n"
    "  --match M        score of equal letters (default 2)\n"
    "  --mismatch X     penalty of different letters, >= 0 (default 3)\n"
    "  --matrix blosum62\n"
    "                   score letters by BLOSUM62 instead (protein letters)\n"
    "  --gap-open O     penalty of a gap's first letter (default 5; 11 with\n"
    "                   --matrix blosum62)\n"
    "  --gap-extend E   penalty of each further letter, E <= O (default 2; 1\n"
    "                   with --matrix blosum62)\n"
    "  --protein        read protein letters (ACDEFGHIKLMNPQRSTVWY and BZX*);\n"
    "                   default DNA (ACGTN), protein with --matrix blosum62;\n"
    "                   either case; N scores like any other letter\n"
    "  --score-only     only the score and the end (no begin, no CIGAR;\n"
    "                   local and semi-global skip a backward pass)\n"
    "  --backend B      auto (default), cpu-ref, cpu, cuda\n"
    "  --algorithm A    auto (default); cpu-ref, cpu: gotoh (one thread,\n"
    "                   Myers-Miller traceback); cpu: taskarray-cpu (tiles on\n"
    "                   all threads, checkpoint traceback); cuda: skss (each\n"
    "                   pass one kernel on the GPU)\n"
    "  --threads N      CPU threads (default: all online CPUs)\n"
    "  --json           print {\"score\", \"a_begin\", \"a_end\", \"b_begin\",\n"
    "                   \"b_end\", \"cigar\", \"mode\", \"a_length\", \"b_length\",\n"
    "                   \"time_ms\", ...}\n";

typedef struct align_args {
  const char *match_text, *mismatch_text, *matrix, *open_text, *extend_text;
  int global, local, semi, protein, score_only;
  skss_align_desc d;
  const char *a_path, *b_path;
} align_args;

static int parse_scores(cli_cmd *c, align_args *a) {
  int64_t match = 2, mismatch = 3, open = 5, extend = 2;
  a->d.scoring = SKSS_ALIGN_SCORING_MATCH_MISMATCH;
  if (a->matrix != NULL) {
    if (strcmp(a->matrix, "blosum62") != 0 && strcmp(a->matrix, "BLOSUM62") != 0)
      return cli_fail(c, EX_USAGE, "option --matrix: '%s' is not a known matrix (blosum62)", a->matrix);
    if (a->match_text != NULL || a->mismatch_text != NULL)
      return cli_fail(c, EX_USAGE, "--matrix replaces --match and --mismatch: give one or the other");
    a->d.scoring = SKSS_ALIGN_SCORING_BLOSUM62;
    a->protein = 1;
    open = 11;
    extend = 1;
  }
  const int64_t most = INT32_MAX;
  int rc = cli_option_i64(c, "--match", a->match_text, -most, most, &match);
  if (rc == EX_OK) rc = cli_option_i64(c, "--mismatch", a->mismatch_text, 0, most, &mismatch);
  if (rc == EX_OK) rc = cli_option_i64(c, "--gap-open", a->open_text, 0, most, &open);
  if (rc == EX_OK) rc = cli_option_i64(c, "--gap-extend", a->extend_text, 0, most, &extend);
  if (rc != EX_OK) return rc;
  if (extend > open)
    return cli_fail(c, EX_USAGE, "--gap-extend %lld is above --gap-open %lld (need extend <= open)",
                    (long long)extend, (long long)open);
  a->d.match = (int32_t)match;
  a->d.mismatch = (int32_t)-mismatch;
  a->d.gap_open = (int32_t)open;
  a->d.gap_extend = (int32_t)extend;
  return EX_OK;
}

static int parse_args(cli_cmd *c, int argc, char **argv, align_args *a) {
  const cli_opt opts[] = {
      {"--global", 0, NULL, &a->global},          {"--local", 0, NULL, &a->local},
      {"--semi-global", 0, NULL, &a->semi},       {"--match", 1, &a->match_text, NULL},
      {"--mismatch", 1, &a->mismatch_text, NULL}, {"--matrix", 1, &a->matrix, NULL},
      {"--gap-open", 1, &a->open_text, NULL},     {"--gap-extend", 1, &a->extend_text, NULL},
      {"--protein", 0, NULL, &a->protein},        {"--score-only", 0, NULL, &a->score_only},
  };
  int rc = cli_parse(c, argc, argv, CLI_OPT_BACKEND | CLI_OPT_ALGORITHM | CLI_OPT_JSON, opts,
                     sizeof opts / sizeof opts[0], 2, 2);
  if (rc != EX_OK || c->help) return rc;
  a->a_path = c->pos[0];
  a->b_path = c->pos[1];
  if (a->global + a->local + a->semi > 1)
    return cli_fail(c, EX_USAGE, "give at most one of --global, --local and --semi-global");
  const skss_align_desc defaults = SKSS_ALIGN_DESC_INIT;
  a->d = defaults;
  a->d.mode = a->local ? SKSS_ALIGN_MODE_LOCAL : a->semi ? SKSS_ALIGN_MODE_SEMI_GLOBAL : SKSS_ALIGN_MODE_GLOBAL;
  a->d.output = a->score_only ? SKSS_ALIGN_OUTPUT_SCORE : SKSS_ALIGN_OUTPUT_ALIGNMENT;
  rc = parse_scores(c, a);
  return rc != EX_OK ? rc : cli_one_stdin(c, a->a_path, a->b_path);
}

static int read_fasta(const cli_cmd *c, const char *path, skss_fasta_alphabet alphabet, skss_fasta *f) {
  uint8_t *data;
  size_t size;
  char err[SKSS_IO_ERRLEN];
  int rc = cli_read_input(c, path, &data, &size);
  if (rc != EX_OK) return rc;
  int io_rc = skss_fasta_parse((const char *)data, size, alphabet, f, err);
  if (io_rc != 0) rc = cli_fail(c, cli_io_exit_code(io_rc, EX_DATAERR), "%s: %s", path, err);
  free(data);
  return rc;
}

static const char *mode_name(skss_align_mode mode) {
  return mode == SKSS_ALIGN_MODE_LOCAL ? "local" : mode == SKSS_ALIGN_MODE_SEMI_GLOBAL ? "semi-global" : "global";
}

static void print_text(const cli_cmd *c, const align_args *a, const skss_fasta *fa, const skss_fasta *fb,
                       const skss_ctx *ctx, const skss_align_result *r, const char *cigar, double ms) {
  printf("align: %s, a '%s' (%lld letters), b '%s' (%lld letters)\n", mode_name(a->d.mode), fa->name,
         (long long)fa->len, fb->name, (long long)fb->len);
  printf("score: %lld\n", (long long)r->score);
  if (cigar != NULL) {
    printf("a: [%lld, %lld)  b: [%lld, %lld)\n", (long long)r->a_begin, (long long)r->a_end,
           (long long)r->b_begin, (long long)r->b_end);
    printf("cigar: %s\n", cigar);
  } else {
    printf("end: a %lld, b %lld\n", (long long)r->a_end, (long long)r->b_end);
  }
  cli_print_run(stdout, c, ctx, ms);
}

static int print_json(const cli_cmd *c, const align_args *a, const skss_fasta *fa, const skss_fasta *fb,
                      const skss_ctx *ctx, const skss_align_result *r, const char *cigar, double ms) {
  cli_json j;
  cli_json_init(&j, stdout);
  cli_json_begin(&j, '{');
  cli_json_kv_string(&j, "command", "align");
  cli_json_kv_string(&j, "mode", mode_name(a->d.mode));
  cli_json_kv_int(&j, "score", r->score);
  if (cigar != NULL) {
    cli_json_kv_int(&j, "a_begin", r->a_begin);
    cli_json_kv_int(&j, "b_begin", r->b_begin);
  }
  cli_json_kv_int(&j, "a_end", r->a_end);
  cli_json_kv_int(&j, "b_end", r->b_end);
  if (cigar != NULL) cli_json_kv_string(&j, "cigar", cigar);
  cli_json_kv_int(&j, "a_length", fa->len);
  cli_json_kv_int(&j, "b_length", fb->len);
  cli_json_kv_string(&j, "a_name", fa->name);
  cli_json_kv_string(&j, "b_name", fb->name);
  cli_json_run(&j, c, ctx, ms);
  return cli_json_finish(c, &j);
}

static int solve(const cli_cmd *c, align_args *a, skss_ctx *ctx, int algorithm, const skss_fasta *fa,
                 const skss_fasta *fb) {
  skss_align_desc *d = &a->d;
  d->a_len = fa->len;
  d->b_len = fb->len;
  d->algorithm = (skss_align_algorithm)algorithm;
  d->ops_capacity = d->output == SKSS_ALIGN_OUTPUT_ALIGNMENT ? fa->len + fb->len : 0;
  char *ops = d->ops_capacity > 0 ? cli_alloc(c, d->ops_capacity, 1) : NULL;
  if (d->ops_capacity > 0 && ops == NULL) return EX_OSERR;
  skss_align_result r;
  double t0 = cli_now_ms();
  skss_status st = skss_align(ctx, d, fa->seq, fb->seq, &r, ops);
  const double ms = cli_now_ms() - t0;
  char *cigar = NULL;
  int rc = st == SKSS_OK ? EX_OK : cli_fail_status(c, ctx, st);
  if (rc == EX_OK && ops != NULL) {
    size_t len = 0;
    skss_align_cigar(ops, r.length, NULL, 0, &len);
    if ((cigar = cli_alloc(c, (int64_t)len + 1, 1)) == NULL) rc = EX_OSERR;
    if (rc == EX_OK && skss_align_cigar(ops, r.length, cigar, len + 1, &len) != SKSS_OK)
      rc = cli_fail(c, EX_SOFTWARE, "the alignment has an op that is not =, X, I or D");
  }
  if (rc == EX_OK && c->json) rc = print_json(c, a, fa, fb, ctx, &r, cigar, ms);
  if (rc == EX_OK && !c->json) print_text(c, a, fa, fb, ctx, &r, cigar, ms);
  free(cigar);
  free(ops);
  return rc;
}

int skss_cmd_align(int argc, char **argv) {
  cli_cmd c = {.name = "align", .usage = USAGE};
  align_args a;
  memset(&a, 0, sizeof a);
  int rc = parse_args(&c, argc, argv, &a);
  if (rc != EX_OK || c.help) return rc;
  skss_ctx *ctx;
  int algorithm;
  rc = cli_context(&c, SKSS_OP_ALIGN, &ctx, &algorithm);
  if (rc != EX_OK) return rc;
  const skss_fasta_alphabet alphabet = a.protein ? SKSS_FASTA_PROTEIN : SKSS_FASTA_DNA;
  skss_fasta fa = {0}, fb = {0};
  rc = read_fasta(&c, a.a_path, alphabet, &fa);
  if (rc == EX_OK) rc = read_fasta(&c, a.b_path, alphabet, &fb);
  if (rc == EX_OK) rc = solve(&c, &a, ctx, algorithm, &fa, &fb);
  skss_fasta_free(&fa);
  skss_fasta_free(&fb);
  skss_ctx_destroy(ctx);
  return rc;
}
