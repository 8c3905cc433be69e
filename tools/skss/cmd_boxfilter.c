/*
 * cmd_boxfilter.c — `skss boxfilter`: the (2r+1) x (2r+1) mean filter of a
 * gray image through the summed-area table (skss_boxfilter_u8), written as a
 * PGM or 8-bit PNG. The library call alone is timed.
 */
#include <string.h>

#include "cli_util.h"
#include "commands.h"

static const char USAGE[] =
    "usage: skss boxfilter --radius R [options] IN OUT\n\n"
    "Mean filter of a gray image over (2R+1) x (2R+1) windows, computed from\n"
    "the summed-area table; each output is floor((sum + count/2) / count).\n"
    "IN is a PNG or PGM ('-' = stdin); OUT's extension picks .pgm or .png\n"
    "(8-bit gray); '-' writes PGM to stdout (the report then goes to stderr).\n\n"
    "  --radius R       window radius, an integer >= 0 (0 copies the image)\n"
    "  --border B       clip (default: the window is cut to the image and the\n"
    "                   mean is over the pixels inside) or zero (outside pixels\n"
    "                   count as 0, the divisor is always (2R+1)^2)\n"
    "  --backend B      auto (default), cpu-ref, cpu, cuda\n"
    "  --algorithm A    the SAT algorithm inside: auto (default), 2r2w-cpu,\n"
    "                   4r1w-cpu, rowscan-cpu, bands-cpu\n"
    "  --threads N      CPU threads (default: all online CPUs)\n"
    "  --max-pixels N   refuse images of more than N pixels (default 2^28 =\n"
    "                   268435456; checked from the header before decoding)\n"
    "  --json           print the report as one JSON object\n";

typedef struct box_args {
  const char *radius_text, *border_text;
  int64_t radius;
  skss_boxfilter_border border;
  skss_image_format format;
  const char *in, *out;
  int algorithm; /* resolved from --algorithm */
} box_args;

static int parse_border(const cli_cmd *c, box_args *a) {
  a->border = SKSS_BOXFILTER_BORDER_CLIP;
  if (a->border_text == NULL || strcmp(a->border_text, "clip") == 0) return EX_OK;
  if (strcmp(a->border_text, "zero") == 0) {
    a->border = SKSS_BOXFILTER_BORDER_ZERO;
    return EX_OK;
  }
  return cli_fail(c, EX_USAGE, "unknown --border '%s' (known: clip, zero)", a->border_text);
}

static int parse_output_format(const cli_cmd *c, box_args *a) {
  int rc = cli_output_format(c, a->out, 0, &a->format);
  if (rc != EX_OK) return rc;
  if (a->format != SKSS_IMAGE_PGM && a->format != SKSS_IMAGE_PNG_GRAY8)
    return cli_fail(c, EX_USAGE, "%s: a filtered image is gray: write .pgm or .png", a->out);
  return EX_OK;
}

static int parse_args(cli_cmd *c, int argc, char **argv, box_args *a) {
  const cli_opt opts[] = {
      {"--radius", 1, &a->radius_text, NULL},
      {"--border", 1, &a->border_text, NULL},
  };
  int rc = cli_parse(c, argc, argv, CLI_OPT_BACKEND | CLI_OPT_ALGORITHM | CLI_OPT_JSON | CLI_OPT_MAX_PIXELS,
                     opts, sizeof opts / sizeof opts[0], 2, 2);
  if (rc != EX_OK || c->help) return rc;
  a->in = c->pos[0];
  a->out = c->pos[1];
  if (a->radius_text == NULL) return cli_fail(c, EX_USAGE, "--radius R is required");
  rc = cli_option_i64(c, "--radius", a->radius_text, 0, SKSS_IO_MAX_SIDE, &a->radius);
  if (rc == EX_OK) rc = parse_border(c, a);
  if (rc == EX_OK) rc = parse_output_format(c, a);
  return rc;
}

static int report(const cli_cmd *c, const box_args *a, const skss_ctx *ctx, const skss_image *img,
                  double ms) {
  FILE *out = strcmp(a->out, "-") == 0 ? stderr : stdout;
  const char *border = a->border == SKSS_BOXFILTER_BORDER_ZERO ? "zero" : "clip";
  if (!c->json) {
    fprintf(out, "boxfilter %lld x %lld, radius %lld, border %s -> %s\n", (long long)img->width,
            (long long)img->height, (long long)a->radius, border, a->out);
    cli_print_run(out, c, ctx, ms);
    return EX_OK;
  }
  cli_json j;
  cli_json_init(&j, out);
  cli_json_begin(&j, '{');
  cli_json_kv_string(&j, "command", "boxfilter");
  cli_json_kv_int(&j, "width", img->width);
  cli_json_kv_int(&j, "height", img->height);
  cli_json_kv_int(&j, "radius", a->radius);
  cli_json_kv_string(&j, "border", border);
  cli_json_kv_string(&j, "output", a->out);
  cli_json_run(&j, c, ctx, ms);
  return cli_json_finish(c, &j);
}

static skss_status apply_boxfilter(skss_ctx *ctx, const skss_image *img, uint8_t *out, void *arg) {
  const box_args *b = arg;
  skss_boxfilter_desc d = SKSS_BOXFILTER_DESC_INIT;
  d.height = img->height;
  d.width = img->width;
  d.radius = b->radius;
  d.border = b->border;
  d.sat_algorithm = (skss_sat_algorithm)b->algorithm;
  return skss_boxfilter_u8(ctx, &d, img->pixels, out);
}

int skss_cmd_boxfilter(int argc, char **argv) {
  cli_cmd c = {.name = "boxfilter", .usage = USAGE};
  box_args a = {0};
  int rc = parse_args(&c, argc, argv, &a);
  if (rc != EX_OK || c.help) return rc;
  skss_ctx *ctx;
  rc = cli_context(&c, SKSS_OP_SAT, &ctx, &a.algorithm);
  if (rc != EX_OK) return rc;
  skss_image img = {0};
  double ms = 0;
  rc = cli_image_op(&c, ctx, a.in, a.out, a.format, apply_boxfilter, &a, &img, &ms);
  if (rc == EX_OK) rc = report(&c, &a, ctx, &img, ms);
  skss_image_free(&img);
  skss_ctx_destroy(ctx);
  return rc;
}
