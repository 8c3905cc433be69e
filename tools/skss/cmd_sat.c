/*
 * cmd_sat.c — `skss sat`: the summed-area table of an 8-bit image or a 2-D
 * .npy array with skss_sat(), written as a .npy array (and the SAT of the
 * squared input as a second one). The library call alone is timed.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"

static const char USAGE[] =
    "usage: skss sat [options] IN OUT.npy\n\n"
    "Summed-area table (integral image) of IN, written as a 2-D .npy array.\n"
    "IN is a PNG/PGM image (input type u8) or a 2-D C-order .npy array whose\n"
    "dtype must be the input type; '-' reads stdin, OUT '-' writes stdout.\n"
    "Integer sums wrap modulo 2^bits; a warning says when the size can wrap.\n\n"
    "  --type IN:OUT     u8:u32 (default for images), u8:i32, u8:f32, u8:f64,\n"
    "                    i32:i32, u32:u32, f32:f32, f32:f64, f64:f64; the default\n"
    "                    for a .npy is u8:u32, i32:i32, u32:u32, f32:f32 or f64:f64\n"
    "  --layout L        inclusive (default; H x W) or padded ((H+1) x (W+1), a\n"
    "                    zero first row and column, as OpenCV's integral())\n"
    "  --squared         also write the SAT of the squared input to OUT with\n"
    "                    '.npy' replaced by '.sq.npy'\n"
    "  --squared-out F   also write the squared SAT, to F (a .npy, not OUT)\n"
    "  --max-pixels N    refuse images of more than N pixels (default 2^28 =\n"
    "                    268435456; checked from the header before decoding)\n"
    "  --backend B       auto (default), cpu-ref, cpu, cuda\n"
    "  --algorithm A     auto (default), 2r2w-cpu, 4r1w-cpu, rowscan-cpu, bands-cpu;\n"
    "                    cuda: 2r2w, 4r4w, 4r1w, 2r1w, 1r1w, 1+r-r1w, skss,\n"
    "                    parallel-fair, brlt-scanrow-ks|lf, scanrow-brlt-ks|lf,\n"
    "                    scanrowcolumn-ks|lf, onepass\n"
    "  --threads N       CPU threads (default: all online CPUs)\n"
    "  --json            print the report as one JSON object\n";

typedef struct sat_args {
  const char *type_text, *layout_text, *squared_out;
  int squared;
  int type_given;
  skss_dtype in_type, out_type;
  skss_sat_layout layout;
  const char *in, *out;
  char squared_path[4096];
} sat_args;

/* The 2-D input, from an image or a .npy (whichever owns the pixels). */
typedef struct sat_input {
  skss_image img;
  skss_npy npy;
  int64_t height, width;
  const char *dtype_name; /* "bool" for bool arrays */
  skss_dtype dtype;
  const void *data;
} sat_input;

static const skss_dtype PAIRS[][2] = {
    {SKSS_DTYPE_U8, SKSS_DTYPE_U32},  {SKSS_DTYPE_U8, SKSS_DTYPE_I32},
    {SKSS_DTYPE_U8, SKSS_DTYPE_F32},  {SKSS_DTYPE_U8, SKSS_DTYPE_F64},
    {SKSS_DTYPE_I32, SKSS_DTYPE_I32}, {SKSS_DTYPE_U32, SKSS_DTYPE_U32},
    {SKSS_DTYPE_F32, SKSS_DTYPE_F32}, {SKSS_DTYPE_F32, SKSS_DTYPE_F64},
    {SKSS_DTYPE_F64, SKSS_DTYPE_F64},
};
#define N_PAIRS (sizeof PAIRS / sizeof PAIRS[0])

static int is_pair(skss_dtype in, skss_dtype out) {
  for (size_t k = 0; k < N_PAIRS; k++)
    if (PAIRS[k][0] == in && PAIRS[k][1] == out) return 1;
  return 0;
}

static int parse_type(const cli_cmd *c, sat_args *a) {
  char in[16], out[16];
  a->in_type = SKSS_DTYPE_U8;
  a->out_type = SKSS_DTYPE_U32;
  a->type_given = a->type_text != NULL;
  if (!a->type_given) return EX_OK;
  const char *colon = strchr(a->type_text, ':');
  size_t n = colon ? (size_t)(colon - a->type_text) : 0;
  if (colon != NULL && n < sizeof in && strlen(colon + 1) < sizeof out) {
    memcpy(in, a->type_text, n);
    in[n] = '\0';
    strcpy(out, colon + 1);
    if (skss_dtype_from_name(in, &a->in_type) == SKSS_OK &&
        skss_dtype_from_name(out, &a->out_type) == SKSS_OK && is_pair(a->in_type, a->out_type))
      return EX_OK;
  }
  return cli_fail(c, EX_USAGE,
                  "unknown --type '%s' (known: u8:u32, u8:i32, u8:f32, u8:f64, i32:i32, u32:u32, "
                  "f32:f32, f32:f64, f64:f64)",
                  a->type_text);
}

static int parse_layout(const cli_cmd *c, sat_args *a) {
  a->layout = SKSS_SAT_LAYOUT_INCLUSIVE;
  if (a->layout_text == NULL || strcmp(a->layout_text, "inclusive") == 0) return EX_OK;
  if (strcmp(a->layout_text, "padded") == 0) {
    a->layout = SKSS_SAT_LAYOUT_PADDED;
    return EX_OK;
  }
  return cli_fail(c, EX_USAGE, "unknown --layout '%s' (known: inclusive, padded)", a->layout_text);
}

/* Where the squared SAT goes: --squared-out, else OUT with .sq.npy for .npy. */
static int squared_path(const cli_cmd *c, sat_args *a) {
  if (a->squared_out != NULL) {
    a->squared = 1;
    if (strcmp(a->out, "-") == 0 && strcmp(a->squared_out, "-") == 0)
      return cli_fail(c, EX_USAGE, "OUT and --squared-out cannot both be '-'");
    snprintf(a->squared_path, sizeof a->squared_path, "%s", a->squared_out);
    return EX_OK;
  }
  if (!a->squared) return EX_OK;
  if (strcmp(a->out, "-") == 0)
    return cli_fail(c, EX_USAGE, "--squared with OUT '-' needs --squared-out FILE");
  size_t len = strlen(a->out) - 4; /* OUT ends in .npy (cli_check_npy_output) */
  if (len + 8 > sizeof a->squared_path)
    return cli_fail(c, EX_USAGE, "output path too long: %s", a->out);
  snprintf(a->squared_path, sizeof a->squared_path, "%.*s.sq.npy", (int)len, a->out);
  return EX_OK;
}

static int parse_args(cli_cmd *c, int argc, char **argv, sat_args *a) {
  const cli_opt opts[] = {
      {"--type", 1, &a->type_text, NULL},
      {"--layout", 1, &a->layout_text, NULL},
      {"--squared", 0, NULL, &a->squared},
      {"--squared-out", 1, &a->squared_out, NULL},
  };
  int rc = cli_parse(c, argc, argv, CLI_OPT_BACKEND | CLI_OPT_ALGORITHM | CLI_OPT_JSON | CLI_OPT_MAX_PIXELS,
                     opts, sizeof opts / sizeof opts[0], 2, 2);
  if (rc != EX_OK || c->help) return rc;
  a->in = c->pos[0];
  a->out = c->pos[1];
  rc = parse_type(c, a);
  if (rc == EX_OK) rc = parse_layout(c, a);
  if (rc == EX_OK) rc = cli_check_npy_output(c, "OUT", a->out);
  if (rc == EX_OK) rc = squared_path(c, a);
  if (rc == EX_OK && a->squared_out != NULL) rc = cli_check_npy_output(c, "--squared-out", a->squared_out);
  if (rc == EX_OK && a->squared) rc = cli_check_distinct_outputs(c, "OUT", a->out, "the squared output", a->squared_path);
  return rc;
}

/* The default pair for a .npy's dtype: its own type, u32 sums for u8. */
static int natural_pair(skss_dtype in, skss_dtype *out) {
  for (size_t k = 0; k < N_PAIRS; k++) {
    if (PAIRS[k][0] == in && (PAIRS[k][1] == in || in == SKSS_DTYPE_U8)) {
      *out = PAIRS[k][1];
      return 1;
    }
  }
  return 0;
}

static int check_npy(const cli_cmd *c, sat_args *a, sat_input *s) {
  if (s->npy.ndim != 2)
    return cli_fail(c, EX_DATAERR, "%s: a SAT needs a 2-D array, not %d-D", a->in, s->npy.ndim);
  s->height = s->npy.shape[0];
  s->width = s->npy.shape[1];
  if (s->height > SKSS_IO_MAX_PIXELS || s->width > SKSS_IO_MAX_PIXELS)
    return cli_fail(c, EX_DATAERR, "%s: shape %lld x %lld is too large", a->in,
                    (long long)s->height, (long long)s->width);
  s->dtype = s->npy.dtype;
  s->dtype_name = s->npy.is_bool ? "bool" : skss_dtype_name(s->npy.dtype);
  s->data = s->npy.data;
  if (!a->type_given && !s->npy.is_bool && natural_pair(s->dtype, &a->out_type)) {
    a->in_type = s->dtype;
    return EX_OK;
  }
  if (!a->type_given)
    return cli_fail(c, EX_DATAERR, "%s: no SAT type for dtype %s (input types: u8, i32, u32, f32, f64)",
                    a->in, s->dtype_name);
  if (s->npy.is_bool || s->dtype != a->in_type)
    return cli_fail(c, EX_DATAERR, "%s: array dtype %s does not match --type %s (input %s)", a->in,
                    s->dtype_name, a->type_text, skss_dtype_name(a->in_type));
  return EX_OK;
}

static int check_image(const cli_cmd *c, const sat_args *a, sat_input *s) {
  s->height = s->img.height;
  s->width = s->img.width;
  s->dtype = SKSS_DTYPE_U8;
  s->dtype_name = "u8";
  s->data = s->img.pixels;
  if (a->in_type != SKSS_DTYPE_U8)
    return cli_fail(c, EX_DATAERR, "%s: an image is u8 but --type %s needs %s input", a->in,
                    a->type_text, skss_dtype_name(a->in_type));
  return EX_OK;
}

static int read_input(const cli_cmd *c, sat_args *a, sat_input *s) {
  uint8_t *data;
  size_t size;
  char err[SKSS_IO_ERRLEN];
  int rc = cli_read_input(c, a->in, &data, &size);
  if (rc != EX_OK) return rc;
  if (cli_is_npy(data, size)) {
    int io_rc = skss_npy_decode(data, size, &s->npy, err);
    rc = io_rc != 0 ? cli_fail(c, cli_io_exit_code(io_rc, EX_DATAERR), "%s: %s", a->in, err) : check_npy(c, a, s);
  } else {
    rc = cli_decode_image(c, a->in, data, size, &s->img);
    if (rc == EX_OK) rc = check_image(c, a, s);
  }
  free(data);
  return rc;
}

static void warn_if_wraps(const cli_cmd *c, const sat_args *a, const sat_input *s) {
  if (!skss_sat_can_wrap(a->in_type, a->out_type, s->height, s->width, a->squared)) return;
  const char *out = skss_dtype_name(a->out_type);
  const char *effect = a->out_type == SKSS_DTYPE_F32   ? "lose exactness past 2^24"
                       : a->out_type == SKSS_DTYPE_F64 ? "lose exactness past 2^53"
                                                       : "wrap modulo 2^32 (rectangle sums stay "
                                                         "right while they fit)";
  cli_warn(c, "%ssums of a %lld x %lld %s input can exceed %s and %s", a->squared ? "squared " : "",
           (long long)s->height, (long long)s->width, skss_dtype_name(a->in_type), out, effect);
}

static const char *layout_name(skss_sat_layout layout) {
  return layout == SKSS_SAT_LAYOUT_PADDED ? "padded" : "inclusive";
}

static int report(const cli_cmd *c, const sat_args *a, const sat_input *s, const skss_ctx *ctx,
                  double ms) {
  FILE *out = strcmp(a->out, "-") == 0 || (a->squared && strcmp(a->squared_path, "-") == 0) ? stderr : stdout;
  if (!c->json) {
    fprintf(out, "sat %lld x %lld, %s:%s, %s -> %s%s%s\n", (long long)s->height,
            (long long)s->width, skss_dtype_name(a->in_type), skss_dtype_name(a->out_type),
            layout_name(a->layout), a->out, a->squared ? ", squared -> " : "",
            a->squared ? a->squared_path : "");
    cli_print_run(out, c, ctx, ms);
    return EX_OK;
  }
  cli_json j;
  cli_json_init(&j, out);
  cli_json_begin(&j, '{');
  cli_json_kv_string(&j, "command", "sat");
  cli_json_kv_int(&j, "height", s->height);
  cli_json_kv_int(&j, "width", s->width);
  cli_json_kv_string(&j, "in_type", skss_dtype_name(a->in_type));
  cli_json_kv_string(&j, "out_type", skss_dtype_name(a->out_type));
  cli_json_kv_string(&j, "layout", layout_name(a->layout));
  cli_json_kv_bool(&j, "can_wrap", skss_sat_can_wrap(a->in_type, a->out_type, s->height, s->width, a->squared));
  cli_json_kv_string(&j, "output", a->out);
  cli_json_kv_string(&j, "squared_output", a->squared ? a->squared_path : NULL);
  cli_json_run(&j, c, ctx, ms);
  return cli_json_finish(c, &j);
}

static int write_outputs(const cli_cmd *c, const sat_args *a, const int64_t shape[2],
                         const void *sums, const void *sq) {
  const cli_npy_output outs[2] = {{a->out, a->out_type, 2, shape, sums},
                                  {a->squared ? a->squared_path : NULL, a->out_type, 2, shape, sq}};
  return cli_write_npy_outputs(c, outs, 2);
}

static int compute(const cli_cmd *c, const sat_args *a, skss_ctx *ctx, int algorithm,
                   const sat_input *s) {
  int64_t pad = a->layout == SKSS_SAT_LAYOUT_PADDED;
  int64_t shape[2] = {s->height + pad, s->width + pad};
  size_t elem = skss_dtype_size(a->out_type);
  void *sums = cli_alloc(c, shape[0] * shape[1], elem);
  void *sq = a->squared && sums ? cli_alloc(c, shape[0] * shape[1], elem) : NULL;
  if (sums == NULL || (a->squared && sq == NULL)) {
    free(sums);
    return EX_OSERR;
  }
  skss_sat_desc d = SKSS_SAT_DESC_INIT;
  d.height = s->height;
  d.width = s->width;
  d.in_type = a->in_type;
  d.out_type = a->out_type;
  d.layout = a->layout;
  d.algorithm = (skss_sat_algorithm)algorithm;
  double t0 = cli_now_ms();
  skss_status st = skss_sat(ctx, &d, s->data, sums, sq);
  double ms = cli_now_ms() - t0;
  int rc = st != SKSS_OK ? cli_fail_status(c, ctx, st) : write_outputs(c, a, shape, sums, sq);
  if (rc == EX_OK) warn_if_wraps(c, a, s);
  if (rc == EX_OK) rc = report(c, a, s, ctx, ms);
  free(sums);
  free(sq);
  return rc;
}

int skss_cmd_sat(int argc, char **argv) {
  cli_cmd c = {.name = "sat", .usage = USAGE};
  sat_args a = {0};
  int rc = parse_args(&c, argc, argv, &a);
  if (rc != EX_OK || c.help) return rc;
  skss_ctx *ctx;
  int algorithm;
  rc = cli_context(&c, SKSS_OP_SAT, &ctx, &algorithm);
  if (rc != EX_OK) return rc;
  sat_input s = {0};
  rc = read_input(&c, &a, &s);
  if (rc == EX_OK) rc = compute(&c, &a, ctx, algorithm, &s);
  skss_image_free(&s.img);
  skss_npy_free(&s.npy);
  skss_ctx_destroy(ctx);
  return rc;
}
