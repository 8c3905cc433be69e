/*
 * cli_util.h — what the skss subcommands share: a small table-driven option
 * parser (long options, "--opt value" and "--opt=value", "--" ends options,
 * "-" is a positional meaning stdin/stdout), strict number parsing, the
 * common options (--backend, --algorithm, --threads, --json, --max-pixels,
 * --help, --version), context creation, one-line errors with sysexits.h
 * codes, monotonic timing, JSON reports built with cJSON, and staged writes
 * for commands with two outputs.
 *
 * Exit codes: EX_USAGE bad options or values, EX_DATAERR bad input data (an
 * image above the pixel limit too), EX_NOINPUT unreadable input,
 * EX_UNAVAILABLE a backend or algorithm this build or machine lacks,
 * EX_OSERR out of memory (or above a memory limit), EX_TEMPFAIL a time
 * limit (--time-limit) reached, EX_CANTCREAT an output
 * that cannot be written, EX_IOERR a failed write to stdout, EX_SOFTWARE any
 * other library failure.
 */
#ifndef SKSS_CLI_UTIL_H
#define SKSS_CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sysexits.h>

#include <cJSON.h>

#include "skss.h"
#include "skss_io.h"

#if defined(__GNUC__)
#define CLI_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define CLI_PRINTF(fmt_index, first_arg)
#endif

/* Common options a subcommand accepts (bit set for cli_parse). */
enum {
  CLI_OPT_BACKEND = 1u,   /* --backend NAME and --threads N          */
  CLI_OPT_ALGORITHM = 2u, /* --algorithm NAME                         */
  CLI_OPT_JSON = 4u,      /* --json                                   */
  CLI_OPT_MAX_PIXELS = 8u /* --max-pixels N: the decoded-image limit  */
};

#define CLI_MAX_POSITIONALS 4
/* Every primitive's algorithm ids lie below this (skss.h numbers the CPU
 * algorithms from 0 and the CUDA ones from 16): walk them all, skipping the
 * ids skss_algorithm_name() has no name for, not stopping at the first. */
#define CLI_ALGORITHM_ID_LIMIT 64

/* One subcommand invocation: its name, help text and the parsed common
 * options and positionals (pointers into argv). */
typedef struct cli_cmd {
  const char *name;  /* "halftone": prefixes every message            */
  const char *usage; /* the --help text, printed verbatim              */
  const char *backend, *algorithm, *threads; /* NULL when not given  */
  const char *max_pixels_text;
  int64_t max_pixels; /* parsed --max-pixels; 0 = SKSS_IO_DEFAULT_MAX_PIXELS */
  unsigned common;    /* the CLI_OPT_* bits this command accepts        */
  int json;
  int help; /* --help or --version was given and printed: exit EX_OK  */
  int npos;
  const char *pos[CLI_MAX_POSITIONALS];
} cli_cmd;

/* A subcommand's own option: a flag (nvalues 0) or an option with one or
 * two values. `values` receives the value strings (the last occurrence
 * wins); `seen` (optional) is set to 1 when the option is given. */
typedef struct cli_opt {
  const char *name; /* with its dashes: "--kernel" */
  int nvalues;
  const char **values;
  int *seen;
} cli_opt;

/* Parses argv (argv[0] is the subcommand name). Returns EX_OK (check
 * c->help: the usage or the version was printed to stdout) or EX_USAGE after
 * printing one error line. Requires min_pos..max_pos positionals. */
int cli_parse(cli_cmd *c, int argc, char **argv, unsigned common, const cli_opt *opts,
              size_t nopts, int min_pos, int max_pos);

/* Prints "skss <cmd>: message" on stderr as one line (newlines in the message
 * become spaces) and returns `code`. */
int cli_fail(const cli_cmd *c, int code, const char *fmt, ...) CLI_PRINTF(3, 4);
/* Prints "skss <cmd>: warning: message" on stderr. */
void cli_warn(const cli_cmd *c, const char *fmt, ...) CLI_PRINTF(2, 3);
/* Reports a failed library call (the context's detail text) and maps its
 * status to an exit code. */
int cli_fail_status(const cli_cmd *c, const skss_ctx *ctx, skss_status status);

/* Strict parsing: the whole string must be the number, no blanks, no junk.
 * Integers are decimal, within [lo, hi]. Doubles may be "nan", "inf",
 * "-inf" only when allow_nonfinite, and then a literal beyond the double
 * range reads as +-inf (as Python's float() does); without it such a
 * literal fails. Literals below the smallest double read as 0. */
int cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
int cli_parse_double(const char *s, int allow_nonfinite, double *out);

/* Parses an integer option value (or keeps *out when `text` is NULL);
 * on a bad value prints "option NAME: ..." and returns EX_USAGE. */
int cli_option_i64(const cli_cmd *c, const char *name, const char *text, int64_t lo, int64_t hi,
                   int64_t *out);

/* Creates the context --backend/--threads ask for and, when op >= 0,
 * resolves --algorithm for primitive `op` into *algorithm (0 = auto),
 * checking that the backend implements it. On failure prints the error and
 * returns its exit code; *ctx is then NULL. */
int cli_context(const cli_cmd *c, int op, skss_ctx **ctx, int *algorithm);
/* Names the algorithm for output: --algorithm's text or "auto". */
const char *cli_algorithm_label(const cli_cmd *c);

/* Reads a whole input file (or stdin for "-"): EX_NOINPUT when it cannot
 * be read, EX_OSERR when memory runs out. */
int cli_read_input(const cli_cmd *c, const char *path, uint8_t **data, size_t *size);
/* Maps a skss_io failure code (SKSS_IO_ERR_*) to an exit code: EX_OSERR for
 * memory, `otherwise` for the rest. */
int cli_io_exit_code(int io_rc, int otherwise);
/* The same for a failed write of output `path`: EX_IOERR for "-" (stdout),
 * else EX_CANTCREAT. */
int cli_write_exit_code(int io_rc, const char *path);
/* Decodes an image already read from `path` with the --max-pixels limit:
 * EX_DATAERR or EX_OSERR on failure. */
int cli_decode_image(const cli_cmd *c, const char *path, const uint8_t *data, size_t size, skss_image *img);
/* Reads and decodes an image (PNG/PGM): EX_NOINPUT, EX_DATAERR or EX_OSERR
 * on failure. */
int cli_read_image(const cli_cmd *c, const char *path, skss_image *img);
/* Reads and decodes a .npy array: EX_NOINPUT, EX_DATAERR or EX_OSERR on failure. */
int cli_read_npy(const cli_cmd *c, const char *path, skss_npy *arr);
/* Only one input may be stdin: EX_USAGE when both paths are "-". */
int cli_one_stdin(const cli_cmd *c, const char *a, const char *b);

/* The image format for OUT: by extension, or PBM (bilevel) / PGM for "-";
 * EX_USAGE for an unknown extension. */
int cli_output_format(const cli_cmd *c, const char *path, int bilevel, skss_image_format *fmt);
/* An array output must be "-" or end in ".npy" (any case): else EX_USAGE. */
int cli_check_npy_output(const cli_cmd *c, const char *what, const char *path);
/* Two outputs must be different files (compared as resolved paths, or as
 * device and inode when both exist): else EX_USAGE. */
int cli_check_distinct_outputs(const cli_cmd *c, const char *what_a, const char *a, const char *what_b,
                               const char *b);

/* An image-to-image command: `apply` fills `out` (width x height bytes) from
 * `in`; cli_image_op reads IN, times `apply`, and writes OUT in `fmt`. On
 * success *img holds the input (the caller frees it) and *ms the time. */
typedef skss_status (*cli_image_fn)(skss_ctx *ctx, const skss_image *in, uint8_t *out, void *arg);
int cli_image_op(const cli_cmd *c, skss_ctx *ctx, const char *in_path, const char *out_path,
                 skss_image_format fmt, cli_image_fn apply, void *arg, skss_image *img, double *ms);

/* 1 if the bytes start with the .npy magic. */
int cli_is_npy(const uint8_t *data, size_t size);

/* malloc that reports failure (EX_OSERR message) and treats 0 bytes as 1. */
void *cli_alloc(const cli_cmd *c, int64_t count, size_t elem_size);

/* Milliseconds from CLOCK_MONOTONIC. */
double cli_now_ms(void);

/* One .npy output of a command with several (path NULL: not asked for). */
typedef struct cli_npy_output {
  const char *path;
  skss_dtype dtype;
  int ndim;
  const int64_t *shape;
  const void *data;
} cli_npy_output;

/* Writes every output to a temporary file beside its target and renames
 * them into place only when all were written, so a failed run changes none
 * of them (skss_io_stage_begin). EX_OK, EX_CANTCREAT or EX_OSERR. */
int cli_write_npy_outputs(const cli_cmd *c, const cli_npy_output *outs, int count);

/* A JSON report built as a cJSON tree in the order of the calls (keys in
 * objects, values in arrays) and printed compactly, with a newline, when
 * the outermost object or array ends. Integers are written exactly as raw
 * numbers (cJSON's own numbers are doubles). */
#define CLI_JSON_MAX_DEPTH 16
typedef struct cli_json {
  FILE *out;
  int depth;
  cJSON *stack[CLI_JSON_MAX_DEPTH];
  const char *key; /* the key of the next value in an object */
  int failed;      /* a cJSON allocation failed               */
} cli_json;

void cli_json_init(cli_json *j, FILE *out);
void cli_json_begin(cli_json *j, char bracket); /* '{' or '[' */
/* '}' or ']'. At depth 0 prints the report: 0, or -1 when memory ran out
 * (nothing printed). */
int cli_json_end(cli_json *j, char bracket);
void cli_json_key(cli_json *j, const char *key);
void cli_json_string(cli_json *j, const char *s); /* NULL writes null */
void cli_json_int(cli_json *j, int64_t v);
void cli_json_bool(cli_json *j, int v);
/* key + value in one call. */
void cli_json_kv_string(cli_json *j, const char *key, const char *s);
void cli_json_kv_int(cli_json *j, const char *key, int64_t v);
void cli_json_kv_bool(cli_json *j, const char *key, int v);
/* A duration in milliseconds, rounded to microseconds. */
void cli_json_kv_ms(cli_json *j, const char *key, double ms);
/* Ends a command's report (cli_json_end at depth 0): EX_OK, or EX_OSERR
 * with a message. */
int cli_json_finish(const cli_cmd *c, cli_json *j);

/* The common tail of a result: backend, threads, algorithm and time, as
 * text ("backend cpu (2 threads), algorithm auto, 1.234 ms") or JSON keys. */
void cli_print_run(FILE *out, const cli_cmd *c, const skss_ctx *ctx, double ms);
void cli_json_run(cli_json *j, const cli_cmd *c, const skss_ctx *ctx, double ms);

#endif
