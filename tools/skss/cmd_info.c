/*
 * cmd_info.c — `skss info [--json]`: the library version, which backends
 * this build has and can use, the CUDA devices found, the CPU threads a
 * context uses by default, and the algorithms each backend implements.
 */
#include <stdio.h>
#include <unistd.h>

#include "cli_util.h"
#include "commands.h"

static const char USAGE[] =
    "usage: skss info [--json]\n\n"
    "Prints the version, the backends built into this skss (cpu-ref, cpu, cuda)\n"
    "and whether each can run here, the CUDA devices found (name, compute\n"
    "capability, multiprocessors, memory), the CPU threads a context uses by\n"
    "default, the algorithms of each primitive with the backends that implement\n"
    "them, and the halftone kernels.\n\n"
    "  --json   print one JSON object instead of text\n";

static const skss_backend BACKENDS[] = {SKSS_BACKEND_CPU_REF, SKSS_BACKEND_CPU, SKSS_BACKEND_CUDA};
#define N_BACKENDS (sizeof BACKENDS / sizeof BACKENDS[0])
static const char *const OP_NAMES[] = {"sat", "halftone", "knapsack", "compact", "align"};
#define N_OPS (sizeof OP_NAMES / sizeof OP_NAMES[0])

static int cpu_threads(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : (int)n;
}

static void print_text_backends(void) {
  puts("backends:");
  for (size_t k = 0; k < N_BACKENDS; k++) {
    skss_backend b = BACKENDS[k];
    printf("  %-8s %s\n", skss_backend_name(b),
           !skss_backend_built(b)       ? "not built"
           : skss_backend_available(b) ? "built, available"
                                       : "built, no device");
  }
}

static void print_text_devices(void) {
  int n = skss_device_count();
  printf("cuda devices: %d\n", n);
  for (int d = 0; d < n; d++) {
    skss_device_info info;
    if (skss_device_get_info(d, &info) != SKSS_OK) continue;
    printf("  %d: %s, compute capability %d.%d, %d multiprocessors, %.1f GiB\n", d, info.name,
           info.major, info.minor, info.multiprocessors,
           (double)info.global_memory / (1024.0 * 1024.0 * 1024.0));
  }
}

static void print_text_algorithms(void) {
  puts("algorithms (backends):");
  for (size_t op = 0; op < N_OPS; op++) {
    printf("  %-9s", OP_NAMES[op]);
    for (int a = 0; a < CLI_ALGORITHM_ID_LIMIT; a++) {
      if (skss_algorithm_name((skss_op)op, a) == NULL) continue;
      printf(" %s(", skss_algorithm_name((skss_op)op, a));
      int first = 1;
      for (size_t k = 0; k < N_BACKENDS; k++) {
        if (!skss_algorithm_supported((skss_op)op, a, BACKENDS[k])) continue;
        printf("%s%s", first ? "" : ",", skss_backend_name(BACKENDS[k]));
        first = 0;
      }
      putchar(')');
    }
    putchar('\n');
  }
}

static void print_text_kernels(void) {
  fputs("halftone kernels:", stdout);
  for (int k = 0; k < SKSS_DITHER_KERNEL_COUNT; k++) {
    skss_dither_kernel_info info;
    if (skss_dither_kernel_get_info((skss_dither_kernel)k, &info) == SKSS_OK)
      printf(" %s", info.name);
  }
  putchar('\n');
}

static void print_text(void) {
  printf("skss %s\n", skss_version());
  print_text_backends();
  print_text_devices();
  printf("cpu threads: %d\n", cpu_threads());
  print_text_algorithms();
  print_text_kernels();
}

static void json_backends(cli_json *j) {
  cli_json_key(j, "backends");
  cli_json_begin(j, '{');
  for (size_t k = 0; k < N_BACKENDS; k++) {
    cli_json_key(j, skss_backend_name(BACKENDS[k]));
    cli_json_begin(j, '{');
    cli_json_kv_bool(j, "built", skss_backend_built(BACKENDS[k]));
    cli_json_kv_bool(j, "available", skss_backend_available(BACKENDS[k]));
    cli_json_end(j, '}');
  }
  cli_json_end(j, '}');
}

static void json_devices(cli_json *j) {
  cli_json_key(j, "devices");
  cli_json_begin(j, '[');
  for (int d = 0; d < skss_device_count(); d++) {
    skss_device_info info;
    if (skss_device_get_info(d, &info) != SKSS_OK) continue;
    char cc[32];
    snprintf(cc, sizeof cc, "%d.%d", info.major, info.minor);
    cli_json_begin(j, '{');
    cli_json_kv_int(j, "ordinal", d);
    cli_json_kv_string(j, "name", info.name);
    cli_json_kv_string(j, "compute_capability", cc);
    cli_json_kv_int(j, "multiprocessors", info.multiprocessors);
    cli_json_kv_int(j, "memory_bytes", info.global_memory);
    cli_json_end(j, '}');
  }
  cli_json_end(j, ']');
}

static void json_algorithms(cli_json *j) {
  cli_json_key(j, "algorithms");
  cli_json_begin(j, '{');
  for (size_t op = 0; op < N_OPS; op++) {
    cli_json_key(j, OP_NAMES[op]);
    cli_json_begin(j, '{');
    for (int a = 0; a < CLI_ALGORITHM_ID_LIMIT; a++) {
      if (skss_algorithm_name((skss_op)op, a) == NULL) continue;
      cli_json_key(j, skss_algorithm_name((skss_op)op, a));
      cli_json_begin(j, '[');
      for (size_t k = 0; k < N_BACKENDS; k++)
        if (skss_algorithm_supported((skss_op)op, a, BACKENDS[k]))
          cli_json_string(j, skss_backend_name(BACKENDS[k]));
      cli_json_end(j, ']');
    }
    cli_json_end(j, '}');
  }
  cli_json_end(j, '}');
}

static void json_kernels(cli_json *j) {
  cli_json_key(j, "halftone_kernels");
  cli_json_begin(j, '[');
  for (int k = 0; k < SKSS_DITHER_KERNEL_COUNT; k++) {
    skss_dither_kernel_info info;
    if (skss_dither_kernel_get_info((skss_dither_kernel)k, &info) == SKSS_OK)
      cli_json_string(j, info.name);
  }
  cli_json_end(j, ']');
}

static int print_json(const cli_cmd *c) {
  cli_json j;
  cli_json_init(&j, stdout);
  cli_json_begin(&j, '{');
  cli_json_kv_string(&j, "version", skss_version());
  json_backends(&j);
  json_devices(&j);
  cli_json_kv_int(&j, "cpu_threads", cpu_threads());
  json_algorithms(&j);
  json_kernels(&j);
  return cli_json_finish(c, &j);
}

int skss_cmd_info(int argc, char **argv) {
  cli_cmd c = {.name = "info", .usage = USAGE};
  int rc = cli_parse(&c, argc, argv, CLI_OPT_JSON, NULL, 0, 0, 0);
  if (rc != EX_OK || c.help) return rc;
  if (c.json) return print_json(&c);
  print_text();
  return EX_OK;
}
