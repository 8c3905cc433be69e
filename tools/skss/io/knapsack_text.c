/*
 * knapsack_text.c — knapsack instances as text, our own line-based parser:
 * the standard generator's format (Pisinger's gen*.c: n, then n lines
 * "id value weight", then the capacity) or CSV "weight,value" lines with an
 * optional header and a capacity given by the caller. Numbers are decimal
 * non-negative int64 only; anything else (signs, fractions, exponents, NaN,
 * overflow, stray text) is an error naming the line. The item count is
 * checked against the text's length before the arrays are allocated.
 * Single-threaded.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io_internal.h"

/* Fewest bytes one generator item line takes: "1 2 3\n". */
#define SKSS__KS_MIN_ITEM_BYTES 6

typedef struct skss__ks_text {
  const uint8_t *data;
  size_t size;
  size_t pos;       /* start of the next line */
  int64_t line;     /* number of the line last returned, 1-based */
} skss__ks_text;

typedef struct skss__ks_line {
  const uint8_t *data;
  size_t size;
  int64_t number;
} skss__ks_line;

static bool skss__ks_blank_byte(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* The next non-blank line; false at the end of the text. */
static bool skss__ks_next_line(skss__ks_text *t, skss__ks_line *line) {
  while (t->pos < t->size) {
    size_t start = t->pos, end = start;
    while (end < t->size && t->data[end] != '\n') ++end;
    t->pos = end < t->size ? end + 1 : end;
    ++t->line;
    size_t first = start;
    while (first < end && skss__ks_blank_byte(t->data[first])) ++first;
    if (first < end) {
      *line = (skss__ks_line){t->data + start, end - start, t->line};
      return true;
    }
  }
  return false;
}

static void skss__ks_skip_blank(const skss__ks_line *line, size_t *pos) {
  while (*pos < line->size && skss__ks_blank_byte(line->data[*pos])) ++*pos;
}

/* Reports the token at pos (up to the next blank or comma, 16 bytes at most). */
static int skss__ks_bad_token(const skss__ks_line *line, size_t pos, const char *why, char *err) {
  if (pos >= line->size) return skss__io_fail(err, "line %lld: %s, found the end of the line", (long long)line->number, why);
  size_t end = pos;
  while (end < line->size && end - pos < 16 && !skss__ks_blank_byte(line->data[end]) && line->data[end] != ',') ++end;
  if (end == pos) ++end;
  return skss__io_fail(err, "line %lld: %s, found '%.*s'", (long long)line->number, why, (int)(end - pos),
                       (const char *)line->data + pos);
}

/* Exactly `count` numbers separated by blanks (sep == ' ') or by commas. */
static int skss__ks_fields(const skss__ks_line *line, char sep, int count, int64_t *values, char *err) {
  size_t pos = 0;
  for (int k = 0; k < count; ++k) {
    skss__ks_skip_blank(line, &pos);
    if (k > 0 && sep == ',') {
      if (pos >= line->size || line->data[pos] != ',')
        return skss__ks_bad_token(line, pos, "expected ',' between the weight and the value", err);
      ++pos;
      skss__ks_skip_blank(line, &pos);
    }
    size_t start = pos;
    skss__io_num num = skss__io_scan_u63(line->data, line->size, &pos, &values[k]);
    if (num == SKSS__IO_NUM_OVERFLOW)
      return skss__ks_bad_token(line, start, "number does not fit a 64-bit integer", err);
    bool ends = pos >= line->size || skss__ks_blank_byte(line->data[pos]) || line->data[pos] == sep;
    if (num == SKSS__IO_NUM_NONE || !ends)
      return skss__ks_bad_token(line, start, "expected a non-negative integer", err);
  }
  skss__ks_skip_blank(line, &pos);
  if (pos < line->size)
    return skss__io_fail(err, "line %lld: expected %d number%s, found more text", (long long)line->number, count,
                         count > 1 ? "s" : "");
  return 0;
}

static int skss__ks_alloc(int64_t n, skss_knapsack_instance *out, char *err) {
  size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(int64_t);
  out->ids = malloc(bytes);
  out->weights = malloc(bytes);
  out->values = malloc(bytes);
  if (out->ids != NULL && out->weights != NULL && out->values != NULL) return 0;
  skss_knapsack_instance_free(out);
  return skss__io_fail_nomem(err, "out of memory for %lld items", (long long)n);
}

static int skss__ks_parse_generator(skss__ks_text *t, int64_t capacity_override, skss_knapsack_instance *out,
                                    char *err) {
  skss__ks_line line;
  int64_t n, fields[3];
  if (!skss__ks_next_line(t, &line) || skss__ks_fields(&line, ' ', 1, &n, err) != 0) return -1;
  if ((uint64_t)n > t->size / SKSS__KS_MIN_ITEM_BYTES)
    return skss__io_fail(err, "line %lld: %lld items cannot fit in %zu bytes of text", (long long)line.number,
                         (long long)n, t->size);
  if (skss__ks_alloc(n, out, err) != 0) return SKSS_IO_ERR_NOMEM;
  for (int64_t i = 0; i < n; ++i) {
    if (!skss__ks_next_line(t, &line))
      return skss__io_fail(err, "the file ends after %lld of %lld items", (long long)i, (long long)n);
    if (skss__ks_fields(&line, ' ', 3, fields, err) != 0) return -1;
    out->ids[i] = fields[0];
    out->values[i] = fields[1];
    out->weights[i] = fields[2];
  }
  out->n = n;
  if (!skss__ks_next_line(t, &line)) {
    if (capacity_override >= 0) return 0;
    return skss__io_fail(err, "the capacity line after the %lld items is missing", (long long)n);
  }
  if (skss__ks_fields(&line, ' ', 1, &out->capacity, err) != 0) return -1;
  if (skss__ks_next_line(t, &line))
    return skss__io_fail(err, "line %lld: unexpected text after the capacity", (long long)line.number);
  return 0;
}

/* "weight,value" in any case, with blanks around the words. */
static bool skss__ks_is_csv_header(const skss__ks_line *line) {
  char words[32];
  size_t len = 0;
  for (size_t i = 0; i < line->size; ++i) {
    if (skss__ks_blank_byte(line->data[i])) continue;
    if (len + 1 >= sizeof words) return false;
    words[len++] = (char)line->data[i];
  }
  words[len] = '\0';
  return strcasecmp(words, "weight,value") == 0;
}

static int skss__ks_parse_csv(skss__ks_text *t, int64_t capacity_override, skss_knapsack_instance *out, char *err) {
  if (capacity_override < 0)
    return skss__io_fail(err, "a CSV instance has no capacity line; give the capacity separately");
  skss__ks_text scan = *t;
  skss__ks_line line;
  int64_t n = 0;
  while (skss__ks_next_line(&scan, &line)) ++n;
  skss__ks_text again = *t;
  skss__ks_next_line(&again, &line);
  bool header = skss__ks_is_csv_header(&line);
  if (header) --n;
  if (skss__ks_alloc(n, out, err) != 0) return SKSS_IO_ERR_NOMEM;
  if (header) skss__ks_next_line(t, &line);
  int64_t fields[2];
  for (int64_t i = 0; i < n; ++i) {
    skss__ks_next_line(t, &line);
    if (skss__ks_fields(&line, ',', 2, fields, err) != 0) return -1;
    out->ids[i] = i + 1;
    out->weights[i] = fields[0];
    out->values[i] = fields[1];
  }
  out->n = n;
  return 0;
}

static bool skss__ks_is_csv(const skss__ks_line *first) {
  return memchr(first->data, ',', first->size) != NULL || skss__ks_is_csv_header(first);
}

void skss_knapsack_instance_free(skss_knapsack_instance *inst) {
  if (inst == NULL) return;
  free(inst->ids);
  free(inst->weights);
  free(inst->values);
  memset(inst, 0, sizeof *inst);
}

int skss_knapsack_parse(const char *text, size_t size, int64_t capacity_override, skss_knapsack_instance *out,
                        char err[SKSS_IO_ERRLEN]) {
  if (out == NULL) return skss__io_fail(err, "skss_knapsack_parse(): out is NULL");
  memset(out, 0, sizeof *out);
  if (text == NULL && size > 0) return skss__io_fail(err, "skss_knapsack_parse(): text is NULL");
  const uint8_t *data = (const uint8_t *)text;
  if (size > 0 && memchr(data, '\0', size) != NULL) return skss__io_fail(err, "a NUL byte in a text file");
  skss__ks_text t = {data, size, 0, 0};
  skss__ks_text peek = t;
  skss__ks_line first;
  if (!skss__ks_next_line(&peek, &first)) return skss__io_fail(err, "no knapsack instance: the text is empty");
  int rc = skss__ks_is_csv(&first) ? skss__ks_parse_csv(&t, capacity_override, out, err)
                                   : skss__ks_parse_generator(&t, capacity_override, out, err);
  if (rc != 0) {
    skss_knapsack_instance_free(out);
    return rc;
  }
  if (capacity_override >= 0) out->capacity = capacity_override;
  return 0;
}

int skss_knapsack_read(const char *path, int64_t capacity_override, skss_knapsack_instance *out, char err[SKSS_IO_ERRLEN]) {
  if (out != NULL) memset(out, 0, sizeof *out);
  if (path == NULL || out == NULL) return skss__io_fail(err, "skss_knapsack_read(): path and out must not be NULL");
  uint8_t *data;
  size_t size;
  int rc = skss_read_file(path, (size_t)SKSS_IO_MAX_FILE_BYTES, &data, &size, err);
  if (rc != 0) return rc;
  rc = skss_knapsack_parse((const char *)data, size, capacity_override, out, err);
  free(data);
  return rc == 0 ? 0 : skss__io_fail_path(err, path, rc);
}
