/*
 * cmd_halftone.c — `skss halftone`: error-diffusion halftoning of a gray
 * image (PNG/PGM in; PBM, PGM or 1-bit PNG out) with skss_halftone(). The
 * library call alone is timed.
 */
#include <string.h>

#include "cli_util.h"
#include "commands.h"

static const char USAGE[] =
    "usage: skss halftone [options] IN OUT\n\n"
    "Error-diffusion halftoning of a gray image. IN is a PNG (colour is\n"
    "converted to gray as Pillow's convert('L')) or a PGM (P2/P5), or '-' for\n"
    "stdin. OUT's extension picks the format: .pbm (P4), .pgm (0/255), .png\n"
    "(1-bit gray); '-' writes PBM to stdout (the report then goes to stderr).\n"
    "Floyd-Steinberg with threshold 128 gives exactly Pillow's convert('1').\n\n"
    "  --kernel K       fs (default), jjn, stucki, burkes, sierra3, sierra2,\n"
    "                   sierra-lite, atkinson\n"
    "  --threshold T    integer 0..255 (default 128): pixels above T turn white\n"
    "  --backend B      auto (default), cpu-ref, cpu, cuda\n"
    "  --algorithm A    auto (default), ed, ec, ed-rc, ec-rc, taskarray-cpu;\n"
    "                   cuda: ped3, ped2-atomic, ped2-launch, pec2 (each also\n"
    "                   with -perm), 2d-ped, 2d-ped-rc, 2d-pec, 2d-pec-rc, skss,\n"
    "                   strips (`skss info` lists each backend's)\n"
    "  --threads N      CPU threads (default: all online CPUs)\n"
    "  --max-pixels N   refuse images of more than N pixels (default 2^28 =\n"
    "                   268435456; checked from the header before decoding)\n"
    "  --json           print the report as one JSON object\n";

typedef struct halftone_args {
  const char *kernel_name, *threshold_text;
  skss_dither_kernel kernel;
  int threshold;
  skss_image_format format;
  const char *in, *out;
  int algorithm; /* resolved from --algorithm */
} halftone_args;

static int parse_kernel(const cli_cmd *c, halftone_args *a) {
  a->kernel = SKSS_DITHER_KERNEL_FLOYD_STEINBERG;
  if (a->kernel_name == NULL || skss_dither_kernel_from_name(a->kernel_name, &a->kernel) == SKSS_OK)
    return EX_OK;
  return cli_fail(c, EX_USAGE,
                  "unknown kernel '%s' (known: fs, jjn, stucki, burkes, sierra3, sierra2, "
                  "sierra-lite, atkinson)",
                  a->kernel_name);
}

static int parse_args(cli_cmd *c, int argc, char **argv, halftone_args *a) {
  const cli_opt opts[] = {
      {"--kernel", 1, &a->kernel_name, NULL},
      {"--threshold", 1, &a->threshold_text, NULL},
  };
  int64_t threshold = 128;
  int rc = cli_parse(c, argc, argv, CLI_OPT_BACKEND | CLI_OPT_ALGORITHM | CLI_OPT_JSON | CLI_OPT_MAX_PIXELS,
                     opts, sizeof opts / sizeof opts[0], 2, 2);
  if (rc != EX_OK || c->help) return rc;
  a->in = c->pos[0];
  a->out = c->pos[1];
  rc = cli_option_i64(c, "--threshold", a->threshold_text, 0, 255, &threshold);
  a->threshold = (int)threshold;
  if (rc == EX_OK) rc = parse_kernel(c, a);
  if (rc == EX_OK) rc = cli_output_format(c, a->out, 1, &a->format);
  return rc;
}

static int report(const cli_cmd *c, const halftone_args *a, const skss_ctx *ctx,
                  const skss_image *img, double ms) {
  FILE *out = strcmp(a->out, "-") == 0 ? stderr : stdout;
  skss_dither_kernel_info k;
  skss_dither_kernel_get_info(a->kernel, &k);
  if (!c->json) {
    fprintf(out, "halftone %lld x %lld, kernel %s, threshold %d -> %s\n", (long long)img->width,
            (long long)img->height, k.name, a->threshold, a->out);
    cli_print_run(out, c, ctx, ms);
    return EX_OK;
  }
  cli_json j;
  cli_json_init(&j, out);
  cli_json_begin(&j, '{');
  cli_json_kv_string(&j, "command", "halftone");
  cli_json_kv_int(&j, "width", img->width);
  cli_json_kv_int(&j, "height", img->height);
  cli_json_kv_string(&j, "kernel", k.name);
  cli_json_kv_int(&j, "threshold", a->threshold);
  cli_json_kv_string(&j, "output", a->out);
  cli_json_run(&j, c, ctx, ms);
  return cli_json_finish(c, &j);
}

static skss_status apply_halftone(skss_ctx *ctx, const skss_image *img, uint8_t *out, void *arg) {
  const halftone_args *h = arg;
  skss_halftone_desc d = SKSS_HALFTONE_DESC_INIT;
  d.height = img->height;
  d.width = img->width;
  d.kernel = h->kernel;
  d.threshold = h->threshold;
  d.algorithm = (skss_halftone_algorithm)h->algorithm;
  return skss_halftone(ctx, &d, img->pixels, out);
}

int skss_cmd_halftone(int argc, char **argv) {
  cli_cmd c = {.name = "halftone", .usage = USAGE};
  halftone_args a = {0};
  int rc = parse_args(&c, argc, argv, &a);
  if (rc != EX_OK || c.help) return rc;
  skss_ctx *ctx;
  rc = cli_context(&c, SKSS_OP_HALFTONE, &ctx, &a.algorithm);
  if (rc != EX_OK) return rc;
  skss_image img = {0};
  double ms = 0;
  rc = cli_image_op(&c, ctx, a.in, a.out, a.format, apply_halftone, &a, &img, &ms);
  if (rc == EX_OK) rc = report(&c, &a, ctx, &img, ms);
  skss_image_free(&img);
  skss_ctx_destroy(ctx);
  return rc;
}
