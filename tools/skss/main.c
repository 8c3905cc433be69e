/*
 * main.c — the skss command-line tool: `skss <command> [options] ...`.
 * Dispatches argv[1] to one cmd_<name>.c (see commands.h); each command
 * parses its own options, prints its results (or --json) on stdout and one
 * error line on stderr, and exits with a sysexits.h code. Here, around every
 * command: SIGINT, SIGTERM and SIGHUP remove the temporary files of outputs
 * being written before the signal takes its default effect, and a failed
 * write to stdout (a full disk, /dev/full) is an error (EX_IOERR).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "commands.h"
#include "skss.h"
#include "skss_io.h"

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} command;

static const command COMMANDS[] = {
    {"info", skss_cmd_info, "version, backends, devices and CPU threads"},
    {"halftone", skss_cmd_halftone, "error-diffusion halftoning of a gray image"},
    {"sat", skss_cmd_sat, "summed-area table of an image or a 2-D .npy array"},
    {"boxfilter", skss_cmd_boxfilter, "mean filter of a gray image through the SAT"},
    {"knapsack", skss_cmd_knapsack, "0-1 knapsack: optimal value and chosen items"},
    {"compact", skss_cmd_compact, "stream compaction of a .npy array by a predicate"},
    {"align", skss_cmd_align, "pairwise alignment of two FASTA sequences (affine gaps)"},
    {"bench", skss_cmd_bench, "benchmark the primitives' algorithms"},
    {"demo", skss_cmd_demo, "run every primitive on the bundled photograph and instance"},
};

static void print_usage(FILE *out) {
  fputs("usage: skss <command> [options] [arguments]\n"
        "       skss --help | --version\n\n"
        "commands:\n",
        out);
  for (size_t k = 0; k < sizeof COMMANDS / sizeof COMMANDS[0]; k++)
    fprintf(out, "  %-10s %s\n", COMMANDS[k].name, COMMANDS[k].summary);
  fputs("\n'skss <command> --help' describes a command's options.\n"
        "Exit codes follow sysexits.h: 64 usage, 65 bad data, 66 no input, 69 unavailable\n"
        "backend or algorithm, 70 internal error, 71 out of memory, 73 cannot create output,\n"
        "74 cannot write to stdout.\n",
        out);
}

/* Removes the temporary output files, then dies of the signal as if no
 * handler had been installed (SA_RESETHAND restored the default action).
 * Async-signal-safe. */
static void remove_temporaries_and_die(int sig) {
  skss_io_remove_temporaries();
  raise(sig);
}

/* A signal that the caller ignores (nohup's SIGHUP) stays ignored. */
static void install_signal_handlers(void) {
  static const int SIGNALS[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t k = 0; k < sizeof SIGNALS / sizeof SIGNALS[0]; k++) {
    struct sigaction old, sa;
    if (sigaction(SIGNALS[k], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_temporaries_and_die;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGNALS[k], &sa, NULL);
  }
}

/* Flushes and closes stdout: a write that failed now or earlier (ferror)
 * turns a successful exit into EX_IOERR, with one error line. */
static int finish_stdout(const char *name, int rc) {
  int failed = fflush(stdout) != 0 || ferror(stdout);
  int e = errno;
  if (fclose(stdout) != 0 && !failed) {
    failed = 1;
    e = errno;
  }
  if (!failed) return rc;
  fprintf(stderr, "skss%s%s: cannot write to stdout: %s\n", name ? " " : "", name ? name : "", strerror(e));
  return rc == EX_OK ? EX_IOERR : rc;
}

static int run(int argc, char **argv) {
  if (argc < 2) {
    print_usage(stderr);
    return EX_USAGE;
  }
  const char *name = argv[1];
  if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
    print_usage(stdout);
    return EX_OK;
  }
  if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
    printf("skss %s\n", skss_version());
    return EX_OK;
  }
  for (size_t k = 0; k < sizeof COMMANDS / sizeof COMMANDS[0]; k++)
    if (strcmp(name, COMMANDS[k].name) == 0) return COMMANDS[k].run(argc - 1, argv + 1);
  fprintf(stderr, "skss: unknown command '%s' (see 'skss --help')\n", name);
  return EX_USAGE;
}

int main(int argc, char **argv) {
  install_signal_handlers();
  int rc = run(argc, argv);
  return finish_stdout(argc >= 2 && argv[1][0] != '-' ? argv[1] : NULL, rc);
}
